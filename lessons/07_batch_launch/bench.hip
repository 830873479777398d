/// \file lessons/07_batch_launch/bench.hip
/// \brief Google Benchmark cases of lesson 07: time per kernel against the batch size
/// (1..10000 segments of 4096 elements) for each launch method of kernels.hpp's every_way()
/// (on AMD also hipExtLaunchKernelGGL with and without hipExtAnyOrderLaunch). The lesson times
/// one batch size; this sweep shows where the launch cost stops mattering.
#include <hip/hip_runtime.h>

#include <cstdint>
#include <string>

#include "hip_lessons/bench.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/streams.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;

namespace {

constexpr std::size_t kSegmentElements = 4096;
constexpr unsigned int kBlock = 256;
const hl::BenchSweep kBatchSizes{1, 10000, 10};

// The method of every_way() named \p method, timed on batches of state.range(0) segments.
void batch_case(benchmark::State& state, const char* method) {
  const auto count = static_cast<unsigned int>(state.range(0));
  const hl::Device device = hl::open_device(0);
  const batch::Batch work(count, kSegmentElements, 1);
  hl::GpuStream stream;
  const batch::Geometry geometry = batch::geometry_for(device, kBlock, stream);
  const batch::Graph graph(stream,
                           [&] { batch::launch_individually(work.segments, kBlock, stream); });
  for (const batch::Method& m : batch::every_way(work, geometry, stream, graph, nullptr)) {
    if (m.name != method) continue;
    if (!m.enqueue) {
      state.SkipWithError(m.unavailable.c_str());
      return;
    }
    hl::time_iterations(state, stream, m.enqueue);
    // Seconds per small kernel (the batch time divided by its size), and kernels per second.
    state.counters["time_per_kernel"] = benchmark::Counter(
        count, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * count);
    return;
  }
  state.SkipWithError((std::string("kernels.hpp has no method named ") + method).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  hl::register_cases<const char*>("batch_case", batch_case,
                                  {{"individual_launches", "individual launches"},
                                   {"graph_replay", "graph replay"},
                                   {"fused_kernel", "one fused kernel"},
                                   {"persistent_kernel", "persistent kernel + queue"},
                                   {"cooperative_kernel", "cooperative kernel, grid.sync"}},
                                  kBatchSizes);
#if defined(__HIP_PLATFORM_AMD__)
  hl::register_cases<const char*>(
      "batch_case", batch_case,
      {{"ext_launch", "hipExtLaunchKernelGGL"},
       {"ext_launch_any_order", "hipExtLaunchKernelGGL, hipExtAnyOrderLaunch"}},
      kBatchSizes);
#endif
  return hl::benchmark_main(argc, argv);
}
