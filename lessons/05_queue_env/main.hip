/// \file lessons/05_queue_env/main.hip
/// \brief Lesson 05: the process-wide knobs (hardware queues, the serialization switch, the
/// waiting policy, AMD's copy path and queue size), each setting measured in a child process.
///
/// A runtime reads its environment once and a process chooses its waiting policy once, so the
/// lesson runs itself again per setting (child_runs.hpp): a child (--measure) runs one of the
/// measurements below and reports one line; the five steps at the end put children side by side.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>

#include "child_runs.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/lesson.hpp"
#include "hip_lessons/schedule_lines.hpp"
#include "hip_lessons/timing.hpp"
#include "kernels.hpp"
#include "one_queue_traces.hpp"
#include "queue_log.hpp"

namespace hl = hip_lessons;
using namespace queue_env;

namespace {

// Step 3's switch (AMD_SERIALIZE_KERNEL=3: wait for the stream before and after each launch);
// step 1's most queues: AMD has no maximum (one per stream of the default 16), NVIDIA 32.
#if defined(__HIP_PLATFORM_AMD__)
constexpr const char *kSerializeSwitch = "AMD_SERIALIZE_KERNEL", *kSerializeValue = "3";
constexpr const char* kMostQueues = "16";
#else
constexpr const char *kSerializeSwitch = "CUDA_LAUNCH_BLOCKING", *kSerializeValue = "1";
constexpr const char* kMostQueues = "32";
#endif

// Child of steps 1-3: --streams non-blocking streams (they must not wait for the legacy
// default stream of the copies), each a chain of --chain dependent kernels, timed issued
// depth-first and breadth-first, and one chain alone; every word is checked after each.
hl::StepResult time_chains(hl::Lesson& lesson, const Settings& s, double ticks_per_us) {
  const auto ticks = static_cast<long long>(s.kernel_us * ticks_per_us);
  const auto steps = static_cast<unsigned int>(s.chain);
  std::vector<hipStream_t> streams(static_cast<std::size_t>(s.streams));
  for (auto& stream : streams) HIP_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  std::vector<std::uint32_t> expected(streams.size()), got(streams.size());  // a word per chain
  hl::fill_random_words(expected, lesson.options.seed);
  const std::size_t bytes = expected.size() * sizeof(std::uint32_t);
  std::uint32_t* words = nullptr;
  HIP_CHECK(hipMalloc(&words, bytes));
  HIP_CHECK(hipMemcpy(words, expected.data(), bytes, hipMemcpyHostToDevice));
  HIP_CHECK(hipDeviceSynchronize());  // a copy from pageable memory may return before it lands
  hl::StepResult step("Chains of dependent kernels");
  // The chains of the first `count` streams, timed (or once, traced), then every word checked.
  const auto run = [&](const char* name, IssueOrder order, std::size_t count,
                       hl::TracedRun* traced = nullptr) {
    const std::vector<hipStream_t> used(streams.begin(), streams.begin() + count);
    std::size_t times = 0;
    const auto once = [&] {
      issue_chains(order, used, steps, ticks, words, traced);
      HIP_CHECK(hipDeviceSynchronize());  // waits for every stream, not only the legacy one
      ++times;
    };
    const auto ms = traced ? std::nullopt : hl::RunOrTime(lesson.options).wall(once);
    if (traced) once();
    for (std::size_t i = 0; i < count * times; ++i) {
      expected[i % count] = chain_reference(expected[i % count], steps);
    }
    HIP_CHECK(hipMemcpy(got.data(), words, bytes, hipMemcpyDeviceToHost));
    step.check_match(name, hl::first_mismatch(expected, got), got.size());
    return ms;
  };
  // A chain can take longer than ideal (launch costs, compute-sanitizer), never shorter unless
  // the spin clock runs fast.
  const double ideal_ms = static_cast<double>(s.chain * s.kernel_us) / 1000.0;
  const double single = run("one chain alone", IssueOrder::kBreadthFirst, 1).value_or(ideal_ms);
  step.check("one chain alone takes at least 0.8 x its ideal time", single >= 0.8 * ideal_ms)
      .measurement("depth_first_ms", run("depth-first", IssueOrder::kDepthFirst, s.streams))
      .measurement("breadth_first_ms", run("breadth-first", IssueOrder::kBreadthFirst, s.streams))
      .measurement("ideal_ms", ideal_ms);
  if (hl::hardware_queue_count() == 1) {  // step 2: the one-queue child sends both orders traced
    for (const IssueOrder order : {IssueOrder::kDepthFirst, IssueOrder::kBreadthFirst}) {
      const char* name = order == IssueOrder::kDepthFirst ? "depth-first" : "breadth-first";
      hl::TracedRun traced(lesson.traces, name, streams.size() * steps);
      run(name, order, streams.size(), &traced);
      for (const std::string& line : hl::schedule_lines(name, traced.finish()))
        lesson.report.line(line);
    }
  }
  HIP_CHECK(hipFree(words));
  for (const hipStream_t stream : streams) HIP_CHECK(hipStreamDestroy(stream));
  return step;
}

// Child of step 4, its waiting policy set: the host waits for --wait-us kernels and for 10 us
// ones (round_trip_us: a launch, then hipStreamSynchronize).
hl::StepResult wait_for_kernels(const Settings& s, const hl::CommonOptions& o,
                                double ticks_per_us) {
  hipStream_t stream = nullptr;
  HIP_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  long long *spun = nullptr, ticks = 0;  // how long a kernel ran, by its own clock
  const auto wanted = static_cast<long long>(s.wait_us * ticks_per_us);  // as the kernel rounds
  HIP_CHECK(hipMalloc(&spun, sizeof *spun));
  hl::StepResult step("Waiting for kernels");
  //! [wait_cost]
  // CPU time of the whole process (std::clock counts every thread, the runtime's too) per wall
  // time while the host waits: spinning costs a whole core for the whole wait; blocking sync
  // puts the thread to sleep until the GPU signals completion.
  std::vector<double> cpu_per_wall;
  for (int i = 0; i < 8; ++i) {  // the first is a warm-up
    const std::clock_t cpu_before = std::clock();
    const double wall_us =
        round_trip_us(static_cast<double>(s.wait_us), ticks_per_us, stream, spun);
    const double cpu_us = static_cast<double>(std::clock() - cpu_before) * 1e6 / CLOCKS_PER_SEC;
    if (i > 0) cpu_per_wall.push_back(cpu_us / wall_us);
    HIP_CHECK(hipMemcpy(&ticks, spun, sizeof ticks, hipMemcpyDeviceToHost));
    step.check("the kernel ran its full --wait-us", ticks >= wanted);
  }
  //! [wait_cost]
  const hl::RunOrTime trips(hl::TimingPlan{20, std::max(100, 10 * o.repeat)});
  const auto trip_ms = trips.wall([&] { round_trip_us(10.0, ticks_per_us, stream); });
  HIP_CHECK(hipFree(spun));
  HIP_CHECK(hipStreamDestroy(stream));
  return step.measurement("cpu_per_wall", hl::median(cpu_per_wall))
      .measurement("round_trip_us", trip_ms.value() * 1e3);
}

// Child of step 5 (AMD): copies of --size floats in and out of pinned host memory, which the
// copy engines can read directly (every element checked); then launches behind a blocker.
hl::StepResult copy_and_enqueue(const hl::CommonOptions& o, double ticks_per_us) {
  const auto n = static_cast<std::size_t>(o.size);
  const std::size_t bytes = n * sizeof(float);
  hl::require_device_memory(bytes, "--size");
  std::vector<float> input(n);
  hl::fill_uniform(input, o.seed);
  float *host = nullptr, *on_device = nullptr;
  unsigned int *counter = nullptr, counted = 0;
  HIP_CHECK(hipHostMalloc(&host, bytes));
  HIP_CHECK(hipMalloc(&on_device, bytes));
  HIP_CHECK(hipMalloc(&counter, sizeof *counter));
  hipStream_t stream = nullptr;
  HIP_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  const hl::RunOrTime runs(o);
  std::copy(input.begin(), input.end(), host);
  const auto in_ms = runs.on_stream(stream, [&] {
    HIP_CHECK(hipMemcpyAsync(on_device, host, bytes, hipMemcpyHostToDevice, stream));
  });
  std::fill(host, host + n, std::nanf(""));  // poisoned: what comes back must be the copy
  const auto out_ms = runs.on_stream(stream, [&] {
    HIP_CHECK(hipMemcpyAsync(host, on_device, bytes, hipMemcpyDeviceToHost, stream));
  });
  hl::StepResult step("Copies, and launches behind a blocker");
  step.check_match("copied in and out unchanged", hl::first_mismatch(input.data(), host, n), n)
      .measurement("h2d_gbps", hl::ratio(bytes / 1e6, in_ms))
      .measurement("d2h_gbps", hl::ratio(bytes / 1e6, out_ms));
  //! [aql_queue_size]
  // A 20 ms kernel blocks the stream, and the host enqueues 4096 tiny kernels behind it. Each
  // launch holds a packet slot of the stream's AQL queue until the GPU has processed it: when
  // the queue has room for all of them the host returns at once; when it has not, the host
  // must wait for the blocker to finish before it can write more packets.
  std::vector<double> enqueue_ms;
  HIP_CHECK(hipMemsetAsync(counter, 0, sizeof *counter, stream));
  const std::optional<double> total_ms = runs.wall([&] {
    const auto start = std::chrono::steady_clock::now();
    hipLaunchKernelGGL(hl::spin_kernel<>, dim3(1), dim3(kThreads), 0, stream, 20000.0, ticks_per_us,
                       nullptr, hl::BlockTrace{});
    for (int i = 0; i < 4096; ++i) {
      hipLaunchKernelGGL(count_launch, dim3(1), dim3(kThreads), 0, stream, counter);
    }
    HIP_CHECK(hipGetLastError());
    const std::chrono::duration<double, std::milli> enqueued =
        std::chrono::steady_clock::now() - start;
    enqueue_ms.push_back(enqueued.count());
    HIP_CHECK(hipStreamSynchronize(stream));
  });
  //! [aql_queue_size]
  HIP_CHECK(hipMemcpy(&counted, counter, sizeof counted, hipMemcpyDeviceToHost));
  HIP_CHECK(hipStreamDestroy(stream));
  HIP_CHECK(hipFree(counter));
  HIP_CHECK(hipFree(on_device));
  HIP_CHECK(hipHostFree(host));
  return step.check("every launch of every run ran", counted == 4096 * enqueue_ms.size())
      .measurement("enqueue_ms", hl::median(enqueue_ms))
      .measurement("total_ms", total_ms);
}

// A child: select the device (and for step 4 the waiting policy), measure, print the result
// line, flushed at once so that it reaches the parent even if the runtime crashes later.
void measure_in_this_process(hl::Lesson& lesson, const Settings& s) {
  const hl::CommonOptions& o = lesson.options;
  //! [set_device_flags]
  // The waiting policy belongs to the device's context and is meant to be chosen before the
  // context exists. hipGetDeviceCount does not create one; hipSetDevice may (CUDA 12
  // initializes the primary context there, and then overwrites its flags in
  // hipSetDeviceFlags), and the first stream, allocation or launch certainly does. So: check
  // the device exists (hipGetDeviceCount only), select it, set the flags, and only then do
  // anything else.
  hl::require_device_index(o.device);
  if (o.device != 0) HIP_CHECK(hipSetDevice(o.device));
  for (const Policy& policy : kPolicies) {
    if (s.policy == policy.name) HIP_CHECK(hipSetDeviceFlags(policy.flag));
  }
  //! [set_device_flags]
  const double ticks_per_us = hl::spin_ticks_per_microsecond();
  const hl::StepResult step = s.measure == "wait"  ? wait_for_kernels(s, o, ticks_per_us)
                              : s.measure == "amd" ? copy_and_enqueue(o, ticks_per_us)
                                                   : time_chains(lesson, s, ticks_per_us);
  lesson.report.step(step);
  lesson.report.line(result_line(step.entries()));
  std::fflush(stdout);
}

// 1. One child per queue count, each timing the same chains in both issue orders: only a queue
// shared by several streams makes the order matter. The other platform's variable and malformed
// values are only shown, each in a child, so a runtime that crashes on one cannot stop the lesson.
hl::StepResult compare_queue_counts(const Children& children, const hl::Device& device,
                                    const hl::HardwareQueueVariable& q, const SpeedChecks& checks,
                                    hl::ChildRun& one_queue) {
  const std::vector<Child> all = {about("queues", {q.name, "1"}),
                                  about("queues", {q.name, {}}),
                                  about("queues", {q.name, kMostQueues}, true),
                                  about("queues", {q.counterpart, "1"}, true, true),
                                  about("queues", {q.name, "abc"}, true, true),
                                  about("queues", {q.name, "0"}, true, true),
                                  about("queues", {q.name, "1000"}, true, true)};
  hl::StepResult step("1. Hardware queues: one chain of dependent kernels per stream");
  const Runs runs = children.run("queues", "Queue count against issue order",
                                 {"depth_first_ms", "breadth_first_ms", "ideal_ms"}, all);
  step.facts(device.facts()).record(runs.verdicts).table(runs.table);
  const std::string &one = all[0].label, &unset = all[1].label;
  one_queue = runs.by_label.at(one);
  const auto depth = hl::ratio(runs(one, "depth_first_ms"), runs(one, "breadth_first_ms"));
  const auto breadth = hl::ratio(runs(unset, "breadth_first_ms"), runs(unset, "ideal_ms"));
  if (depth) {
    step.summary(hl::format("{}=1: depth-first {:.1}x slower than breadth-first", q.name, *depth));
  }
  return step.measurement("depth_over_breadth_one_queue", depth)
      .measurement("breadth_over_ideal_default", breadth)
      .speed(checks.depth_first, depth)
      .speed(checks.breadth_vs_ideal, breadth);
}

// 2. The one-queue child of step 1 also ran each order once traced and sent both runs
// (schedule_lines.hpp): drawn on one time axis, kept for --trace, and checked against the
// README's rule (one_queue_traces.hpp).
hl::StepResult one_queue_block_by_block(const hl::ChildRun& child, hl::TraceFile& traces,
                                        const std::string& setting, const Settings& s) {
  hl::StepResult step("2. One hardware queue, block by block: " + setting);
  if (!child.succeeded()) return step.skip("block traces", "the one-queue child failed (step 1)");
  const std::map<std::string, hl::Schedule> runs = hl::read_schedule_lines(child.outcome.output);
  if (!runs.count("depth-first") || !runs.count("breadth-first")) {
    return step.check("the one-queue child sent both block traces", false, child.tail());
  }
  const hl::Schedule &depth = runs.at("depth-first"), &breadth = runs.at("breadth-first");
  traces.keep(setting + ", depth-first", depth);
  traces.keep(setting + ", breadth-first", breadth);
  for (hl::Figure& timeline : one_queue_timelines(setting, depth, breadth, s.streams))
    step.figure(std::move(timeline));
  return step.record(
      one_queue_rule(depth, breadth, s.streams, s.chain, static_cast<double>(s.kernel_us)));
}

// Step 2's second part. On AMD: the one-queue child and the default child once more, each with
// HIP's log on (AMD_LOG_LEVEL=3), and the queue each stream got, as HIP's own lines name it
// (queue_log.hpp). Only shown: the log slows every HIP call, so no check reads these times.
// On NVIDIA no such log exists; a note says what plays the part.
hl::StepResult with_queue_log(hl::StepResult step, const Children& children,
                              const hl::HardwareQueueVariable& q) {
  if (hl::build_platform() != hl::Platform::kAmd) {
    return step.note(hl::format(
        "no queue log on NVIDIA: {} (default {}) sets how many hardware connections the streams "
        "share, and no runtime log says which connection a stream got",
        q.name, q.default_count));
  }
  hl::ResultTable table("queue_log", "Which hardware queue each stream got (HIP's log)",
                        {"setting", "stream", "hardware queue", "streams on that queue"});
  for (const hl::EnvSetting& set : {hl::EnvSetting{q.name, "1"}, hl::EnvSetting{q.name, {}}}) {
    const std::string label = set.describe() + ", AMD_LOG_LEVEL=3";
    std::vector<std::string> args = {"--measure", "queues", "--variable", set.name};
    args.insert(args.end(), children.shared.begin(), children.shared.end());
    const hl::ChildRun run = children.launch(args, {set, {"AMD_LOG_LEVEL", "3"}});
    const QueueLog log = read_queue_log(run.outcome.output);
    for (const StreamQueue& s : log.streams) {
      table.row({label, s.stream, s.queue + (s.reused ? " (reused)" : ""), log.users(s.queue)});
    }
    step.note(hl::format(
        "{}: child {}, {} streams named with their queue, {} queue lines "
        "outside a call that names a stream, {} unreadable log lines",
        label, run.outcome.status(), log.streams.size(), log.unattributed, log.malformed));
  }
  return step.table(table);
}

// 3. The first thing to try when a scheduling bug is suspected: serialize, and see whether the
// result changes. The switch makes every launch wait for its kernel, whatever its stream; the
// runtime reads it at start-up, so the chains run in a child with it and in one without.
hl::StepResult serialize_every_launch(const Children& children, const Settings& s) {
  const hl::EnvSetting off{kSerializeSwitch, std::nullopt}, on{kSerializeSwitch, kSerializeValue};
  hl::StepResult step("3. The serialization switch: " + on.describe());
  const Runs runs = children.run("serialization", "The chains in child processes",
                                 {"depth_first_ms", "breadth_first_ms"},
                                 {Child{off.describe(), {"--measure", "queues"}, {off}},
                                  Child{on.describe(), {"--measure", "queues"}, {on}}});
  step.record(runs.verdicts).table(runs.table);
  const double serial_ms = static_cast<double>(s.streams * s.chain * s.kernel_us) / 1000.0;
  return step.note(hl::format("serial ideal: kernels x --kernel-us = {:.3} ms", serial_ms))
      .measurement("serialization_ms.unset", runs(off.describe(), "breadth_first_ms"))
      .measurement("serialization_ms.serialized", runs(on.describe(), "breadth_first_ms"));
}

// 4. One child per waiting policy: a process chooses it once, before its context exists. Spin
// and blocking sync feed the speed checks; the tour adds yield and auto.
hl::StepResult compare_waiting_policies(const Children& children, const SpeedChecks& checks) {
  const auto policy = [](const char* name, bool tour_only) {
    return Child{name, {"--measure", "wait", "--policy", name}, {}, tour_only};
  };
  hl::StepResult step("4. Waiting for the GPU: hipSetDeviceFlags, one policy per child");
  const Runs runs =
      children.run("wait", "While waiting for a --wait-us kernel, and a 10 us kernel's round trip",
                   {"cpu_per_wall", "round_trip_us"},
                   {policy("spin", false), policy("blocking-sync", false), policy("yield", true),
                    policy("auto", true)});
  return step.record(runs.verdicts)
      .table(runs.table)
      .measurement("cpu_per_wall.spin", runs("spin", "cpu_per_wall"))
      .measurement("cpu_per_wall.blocking_sync", runs("blocking-sync", "cpu_per_wall"))
      .measurement("round_trip_us.spin", runs("spin", "round_trip_us"))
      .measurement("round_trip_us.blocking_sync", runs("blocking-sync", "round_trip_us"))
      .speed(checks.spin_cpu, runs("spin", "cpu_per_wall"))
      .speed(checks.blocking_cpu, runs("blocking-sync", "cpu_per_wall"));
}

// 5. AMD's copy engines and queue size, a child per setting (elsewhere they exit 77). Unset,
// HSA_ENABLE_SDMA leaves the choice of copy engines to ROCr, per GPU.
hl::StepResult try_amd_copy_path(const Children& children) {
  hl::StepResult step("5. AMD: copy engines and AQL queue size");
  const Runs runs = children.run(
      "amd_copy_path", "Pinned copies, and 4096 launches behind a 20 ms kernel",
      {"h2d_gbps", "d2h_gbps", "enqueue_ms", "total_ms"},
      {about("amd", {"HSA_ENABLE_SDMA", {}}), about("amd", {"HSA_ENABLE_SDMA", "0"}, true),
       about("amd", {"ROC_AQL_QUEUE_SIZE", "1024"}, true)});
  return step.record(runs.verdicts).table(runs.table);
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  hl::LessonCli cli("lesson05_queue_env",
                    "Lesson 05: process-wide knobs (hardware queues, serialization, waiting "
                    "policy, AMD copy path), each measured in its own child process",
                    std::int64_t{1} << 26);
  add_options(cli, s);
  const hl::HardwareQueueVariable q = hl::hardware_queue_variable();
  const std::string queue = q.name;
  const SpeedChecks checks = SpeedChecks::declare(
      cli, queue, HIP_LESSONS_05_MIN_DEPTH_FIRST_RATIO, HIP_LESSONS_05_MAX_BREADTH_VS_IDEAL,
      HIP_LESSONS_05_MAX_BLOCKING_CPU, HIP_LESSONS_05_MIN_SPIN_CPU);

  return hl::run_lesson(cli, argc, argv, [&](hl::Lesson& lesson) {
    const hl::CommonOptions& o = lesson.options;
    refuse_or_skip(s, o.mode);
    if (s.measure != "none") return measure_in_this_process(lesson, s);  // a child
    // The parent reads the device's properties only (no context: the children should have the
    // GPU to themselves), and refuses a --size the copy child could not hold.
    hl::require_device_index(o.device);
    hl::Device device{o.device, {}};
    HIP_CHECK(hipGetDeviceProperties(&device.props, o.device));
    refuse_copy_size(o.size, device.props.totalGlobalMem);
    const Children children = Children::of(s, o);
    hl::ChildRun one_queue;
    lesson.report.step(compare_queue_counts(children, device, q, checks, one_queue));  // 1.
    lesson.report.step(with_queue_log(
        one_queue_block_by_block(one_queue, lesson.traces, queue + "=1", s), children, q));  // 2.
    lesson.report.step(serialize_every_launch(children, s));                                 // 3.
    lesson.report.step(compare_waiting_policies(children, checks));                          // 4.
    lesson.report.step(try_amd_copy_path(children));                                         // 5.
  });
}
