/// \file lessons/03_multi_stream/main.hip
/// \brief Lesson 03: when streams make the GPU do more at once, and when they cannot.
///
/// The story: (1) small kernels that use a sliver of the GPU, issued on one stream and then
/// spread over several: independent streams let them run side by side; (2) a kernel that
/// already fills the GPU, where more streams gain nothing; (3) copy/compute overlap: pinned
/// memory, the work cut into chunks and pipelined over streams, against the same work in
/// sequence; (4) ordering across streams with events, stream priorities, and what the
/// legacy default stream does to other streams; (5) how many streams the hardware really
/// runs at once: streams are mapped onto a small set of hardware queues.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/lesson.hpp"
#include "hip_lessons/spin_kernel.hpp"
#include "hip_lessons/timing.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;
namespace ms = multi_stream;

namespace {

/// Threads per block of the small kernels: one AMD wavefront, two NVIDIA warps.
constexpr unsigned int kSmallThreads = 64;
/// Threads per block of the GPU-filling kernel.
constexpr unsigned int kFullThreads = 256;

/// The lesson's own options, after parsing.
struct Settings {
  unsigned int streams = 8;
  unsigned int kernels = 32;
  double kernel_us = 100.0;
  unsigned int kernel_blocks = 1;
  std::size_t chunks = 8;
  unsigned int pipeline_streams = 4;
  unsigned int rounds = 0;  // 0: chosen so that the kernel takes as long as the input copy
  double min_stream_speedup = 5.0;
  double min_pipeline_speedup = 1.3;
  double max_full_speedup = 1.5;
};

std::vector<std::uint32_t> random_words(std::size_t n, std::uint64_t seed) {
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
void poison_and_wait(hl::DeviceBuffer<std::uint32_t>& buffer) {
  buffer.poison();
  HIP_CHECK(hipDeviceSynchronize());
}
//! [legacy_stream_setup]

/// The value of an environment variable, or a note that it is unset.
std::string environment_value(const char* name, const std::string& when_unset) {
  const char* value = std::getenv(name);
  return value == nullptr ? when_unset : std::string(value);
}

// --- Part 1: many small kernels ----------------------------------------------------------

/// Inputs, host reference and device buffers of one run of `kernels` small kernels.
struct SmallKernels {
  unsigned int kernels;
  unsigned int blocks;
  unsigned int threads;
  long long ticks;
  std::vector<std::uint32_t> input, expected;
  hl::DeviceBuffer<std::uint32_t> d_in, d_out;

  SmallKernels(unsigned int kernel_count, unsigned int block_count, unsigned int thread_count,
               long long spin_ticks, std::uint64_t seed)
      : kernels(kernel_count), blocks(block_count), threads(thread_count), ticks(spin_ticks),
        input(random_words(std::size_t{kernel_count} * block_count, seed)),
        expected(input.size()), d_in(input.size()), d_out(input.size()) {
    for (unsigned int k = 0; k < kernels; ++k) {
      for (unsigned int b = 0; b < blocks; ++b) {
        const std::size_t slot = std::size_t{k} * blocks + b;
        expected[slot] = ms::stamp(input[slot], k);
      }
    }
    d_in.upload(input);
    HIP_CHECK(hipDeviceSynchronize());  // the upload ran on the legacy default stream
  }

  /// Median time of all kernels spread round-robin over \p set, after warm-up.
  hl::Stats time(ms::StreamSet& set, hipStream_t origin, const hl::TimingPlan& plan) {
    return hl::time_on_stream(origin, plan, [&] {
      ms::enqueue_small_kernels(set, origin, kernels, ticks, blocks, threads, d_in.data(),
                                d_out.data());
    });
  }

  bool check(hl::Report& report, const std::string& name) {
    return report.check_match(name, hl::first_mismatch(expected, d_out.download()),
                              expected.size());
  }
};

/// Runs the small kernels once on \p stream_count streams, poisoned first, and checks them.
bool check_small_kernels(hl::Report& report, SmallKernels& work, unsigned int stream_count,
                         hipStream_t origin) {
  ms::StreamSet set(stream_count);
  poison_and_wait(work.d_out);
  ms::enqueue_small_kernels(set, origin, work.kernels, work.ticks, work.blocks, work.threads,
                            work.d_in.data(), work.d_out.data());
  HIP_CHECK(hipStreamSynchronize(origin));
  return work.check(report, std::to_string(work.kernels) + " kernels x " +
                                std::to_string(work.blocks) + " block(s) on " +
                                std::to_string(stream_count) + " stream(s)");
}

/// Times the same kernels on 1 stream and on \p stream_count streams; checks the results.
/// Returns {one-stream median, multi-stream median}.
std::pair<double, double> compare_one_and_many(hl::Report& report, SmallKernels& work,
                                               unsigned int stream_count, hipStream_t origin,
                                               const hl::TimingPlan& plan,
                                               const std::string& what) {
  ms::StreamSet one(1);
  ms::StreamSet many(stream_count);
  poison_and_wait(work.d_out);
  const hl::Stats t1 = work.time(one, origin, plan);
  work.check(report, what + ", 1 stream");
  poison_and_wait(work.d_out);
  const hl::Stats tn = work.time(many, origin, plan);
  work.check(report, what + ", " + std::to_string(stream_count) + " streams");
  return {t1.median, tn.median};
}

/// How many blocks of spin_then_stamp fit on the whole GPU at once (blocks per CU from
/// the occupancy calculator, times the CU count): a kernel of that many blocks fills it.
unsigned int blocks_filling_the_gpu(const hl::Device& device) {
  int per_cu = 0;
  HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, ms::spin_then_stamp,
                                                         static_cast<int>(kFullThreads), 0));
  return static_cast<unsigned int>(std::max(1, per_cu) * device.compute_units());
}

