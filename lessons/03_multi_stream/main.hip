/// \file lessons/03_multi_stream/main.hip
/// \brief Lesson 03: when streams make the GPU do more at once, and when they cannot.
///
/// The story (the README's Application flow has the same numbers):
///  1. The ruler: a kernel spinning on the device clock for 2 ms takes 2 ms by the events.
///  2. One-block kernels on 1, 2, 4 ... 32 streams: streams let them run side by side. A block
///     trace of 16 of them on 1 and on --streams streams draws and checks the schedule.
///  3. Kernels that already fill the GPU: more streams have nothing left to fill.
///  4. Copy/compute overlap: pinned memory, the work cut into chunks (the last one shorter
///     when --chunks does not divide it) and pipelined over streams, against one piece;
///     a timeline of the pipeline from events shows the stages overlap.
///  5. Ordering across streams: an event makes a consumer wait for its producer.
///  6. Stream priorities: a short kernel behind a backlog of blocks.
///  7. The legacy default stream, with blocking and with non-blocking streams.
///  8. The serialization switch: step 2 again, in a child process whose every launch waits.
///  9. Streams are not hardware queues: how many can really run at once.
/// --check runs every step with small sizes and no timing (steps 6 and 7 only measure, so
/// they run only when timing does); the tour and --speed-check time everything.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "hip_lessons/child_process.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/lesson.hpp"
#include "hip_lessons/spin_kernel.hpp"
#include "kernels.hpp"
#include "traced_runs.hpp"
#include "workloads.hpp"

namespace hl = hip_lessons;
namespace ms = multi_stream;

