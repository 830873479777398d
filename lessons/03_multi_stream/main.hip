/// \file lessons/03_multi_stream/main.hip
/// \brief Lesson 03: streams, copy/compute overlap, and ordering across streams with events.
///
/// The story (the README's Application flow has the same numbers): 1. one-block kernels on 1
/// to 32 streams run side by side, GPU-filling kernels gain nothing; 2. the same kernels traced
/// block by block on 1 and on --streams streams; 3. copy/compute overlap with pinned memory,
/// chunks and streams; 4. an event orders a consumer after its producer; 5. stream priorities.
/// Work spreads over worker streams by a fork from and a join into one origin stream
/// (kernels.hpp). --check runs every step once, untimed, at sizes that catch indexing bugs.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hip_lessons/device.hpp"
#include "hip_lessons/environment.hpp"
#include "hip_lessons/lesson.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;
namespace ms = multi_stream;

namespace {

// The lesson's own options (checked by LessonCli before any GPU work).
struct Settings {
  std::int64_t streams = 8, kernels = 32, kernel_us = 100, kernel_blocks = 1;
  std::int64_t chunks = 8, pipeline_streams = 4, rounds = 0;  // rounds 0: as long as the copy
};

// What every step works with.
struct Run {
  const hl::CommonOptions& options;
  hl::RunOrTime runs;      // timed in the tour and --speed-check, once under --check
  hipStream_t origin;      // every fork starts and every join ends here; timings are taken here
  double ticks_per_us;     // of the spin clock
  long long kernel_ticks;  // --kernel-us; 20 us under --check
};

// Runs every kernel of `work` round-robin over `count` new worker streams, on an output
// poisoned first, then checks every slot. Returns the median ms (nothing under --check).
std::optional<double> run_on_streams(ms::StampWork& work, std::int64_t count, hipStream_t origin,
                                     const hl::RunOrTime& runs, hl::StepResult& step,
                                     hl::TracedRun* trace = nullptr) {
  ms::WorkerStreams workers(count);
  //! [poison_on_origin]
  // Every byte 0xFF, so a slot that no kernel stamped cannot match. Enqueued on the origin,
  // which the workers fork from: they start after it without the host waiting for it.
  HIP_CHECK(hipMemsetAsync(work.out.data(), 0xFF, work.out.bytes(), origin));
  //! [poison_on_origin]
  const std::optional<double> ms =
      runs.on_stream(origin, [&] { ms::enqueue_round_robin(work, workers, origin, trace); });
  step.check_match(hl::format("{} kernels of {} block(s) on {} stream(s){}", work.kernels,
                              work.blocks, count, trace ? ", traced" : ""),
                   hl::first_mismatch(work.expected, work.out.download()), work.expected.size());
  return ms;
}

// 1. A one-block kernel uses a sliver of the GPU; spread round-robin over independent streams,
// several run at once. A kernel of as many blocks as fit on the whole GPU leaves a kernel from
// another stream no idle CU/SM: its blocks start only as the first kernel's blocks finish.
// Every duration comes from the spin clock, so first a 2 ms spin is timed by events, in every
// mode; the upper bound is loose, so compute-sanitizer's slowdown passes.
hl::StepResult spread_over_streams(const Run& r, const Settings& s, const hl::Device& device,
                                   const hl::SpeedCheck& one_block_check,
                                   const hl::SpeedCheck& filling_check) {
  hl::StepResult step("1. One-block kernels on 1 to 32 streams, and kernels that fill the GPU");
  hl::DeviceBuffer<long long> spun(1);
  HIP_CHECK(hipMemsetAsync(spun.data(), 0, spun.bytes(), r.origin));
  const double ruler_ms = *hl::RunOrTime(hl::TimingPlan{1, 1}).on_stream(r.origin, [&] {
    hl::launch_spin_kernel(2000.0, r.ticks_per_us, dim3(1), dim3(64), r.origin, spun.data());
  });
  const long long ticks = spun.download()[0];
  step.facts(device.facts())
      .fact("spin_ticks_per_us", r.ticks_per_us)
      .check("a 2 ms spin kernel takes 1.6 .. 100 ms by the event clock",
             ruler_ms >= 1.6 && ruler_ms <= 100.0 && ticks >= std::llround(2000 * r.ticks_per_us),
             hl::format("{:.3} ms, {} ticks at {:.3} ticks/us", ruler_ms, ticks, r.ticks_per_us));

  ms::StampWork small(s.kernels, s.kernel_blocks, ms::kOneBlockThreads, r.kernel_ticks,
                      r.options.seed);
  hl::ResultTable table(
      "small_kernels",
      hl::format("{} kernels of {} block(s) x {} threads, {} us each, round-robin over the streams",
                 s.kernels, s.kernel_blocks, ms::kOneBlockThreads, s.kernel_us),
      {{"streams"}, {"median", "ms", 3}, {"ideal", "ms", 3}, {"speedup vs 1 stream"}});
  std::optional<double> one, many, small_speedup;
  for (const std::int64_t count : std::set<std::int64_t>{1, 2, 4, 8, 16, 32, s.streams}) {
    const std::optional<double> t = run_on_streams(small, count, r.origin, r.runs, step);
    if (count == 1) one = t;
    const std::optional<double> speedup = hl::ratio(one, t);
    if (count == s.streams) many = t, small_speedup = speedup;
    const std::int64_t waves = (s.kernels + count - 1) / count;  // ideal: `count` at a time
    table.row({count, t, waves * s.kernel_us / 1000.0, speedup});
    step.measurement("small_kernels_ms.streams_" + std::to_string(count), t);
  }
  const unsigned int blocks = ms::blocks_filling_the_gpu(device.compute_units());
  ms::StampWork filling(hl::per_mode<unsigned int>(r.options, s.kernels, {4}).front(), blocks,
                        ms::kFillingThreads, r.kernel_ticks, r.options.seed + 1);
  const std::optional<double> full_one = run_on_streams(filling, 1, r.origin, r.runs, step);
  const auto full_many = run_on_streams(filling, s.streams, r.origin, r.runs, step);
  const std::optional<double> full_speedup = hl::ratio(full_one, full_many);
  hl::ResultTable contrast("small_vs_full", "Streams help only while the GPU has room",
                           {{"kernels"},
                            {"blocks each"},
                            {"1 stream", "ms", 3},
                            {std::to_string(s.streams) + " streams", "ms", 3},
                            {"speedup"}});
  contrast.row({"one-block", s.kernel_blocks, one, many, small_speedup});
  contrast.row({"GPU-filling", blocks, full_one, full_many, full_speedup});
  step.table(table)
      .measurement("small_kernels_speedup", small_speedup)
      .speed(one_block_check, small_speedup)
      .table(contrast)
      .measurement("full_kernels_speedup", full_speedup)
      .speed(filling_check, full_speedup);
  if (small_speedup && full_speedup) {
    step.summary(hl::format("{} streams: {:.1}x for one-block kernels, {:.2}x for GPU-filling ones",
                            s.streams, *small_speedup, *full_speedup));
  }
  return step;
}

// 2. 16 of step 1's kernels block by block on 1 and on --streams streams, on one time axis,
// kept for --trace and checked: one stream runs its kernels in issue order, never two at once;
// k streams run min(k, queues, kernels) at once at some moment, queues being the hardware
// queues the streams are spread over (the README says why, per platform). A 5 ms gate kernel
// on the origin holds the workers until every launch is enqueued, so the trace shows what the
// GPU does with them, not how fast the host issued them.
hl::StepResult trace_the_schedule(const Run& r, const Settings& s, hl::TraceFile& traces) {
  const unsigned int kernels = 16;
  const std::string many = std::to_string(s.streams) + " streams";
  hl::StepResult step("2. The same kernels traced block by block: 1 stream against " + many);
  ms::StampWork work(kernels, 1, ms::kOneBlockThreads, r.kernel_ticks, r.options.seed + 9);
  std::vector<hl::Schedule> runs;
  for (const std::int64_t count : {std::int64_t{1}, s.streams}) {
    hl::TracedRun trace(traces, count == 1 ? "1 stream" : many, kernels);
    hl::launch_spin_kernel(5000.0, r.ticks_per_us, dim3(1), dim3(64), r.origin);  // the gate
    run_on_streams(work, count, r.origin, hl::RunOrTime(std::nullopt), step, &trace);
    runs.push_back(trace.finish());
  }
  const double span = std::max(runs[0].span_us(), runs[1].span_us());  // one axis for both
  const std::string titles[] = {"On 1 stream: one at a time, a staircase",
                                "On " + many + ": side by side in the same columns"};
  for (int i = 0; i < 2; ++i) {
    step.figure(hl::timeline(titles[i], hl::rows_by_launch(runs[i]), span));
  }
  const auto crowd = runs[0].first_overlap_above(1);  // a failure names the first two
  step.check(
      "1 stream: no two kernels overlap (peak concurrent launches == 1)", !crowd,
      crowd ? "ran at once: " + hl::describe(*crowd)
            : hl::format("{} kernels one after another in {:.1} us", kernels, runs[0].span_us()));
  const int queues = hl::hardware_queue_count();
  const int need = static_cast<int>(std::min<std::int64_t>({s.streams, queues, kernels}));
  const int peak = runs[1].peak_concurrent_launches();
  return step.schedule_check(
      hl::format("{}: at least min(streams, {} {}, kernels) = {} kernels run at once", many,
                 hl::hardware_queue_variable().name, queues, need),
      peak >= need,
      hl::format("{} at once at the peak, on {} {}s; all done in {:.1} us", peak,
                 runs[1].units().size(), hl::kComputeUnitName, runs[1].span_us()));
}

//! [pinned_memory]
// The pipeline's arrays. Page-locked (pinned) host memory from hipHostMalloc is what the copy
// engines read and write directly, so a hipMemcpyAsync from it returns at once and runs beside
// other streams' work. The pageable arrays hold the same data, to show what is lost without it.
struct PipelineData {
  std::size_t n;
  std::vector<std::uint32_t> input, expected, pageable_out;
  std::uint32_t *pinned_in = nullptr, *pinned_out = nullptr;
  hl::DeviceBuffer<std::uint32_t> device_in, device_out;
  PipelineData(std::size_t count, std::uint64_t seed)
      : n(count), input(n), expected(n), pageable_out(n), device_in(n), device_out(n) {
    hl::fill_random_words(input, seed);
    HIP_CHECK(hipHostMalloc(reinterpret_cast<void**>(&pinned_in), n * 4, hipHostMallocDefault));
    HIP_CHECK(hipHostMalloc(reinterpret_cast<void**>(&pinned_out), n * 4, hipHostMallocDefault));
    std::copy(input.begin(), input.end(), pinned_in);
  }
  ~PipelineData() {
    (void)hipHostFree(pinned_in);
    (void)hipHostFree(pinned_out);
  }
  PipelineData(const PipelineData&) = delete;
  PipelineData& operator=(const PipelineData&) = delete;
  ms::PipelineArrays arrays(bool pageable) {
    if (pageable)
      return {input.data(), pageable_out.data(), device_in.data(), device_out.data(), n};
    return {pinned_in, pinned_out, device_in.data(), device_out.data(), n};
  }
};
//! [pinned_memory]

// One way to cut the pipeline: the key of its time in the JSON, chunks, streams, host memory.
struct Chunking {
  const char* key;
  std::size_t chunks, streams;
  bool pageable;
};

// Runs the pipeline cut as `how` says over new worker streams, from poisoned device arrays (the
// input too, so a chunk never copied in is caught) and host output, then compares every
// element. `marks`: four events per chunk for the timeline. Returns the median ms, if timed.
std::optional<double> run_pipeline(PipelineData& p, const Chunking& how, unsigned int rounds,
                                   hipStream_t origin, const hl::RunOrTime& runs,
                                   hl::StepResult& step, const hipEvent_t* marks = nullptr) {
  const ms::PipelineArrays a = p.arrays(how.pageable);
  HIP_CHECK(hipMemsetAsync(a.device_in, 0xFF, p.n * sizeof(std::uint32_t), origin));
  HIP_CHECK(hipMemsetAsync(a.device_out, 0xFF, p.n * sizeof(std::uint32_t), origin));
  std::fill(a.host_out, a.host_out + p.n, 0xFFFFFFFFu);
  ms::WorkerStreams workers(how.streams);
  const std::optional<double> ms = runs.on_stream(origin, [&] {
    workers.fork_join(origin,
                      [&] { ms::enqueue_pipeline(a, how.chunks, rounds, workers.streams, marks); });
  });
  const std::size_t chunk = (p.n + how.chunks - 1) / how.chunks;
  step.check_match(
      hl::format("pipeline, N = {}: --chunks {} gives {} of {} (last {}) over {} stream(s), {}",
                 p.n, how.chunks, (p.n + chunk - 1) / chunk, chunk, p.n - (p.n - 1) / chunk * chunk,
                 how.streams, how.pageable ? "pageable" : "pinned"),
      hl::first_mismatch(p.expected.data(), a.host_out, p.n), p.n);
  return ms;
}

// The pipelined run once more with an event before and after every stage of every chunk, drawn
// as a row per stream and stage (first four streams). Copies carry no block trace: every time
// is hipEventElapsedTime since an event recorded first on the origin. A bar runs from when its
// stream reached the stage to when the stage ended, waits for a copy engine or SMs included.
void draw_the_pipeline(PipelineData& p, const Chunking& how, unsigned int rounds,
                       hipStream_t origin, hl::StepResult& step) {
  const std::size_t chunk = (p.n + how.chunks - 1) / how.chunks, used = (p.n + chunk - 1) / chunk;
  const std::size_t shown = std::min<std::size_t>({how.streams, used, 4});  // each has a chunk
  std::vector<hipEvent_t> marks(1 + 4 * used);  // [0]: the zero of the timeline
  for (hipEvent_t& mark : marks) HIP_CHECK(hipEventCreate(&mark));
  HIP_CHECK(hipEventRecord(marks[0], origin));
  run_pipeline(p, how, rounds, origin, hl::RunOrTime(std::nullopt), step, marks.data() + 1);
  const char* stages[] = {" copy in", " kernel", " copy out"};
  std::vector<hl::TimelineRow> rows(3 * shown);
  double span = 0.0;
  for (std::size_t c = 0; c < used; ++c) {
    for (std::size_t stage = 0; stage < 3 && c % how.streams < shown; ++stage) {
      float from = 0.0f, to = 0.0f;
      HIP_CHECK(hipEventElapsedTime(&from, marks[0], marks[1 + 4 * c + stage]));
      HIP_CHECK(hipEventElapsedTime(&to, marks[0], marks[2 + 4 * c + stage]));
      hl::TimelineRow& row = rows[3 * (c % how.streams) + stage];
      row.label = "s" + std::to_string(c % how.streams) + stages[stage];
      row.busy.push_back({1000.0 * from, 1000.0 * to});
      span = std::max(span, 1000.0 * to);
    }
  }
  for (const hipEvent_t mark : marks) HIP_CHECK(hipEventDestroy(mark));
  step.figure(hl::timeline(hl::format("Pipeline by events, {} chunks over {} streams (rows: first "
                                      "{}): one chunk's copies run while another computes",
                                      used, how.streams, shown),
                           rows, span));
}

// 3. Copy in, compute, copy out: in one piece on one stream, then cut into chunks that
// several streams pipeline, so one chunk's copies overlap another chunk's kernel.
hl::StepResult overlap_copies_and_compute(std::size_t n, const Run& r, const Settings& s,
                                          const hl::SpeedCheck& check) {
  hl::StepResult step("3. Copy/compute overlap, N = " + std::to_string(n));
  PipelineData p(n, r.options.seed + 2 + n);
  // --check needs no balance between the stages, only a kernel that does some work.
  const auto balanced = [&] { return ms::rounds_matching_the_copy(p.arrays(false), r.origin); };
  const auto rounds = static_cast<unsigned int>(s.rounds > 0     ? s.rounds
                                                : r.runs.timed() ? balanced()
                                                                 : 16);
  std::transform(p.input.begin(), p.input.end(), p.expected.begin(), ms::LcgJump(rounds));
  const std::size_t c = s.chunks, k = s.pipeline_streams;
  const Chunking variants[] = {{"sequential", 1, 1, false},
                               {"chunked_one_stream", c, 1, false},
                               {"pipelined", c, k, false},
                               {"pageable", c, k, true}};
  hl::ResultTable table(
      "pipeline",
      hl::format("Copy in, compute ({} rounds), copy out of {:bytes} each way", rounds, n * 4.0),
      {{"chunks"}, {"streams"}, {"host memory"}, {"median", "ms", 3}, {"x sequential"}});
  std::optional<double> t[4], speedup[4];
  for (int i = 0; i < 4; ++i) {
    const Chunking& v = variants[i];
    t[i] = run_pipeline(p, v, rounds, r.origin, r.runs, step);
    speedup[i] = hl::ratio(t[0], t[i]);
    table.row({v.chunks, v.streams, v.pageable ? "pageable" : "pinned", t[i], speedup[i]});
    step.measurement(std::string("pipeline_ms.") + v.key, t[i]);
  }
  draw_the_pipeline(p, variants[2], rounds, r.origin, step);
  return step.fact("pipeline_rounds", rounds)
      .table(table)
      .measurement("pipeline_speedup", speedup[2])
      .speed(check, speedup[2]);
}

//! [wait_event]
// The producer stamps `p.out` on stream A; the consumer stamps that into `out` on stream B.
// Streams are independent, so B must be told to wait: record an event on A after the producer
// and make B wait for it. The host does not block; the GPU enforces the order. Returns the
// consumer's first wrong element, if any.
std::optional<hl::Mismatch> consume_after_producer(ms::StampWork& p,
                                                   hl::DeviceBuffer<std::uint32_t>& out,
                                                   const std::vector<std::uint32_t>& expected,
                                                   bool wait) {
  hipStream_t a = nullptr, b = nullptr;
  hipEvent_t produced = nullptr;
  HIP_CHECK(hipStreamCreateWithFlags(&a, hipStreamNonBlocking));
  HIP_CHECK(hipStreamCreateWithFlags(&b, hipStreamNonBlocking));
  HIP_CHECK(hipEventCreateWithFlags(&produced, hipEventDisableTiming));
  // Poisoned, and done before B starts: a consumer that does not wait reads the poison.
  HIP_CHECK(hipMemsetAsync(p.out.data(), 0xFF, p.out.bytes(), a));
  HIP_CHECK(hipMemsetAsync(out.data(), 0xFF, out.bytes(), a));
  HIP_CHECK(hipStreamSynchronize(a));
  hipLaunchKernelGGL(ms::spin_then_stamp, dim3(p.blocks), dim3(p.threads), 0, a, p.ticks,
                     p.in.data(), p.out.data(), 0, hl::BlockTrace{});
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipEventRecord(produced, a));
  if (wait) HIP_CHECK(hipStreamWaitEvent(b, produced, 0));
  hipLaunchKernelGGL(ms::spin_then_stamp, dim3(p.blocks), dim3(p.threads), 0, b, 0LL, p.out.data(),
                     out.data(), 0, hl::BlockTrace{});
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipStreamSynchronize(b));
  HIP_CHECK(hipStreamSynchronize(a));
  HIP_CHECK(hipEventDestroy(produced));
  HIP_CHECK(hipStreamDestroy(a));
  HIP_CHECK(hipStreamDestroy(b));
  return hl::first_mismatch(expected, out.download());
}
//! [wait_event]