void sweep_stream_counts(hl::Report& report, SmallKernels& work, const Settings& s,
                         hipStream_t origin, const hl::TimingPlan& plan) {
  std::set<unsigned int> counts = {1, 2, 4, 8, 16, 32, s.streams};
  hl::Table table({"streams", "median ms", "ideal ms", "speedup vs 1 stream"});
  double one_stream = 0.0;
  for (const unsigned int count : counts) {
    ms::StreamSet set(count);
    poison_and_wait(work.d_out);
    const hl::Stats t = work.time(set, origin, plan);
    work.check(report, std::to_string(work.kernels) + " small kernels on " +
                           std::to_string(count) + " stream(s)");
    if (count == 1) one_stream = t.median;
    // Ideal: the kernels run `count` at a time, each taking kernel_us.
    const unsigned int rounds = (work.kernels + count - 1) / count;
    table.add_row({std::to_string(count), hl::fixed(t.median, 3),
                   hl::fixed(rounds * s.kernel_us / 1000.0, 3),
                   hl::fixed(one_stream / t.median, 2)});
    report.measurement("small_kernels_ms.streams_" + std::to_string(count), t.median);
  }
  report.table("small_kernels",
               std::to_string(work.kernels) + " kernels of " + std::to_string(work.blocks) +
                   " block(s) x " + std::to_string(work.threads) + " threads, " +
                   hl::fixed(s.kernel_us, 0) + " us each, spread round-robin over the streams",
               table);
}

// --- Part 2: copy/compute pipeline -----------------------------------------------------

/// Host and device arrays of the pipeline, with the input and its host reference.
struct Pipeline {
  std::size_t n;
  std::vector<std::uint32_t> input, expected;
  hl::PinnedBuffer<std::uint32_t> pinned_in, pinned_out;
  std::vector<std::uint32_t> pageable_in, pageable_out;
  hl::DeviceBuffer<std::uint32_t> d_in, d_out;

  Pipeline(std::size_t count, std::uint64_t seed, bool with_pageable)
      : n(count), input(random_words(count, seed)), pinned_in(count), pinned_out(count),
        d_in(count), d_out(count) {
    std::copy(input.begin(), input.end(), pinned_in.data());
    if (with_pageable) {
      pageable_in = input;
      pageable_out.resize(n);
    }
  }

