/// \file lessons/03_multi_stream/workloads.hpp
/// \brief What lesson 03 runs: its workloads (seeded inputs, host references, poisoned outputs,
/// one run of each, timed or once under --check) and the small experiments of steps 1 and 5-7.
///
/// main.hip tells the story: which workload runs on how many streams, and what each result
/// shows; this file holds the bookkeeping and the launch sequences behind it.
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "hip_lessons/block_trace.hpp"
#include "hip_lessons/buffers.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/report.hpp"
#include "hip_lessons/results.hpp"
#include "hip_lessons/spin_kernel.hpp"
#include "hip_lessons/stats.hpp"
#include "hip_lessons/streams.hpp"
#include "hip_lessons/timing.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"

namespace multi_stream {

namespace hl = hip_lessons;

/// \p n random words from a generator seeded with \p seed.
inline std::vector<std::uint32_t> random_words(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::vector<std::uint32_t> words(n);
  for (auto& w : words) w = static_cast<std::uint32_t>(generator());
  return words;
}

//! [legacy_stream_setup]
// hipMemset and hipMemcpy (without Async) work on the legacy default stream, and the
// non-blocking streams of this lesson do not wait for that stream; hipMemset may even
// return before it has finished. So after setting up buffers that way, wait for the whole
// device before the streams use them.
inline void poison_and_wait(hl::DeviceBuffer<std::uint32_t>& buffer) {
  buffer.poison();
  HIP_CHECK(hipDeviceSynchronize());
}
//! [legacy_stream_setup]

/// Times \p enqueue on \p origin and returns the median in ms; without a \p plan (--check)
/// runs it once, waits, and returns 0.
template <class Work>
double run_or_time(hipStream_t origin, const std::optional<hl::TimingPlan>& plan, Work&& enqueue) {
  if (plan) return hl::time_on_stream(origin, *plan, enqueue).median;
  enqueue();
  HIP_CHECK(hipStreamSynchronize(origin));
  return 0.0;
}

/// Inputs, host reference and device buffers of `kernels` small kernels of `blocks` blocks.
struct SmallKernels {
  unsigned int kernels, blocks, threads;
  long long ticks;
  std::vector<std::uint32_t> input, expected;
  hl::DeviceBuffer<std::uint32_t> d_in, d_out;

  SmallKernels(unsigned int kernel_count, unsigned int block_count, unsigned int thread_count,
               long long spin_ticks, std::uint64_t seed)
      : kernels(kernel_count),
        blocks(block_count),
        threads(thread_count),
        ticks(spin_ticks),
        input(random_words(std::size_t{kernel_count} * block_count, seed)),
        expected(input.size()),
        d_in(input.size()),
        d_out(input.size()) {
    for (std::size_t slot = 0; slot < input.size(); ++slot) {
      expected[slot] = stamp(input[slot], static_cast<unsigned int>(slot / blocks));
    }
    d_in.upload(input);
    HIP_CHECK(hipDeviceSynchronize());  // the upload ran on the legacy default stream
  }

  /// Every kernel, spread round-robin over \p stream_count new streams, on a poisoned output;
  /// then every slot is checked. Returns the median ms (0 under --check).
  double run(hl::Report& report, unsigned int stream_count, hipStream_t origin,
             const std::optional<hl::TimingPlan>& plan, const std::string& name) {
    StreamSet set(stream_count);
    poison_and_wait(d_out);
    const double ms = run_or_time(origin, plan, [&] {
      enqueue_small_kernels(set, origin, kernels, ticks, blocks, threads, d_in.data(),
                            d_out.data());
    });
    report.check_match(name, hl::first_mismatch(expected, d_out.download()), expected.size());
    return ms;
  }

