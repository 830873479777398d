/// \file lessons/03_multi_stream/traced_runs.hpp
/// \brief What lesson 03 shows of the schedule: step 2's kernels traced block by block on one
/// stream and on several, with the checks that read those traces, and step 4's pipeline timed
/// stage by stage with events.
///
/// main.hip calls show_small_kernels() in step 2 and show_pipeline() in step 4; both run in
/// every mode (the checks are correctness checks of the schedule, not speed checks).
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "hip_lessons/block_trace.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/environment.hpp"
#include "hip_lessons/report.hpp"
#include "hip_lessons/schedule.hpp"
#include "hip_lessons/streams.hpp"
#include "hip_lessons/timeline.hpp"
#include "kernels.hpp"
#include "workloads.hpp"

namespace multi_stream {

namespace hl = hip_lessons;

/// Kernels of the traced runs (one timeline row each) and the gate that holds them back.
inline constexpr unsigned int kTracedKernels = 16;
inline constexpr double kGateUs = 5000.0;

/// Step 2 seen block by block: kTracedKernels of its one-block kernels on 1 stream and on
/// \p streams streams, drawn on one time axis, kept for --trace, and checked:
///   - one stream runs its kernels in issue order, so never two at once
///     (peak_concurrent_launches() == 1; a failure names the first two that overlapped);
///   - on k streams, at some moment at least min(k, queues, kernels) kernels run at once,
///     queues being the hardware queues streams can use at once (hl::hardware_queue_count()). On
///     NVIDIA each connection is an in-order queue; on AMD a HIP stream maps to one of the queues
///     and the barrier bit of every dispatch packet runs a queue's kernels one after another (from
///     the HIP source, not run here), so AMD's default 4 queues give 4 at once from 8 streams.
inline void show_small_kernels(hl::Report& report, unsigned int streams, long long ticks,
                               double ticks_per_us, hipStream_t origin, std::uint64_t seed) {
  SmallKernels work(kTracedKernels, 1, kSmallThreads, ticks, seed);
  const std::string many_name = hl::format("{} streams", streams);
  const hl::Schedule one = work.traced(report, 1, origin, kGateUs, ticks_per_us,
                                       hl::format("{} traced kernels on 1 stream", kTracedKernels));
  const hl::Schedule many =
      work.traced(report, streams, origin, kGateUs, ticks_per_us,
                  hl::format("{} traced kernels on {}", kTracedKernels, many_name));
  report.trace("1 stream", one);
  report.trace(many_name, many);
  const double span = std::max(one.span_us(), many.span_us());  // one time axis for both
  report.timeline(
      hl::format("{} one-block kernels on 1 stream: one at a time, a staircase", kTracedKernels),
      hl::rows_by_launch(one), span);
  report.timeline(hl::format("The same kernels on {}: side by side in the same columns", many_name),
                  hl::rows_by_launch(many), span);

  const auto crowd = one.first_overlap_above(1);
  report.check("1 stream: no two kernels overlap (peak concurrent launches == 1)", !crowd,
               crowd ? "ran at once: " + hl::describe(*crowd)
                     : hl::format("{} kernels one after another in {:.1} us", kTracedKernels,
                                  one.span_us()));
  const int queues = hl::hardware_queue_count();
  const int need = std::min({static_cast<int>(streams), queues, static_cast<int>(kTracedKernels)});
  const int peak = many.peak_concurrent_launches();
  report.concurrency_check(
      hl::format("{}: at least min(streams, {} {}, kernels) = {} kernels run at once", many_name,
                 hl::hardware_queue_variable().name, queues, need),
      peak >= need,
      hl::format("{} at once at the peak, on {} {}s; all done in {:.1} us", peak,
                 many.units().size(), hl::kComputeUnitName, many.span_us()));
}

/// Step 4's pipeline once more (pinned memory, \p chunks over \p streams), with an event before
/// and after every stage of every chunk, drawn as one row per stream and stage (the first four
/// streams). Copies cannot carry a BlockTimer, and a block trace's device clock and the event
/// clock share no zero we could trust, so this timeline comes from events alone: all times are
/// hipEventElapsedTime from one reference event recorded first on \p origin, and each bar runs
/// from when its stream reached the stage to when the stage finished. A bar can therefore
/// include time the stage waited for a copy engine or SMs that another stream held.
inline void show_pipeline(hl::Report& report, Pipeline& p, std::size_t chunks, unsigned int streams,
                          unsigned int rounds, hipStream_t origin) {
  const PipelineArrays a = p.arrays(false);
  poison_and_wait(p.d_out);
  std::fill(a.host_out, a.host_out + a.n, 0xFFFFFFFFu);
  StreamSet set(streams);
  ChunkMarks marks(chunks);
  hl::GpuEvent reference;
  reference.record(origin);
  set.fork_join(origin, [&] { enqueue_pipeline(a, chunks, rounds, set.streams(), &marks); });
  HIP_CHECK(hipStreamSynchronize(origin));
  report.check_match(
      hl::format("pipeline timed by events: {} chunks over {} streams", chunks, streams),
      hl::first_mismatch(p.expected.data(), a.host_out, a.n), a.n);

  const std::size_t chunk = (a.n + chunks - 1) / chunks;
  const std::size_t used = (a.n + chunk - 1) / chunk;  // chunks that exist (see enqueue_pipeline)
  const unsigned int shown = std::min(streams, 4u);
  const char* stages[] = {"copy in", "kernel", "copy out"};
  std::vector<hl::TimelineRow> rows;
  for (unsigned int s = 0; s < shown; ++s) {
    for (const char* stage : stages) rows.push_back({hl::format("s{} {}", s, stage), {}});
  }
  double span = 0.0;
  for (std::size_t c = 0; c < used; ++c) {
    if (c % streams >= shown) continue;
    for (int stage = 0; stage < 3; ++stage) {
      const double from = 1000.0 * marks[c][stage].milliseconds_since(reference);
      const double to = 1000.0 * marks[c][stage + 1].milliseconds_since(reference);
      rows[3 * (c % streams) + stage].busy.push_back({from, to});
      span = std::max(span, to);
    }
  }
  report.timeline(hl::format("Pipeline by events, {} chunks over {} streams (rows: first {}): "
                             "one chunk's copies run while another computes",
                             used, streams, shown),
                  rows, span);
}

}  // namespace multi_stream
