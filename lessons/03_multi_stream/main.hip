/// \file lessons/03_multi_stream/main.hip
/// \brief Lesson 03: streams, copy/compute overlap, and ordering across streams with events.
///
/// Steps (numbered as in the README): 1. the spin clock checked by events; 2. one-block kernels
/// side by side on streams, GPU-filling ones not; 3. the same traced; 4. copy/compute overlap;
/// 5. an event orders two streams.
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
#include "hip_lessons/timeline.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;
namespace mst = multi_stream;  // kernels.hpp's names (ms means milliseconds here)
namespace {

struct Settings {  // the lesson's own options, checked by LessonCli before any GPU work
  std::int64_t streams = 8, kernels = 32, kernel_us = 100, kernel_blocks = 1;
  std::int64_t chunks = 8, pipeline_streams = 4, rounds = 0;  // rounds 0: as long as the copy
};

struct Run {  // what every step works with
  const hl::CommonOptions& options;
  hl::RunOrTime runs;      // timed in the tour and --speed-check, once under --check
  hipStream_t origin;      // every fork starts and every join ends here; timings are taken here
  double ticks_per_us;     // of the spin clock
  long long kernel_ticks;  // --kernel-us; 20 us under --check
  std::string many;        // "8 streams": --streams, as the tables and checks name it
};

// Runs `work` over `count` new worker streams on a poisoned output; checks every slot.
std::optional<double> run_on_streams(mst::StampWork& work, std::int64_t count, const Run& r,
                                     hl::StepResult& step, hl::TracedRun* trace = nullptr) {
  const hl::RunOrTime runs = trace ? hl::RunOrTime() : r.runs;  // traces: untimed
  const mst::Workers workers = mst::create_workers(static_cast<std::size_t>(count));
  // A traced run starts with a gate kernel: one block that spins 5 ms on the origin. The
  // workers wait for it (the fork), so no kernel starts before the host has enqueued them all.
  if (trace) {
    hipLaunchKernelGGL(hl::spin_kernel<>, dim3(1), dim3(64), 0, r.origin, 5000.0, r.ticks_per_us,
                       nullptr, hl::BlockTrace{});
    HIP_CHECK(hipGetLastError());
  }
  //! [poison_on_origin]
  // 0xFF in every byte, so a slot no kernel stamped fails; on the origin: the workers follow.
  HIP_CHECK(hipMemsetAsync(work.out.data(), 0xFF, work.out.bytes(), r.origin));
  //! [poison_on_origin]
  const std::optional<double> ms =
      runs.on_stream(r.origin, [&] { mst::enqueue_round_robin(work, workers, r.origin, trace); });
  step.check_match(hl::format("{} kernels of {} block(s) on {} stream(s){}", work.kernels,
                              work.blocks, count, trace ? ", traced" : ""),
                   hl::first_mismatch(work.expected, work.out.download()), work.expected.size());
  mst::destroy_workers(workers);
  return ms;
}

// 1. Every kernel of this lesson waits by spinning on a device clock: a 2 ms spin, timed by
// events (a clock of the runtime's own), shows that the spin clock's rate is right.
hl::StepResult check_the_spin_clock(const Run& r, const hl::Device& device) {
  hl::StepResult step("1. The spin clock, checked by the event clock");
  hipEvent_t start = nullptr, stop = nullptr;
  HIP_CHECK(hipEventCreate(&start));
  HIP_CHECK(hipEventCreate(&stop));
  HIP_CHECK(hipEventRecord(start, r.origin));
  hipLaunchKernelGGL(hl::spin_kernel<>, dim3(1), dim3(mst::kOneBlockThreads), 0, r.origin, 2000.0,
                     r.ticks_per_us, nullptr, hl::BlockTrace{});
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipEventRecord(stop, r.origin));
  HIP_CHECK(hipEventSynchronize(stop));
  float ruler = 0.0f;
  HIP_CHECK(hipEventElapsedTime(&ruler, start, stop));
  HIP_CHECK(hipEventDestroy(start));
  HIP_CHECK(hipEventDestroy(stop));
  step.facts(device.facts())
      .fact("spin_ticks_per_us", r.ticks_per_us)
      .check("a 2 ms spin kernel takes 1.6 .. 100 ms by the event clock",
             ruler >= 1.6f && ruler <= 100.0f,
             hl::format("{:.3} ms at {:.3} ticks/us", ruler, r.ticks_per_us));
  return step;
}