  /// One untimed run on \p stream_count streams with every block traced, checked like run().
  /// A gate kernel on \p origin (spinning \p gate_us) holds every stream until all launches
  /// are enqueued, so the trace shows what the GPU does with them, not how fast the host issued
  /// them (a launch costs a few microseconds; the gate lasts milliseconds).
  hl::Schedule traced(hl::Report& report, unsigned int stream_count, hipStream_t origin,
                      double gate_us, double ticks_per_us, const std::string& name) {
    StreamSet set(stream_count);
    hl::BlockTraceRecorder recorder(input.size());
    poison_and_wait(d_out);
    hl::launch_spin_kernel(gate_us, ticks_per_us, dim3(1), dim3(threads), origin);
    enqueue_small_kernels(set, origin, kernels, ticks, blocks, threads, d_in.data(), d_out.data(),
                          &recorder);
    HIP_CHECK(hipStreamSynchronize(origin));
    report.check_match(name, hl::first_mismatch(expected, d_out.download()), expected.size());
    return recorder.schedule();
  }
};

/// One way to run the pipeline: elements, chunks asked for, streams, and which host memory.
struct PipelineCase {
  std::size_t n, chunks;
  unsigned int streams;
  bool pageable;
};

/// The pipelines of step 4. Timed: the four variants its table compares. --check: chunkings
/// that catch off-by-one bugs (even chunks, a last, shorter one, more chunks than elements or
/// than streams, pageable memory, and --chunks over --pipeline-streams on 1000 elements).
inline std::vector<PipelineCase> pipeline_cases(bool timed, std::size_t n, std::size_t c,
                                                unsigned int s) {
  if (timed) return {{n, 1, 1, false}, {n, c, 1, false}, {n, c, s, false}, {n, c, s, true}};
  const std::size_t mi = std::size_t{1} << 20;
  return {{mi, 1, 1, false},       {mi, 8, 4, false},   {3 * mi / 4, 3, 2, false},
          {4 * mi, 64, 16, false}, {1000, 3, 2, false}, {mi + 3, 8, 4, false},
          {5, 8, 4, false},        {1, 8, 4, false},    {mi, 8, 4, true},
          {1000, c, s, false}};
}

/// Host and device arrays of the pipeline, with the input and its host reference.
struct Pipeline {
  std::size_t n;
  std::vector<std::uint32_t> input, expected;
  hl::PinnedBuffer<std::uint32_t> pinned_in, pinned_out;
  std::vector<std::uint32_t> pageable_in, pageable_out;
  hl::DeviceBuffer<std::uint32_t> d_in, d_out;

  Pipeline(std::size_t count, std::uint64_t seed)
      : n(count),
        input(random_words(count, seed)),
        pinned_in(count),
        pinned_out(count),
        pageable_in(input),
        pageable_out(count),
        d_in(count),
        d_out(count) {
    std::copy(input.begin(), input.end(), pinned_in.data());
  }

  PipelineArrays arrays(bool pageable) {
    if (pageable) return {pageable_in.data(), pageable_out.data(), d_in.data(), d_out.data(), n};
    return {pinned_in.data(), pinned_out.data(), d_in.data(), d_out.data(), n};
  }