namespace {

// The lesson's own options (checked by LessonCli before any GPU work).
struct Settings {
  std::int64_t streams = 8, kernels = 32, kernel_us = 100, kernel_blocks = 1;
  std::int64_t chunks = 8, pipeline_streams = 4, rounds = 0;  // rounds 0: as long as the copy
  bool spread_child = false;
  unsigned int count(std::int64_t v) const { return static_cast<unsigned int>(v); }
};

// What every step needs. No timing plan under --check: each workload runs once, is checked.
struct Context {
  hl::Report& report;
  const hl::CommonOptions& options;
  const hl::Device& device;
  double ticks_per_us;
  long long kernel_ticks;  // --kernel-us; 20 us under --check
  hipStream_t origin;      // where every fork/join starts and ends, and timings are recorded
  std::optional<hl::TimingPlan> plan;
};

// 1. Every duration in this lesson comes from the spin clock, so check it against events.
// The upper bound is loose, so tools that slow kernels down (compute-sanitizer) still pass;
// it catches a clock rate that is wrong by a large factor.
void check_the_ruler(const Context& c) {
  const ms::SpinReading r = ms::time_a_spin(2000.0, c.ticks_per_us, c.origin);
  c.report.check(
      "a 2 ms spin kernel takes 1.6 .. 100 ms by the event clock",
      r.event_ms >= 1.6 && r.event_ms <= 100.0 && r.ticks >= std::llround(2000.0 * c.ticks_per_us),
      hl::format("{:.3} ms, {} ticks at {:.3} ticks/us", r.event_ms, r.ticks, c.ticks_per_us));
}

// 2. One-block kernels use a sliver of the GPU; spread round-robin over independent streams,
// several run at once. Returns the medians on 1 and on --streams streams.
std::pair<double, double> spread_small_kernels(const Context& c, const Settings& s,
                                               const hl::SpeedCheck& check) {
  ms::SmallKernels work(s.count(s.kernels), s.count(s.kernel_blocks), ms::kSmallThreads,
                        c.kernel_ticks, c.options.seed);
  hl::ResultTable table(
      "small_kernels",
      hl::format("{} kernels of {} block(s) x {} threads, {} us each, round-robin over the streams",
                 s.kernels, s.kernel_blocks, ms::kSmallThreads, s.kernel_us),
      {{"streams"}, {"median", "ms", 3}, {"ideal", "ms", 3}, {"speedup vs 1 stream"}});
  double one = 0.0, many = 0.0;
  for (const unsigned int count : std::set<unsigned int>{1, 2, 4, 8, 16, 32, s.count(s.streams)}) {
    const double t = work.run(c.report, count, c.origin, c.plan,
                              hl::format("{} small kernels on {} stream(s)", s.kernels, count));
    if (count == 1) one = t;
    if (count == s.streams) many = t;
    const auto waves = (s.kernels + count - 1) / count;  // ideal: `count` kernels at a time
    if (!c.plan) continue;
    table.row({count, t, waves * s.kernel_us / 1000.0, one / t});
    c.report.measurement(hl::format("small_kernels_ms.streams_{}", count), t);
  }
  ms::show_small_kernels(c.report, s.count(s.streams), c.kernel_ticks, c.ticks_per_us, c.origin,
                         c.options.seed + 9);
  if (!c.plan) return {one, many};
  c.report.table(table);
  c.report.measurement("small_kernels_speedup", one / many);
  c.report.speed(check, one / many);
  return {one, many};
}

// 3. Kernels of as many blocks as fit on the whole GPU at once: a kernel from another stream
// finds no idle CU/SM, so its blocks start only as the first kernel's blocks finish.
// Returns the speedup of --streams streams over one (0 under --check).
double fill_the_gpu(const Context& c, const Settings& s, std::pair<double, double> small,
                    const hl::SpeedCheck& check) {
  const unsigned int blocks = ms::blocks_filling_the_gpu(c.device.compute_units());
  const unsigned int kernels = c.plan ? s.count(s.kernels) : 4;  // --check: these are large
  ms::SmallKernels full(kernels, blocks, ms::kFullThreads, c.kernel_ticks, c.options.seed + 1);
  const std::string what = hl::format("{} GPU-filling kernels of {} blocks", kernels, blocks);
  const double one = full.run(c.report, 1, c.origin, c.plan, what + ", 1 stream");
  const double many = full.run(c.report, s.count(s.streams), c.origin, c.plan,
                               hl::format("{}, {} streams", what, s.streams));
  if (!c.plan) return 0.0;
  const std::string streams = hl::format("{} streams", s.streams);
  hl::ResultTable table("small_vs_full",
                        hl::format("Streams help only while the GPU has room: {} kernels of {} us",
                                   kernels, s.kernel_us),
                        {{"kernels"}, {"1 stream", "ms", 3}, {streams, "ms", 3}, {"speedup"}});
  table.row({hl::format("{} block(s) each", s.kernel_blocks), small.first, small.second,
             small.first / small.second});
  table.row({hl::format("{} blocks each (fills the GPU)", blocks), one, many, one / many});
  c.report.table(table);
  c.report.measurement("full_kernels_speedup", one / many);
  c.report.speed(check, one / many);
  return one / many;
}

// 4. Copy in, compute, copy out: in one piece on one stream, then cut into chunks that
// several streams pipeline, so one chunk's copies overlap another chunk's kernel. Returns the
// speedup of the pipeline over one piece (0 under --check).
double overlap_copies_and_compute(const Context& c, const Settings& s,
                                  const hl::SpeedCheck& check) {
  std::unique_ptr<ms::Pipeline> p;
  unsigned int rounds = 16;  // --check: any cost will do
  std::vector<double> t;
  for (const ms::PipelineCase& how : ms::pipeline_cases(
           c.plan.has_value(), c.options.size, s.count(s.chunks), s.count(s.pipeline_streams))) {
    if (!p || p->n != how.n) {
      p.reset();  // free the previous size first
      p = std::make_unique<ms::Pipeline>(how.n, c.options.seed + 2 + how.n);
      if (c.plan) {
        rounds = s.rounds > 0 ? s.count(s.rounds)
                              : ms::rounds_matching_the_copy(p->arrays(false), c.origin);
      }
      p->prepare_reference(rounds);
    }
    t.push_back(p->run(c.report, how, rounds, c.origin, c.plan));
  }
  ms::show_pipeline(c.report, *p, s.count(s.chunks), s.count(s.pipeline_streams), rounds, c.origin);
  if (!c.plan) return 0.0;
  c.report.fact("pipeline_rounds", rounds);
  ms::report_pipeline(c.report, t, rounds, p->n, s.chunks, s.pipeline_streams);
  ms::report_stages(c.report, ms::time_stages(p->arrays(false), rounds, c.origin, *c.plan));
  c.report.measurement("pipeline_speedup", t[0] / t[2]);
  c.report.speed(check, t[0] / t[2]);
  return t[0] / t[2];
}

// 5. The same producer and consumer with the event (checked) and without it (counted).
void order_with_an_event(const Context& c) {
  const std::size_t n = std::size_t{1} << 16;
  const std::size_t waited = ms::producer_consumer(n, c.ticks_per_us, true, c.options.seed + 3);
  c.report.check("consumer on stream B waits for the producer on stream A (hipStreamWaitEvent)",
                 waited == 0, hl::format("{} wrong elements", waited));
  const std::size_t raced = ms::producer_consumer(n, c.ticks_per_us, false, c.options.seed + 3);
  c.report.note(hl::format(
      "without the wait (a race, on purpose): {} of {} elements were read too early", raced, n));
}

// 6. A low-priority stream holds a backlog of 20 waves of 50 us blocks; how soon does a
// short kernel on a stream of the same, and of the highest, priority start?
void compare_priorities(const Context& c) {
  int least = 0, greatest = 0;
  HIP_CHECK(hipDeviceGetStreamPriorityRange(&least, &greatest));
  c.report.note(hl::format("\nstream priorities: least {}, greatest {} (lower is higher priority)",
                           least, greatest));
  c.report.fact("priority_least", least);
  c.report.fact("priority_greatest", greatest);
  if (least == greatest) {
    return c.report.note("  a single priority level here: nothing to compare");
  }
  const unsigned int waves = 20;
  const double block_us = 50.0;
  hl::GpuStream backlog(hipStreamNonBlocking, least);
  hl::ResultTable table(
      "priorities",
      hl::format("A 10 us kernel launched behind {} waves of {} us blocks on a low-priority stream",
                 waves, block_us),
      {{"urgent kernel's stream priority"}, {"median latency", "ms", 3}, {"backlog", "ms", 3}});
  for (const int priority : {least, greatest}) {
    hl::GpuStream urgent(hipStreamNonBlocking, priority);
    const ms::UrgentLatency t = ms::urgent_behind_backlog(
        backlog, urgent, ms::blocks_filling_the_gpu(c.device.compute_units()) * waves, block_us,
        c.ticks_per_us);
    table.row(
        {hl::format("{} ({})", priority, priority == least ? "same as the backlog" : "highest"),
         t.latency, t.backlog});
    c.report.measurement(hl::format("urgent_latency_ms.priority_{}", priority), t.latency);
  }
  c.report.table(table);
}

// 7. The legacy default stream (stream 0) synchronizes implicitly with blocking streams only.
void compare_default_stream(const Context& c) {
  hl::ResultTable table(
      "legacy_default_stream",
      "1 ms kernel on A, tiny kernel on the legacy default stream, 1 ms kernel on B",
      {{"streams A and B created with"}, {"median", "ms (host clock)", 3}});
  for (const bool blocking : {true, false}) {
    const double t = ms::a_zero_b_ms(blocking, c.ticks_per_us);
    table.row({blocking ? "hipStreamDefault (blocking)" : "hipStreamNonBlocking", t});
    c.report.measurement(
        hl::format("legacy_default_stream_ms.{}", blocking ? "blocking" : "non_blocking"), t);
  }
  c.report.table(table);
}

// 8. The first thing to try when you suspect a scheduling bug: serialize, and see whether the
// result changes. The switch makes every kernel launch wait until the kernel has finished, so
// no two kernels overlap, whatever their streams. The runtime reads it once, at start-up, so
// step 2's spread runs again in a child process of this program: with the switch and, for a
// fair comparison, without it. --check runs the children untimed: they only check results.
void serialize_and_compare(const Context& c, const Settings& s, double one_stream_ms) {
  std::istringstream words(hl::format(
      "--spread-child --streams {} --kernels {} --kernel-us {} --kernel-blocks {} --device {} "
      "--seed {} --repeat {}",
      s.streams, s.kernels, s.kernel_us, s.kernel_blocks, c.options.device, c.options.seed,
      c.options.repeat));
  std::vector<std::string> args{std::istream_iterator<std::string>(words), {}};
  if (!c.plan) args.push_back("--check");
  hl::ResultTable table("serialization",
                        hl::format("{} kernels of {} us on {} streams, in child processes",
                                   s.kernels, s.kernel_us, s.streams),
                        {{"run"}, {"median", "ms", 3}});
  for (const hl::EnvSetting& setting :
       {hl::EnvSetting{ms::kSerializeSwitch, std::nullopt},
        hl::EnvSetting{ms::kSerializeSwitch, ms::kSerializeValue}}) {
    const hl::ChildRun child = hl::run_self(args, {setting}, 120.0);
    c.report.check(hl::format("{} kernels on {} streams correct with {} (child process)", s.kernels,
                              s.streams, setting.describe()),
                   child.succeeded(),
                   child.succeeded() ? "" : child.outcome.status() + ": " + child.tail());
    if (!c.plan) continue;
    table.row({setting.describe(), child.number("streams_ms")});
    c.report.measurement(hl::format("serialization_ms.{}", setting.value ? "serialized" : "unset"),
                         child.number("streams_ms"));
  }
  if (!c.plan) return;
  table.row({"1 stream (step 2, this process)", one_stream_ms});
  table.row({"serial ideal: kernels x --kernel-us", s.kernels * s.kernel_us / 1000.0});
  c.report.table(table);
}

// The child of step 8: step 2's kernels on --streams streams, then one "@result" line.
void spread_in_child(const Context& c, const Settings& s) {
  ms::SmallKernels work(s.count(s.kernels), s.count(s.kernel_blocks), ms::kSmallThreads,
                        c.kernel_ticks, c.options.seed);
  const double t = work.run(c.report, s.count(s.streams), c.origin, c.plan, "kernels correct");
  c.report.line(hl::format("{}correct={} streams_ms={}", hl::kResultPrefix,
                           c.report.failures() == 0 ? 1 : 0, t));
}

// 9. Streams are cheap software objects; the hardware runs a few queues.
void explain_hardware_queues(const Context& c, const Settings& s) {
  const hl::HardwareQueueVariable queues = hl::hardware_queue_variable();
  const char* value = std::getenv(queues.name);
  const std::string shown = value ? value : hl::format("unset (default {})", queues.default_count);
  hl::ResultTable table(
      "hardware_queues", "How streams reach the GPU",
      {{"platform"}, {"variable"}, {"value here"}, {"what more streams than queues do"}});
  table.row({hl::platform_name(hl::build_platform()), queues.name, shown, ms::kQueueSharing});
  c.report.table(table);
  c.report.fact("queue_setting", shown);
  c.report.note(hl::format("Step 2 used up to {} streams; past the queue count they share queues.",
                           std::max<std::int64_t>(32, s.streams)));
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  hl::LessonCli cli("lesson03_multi_stream",
                    "Lesson 03: when streams make the GPU do more at once, and when they cannot",
                    std::int64_t{1} << 25);
  const hl::SpeedCheck& stream_speedup =
      cli.add_speed_check(hl::at_least("1-stream / --streams-stream time, one-block kernels",
                                       "--min-stream-speedup", HIP_LESSONS_03_MIN_STREAM_SPEEDUP));
  const hl::SpeedCheck& full_speedup =
      cli.add_speed_check(hl::at_most("1-stream / --streams-stream time, GPU-filling kernels",
                                      "--max-full-speedup", HIP_LESSONS_03_MAX_FULL_SPEEDUP));
  const hl::SpeedCheck& pipeline_speedup = cli.add_speed_check(
      hl::at_least("sequential / pipelined copy-compute-copy time", "--min-pipeline-speedup",
                   HIP_LESSONS_03_MIN_PIPELINE_SPEEDUP));
  cli.add_count("--streams", s.streams, "Streams of the runs compared with 1 stream", 1, 1024);
  cli.add_count("--kernels", s.kernels, "Small kernels per run", 1, 4096);
  cli.add_count("--kernel-us", s.kernel_us, "Microseconds each small kernel runs", 1, 100000);
  cli.add_count("--kernel-blocks", s.kernel_blocks, "Blocks per small kernel", 1, 1024);
  cli.add_count("--chunks", s.chunks,
                "Pipeline chunks of ceil(--size / chunks) elements; the last may be shorter", 1,
                1024);
  cli.add_count("--pipeline-streams", s.pipeline_streams, "Streams of the pipeline", 1, 1024);
  cli.add_count("--rounds", s.rounds,
                "Pipeline kernel rounds per element; 0 = as long as the input copy", 0, 1 << 20);
  cli.add_trace_output();
  cli.add_flag("--spread-child", s.spread_child,
               "Only time step 2's kernels on --streams streams, print an @result line (step 8)");

  return hl::run_lesson(cli, argc, argv, [&](hl::Report& report) {
    const hl::CommonOptions& options = cli.options();
    const hl::Device device = hl::open_device(options.device);
    const double ticks_per_us = hl::spin_ticks_per_microsecond();  // needs the device open
    report.facts(device.facts());
    report.fact("spin_ticks_per_us", ticks_per_us);
    report.note(hl::format("{}: {} {}s; spin clock {:.3} ticks/us", device.name(),
                           device.compute_units(), hl::kComputeUnitName, ticks_per_us));
    if (options.timed() && !s.spread_child) {
      hl::require_device_memory(2 * static_cast<std::size_t>(options.size) * sizeof(std::uint32_t),
                                hl::format("--size {}", options.size));
    }
    hl::GpuStream origin;
    std::optional<hl::TimingPlan> plan;  // none under --check: run once and check, untimed
    if (options.timed()) plan = hl::TimingPlan{3, options.repeat};
    const long long ticks = std::llround((plan ? s.kernel_us : 20) * ticks_per_us);
    const Context c{report, options, device, ticks_per_us, ticks, origin, plan};
    if (s.spread_child) return spread_in_child(c, s);

    check_the_ruler(c);                                                       // 1.
    const auto small = spread_small_kernels(c, s, stream_speedup);            // 2.
    const double full = fill_the_gpu(c, s, small, full_speedup);              // 3.
    const double piped = overlap_copies_and_compute(c, s, pipeline_speedup);  // 4.
    order_with_an_event(c);                                                   // 5.
    if (c.plan) compare_priorities(c);                                        // 6.
    if (c.plan) compare_default_stream(c);                                    // 7.
    serialize_and_compare(c, s, small.first);                                 // 8.
    explain_hardware_queues(c, s);                                            // 9.
    if (!c.plan) {
      return report.summary(report.failures() == 0 ? "every kernel, chunk and child run correct"
                                                   : "wrong results (see the FAIL lines)");
    }
    report.summary(hl::format("{} streams: {:.1}x for one-block kernels, {:.2}x for GPU-filling",
                              s.streams, small.first / small.second, full) +
                   hl::format(" ones; pipeline {:.2}x", piped));
  });
}
