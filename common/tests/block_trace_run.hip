// The traced-run helper on a real GPU (label gpu): one-block spin kernels of 50 us traced
// on one stream and on four streams. Checks that every block left a record, that one stream
// runs one kernel at a time while four streams overlap, that each kernel lasted at least its
// spin time, and that the Chrome trace of both runs is written. Exit 0, 1 on a failed check,
// 77 without a GPU.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <string>
#include <vector>

#include "hip_lessons/device.hpp"
#include "hip_lessons/errors.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/spin_kernel.hpp"
#include "hip_lessons/streams.hpp"
#include "hip_lessons/timeline.hpp"
#include "hip_lessons/traced_run.hpp"

namespace hl = hip_lessons;

namespace {

hl::TraceFile traces;

hl::Schedule traced_run(int streams, int kernels, double ticks_per_us) {
  std::vector<hl::GpuStream> pool;
  for (int s = 0; s < streams; ++s) pool.emplace_back();
  hl::TracedRun run(traces, hl::format("{} stream(s)", streams), static_cast<std::size_t>(kernels));
  for (int k = 0; k < kernels; ++k) {
    const int s = k % streams;
    hipLaunchKernelGGL(hl::spin_kernel<>, dim3(1), dim3(64), 0, pool[s], 50.0, ticks_per_us,
                       nullptr, run.reserve("spin 50 us", 1, s));
    HIP_CHECK_LAUNCH();
  }
  return run.finish();
}

int failures = 0;
void expect(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  failures += ok ? 0 : 1;
}

}  // namespace

int main() {
  try {
    hl::open_device(0);
    const double ticks_per_us = hl::spin_ticks_per_microsecond();
    traced_run(1, 2, ticks_per_us);  // warm-up: module load and stream creation
    const hl::Schedule serial = traced_run(1, 8, ticks_per_us);
    const hl::Schedule spread = traced_run(4, 8, ticks_per_us);
    expect(serial.blocks().size() == 8 && spread.blocks().size() == 8, "every block recorded");
    expect(serial.peak_concurrent_launches() == 1,
           hl::format("one stream: {} kernel(s) at once (1 expected)",
                      serial.peak_concurrent_launches()));
    expect(spread.peak_concurrent_launches() >= 2,
           hl::format("four streams: {} kernels at once (>= 2 expected)",
                      spread.peak_concurrent_launches()));
    bool long_enough = true;
    for (const auto& [launch, l] : serial.launches()) {
      long_enough = long_enough && l.span.end - l.span.start >= 49.0;
    }
    expect(long_enough, "every traced kernel lasted at least its 50 us of spinning");
    expect(serial.span_us() >= 8 * 49.0,
           hl::format("one stream spans {:.1} us (>= 392)", serial.span_us()));
    std::printf("%s", hl::render_timeline(hl::rows_by_launch(serial), serial.span_us()).c_str());
    std::printf("%s", hl::render_timeline(hl::rows_by_launch(spread), spread.span_us()).c_str());
    expect(traces.runs().size() == 3,
           hl::format("every traced run kept ({} of 3)", traces.runs().size()));
    const std::string json = hl::chrome_trace_json(traces.runs());
    expect(json.find("\"4 stream(s): compute units\"") != std::string::npos,
           "Chrome trace of the kept runs");
  } catch (const hl::SkipError& skip) {
    std::printf("skipped: %s\n", skip.what());
    return hl::kExitSkip;
  } catch (const std::exception& error) {
    std::printf("FAIL %s\n", error.what());
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