// 2. One-block kernels leave most of the GPU idle: on several streams, several run at once.
hl::StepResult spread_over_streams(const Run& r, const Settings& s, const hl::Device& device,
                                   const hl::SpeedCheck& one_block_check,
                                   const hl::SpeedCheck& filling_check) {
  hl::StepResult step("2. One-block kernels on 1 to 32 streams, and kernels that fill the GPU");
  const unsigned int blocks = mst::blocks_filling_the_gpu(device.compute_units());
  mst::StampWork small(s.kernels, s.kernel_blocks, mst::kOneBlockThreads, r.kernel_ticks,
                       r.options.seed);
  mst::StampWork filling(hl::per_mode<unsigned int>(r.options, s.kernels, {4}).front(), blocks,
                         mst::kFillingThreads, r.kernel_ticks, r.options.seed + 1);
  hl::ResultTable table(
      "small_kernels",
      hl::format("{} us kernels of {} block(s), or GPU-filling of {}, round-robin over streams",
                 s.kernel_us, s.kernel_blocks, blocks),
      {{"kernels"}, {"streams"}, {"median", "ms", 3}, {"ideal", "ms", 3}, {"speedup vs 1 stream"}});
  std::optional<double> one, small_speedup, full_one, full_speedup;
  for (const std::int64_t count : std::set<std::int64_t>{1, 2, 4, 8, 16, 32, s.streams}) {
    const std::optional<double> t = run_on_streams(small, count, r, step);
    if (count == 1) one = t;
    const std::optional<double> speedup = hl::ratio(one, t);
    if (count == s.streams) small_speedup = speedup;
    const std::int64_t waves = (s.kernels + count - 1) / count;  // ideal: `count` at a time
    table.row({"one-block", count, t, waves * s.kernel_us / 1000.0, speedup});
    step.measurement(hl::format("small_kernels_ms.streams_{}", count), t);
  }
  for (const std::int64_t count : std::set<std::int64_t>{1, s.streams}) {
    const std::optional<double> t = run_on_streams(filling, count, r, step);
    if (count == 1) full_one = t;
    full_speedup = hl::ratio(full_one, t);  // no room left: about 1 on any stream count
    table.row({"GPU-filling", count, t, std::nullopt, full_speedup});
  }
  step.table(table)
      .measurement("small_kernels_speedup", small_speedup)
      .speed(one_block_check, small_speedup)
      .measurement("full_kernels_speedup", full_speedup)
      .speed(filling_check, full_speedup);
  if (small_speedup && full_speedup) {
    step.summary(hl::format("{}: {:.1}x for one-block kernels, {:.2}x for GPU-filling ones", r.many,
                            *small_speedup, *full_speedup));
  }
  return step;
}

// 3. 8 of step 2's kernels block by block on 1 and on --streams streams: 1 stream never runs
// two at once, k streams run min(k, hardware queues, kernels) at once (the README says why).
hl::StepResult trace_the_schedule(const Run& r, const Settings& s, hl::TraceFile& traces) {
  const unsigned int kernels = 8;  // one row each in the timelines
  hl::StepResult step("3. The same kernels traced block by block: 1 stream against " + r.many);
  mst::StampWork work(kernels, 1, mst::kOneBlockThreads, r.kernel_ticks, r.options.seed + 9);
  std::vector<hl::Schedule> runs;
  for (const std::int64_t count : {std::int64_t{1}, s.streams}) {
    hl::TracedRun trace(traces, count == 1 ? "1 stream" : r.many, kernels);
    run_on_streams(work, count, r, step, &trace);
    runs.push_back(trace.finish());
  }
  const double span = std::max(runs[0].span_us(), runs[1].span_us());  // one axis for both
  const std::string titles[] = {"On 1 stream: one at a time, a staircase",
                                "On " + r.many + ": side by side in the same columns"};
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
      hl::format("{}: at least min(streams, {} {}, kernels) = {} kernels run at once", r.many,
                 hl::hardware_queue_variable().name, queues, need),
      peak >= need,
      hl::format("{} at once at the peak, on {} {}s; all done in {:.1} us", peak,
                 runs[1].units().size(), hl::kComputeUnitName, runs[1].span_us()));
}

struct Chunking {  // one way to cut the pipeline; `key` names its time in the JSON
  const char* key;
  std::size_t chunks, streams;
  bool pageable;
};