// 4. The same producer and consumer with the event (checked) and without it (counted). The
// producer's 256 blocks each spin 0.5 ms and stamp one element; the consumer's do not spin.
hl::StepResult order_with_an_event(const Run& r) {
  ms::StampWork producer(1, 256, ms::kOneBlockThreads, std::llround(500 * r.ticks_per_us),
                         r.options.seed + 3);
  hl::DeviceBuffer<std::uint32_t> consumed(256);
  std::vector<std::uint32_t> expected(256);
  for (int i = 0; i < 256; ++i) expected[i] = ms::stamp(producer.expected[i], 0);
  const auto waited = consume_after_producer(producer, consumed, expected, true);
  const auto raced = consume_after_producer(producer, consumed, expected, false);
  hl::StepResult step("4. Ordering across streams with an event");
  return step
      .check_match("consumer on stream B waits for the producer on stream A (hipStreamWaitEvent)",
                   waited, 256)
      .note(hl::format("without the wait (a race, on purpose): {} of 256 elements were read "
                       "too early",
                       raced ? raced->mismatches : 0));
}

// 5. Priorities decide which waiting work the GPU takes first: a 10 us kernel launched right
// behind a backlog of 20 waves of 50 us blocks (the backlog's priority is the least), from a
// stream of the backlog's priority and from one of the greatest. Every repetition brings a new
// backlog, queued behind what is left of the last one: a kernel that waits, waits for about
// one backlog; one that is preferred starts as soon as a block of the backlog ends.
hl::StepResult compare_priorities(const Run& r, const hl::Device& device) {
  int least = 0, greatest = 0;
  HIP_CHECK(hipDeviceGetStreamPriorityRange(&least, &greatest));
  const unsigned int blocks = ms::blocks_filling_the_gpu(device.compute_units()) * 20;
  hipStream_t backlog = nullptr, urgent = nullptr;
  HIP_CHECK(hipStreamCreateWithPriority(&backlog, hipStreamNonBlocking, least));
  hl::ResultTable table("priorities",
                        hl::format("A 10 us kernel behind 20 waves of 50 us blocks of priority {}; "
                                   "priorities run from {} (least) to {} (greatest)",
                                   least, least, greatest),
                        {{"urgent kernel's stream priority"}, {"median latency", "ms", 3}});
  hl::StepResult step("5. Stream priorities");
  for (const int priority : std::set<int>{least, greatest}) {
    HIP_CHECK(hipStreamCreateWithPriority(&urgent, hipStreamNonBlocking, priority));
    const std::optional<double> latency = r.runs.on_stream(urgent, [&] {
      hl::launch_spin_kernel(50.0, r.ticks_per_us, dim3(blocks), dim3(256), backlog);
      hl::launch_spin_kernel(10.0, r.ticks_per_us, dim3(1), dim3(64), urgent);
    });
    HIP_CHECK(hipStreamSynchronize(backlog));  // what the urgent kernel did not wait for
    HIP_CHECK(hipStreamDestroy(urgent));
    table.row({priority, latency});
    step.measurement("urgent_latency_ms.priority_" + std::to_string(priority), latency);
  }
  HIP_CHECK(hipStreamDestroy(backlog));
  return step.fact("priority_least", least).fact("priority_greatest", greatest).table(table);
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  hl::LessonCli cli("lesson03_multi_stream",
                    "Lesson 03: when streams make the GPU do more at once, and when they cannot",
                    std::int64_t{1} << 25);
  const hl::SpeedCheck& one_block_speedup =
      cli.add_speed_check(hl::at_least("1-stream / --streams-stream time, one-block kernels",
                                       "--min-stream-speedup", HIP_LESSONS_03_MIN_STREAM_SPEEDUP));
  const hl::SpeedCheck& filling_speedup =
      cli.add_speed_check(hl::at_most("1-stream / --streams-stream time, GPU-filling kernels",
                                      "--max-full-speedup", HIP_LESSONS_03_MAX_FULL_SPEEDUP));
  const hl::SpeedCheck& pipeline_speedup = cli.add_speed_check(
      hl::at_least("sequential / pipelined copy-compute-copy time", "--min-pipeline-speedup",
                   HIP_LESSONS_03_MIN_PIPELINE_SPEEDUP));
  cli.add_count("--streams", s.streams, "Streams compared with 1 stream", 1, 1024);
  cli.add_count("--kernels", s.kernels, "One-block kernels per run", 1, 4096);
  cli.add_count("--kernel-us", s.kernel_us, "Microseconds each kernel runs", 1, 100000);
  cli.add_count("--kernel-blocks", s.kernel_blocks, "Blocks per one-block kernel", 1, 1024);
  cli.add_count("--chunks", s.chunks,
                "Pipeline chunks of ceil(--size / chunks) words; the last "
                "may be shorter",
                1, 1024);
  cli.add_count("--pipeline-streams", s.pipeline_streams, "Streams of the pipeline", 1, 1024);
  cli.add_count("--rounds", s.rounds, "Pipeline kernel rounds per word; 0: as long as the copy", 0,
                1 << 20);
  cli.add_trace_output();

  return hl::run_lesson(cli, argc, argv, [&](hl::Lesson& lesson) {
    const hl::CommonOptions& options = lesson.options;
    const hl::Device device = hl::open_device(options.device);
    // The pipeline holds two arrays of --size words on the device.
    hl::require_device_memory(2 * static_cast<std::size_t>(options.size) * sizeof(std::uint32_t),
                              "--size " + std::to_string(options.size));
    hipStream_t origin = nullptr;
    HIP_CHECK(hipStreamCreateWithFlags(&origin, hipStreamNonBlocking));
    const double ticks_per_us = hl::spin_ticks_per_microsecond();  // needs the device open
    const double kernel_us = hl::per_mode<double>(options, s.kernel_us, {20.0}).front();
    const Run r{options, hl::RunOrTime(options), origin, ticks_per_us,
                std::llround(kernel_us * ticks_per_us)};
    hl::Report& report = lesson.report;

    report.step(spread_over_streams(r, s, device, one_block_speedup, filling_speedup));  // 1.
    report.step(trace_the_schedule(r, s, lesson.traces));                                // 2.
    // --check: even chunks, a last shorter one (2^20 + 3 and 1001 in 8), more chunks than
    // elements (5 and 1 in 8), each with --chunks over --pipeline-streams, pinned and pageable.
    for (const std::size_t n :
         hl::per_mode<std::size_t>(options, options.size, {1 << 20, (1 << 20) + 3, 1001, 5, 1})) {
      report.step(overlap_copies_and_compute(n, r, s, pipeline_speedup));  // 3.
    }
    report.step(order_with_an_event(r));         // 4.
    report.step(compare_priorities(r, device));  // 5.
    HIP_CHECK(hipStreamDestroy(origin));
  });
}
