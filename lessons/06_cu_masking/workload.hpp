/// \file lessons/06_cu_masking/workload.hpp
/// \brief Lesson 06's workload, and its runs on streams that may be partitioned.
///
/// The compute-bound kernel's inputs and the output they must give; one run over a poisoned
/// output, checked element by element; the traced runs whose block traces show (and check,
/// partition_trace.hpp) where each partition's blocks ran; and the timed runs the lesson
/// compares: alone, next to a noisy neighbour, two partitions at once. Shared by main.hip and
/// bench.hip.
#pragma once

#include <hip/hip_runtime.h>

#include <array>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cu_partition.hpp"
#include "hip_lessons/block_trace.hpp"
#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/report.hpp"
#include "hip_lessons/timing.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"
#include "partition_trace.hpp"

namespace cu_masking {
namespace hl = hip_lessons;

// Same operations in the same order on both sides, and fmaf is exactly rounded: results
// agree to the last bit; the tolerance only forgives a compiler that reorders the final sum.
inline constexpr hl::Tolerance kTolerance{1e-6, 1e-6};

/// "8 SMs", "1 CU".
inline std::string units_text(int units) {
  return hl::format(units == 1 ? "{} {}" : "{} {}s", units, hl::kComputeUnitName);
}

/// Random inputs in [-1, 1] on the device, and the output the whole workload must give.
struct Workload {
  std::size_t n;
  int iterations;
  std::vector<float> input;
  hl::DeviceBuffer<float> d_in;
  std::vector<float> reference;  ///< the whole device's output, once checked (adopt_reference)

  /// Refuses a size whose buffers (input and outputs) would not fit, before allocating any.
  static std::size_t fits(std::size_t count) {
    hl::require_device_memory(4 * count * sizeof(float), hl::format("--size {}", count));
    return count;
  }
  Workload(std::size_t count, int steps, std::uint64_t seed)
      : n(fits(count)), iterations(steps), input(n), d_in(n) {
    hl::fill_uniform(input, seed);
    d_in.upload(input);
  }
  /// The host's result for the first \p count elements after \p steps steps.
  std::vector<float> host_reference(std::size_t count, int steps) const {
    std::vector<float> expected(count);
    for (std::size_t i = 0; i < count; ++i) expected[i] = fma_chains_reference(input[i], steps);
    return expected;
  }
};

/// Poisons \p out and waits: hipMemset runs on the null stream, which a non-blocking or
/// green-context stream does not wait for.
inline void poison_and_wait(hl::DeviceBuffer<float>& out) {
  out.poison();
  HIP_CHECK(hipDeviceSynchronize());
}

/// Runs the kernel once on \p stream over a poisoned \p out (traced when \p trace is not
/// empty) and compares every element with \p expected, when given.
inline void run_checked(hl::Report& report, const std::string& name, hipStream_t stream,
                        const Workload& work, std::size_t n, int iterations,
                        hl::DeviceBuffer<float>& out, const float* expected,
                        hl::BlockTrace trace = {}) {
  poison_and_wait(out);
  launch(work.d_in.data(), out.data(), n, iterations, stream, trace);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipStreamSynchronize(stream));
  if (expected != nullptr) {
    report.check_match(name + " computed correctly",
                       hl::first_mismatch(expected, out.download().data(), n, kTolerance), n);
  }
}

//! [unit_checks]
// Rule: the blocks of a partition of `granted` units ran on at most `granted` distinct units
// (NVIDIA: green contexts say how many SMs, not which; AMD: __smid() is a hardware id, not a
// mask bit, so the same count rule is the one that holds there).
inline void check_units(hl::Report& report, const hl::Schedule& schedule, int stream,
                        const std::string& name, int granted) {
  const std::size_t used = units_of_stream(schedule, stream).size();
  const auto past = first_block_past_units(schedule, stream, granted);
  report.check(hl::format("{}: blocks ran on at most its {} granted {}s", name, granted,
                          hl::kComputeUnitName),
               !past,
               past ? hl::format("{} distinct {} ids; first past {}: {}", used,
                                 hl::kComputeUnitName, granted, block_text(*past))
                    : hl::format("{} distinct {} ids seen", used, hl::kComputeUnitName));
}

// Rule (NVIDIA): two disjoint partitions side by side ran on disjoint SMs. On AMD a shared
// __smid() value proves nothing (several CUs can share one), so it is only reported.
inline void check_disjoint(hl::Report& report, const hl::Schedule& schedule, int stream_a,
                           int stream_b, const std::string& names) {
  const auto shared = first_block_on_shared_unit(schedule, stream_a, stream_b);
#if defined(__HIP_PLATFORM_AMD__)
  report.note(hl::format(
      "note    {}: {}", names,
      shared ? "a __smid() value seen in both, which proves nothing on AMD: " + block_text(*shared)
             : std::string("no __smid() value seen in both")));
#else
  report.check(
      names + " ran on disjoint SMs", !shared,
      shared ? "first block on a shared SM: " + block_text(*shared)
             : hl::format("{} and {} SMs, none shared", units_of_stream(schedule, stream_a).size(),
                          units_of_stream(schedule, stream_b).size()));
#endif
}
//! [unit_checks]