// Runs the pipeline cut as `how` says from poisoned arrays (the device input too: a chunk never
// copied in is caught) and compares every element. Returns the median ms, if timed.
std::optional<double> run_pipeline(mst::PipelineData& p, const Chunking& how, unsigned int rounds,
                                   hipStream_t origin, const hl::RunOrTime& runs,
                                   hl::StepResult& step, const hipEvent_t* marks = nullptr) {
  const mst::PipelineArrays a = p.arrays(how.pageable);
  HIP_CHECK(hipMemsetAsync(a.device_in, 0xFF, p.n * sizeof(std::uint32_t), origin));
  HIP_CHECK(hipMemsetAsync(a.device_out, 0xFF, p.n * sizeof(std::uint32_t), origin));
  std::fill(a.host_out, a.host_out + p.n, 0xFFFFFFFFu);
  const mst::Workers workers = mst::create_workers(how.streams);
  const std::optional<double> ms = runs.on_stream(origin, [&] {
    mst::fork_join(origin, workers,
                   [&] { mst::enqueue_pipeline(a, how.chunks, rounds, workers.streams, marks); });
  });
  const std::size_t chunk = (p.n + how.chunks - 1) / how.chunks;
  step.check_match(
      hl::format("pipeline, N = {}: --chunks {} gives {} of {} (last {}) over {} stream(s), {}{}",
                 p.n, how.chunks, (p.n + chunk - 1) / chunk, chunk, p.n - (p.n - 1) / chunk * chunk,
                 how.streams, how.pageable ? "pageable" : "pinned", marks ? ", with events" : ""),
      hl::first_mismatch(p.expected.data(), a.host_out, p.n), p.n);
  mst::destroy_workers(workers);
  return ms;
}

// The pipelined run again with events around every stage of every chunk, drawn per stream and
// stage (first four streams): a bar runs from when its stream reached the stage to its end.
void draw_the_pipeline(mst::PipelineData& p, const Chunking& how, unsigned int rounds,
                       hipStream_t origin, hl::StepResult& step) {
  const std::size_t chunk = (p.n + how.chunks - 1) / how.chunks, used = (p.n + chunk - 1) / chunk;
  const std::size_t shown = std::min<std::size_t>({how.streams, used, 4});  // each has a chunk
  std::vector<hipEvent_t> marks(1 + 4 * used);  // [0]: the zero of the timeline
  for (hipEvent_t& mark : marks) HIP_CHECK(hipEventCreate(&mark));
  HIP_CHECK(hipEventRecord(marks[0], origin));
  run_pipeline(p, how, rounds, origin, hl::RunOrTime(), step, marks.data() + 1);
  const char* stages[] = {" copy in", " kernel", " copy out"};
  std::vector<hl::TimelineRow> rows(3 * shown);
  double span = 0.0;
  for (std::size_t c = 0; c < used; ++c) {
    for (std::size_t stage = 0; stage < 3 && c % how.streams < shown; ++stage) {
      float from = 0.0f, to = 0.0f;
      HIP_CHECK(hipEventElapsedTime(&from, marks[0], marks[1 + 4 * c + stage]));
      HIP_CHECK(hipEventElapsedTime(&to, marks[0], marks[2 + 4 * c + stage]));
      hl::TimelineRow& row = rows[3 * (c % how.streams) + stage];
      row.label = hl::format("s{}{}", c % how.streams, stages[stage]);
      row.busy.push_back({1000.0 * from, 1000.0 * to});
      span = std::max(span, 1000.0 * to);
    }
  }
  for (const hipEvent_t mark : marks) HIP_CHECK(hipEventDestroy(mark));
  step.figure(hl::timeline(hl::format("Pipeline by events, {} chunks over {} streams: one "
                                      "chunk's copies run while another computes",
                                      used, how.streams),
                           rows, span));
}