  ms::PipelineArrays pinned() {
    return {pinned_in.data(), pinned_out.data(), d_in.data(), d_out.data(), n};
  }
  ms::PipelineArrays pageable() {
    return {pageable_in.data(), pageable_out.data(), d_in.data(), d_out.data(), n};
  }

  /// Host reference for \p rounds (computed once per rounds value).
  void prepare_reference(unsigned int rounds) {
    const ms::LcgJump jump(rounds);
    expected.resize(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = jump(input[i]);
  }

  /// Poisons both outputs: device with hipMemset, host with the same 0xFF bytes.
  void poison(const ms::PipelineArrays& arrays) {
    poison_and_wait(d_out);
    std::fill(arrays.host_out, arrays.host_out + n, 0xFFFFFFFFu);
  }

  bool check(hl::Report& report, const ms::PipelineArrays& arrays, const std::string& name) {
    return report.check_match(name, hl::first_mismatch(expected.data(), arrays.host_out, n), n);
  }
};

/// Times the pipeline with \p chunks chunks over \p set; poisons first and checks after.
double time_pipeline(hl::Report& report, Pipeline& p, const ms::PipelineArrays& arrays,
                     std::size_t chunks, unsigned int rounds, ms::StreamSet& set,
                     hipStream_t origin, const hl::TimingPlan& plan, const std::string& name) {
  p.poison(arrays);
  const hl::Stats t = hl::time_on_stream(origin, plan, [&] {
    set.fork_join(origin, [&] { ms::enqueue_pipeline(arrays, chunks, rounds, set.streams()); });
  });
  p.check(report, arrays, name);
  return t.median;
}

/// Pipeline results: sequential and pipelined medians (ms).
struct PipelineResult {
  double sequential = 0.0, pipelined = 0.0;
};

PipelineResult run_pipeline(hl::Report& report, Pipeline& p, const Settings& s,
                            unsigned int rounds, hipStream_t origin, const hl::TimingPlan& plan,
                            bool tour) {
  p.prepare_reference(rounds);
  ms::StreamSet one(1);
  ms::StreamSet several(s.pipeline_streams);
  const std::string c = std::to_string(s.chunks);
  const std::string ps = std::to_string(s.pipeline_streams);
  PipelineResult r;
  r.sequential = time_pipeline(report, p, p.pinned(), 1, rounds, one, origin, plan,
                               "sequential: copy in, compute, copy out (1 stream)");
  r.pipelined = time_pipeline(report, p, p.pinned(), s.chunks, rounds, several, origin, plan,
                              "pipelined: " + c + " chunks over " + ps + " streams, pinned");
  if (!tour) return r;

  const double chunked_one_stream =
      time_pipeline(report, p, p.pinned(), s.chunks, rounds, one, origin, plan,
                    "chunked: " + c + " chunks on 1 stream");
  const double pageable = time_pipeline(report, p, p.pageable(), s.chunks, rounds, several,
                                        origin, plan,
                                        "pipelined: " + c + " chunks over " + ps +
                                            " streams, pageable host memory");
  const ms::StageTimes stages = ms::time_stages(p.pinned(), rounds, origin, plan);
  hl::Table table({"variant", "median ms", "x sequential"});
  auto row = [&](const std::string& name, double ms_value) {
    table.add_row({name, hl::fixed(ms_value, 3), hl::fixed(r.sequential / ms_value, 2)});
  };
  row("sequential (1 chunk, 1 stream)", r.sequential);
  row(c + " chunks, 1 stream", chunked_one_stream);
  row(c + " chunks, " + ps + " streams, pinned", r.pipelined);
  row(c + " chunks, " + ps + " streams, pageable", pageable);
  report.table("pipeline",
               "Copy in, compute (" + std::to_string(rounds) + " rounds), copy out of " +
                   hl::format_bytes(static_cast<double>(p.n * sizeof(std::uint32_t))) +
                   " each way",
               table);
  hl::Table stage_table({"stage alone", "median ms"});
  stage_table.add_row({"host-to-device copy", hl::fixed(stages.h2d, 3)});
  stage_table.add_row({"kernel", hl::fixed(stages.kernel, 3)});
  stage_table.add_row({"device-to-host copy", hl::fixed(stages.d2h, 3)});
  stage_table.add_row({"sum (no overlap)", hl::fixed(stages.h2d + stages.kernel + stages.d2h, 3)});
  stage_table.add_row({"longest stage (full overlap)",
                       hl::fixed(std::max({stages.h2d, stages.kernel, stages.d2h}), 3)});
  report.table("pipeline_stages", "The stages on the whole array, one at a time", stage_table);
  report.measurement("pipeline_ms.chunked_one_stream", chunked_one_stream);
  report.measurement("pipeline_ms.pageable", pageable);
  report.measurement("stage_ms.h2d", stages.h2d);
  report.measurement("stage_ms.kernel", stages.kernel);
  report.measurement("stage_ms.d2h", stages.d2h);
  return r;
}

// --- Part 3: dependencies, priorities, the legacy default stream ------------------------

// Every thread waits `ticks`, then writes out[i] = stamp(in[i], k): a producer that takes
// a known time before its results exist.
__global__ void delayed_stamp(long long ticks, const std::uint32_t* in, std::uint32_t* out,
                              std::size_t n, unsigned int k) {
  hl::spin_for_ticks(ticks);
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ms::stamp(in[i], k);
}

void launch_delayed_stamp(long long ticks, const std::uint32_t* in, std::uint32_t* out,
                          std::size_t n, unsigned int k, hipStream_t stream) {
  hipLaunchKernelGGL(delayed_stamp, dim3(static_cast<unsigned int>((n + 255) / 256)), dim3(256),
                     0, stream, ticks, in, out, n, k);
  HIP_CHECK_LAUNCH();
}

//! [wait_event]
// The producer writes `middle` on stream A; the consumer reads it on stream B. Streams are
// independent, so B must be told to wait: record an event on A after the producer and
// make B wait for it. The host does not block; the GPU enforces the order.
// Returns the number of wrong elements (0 when `wait` is true).
std::size_t producer_consumer(std::size_t n, double ticks_per_us, bool wait, std::uint64_t seed) {
  const std::vector<std::uint32_t> input = random_words(n, seed);
  std::vector<std::uint32_t> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = ms::stamp(ms::stamp(input[i], 1), 2);
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

//! [priorities]
// A low-priority stream holds a backlog: one kernel of many waves of blocks, each block
// busy for 50 us. A short kernel is then launched on another stream. At equal priority it
// queues behind the backlog's blocks; at the highest priority the scheduler prefers it to
// the backlog's blocks still waiting, so it starts as soon as a CU/SM frees up.
void compare_priorities(hl::Report& report, const hl::Device& device, double ticks_per_us) {
  int least = 0;
  int greatest = 0;
  HIP_CHECK(hipDeviceGetStreamPriorityRange(&least, &greatest));
  std::cout << "\nstream priorities: least " << least << ", greatest " << greatest
            << " (lower numbers are higher priority)\n";
  report.fact("priority_least", least);
  report.fact("priority_greatest", greatest);
  if (least == greatest) {
    std::cout << "  this device and runtime offer a single priority level: nothing to compare\n";
    return;
  }
  const unsigned int waves = 20;
  const double block_us = 50.0;
  const unsigned int backlog_blocks = blocks_filling_the_gpu(device) * waves;
  hl::GpuStream backlog(hipStreamNonBlocking, least);
  hl::Table table({"urgent kernel's stream priority", "median latency ms", "backlog ms"});
  for (const int priority : {least, greatest}) {
    hl::GpuStream urgent(hipStreamNonBlocking, priority);
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
    const double median_latency = hl::summarize(latency).median;
    table.add_row({std::to_string(priority) +
                       (priority == least ? " (same as the backlog)" : " (highest)"),
                   hl::fixed(median_latency, 3),
                   hl::fixed(hl::summarize(backlog_time).median, 3)});
    report.measurement("urgent_latency_ms.priority_" + std::to_string(priority), median_latency);
  }
  report.table("priorities",
               "A 10 us kernel launched behind a backlog of " + std::to_string(waves) +
                   " waves of " + hl::fixed(block_us, 0) + " us blocks on a low-priority stream",
               table);
}
//! [priorities]

//! [legacy_default_stream]
// Two 1 ms kernels on streams A and B, and a tiny kernel on the legacy default stream
// (stream 0) issued between them. Streams created with hipStreamDefault are "blocking":
// work on the legacy default stream waits for all earlier work in them, and later work in
// them waits for it, so A, then 0, then B run one after another. hipStreamNonBlocking
// streams opt out of that implicit synchronization, so A and B overlap.
void compare_default_stream(hl::Report& report, double ticks_per_us, const hl::TimingPlan& plan) {
  hl::Table table({"streams A and B created with", "median ms (host clock)"});
  double blocking_ms = 0.0;
  double non_blocking_ms = 0.0;
  for (const unsigned int flags : {static_cast<unsigned int>(hipStreamDefault),
                                   static_cast<unsigned int>(hipStreamNonBlocking)}) {
    hl::GpuStream a(flags);
    hl::GpuStream b(flags);
    const hl::Stats t = hl::time_wall(plan, [&] {
      hl::launch_spin_kernel(1000.0, ticks_per_us, dim3(1), dim3(kSmallThreads), a);
      hl::launch_spin_kernel(1.0, ticks_per_us, dim3(1), dim3(kSmallThreads), nullptr);
      hl::launch_spin_kernel(1000.0, ticks_per_us, dim3(1), dim3(kSmallThreads), b);
      HIP_CHECK(hipDeviceSynchronize());
    });
    const bool blocking = flags == hipStreamDefault;
    (blocking ? blocking_ms : non_blocking_ms) = t.median;
    table.add_row({blocking ? "hipStreamDefault (blocking)" : "hipStreamNonBlocking",
                   hl::fixed(t.median, 3)});
  }
  report.table("legacy_default_stream",
               "1 ms kernel on A, tiny kernel on the legacy default stream, 1 ms kernel on B",
               table);
  report.measurement("legacy_default_stream_ms.blocking", blocking_ms);
  report.measurement("legacy_default_stream_ms.non_blocking", non_blocking_ms);
}
//! [legacy_default_stream]

// --- Part 4: streams and hardware queues ------------------------------------------------

void explain_hardware_queues(hl::Report& report, const Settings& s) {
  hl::Table table({"platform", "variable", "value here", "what more streams than queues do"});
#if defined(__HIP_PLATFORM_AMD__)
  const std::string value = environment_value("GPU_MAX_HW_QUEUES", "unset (default 4)");
  table.add_row({"AMD", "GPU_MAX_HW_QUEUES", value,
                 "share queues; every dispatch packet carries the barrier bit, so streams on one "
                 "queue run one after another"});
#else
  const std::string value = environment_value("CUDA_DEVICE_MAX_CONNECTIONS", "unset (default 8)");
  table.add_row({"NVIDIA", "CUDA_DEVICE_MAX_CONNECTIONS", value,
                 "share connections; a kernel that waits for its stream blocks the others queued "
                 "behind it"});
#endif
  report.table("hardware_queues", "How streams reach the GPU", table);
  report.fact("queue_setting", value);
  std::cout << "Streams are cheap software objects; the hardware runs a few queues. The sweep "
               "above used up to "
            << std::max(32u, s.streams)
            << " streams: beyond the queue count they still work correctly, they just share.\n";
}

// --- The three modes -----------------------------------------------------------------------

void run_check(hl::Report& report, const hl::Device& device, const Settings& s,
               double ticks_per_us, std::uint64_t seed, hipStream_t origin) {
  // The spin clock is the ruler of this lesson: a 2 ms spin must take 2 ms of event time.
  // The upper bound is loose, so tools that slow kernels down (compute-sanitizer) still pass;
  // it catches a clock rate that is wrong by a large factor.
  {
    hl::DeviceBuffer<long long> elapsed(1);
    hl::GpuEvent start, stop;
    hl::launch_spin_kernel(10.0, ticks_per_us, dim3(1), dim3(kSmallThreads), origin);  // warm-up
    start.record(origin);
    hl::launch_spin_kernel(2000.0, ticks_per_us, dim3(1), dim3(kSmallThreads), origin,
                           elapsed.data());
    stop.record(origin);
    stop.synchronize();
    const double ms_taken = stop.milliseconds_since(start);
    const long long ticks = elapsed.download()[0];
    report.check("a 2 ms spin kernel takes 1.6 .. 100 ms by the event clock",
                 ms_taken >= 1.6 && ms_taken <= 100.0 &&
                     ticks >= static_cast<long long>(2000.0 * ticks_per_us),
                 hl::fixed(ms_taken, 3) + " ms, " + std::to_string(ticks) + " ticks at " +
                     hl::fixed(ticks_per_us, 3) + " ticks/us");
  }
  const auto short_ticks = static_cast<long long>(20.0 * ticks_per_us);
  SmallKernels small(s.kernels, s.kernel_blocks, kSmallThreads, short_ticks, seed);
  for (const unsigned int count : std::set<unsigned int>{1, 4, s.streams, 32}) {
    check_small_kernels(report, small, count, origin);
  }
  SmallKernels full(4, blocks_filling_the_gpu(device), kFullThreads, short_ticks, seed + 1);
  check_small_kernels(report, full, s.streams, origin);

  // Pipelines with chunk counts that do and do not match the stream count.
  struct Case {
    std::size_t n, chunks;
    unsigned int streams;
  };
  const Case cases[] = {{std::size_t{1} << 20, 1, 1},
                        {std::size_t{1} << 20, 8, 4},
                        {3 * (std::size_t{1} << 18), 3, 2},
                        {std::size_t{1} << 22, 64, 16}};
  for (const Case& c : cases) {
    Pipeline p(c.n, seed + c.n + c.chunks, false);
    p.prepare_reference(16);
    ms::StreamSet set(c.streams);
    p.poison(p.pinned());
    set.fork_join(origin, [&] { ms::enqueue_pipeline(p.pinned(), c.chunks, 16, set.streams()); });
    HIP_CHECK(hipStreamSynchronize(origin));
    p.check(report, p.pinned(),
            "pipeline, N = " + std::to_string(c.n) + ", " + std::to_string(c.chunks) +
                " chunks over " + std::to_string(c.streams) + " streams");
  }
  {
    Pipeline p(std::size_t{1} << 20, seed + 7, true);
    p.prepare_reference(16);
    ms::StreamSet set(s.pipeline_streams);
    p.poison(p.pageable());
    set.fork_join(origin, [&] { ms::enqueue_pipeline(p.pageable(), 8, 16, set.streams()); });
    HIP_CHECK(hipStreamSynchronize(origin));
    p.check(report, p.pageable(), "pipeline from pageable host memory, 8 chunks");
  }
  const std::size_t wrong = producer_consumer(std::size_t{1} << 16, ticks_per_us, true, seed + 3);
  report.check("consumer on stream B waits for the producer on stream A (hipStreamWaitEvent)",
               wrong == 0, std::to_string(wrong) + " wrong elements");
  report.summary(report.failures() == 0 ? "every kernel, chunk and dependency correct"
                                        : "wrong results (see the FAIL lines)");
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  std::int64_t streams = s.streams, kernels = s.kernels, kernel_us = 100, kernel_blocks = 1;
  std::int64_t chunks = 8, pipeline_streams = 4, rounds = 0;
  hl::LessonCli cli("lesson03_multi_stream",
                    "Lesson 03: when streams make the GPU do more at once, and when they cannot",
                    std::int64_t{1} << 25);
  cli.add_count("--streams", streams, "Streams of the multi-stream runs (compared with 1 stream)",
                1, 1024);
  cli.add_count("--kernels", kernels, "Small kernels per run", 1, 4096);
  cli.add_count("--kernel-us", kernel_us, "Duration of each small kernel in microseconds", 1,
                100000);
  cli.add_count("--kernel-blocks", kernel_blocks, "Blocks per small kernel", 1, 1024);
  cli.add_count("--chunks", chunks,
                "Chunks of the copy/compute pipeline; must divide --size (the pipeline's "
                "element count)",
                1, 1024);
  cli.add_count("--pipeline-streams", pipeline_streams, "Streams of the pipeline", 1, 1024);
  cli.add_count("--rounds", rounds,
                "Kernel rounds per element in the pipeline; 0 = as long as the input copy", 0,
                std::int64_t{1} << 20);
  cli.add_number("--min-stream-speedup", s.min_stream_speedup,
                 "Speed check: 1-stream time / --streams-stream time for the small kernels", 0.0,
                 1000.0);
  cli.add_number("--min-pipeline-speedup", s.min_pipeline_speedup,
                 "Speed check: sequential time / pipelined time", 0.0, 100.0);
  cli.add_number("--max-full-speedup", s.max_full_speedup,
                 "Speed check: for GPU-filling kernels, 1-stream / --streams-stream time stays "
                 "at or below this",
                 0.0, 100.0);

  return hl::run_lesson(cli, argc, argv, [&](hl::Report& report) {
    const hl::CommonOptions& options = cli.options();
    s.streams = static_cast<unsigned int>(streams);
    s.kernels = static_cast<unsigned int>(kernels);
    s.kernel_us = static_cast<double>(kernel_us);
    s.kernel_blocks = static_cast<unsigned int>(kernel_blocks);
    s.chunks = static_cast<std::size_t>(chunks);
    s.pipeline_streams = static_cast<unsigned int>(pipeline_streams);
    s.rounds = static_cast<unsigned int>(rounds);
    const auto n = static_cast<std::size_t>(options.size);
    // The pipeline cuts --size into equal chunks; a remainder, or chunks too small to keep
    // a copy engine busy, would teach nothing. Checked before any GPU work.
    if (n % s.chunks != 0) {
      throw hl::UsageError("--chunks " + std::to_string(s.chunks) + " does not divide --size " +
                           std::to_string(n) + " into equal chunks; pick a divisor of --size "
                           "(powers of two divide the default 2^25)");
    }
    if (n / s.chunks < 1024) {
      throw hl::UsageError("--chunks " + std::to_string(s.chunks) + " cuts --size " +
                           std::to_string(n) + " into chunks of " + std::to_string(n / s.chunks) +
                           " elements; each chunk needs at least 1024");
    }

    const hl::Device device = hl::open_device(options.device);
    hl::describe_device(report, device);
    const double ticks_per_us = hl::spin_ticks_per_microsecond();
    report.fact("spin_ticks_per_us", ticks_per_us);
    std::cout << device.name() << ": " << device.compute_units() << " " << hl::kComputeUnitName
              << "s; spin clock " << hl::fixed(ticks_per_us, 3) << " ticks/us\n";
    hl::GpuStream origin;  // where every fork/join starts and ends, and timings are recorded
    if (!options.check) {
      hl::require_device_memory(2 * n * sizeof(std::uint32_t), "--size " + std::to_string(n));
    }

    if (options.check) {
      run_check(report, device, s, ticks_per_us, options.seed, origin);
      return;
    }

    const hl::TimingPlan plan{3, options.repeat};
    const bool tour = !options.speed_check;
    const auto ticks = static_cast<long long>(s.kernel_us * ticks_per_us);

    // 1. Small kernels: one stream against several.
    SmallKernels small(s.kernels, s.kernel_blocks, kSmallThreads, ticks, options.seed);
    double small_one = 0.0;
    double small_many = 0.0;
    if (tour) {
      sweep_stream_counts(report, small, s, origin, plan);
    }
    std::tie(small_one, small_many) = compare_one_and_many(
        report, small, s.streams, origin, plan, std::to_string(s.kernels) + " small kernels");
    const double stream_speedup = small_one / small_many;
    report.measurement("small_kernels_speedup", stream_speedup);

    // 2. Kernels that fill the GPU: more streams have nothing to fill.
    const unsigned int full_blocks = blocks_filling_the_gpu(device);
    SmallKernels full(s.kernels, full_blocks, kFullThreads, ticks, options.seed + 1);
    const auto [full_one, full_many] = compare_one_and_many(
        report, full, s.streams, origin, plan,
        std::to_string(s.kernels) + " GPU-filling kernels of " + std::to_string(full_blocks) +
            " blocks");
    const double full_speedup = full_one / full_many;
    report.measurement("full_kernels_speedup", full_speedup);
    if (tour) {
      hl::Table table({"kernels", "1 stream ms", std::to_string(s.streams) + " streams ms",
                       "speedup"});
      table.add_row({"1 block each", hl::fixed(small_one, 3), hl::fixed(small_many, 3),
                     hl::fixed(stream_speedup, 2)});
      table.add_row({std::to_string(full_blocks) + " blocks each (fills the GPU)",
                     hl::fixed(full_one, 3), hl::fixed(full_many, 3), hl::fixed(full_speedup, 2)});
      report.table("small_vs_full",
                   "Streams help only while the GPU has room: " + std::to_string(s.kernels) +
                       " kernels of " + hl::fixed(s.kernel_us, 0) + " us",
                   table);
    }

    // 3. Copy/compute overlap.
    Pipeline pipeline(n, options.seed + 2, tour);
    const unsigned int kernel_rounds =
        s.rounds > 0 ? s.rounds : ms::rounds_matching_the_copy(pipeline.pinned(), origin);
    report.fact("pipeline_rounds", kernel_rounds);
    const PipelineResult pr = run_pipeline(report, pipeline, s, kernel_rounds, origin, plan, tour);
    const double pipeline_speedup = pr.sequential / pr.pipelined;
    report.measurement("pipeline_ms.sequential", pr.sequential);
    report.measurement("pipeline_ms.pipelined", pr.pipelined);
    report.measurement("pipeline_speedup", pipeline_speedup);

    // 4. Dependencies, priorities, the legacy default stream; 5. hardware queues.
    if (tour) {
      const std::size_t raced = producer_consumer(std::size_t{1} << 16, ticks_per_us, false,
                                                  options.seed + 3);
      const std::size_t waited = producer_consumer(std::size_t{1} << 16, ticks_per_us, true,
                                                   options.seed + 3);
      report.check("with hipStreamWaitEvent the consumer reads finished data", waited == 0,
                    std::to_string(waited) + " wrong elements");
      std::cout << "without the wait (a race, on purpose): " << raced << " of 65536 elements "
                << "were read before the producer wrote them\n";
      compare_priorities(report, device, ticks_per_us);
      compare_default_stream(report, ticks_per_us, hl::TimingPlan{2, 5});
      explain_hardware_queues(report, s);
    }

    const std::string small_name = "speedup of " + std::to_string(s.streams) +
                                   " streams over 1, " + std::to_string(s.kernels) +
                                   " one-block kernels";
    const std::string full_name = "speedup of " + std::to_string(s.streams) +
                                  " streams over 1, " + std::to_string(s.kernels) +
                                  " GPU-filling kernels";
    const std::string pipe_name = "speedup of the pipeline (" + std::to_string(s.chunks) +
                                  " chunks, " + std::to_string(s.pipeline_streams) +
                                  " streams) over sequential";
    if (options.speed_check) {
      report.check_ratio_at_least(small_name, stream_speedup, s.min_stream_speedup);
      report.check_ratio_at_most(full_name, full_speedup, s.max_full_speedup);
      report.check_ratio_at_least(pipe_name, pipeline_speedup, s.min_pipeline_speedup);
    } else {
      std::cout << "\n" << small_name << " = " << hl::fixed(stream_speedup, 2)
                << " (the speed test requires >= " << hl::fixed(s.min_stream_speedup, 2) << ")\n"
                << full_name << " = " << hl::fixed(full_speedup, 2)
                << " (the speed test requires <= " << hl::fixed(s.max_full_speedup, 2) << ")\n"
                << pipe_name << " = " << hl::fixed(pipeline_speedup, 2)
                << " (the speed test requires >= " << hl::fixed(s.min_pipeline_speedup, 2)
                << ")\n";
    }
    report.summary(std::to_string(s.streams) + " streams: " + hl::fixed(stream_speedup, 1) +
                   "x for one-block kernels, " + hl::fixed(full_speedup, 2) +
                   "x for GPU-filling ones; pipeline " + hl::fixed(pipeline_speedup, 2) + "x");
  });
}