/// Takes \p out, the whole device's output, as the reference every partition must reproduce,
/// after comparing every \p stride-th element with the host (at a large --size, computing
/// every element on the host would take minutes).
inline void adopt_reference(hl::Report& report, Workload& work, const hl::DeviceBuffer<float>& out,
                            std::size_t stride) {
  work.reference = out.download();
  std::vector<float> expected, got;
  for (std::size_t i = 0; i < work.n; i += stride) {
    expected.push_back(fma_chains_reference(work.input[i], work.iterations));
    got.push_back(work.reference[i]);
  }
  report.check_match(
      hl::format("whole device vs host reference, {} of {} elements", expected.size(), work.n),
      hl::first_mismatch(expected, got, kTolerance), expected.size());
}

/// Median time of the kernel over the first \p n elements on \p stream.
inline double time_kernel(hipStream_t stream, const Workload& work, std::size_t n,
                          hl::DeviceBuffer<float>& out, const hl::TimingPlan& plan) {
  const auto run = [&] {
    launch(work.d_in.data(), out.data(), n, work.iterations, stream);
    HIP_CHECK_LAUNCH();
  };
  return hl::time_on_stream(stream, plan, run).median;
}

/// The latency-sensitive side: a chain of small kernels on one stream.
struct Victim {
  std::size_t n;
  int iterations;
  int kernels;
  hl::DeviceBuffer<float> out;
};

/// The noisy neighbour: the whole workload, `repeats` times back to back (0: no neighbour).
struct Neighbour {
  int repeats;
  std::chrono::microseconds head_start;
};

//! [victim_latency]
// One round: the neighbour floods \p neighbour_stream (issued first, given a head start so it
// really occupies the units when the victim arrives), then the victim's chain of small kernels
// runs on \p victim_stream between \p start and \p stop. A traced round (\p recorder) puts the
// victim on trace stream 0 and the neighbour on 1.
inline void issue_round(hipStream_t victim_stream, hipStream_t neighbour_stream, Victim& victim,
                        const Neighbour& neighbour, const Workload& work,
                        hl::DeviceBuffer<float>& neighbour_out, hl::GpuEvent& start,
                        hl::GpuEvent& stop, hl::BlockTraceRecorder* recorder = nullptr) {
  for (int i = 0; i < neighbour.repeats; ++i) {
    launch(work.d_in.data(), neighbour_out.data(), work.n, work.iterations, neighbour_stream,
           recorder ? recorder->reserve("neighbour", blocks_for(work.n), 1) : hl::BlockTrace{});
    HIP_CHECK_LAUNCH();
  }
  std::this_thread::sleep_for(neighbour.head_start);
  start.record(victim_stream);
  for (int i = 0; i < victim.kernels; ++i) {
    launch(work.d_in.data(), victim.out.data(), victim.n, victim.iterations, victim_stream,
           recorder ? recorder->reserve("victim", blocks_for(victim.n), 0) : hl::BlockTrace{});
    HIP_CHECK_LAUNCH();
  }
  stop.record(victim_stream);
  stop.synchronize();
  HIP_CHECK(hipStreamSynchronize(neighbour_stream));
}

// Time from the victim's first kernel being issued to its last one finishing, next to the
// neighbour (untraced rounds).
inline hl::Stats victim_latency(hipStream_t victim_stream, hipStream_t neighbour_stream,
                                Victim& victim, const Neighbour& neighbour, const Workload& work,
                                hl::DeviceBuffer<float>& neighbour_out,
                                const hl::TimingPlan& plan) {
  hl::GpuEvent start;
  hl::GpuEvent stop;
  std::vector<double> samples;
  for (int r = 0; r < plan.warmup + plan.repeats; ++r) {
    issue_round(victim_stream, neighbour_stream, victim, neighbour, work, neighbour_out, start,
                stop);
    if (r >= plan.warmup) samples.push_back(stop.milliseconds_since(start));
  }
  return hl::summarize(std::move(samples));
}
//! [victim_latency]