// 4. Copy in, compute, copy out: in one piece, then in chunks pipelined over streams.
hl::StepResult overlap_copies_and_compute(std::size_t n, const Run& r, const Settings& s,
                                          const hl::SpeedCheck& check) {
  hl::StepResult step("4. Copy/compute overlap");
  mst::PipelineData p(n, r.options.seed + 2 + n);
  const unsigned int rounds = s.rounds > 0 ? static_cast<unsigned int>(s.rounds)
                              : r.runs.timed()
                                  ? mst::rounds_matching_the_copy(p.arrays(false), r.origin)
                                  : 16;  // --check needs no balance, only some work
  std::transform(p.input.begin(), p.input.end(), p.expected.begin(), mst::LcgJump(rounds));
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

// 5. A producer on stream A, a consumer of its output on stream B: once with B told to wait
// (checked), once without (a race on purpose: the elements read too early are counted).
hl::StepResult order_with_an_event(const Run& r) {
  // One producer kernel of 256 one-block slots: each block stamps its element after 0.5 ms.
  mst::StampWork producer(1, 256, mst::kOneBlockThreads, std::llround(500 * r.ticks_per_us),
                          r.options.seed + 3);
  hl::DeviceBuffer<std::uint32_t> consumed(256);
  std::vector<std::uint32_t> expected = producer.expected;
  for (std::uint32_t& word : expected) word = mst::stamp(word, 0);
  int least = 0, greatest = 0;
  HIP_CHECK(hipDeviceGetStreamPriorityRange(&least, &greatest));
  hl::StepResult step("5. Ordering across streams with an event");
  step.fact("priority_least", least).fact("priority_greatest", greatest);
  for (const bool wait : {true, false}) {
    //! [wait_event]
    // B gets the greatest priority and A the least: a priority only decides which ready work
    // the GPU takes first, so with the wait B still runs after A.
    hipStream_t a = nullptr, b = nullptr;
    hipEvent_t produced = nullptr;
    HIP_CHECK(hipStreamCreateWithPriority(&a, hipStreamNonBlocking, least));
    HIP_CHECK(hipStreamCreateWithPriority(&b, hipStreamNonBlocking, greatest));
    HIP_CHECK(hipEventCreateWithFlags(&produced, hipEventDisableTiming));
    // Poisoned, and done before B starts: a consumer that does not wait reads the poison.
    HIP_CHECK(hipMemsetAsync(producer.out.data(), 0xFF, producer.out.bytes(), a));
    HIP_CHECK(hipMemsetAsync(consumed.data(), 0xFF, consumed.bytes(), a));
    HIP_CHECK(hipStreamSynchronize(a));
    hipLaunchKernelGGL(mst::spin_then_stamp, dim3(256), dim3(64), 0, a, producer.ticks,
                       producer.in.data(), producer.out.data(), 0, hl::BlockTrace{});
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipEventRecord(produced, a));
    if (wait) HIP_CHECK(hipStreamWaitEvent(b, produced, 0));  // the host does not block
    hipLaunchKernelGGL(mst::spin_then_stamp, dim3(256), dim3(64), 0, b, 0LL, producer.out.data(),
                       consumed.data(), 0, hl::BlockTrace{});
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipStreamSynchronize(b));
    HIP_CHECK(hipStreamSynchronize(a));
    HIP_CHECK(hipEventDestroy(produced));
    HIP_CHECK(hipStreamDestroy(a));
    HIP_CHECK(hipStreamDestroy(b));
    //! [wait_event]
    const auto wrong = hl::first_mismatch(expected, consumed.download());
    if (wait) {
      step.check_match("consumer on stream B waits for the producer on stream A", wrong, 256);
    } else {
      step.note(hl::format("without the wait (a race, on purpose): {} of 256 read too early",
                           wrong ? wrong->mismatches : 0));
    }
  }
  return step;
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
  cli.add_count("--chunks", s.chunks, "Pipeline chunks of ceil(--size / chunks) words", 1, 1024);
  cli.add_count("--pipeline-streams", s.pipeline_streams, "Streams of the pipeline", 1, 1024);
  cli.add_count("--rounds", s.rounds, "Pipeline kernel rounds; 0: as long as a copy", 0, 1 << 20);
  cli.add_trace_output();

  return hl::run_lesson(cli, argc, argv, [&](hl::Lesson& lesson) {
    const hl::CommonOptions& options = lesson.options;
    const hl::Device device = hl::open_device(options.device);
    hl::require_device_memory(2 * static_cast<std::size_t>(options.size) * sizeof(std::uint32_t),
                              hl::format("--size {}", options.size));
    hipStream_t origin = nullptr;
    HIP_CHECK(hipStreamCreateWithFlags(&origin, hipStreamNonBlocking));
    const double ticks_per_us = hl::spin_ticks_per_microsecond();  // needs the device open
    const long long kernel_ticks =
        std::llround(hl::per_mode<double>(options, s.kernel_us, {20.0}).front() * ticks_per_us);
    const Run r{options,      hl::RunOrTime(options), origin,
                ticks_per_us, kernel_ticks,           hl::format("{} streams", s.streams)};

    lesson.report.step(check_the_spin_clock(r, device));  // 1.
    lesson.report.step(
        spread_over_streams(r, s, device, one_block_speedup, filling_speedup));  // 2.
    lesson.report.step(trace_the_schedule(r, s, lesson.traces));                 // 3.
    // 4. --check: even chunks (2^20), a shorter last (2^20 + 3, 1001), more than elements (5, 1)
    for (const std::size_t n :
         hl::per_mode<std::size_t>(options, options.size, {1 << 20, (1 << 20) + 3, 1001, 5, 1})) {
      lesson.report.step(overlap_copies_and_compute(n, r, s, pipeline_speedup));
    }
    lesson.report.step(order_with_an_event(r));  // 5.
    HIP_CHECK(hipStreamDestroy(origin));
  });
}