  /// The host reference for \p rounds, all elements at once (LcgJump is O(1) per element).
  void prepare_reference(unsigned int rounds) {
    const LcgJump jump(rounds);
    expected.resize(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = jump(input[i]);
  }

  /// Runs \p how over new streams from poisoned outputs (device: hipMemset; host: the same
  /// 0xFF bytes), then compares every element. Returns the median ms (0 under --check).
  double run(hl::Report& report, const PipelineCase& how, unsigned int rounds, hipStream_t origin,
             const std::optional<hl::TimingPlan>& plan) {
    const PipelineArrays a = arrays(how.pageable);
    poison_and_wait(d_out);
    std::fill(a.host_out, a.host_out + n, 0xFFFFFFFFu);
    StreamSet set(how.streams);
    const double ms = run_or_time(origin, plan, [&] {
      set.fork_join(origin, [&] { enqueue_pipeline(a, how.chunks, rounds, set.streams()); });
    });
    const std::size_t chunk = (n + how.chunks - 1) / how.chunks;
    report.check_match(
        hl::format("pipeline, N = {}: --chunks {} gives {} of {} (last {}) over {} stream(s), {}",
                   n, how.chunks, (n + chunk - 1) / chunk, chunk, n - (n - 1) / chunk * chunk,
                   how.streams, how.pageable ? "pageable" : "pinned"),
        hl::first_mismatch(expected.data(), a.host_out, n), n);
    return ms;
  }
};

/// Step 4's table: the four timed variants of pipeline_cases(), against the first.
inline void report_pipeline(hl::Report& report, const std::vector<double>& t, unsigned int rounds,
                            std::size_t n, std::int64_t chunks, std::int64_t streams) {
  hl::ResultTable table("pipeline",
                        hl::format("Copy in, compute ({} rounds), copy out of {:bytes} each way",
                                   rounds, static_cast<double>(n * sizeof(std::uint32_t))),
                        {{"variant"}, {"median", "ms", 3}, {"x sequential"}});
  const char* keys[] = {"sequential", "chunked_one_stream", "pipelined", "pageable"};
  const std::string names[] = {"sequential (1 chunk, 1 stream)",
                               hl::format("{} chunks, 1 stream", chunks),
                               hl::format("{} chunks, {} streams, pinned", chunks, streams),
                               hl::format("{} chunks, {} streams, pageable", chunks, streams)};
  for (int i = 0; i < 4; ++i) {
    table.row({names[i], t[i], t[0] / t[i]});
    report.measurement(hl::format("pipeline_ms.{}", keys[i]), t[i]);
  }
  report.table(table);
}

/// The stages of the pipeline alone: what full overlap can at best reach (the longest stage)
/// against no overlap at all (their sum).
inline void report_stages(hl::Report& report, const StageTimes& st) {
  hl::ResultTable table("pipeline_stages", "The stages on the whole array, one at a time",
                        {{"stage alone"}, {"median", "ms", 3}});
  table.row({"host-to-device copy", st.h2d}).row({"kernel", st.kernel});
  table.row({"device-to-host copy", st.d2h}).row({"sum (no overlap)", st.h2d + st.kernel + st.d2h});
  table.row({"longest stage (full overlap)", std::max({st.h2d, st.kernel, st.d2h})});
  report.table(table);
  report.measurement("stage_ms.h2d", st.h2d);
  report.measurement("stage_ms.kernel", st.kernel);
  report.measurement("stage_ms.d2h", st.d2h);
}

/// What a spin kernel asked to run a fixed time took: by the event clock, and in ticks spun.
struct SpinReading {
  double event_ms;
  long long ticks;
};

/// Times one spin kernel of \p us microseconds by events on \p stream, after a warm-up.
inline SpinReading time_a_spin(double us, double ticks_per_us, hipStream_t stream) {
  hl::DeviceBuffer<long long> elapsed(1);
  hl::GpuEvent start, stop;
  hl::launch_spin_kernel(10.0, ticks_per_us, dim3(1), dim3(kSmallThreads), stream);  // warm-up
  start.record(stream);
  hl::launch_spin_kernel(us, ticks_per_us, dim3(1), dim3(kSmallThreads), stream, elapsed.data());
  stop.record(stream);
  stop.synchronize();
  return {stop.milliseconds_since(start), elapsed.download()[0]};
}

//! [wait_event]
// The producer writes `middle` on stream A; the consumer reads it on stream B. Streams are
// independent, so B must be told to wait: record an event on A after the producer and
// make B wait for it. The host does not block; the GPU enforces the order.
// Returns the number of wrong elements (0 when `wait` is true).
inline std::size_t producer_consumer(std::size_t n, double ticks_per_us, bool wait,
                                     std::uint64_t seed) {
  const std::vector<std::uint32_t> input = random_words(n, seed);
  std::vector<std::uint32_t> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = stamp(stamp(input[i], 1), 2);
  hl::DeviceBuffer<std::uint32_t> d_in(n), d_middle(n), d_out(n);
  d_in.upload(input);
  poison_and_wait(d_middle);
  poison_and_wait(d_out);
  hl::GpuStream a;
  hl::GpuStream b;
  hl::GpuEvent produced(hipEventDisableTiming);
  const auto producer_ticks = static_cast<long long>(500.0 * ticks_per_us);  // 0.5 ms
  launch_delayed_stamp(producer_ticks, d_in.data(), d_middle.data(), n, 1, a);
  produced.record(a);
  if (wait) HIP_CHECK(hipStreamWaitEvent(b, produced.get(), 0));
  launch_delayed_stamp(0, d_middle.data(), d_out.data(), n, 2, b);
  HIP_CHECK(hipDeviceSynchronize());
  const auto mismatch = hl::first_mismatch(expected, d_out.download());
  return mismatch ? mismatch->mismatches : 0;
}
//! [wait_event]

/// Medians, in ms, of the urgent kernel's latency and of the backlog's time.
struct UrgentLatency {
  double latency, backlog;
};

// The backlog stream gets one kernel of many waves of blocks, each block busy for
// `block_us`; a 10 us kernel is then launched on the urgent stream. At equal priority it
// queues behind the backlog's blocks; at a higher priority the scheduler prefers it to the
// backlog's blocks still waiting, so it starts as soon as a CU/SM frees up.
inline UrgentLatency urgent_behind_backlog(hipStream_t backlog, hipStream_t urgent,
                                           unsigned int backlog_blocks, double block_us,
                                           double ticks_per_us) {
  hl::GpuEvent backlog_start, backlog_stop, start, stop;
  std::vector<double> latency, backlog_time;
  for (int repeat = 0; repeat < 6; ++repeat) {
    backlog_start.record(backlog);
    hl::launch_spin_kernel(block_us, ticks_per_us, dim3(backlog_blocks), dim3(kFullThreads),
                           backlog);
    backlog_stop.record(backlog);
    start.record(urgent);
    hl::launch_spin_kernel(10.0, ticks_per_us, dim3(1), dim3(kSmallThreads), urgent);
    stop.record(urgent);
    HIP_CHECK(hipDeviceSynchronize());
    if (repeat == 0) continue;  // warm-up
    latency.push_back(stop.milliseconds_since(start));
    backlog_time.push_back(backlog_stop.milliseconds_since(backlog_start));
  }
  return {hl::summarize(latency).median, hl::summarize(backlog_time).median};
}

// Two 1 ms kernels on streams A and B, and a tiny kernel on the legacy default stream
// (stream 0) issued between them. Streams created with hipStreamDefault are "blocking":
// work on the legacy default stream waits for all earlier work in them, and later work in
// them waits for it, so A, then 0, then B run one after another. hipStreamNonBlocking
// streams opt out of that implicit synchronization, so A and B overlap.
// Returns the median host time, in ms, from the first launch until the device is idle.
inline double a_zero_b_ms(bool blocking, double ticks_per_us) {
  hl::GpuStream a(blocking ? hipStreamDefault : hipStreamNonBlocking);
  hl::GpuStream b(blocking ? hipStreamDefault : hipStreamNonBlocking);
  const hl::Stats t = hl::time_wall(hl::TimingPlan{2, 5}, [&] {
    hl::launch_spin_kernel(1000.0, ticks_per_us, dim3(1), dim3(kSmallThreads), a);
    hl::launch_spin_kernel(1.0, ticks_per_us, dim3(1), dim3(kSmallThreads), nullptr);
    hl::launch_spin_kernel(1000.0, ticks_per_us, dim3(1), dim3(kSmallThreads), b);
    HIP_CHECK(hipDeviceSynchronize());
  });
  return t.median;
}

/// The platform's serialization switch (step 8). AMD: 3 = wait before and after each launch.
#if defined(__HIP_PLATFORM_AMD__)
inline constexpr const char *kSerializeSwitch = "AMD_SERIALIZE_KERNEL", *kSerializeValue = "3";
#else
inline constexpr const char *kSerializeSwitch = "CUDA_LAUNCH_BLOCKING", *kSerializeValue = "1";
#endif

/// What streams beyond the hardware queue count (hl::hardware_queue_variable()) do.
#if defined(__HIP_PLATFORM_AMD__)
inline constexpr const char* kQueueSharing =
    "share queues; every dispatch packet carries the barrier bit, so streams on one queue run "
    "one after another";
#else
inline constexpr const char* kQueueSharing =
    "share connections; a kernel that waits for its stream blocks the others queued behind it";
#endif

}  // namespace multi_stream