/// Step 6's picture and checks: one traced round on the \p plain streams and one with the
/// victim and the neighbour in their partitions, drawn as one timeline (each round's time from
/// its own start). The partitioned round's blocks must stay within each partition's grant.
inline void trace_isolation(hl::Report& report, const std::array<hipStream_t, 2>& plain,
                            const CuPartitionStream& victim_partition,
                            const CuPartitionStream& neighbour_partition, Victim& victim,
                            const Neighbour& neighbour, const Workload& work,
                            hl::DeviceBuffer<float>& neighbour_out) {
  const std::size_t blocks = static_cast<std::size_t>(victim.kernels) * blocks_for(victim.n) +
                             static_cast<std::size_t>(neighbour.repeats) * blocks_for(work.n);
  const std::array<hipStream_t, 2> partitioned = {victim_partition, neighbour_partition};
  const char* labels[2][2] = {{"plain victim", "plain neighbr"}, {"part. victim", "part. neighbr"}};
  std::vector<hl::TimelineRow> rows;
  double span_us = 0;
  hl::Schedule rounds[2];
  for (int r = 0; r < 2; ++r) {
    const std::array<hipStream_t, 2>& streams = r == 0 ? plain : partitioned;
    hl::BlockTraceRecorder recorder(blocks);
    hl::GpuEvent start, stop;
    issue_round(streams[0], streams[1], victim, neighbour, work, neighbour_out, start, stop,
                &recorder);
    rounds[r] = recorder.schedule();
    for (hl::TimelineRow& row : stream_rows(rounds[r], {{0, labels[r][0]}, {1, labels[r][1]}})) {
      rows.push_back(std::move(row));
    }
    span_us = std::max(span_us, rounds[r].span_us());
    report.trace(
        r == 0 ? "victim beside neighbour, plain streams" : "victim beside neighbour, partitioned",
        rounds[r]);
  }
  report.timeline(
      "Victim beside a noisy neighbour, plain streams then partitions (each from its start): the "
      "plain victim waits for the neighbour, the partitioned one runs at once",
      rows, span_us);
  check_units(report, rounds[1], 0, "victim partition", victim_partition.granted_units);
  check_units(report, rounds[1], 1, "neighbour partition", neighbour_partition.granted_units);
  check_disjoint(report, rounds[1], 0, 1, "victim and neighbour partitions");
}

/// Step 7's traced run: the kernel over \p n elements on both partitions of \p pair at once
/// (trace streams 0 and 1), over poisoned outputs checked against the whole device's; checks
/// each partition's units and that the two used disjoint SMs (NVIDIA), and draws the units
/// each ran on (the first 10 of each), counting the blocks each held at once.
inline void trace_side_by_side(hl::Report& report, const std::vector<CuPartitionStream>& pair,
                               const Workload& work, std::size_t n, hl::DeviceBuffer<float>* out) {
  const char* names[] = {"A", "B"};
  hl::BlockTraceRecorder recorder(2 * static_cast<std::size_t>(blocks_for(n)));
  for (int p = 0; p < 2; ++p) poison_and_wait(out[p]);
  for (int p = 0; p < 2; ++p) {
    launch(work.d_in.data(), out[p].data(), n, work.iterations, pair[p],
           recorder.reserve(hl::format("partition {}", names[p]), blocks_for(n), p));
    HIP_CHECK_LAUNCH();
  }
  // hipDeviceSynchronize (in schedule()) need not wait for a green context's streams: wait here.
  for (int p = 0; p < 2; ++p) HIP_CHECK(hipStreamSynchronize(pair[p]));
  const hl::Schedule schedule = recorder.schedule();
  std::vector<hl::TimelineRow> rows;
  for (int p = 0; p < 2; ++p) {
    report.check_match(
        hl::format("partition {} side by side computed correctly", names[p]),
        hl::first_mismatch(work.reference.data(), out[p].download().data(), n, kTolerance), n);
    check_units(report, schedule, p, hl::format("partition {}", names[p]), pair[p].granted_units);
    for (hl::TimelineRow& row : unit_rows_of_stream(
             schedule, p, hl::format("{} {}", names[p], hl::kComputeUnitName), 10)) {
      rows.push_back(std::move(row));
    }
  }
  check_disjoint(report, schedule, 0, 1, "partitions A and B");
  report.timeline(hl::format("Two partitions side by side: blocks held at once by each {} they "
                             "ran on (first 10 of each); A and B should share none",
                             hl::kComputeUnitName),
                  rows, schedule.span_us(), hl::TimelineStyle::kCount);
  report.trace("two partitions side by side", schedule);
}

/// Median times of the kernel over \p n elements on two streams at once, each timed by
/// events on its own stream.
inline std::array<double, 2> time_together(const std::array<hipStream_t, 2>& streams,
                                           const Workload& work, std::size_t n,
                                           hl::DeviceBuffer<float>* out,
                                           const hl::TimingPlan& plan) {
  hl::GpuEvent start[2], stop[2];
  std::vector<double> samples[2];
  for (int r = 0; r < plan.warmup + plan.repeats; ++r) {
    for (int p = 0; p < 2; ++p) {
      start[p].record(streams[p]);
      launch(work.d_in.data(), out[p].data(), n, work.iterations, streams[p]);
      HIP_CHECK_LAUNCH();
      stop[p].record(streams[p]);
    }
    for (int p = 0; p < 2; ++p) {
      stop[p].synchronize();
      if (r >= plan.warmup) samples[p].push_back(stop[p].milliseconds_since(start[p]));
    }
  }
  return {hl::summarize(std::move(samples[0])).median, hl::summarize(std::move(samples[1])).median};
}

}  // namespace cu_masking
