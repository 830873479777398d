/// \file lessons/05_queue_env/main.hip
/// \brief Lesson 05: the process-wide knobs: hardware queue count, waiting policy, and
/// AMD's copy path and queue size, each setting measured in a child process of its own.
///
/// These settings are read once, when the GPU runtime starts (environment variables), or
/// can be chosen once per process (hipSetDeviceFlags). A program cannot try several of them
/// in turn, so this lesson runs itself again, once per setting: a child of its own binary,
/// with one variable changed in the child's environment only, measures, checks its results
/// and prints one "@result" line (child_measurements.hpp); the parent, below, puts the
/// children's results side by side.
///
/// The story (the README's Application flow has the same numbers):
///  1. Look at the GPU without creating a context, so the children have it to themselves,
///     and refuse a --size the copy child could not hold.
///  2. Hardware queues (GPU_MAX_HW_QUEUES on AMD, CUDA_DEVICE_MAX_CONNECTIONS on NVIDIA):
///     children with 1, the default and the most time the same dependent chains issued
///     depth-first and breadth-first; too few queues serialize independent streams. The
///     one-queue child traces both orders; their timelines show and check the false dependency.
///  3. Malformed values of the queue variable, each in its own child: what the runtime does.
///  4. How the host waits (spin, yield, blocking sync): CPU time and latency of a wait.
///  5. AMD's copy engines (HSA_ENABLE_SDMA) and AQL queue size (ROC_AQL_QUEUE_SIZE).
///  6. The ratios the speed test checks, from the children of steps 2 and 4.
/// The mode chooses the children: the tour runs every setting; --check those correctness
/// needs, with three repeats; --speed-check only those step 6 needs.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "child_measurements.hpp"
#include "hip_lessons/child_process.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/lesson.hpp"

namespace hl = hip_lessons;
namespace qe = queue_env;

namespace {

// 1. The parent only reads the device's properties: hipSetDevice would create a context,
// and the children should have the GPU to themselves. The copy child holds --size floats on
// the device, so a size that cannot fit is refused here, before any child starts.
void look_at_the_device(hl::Report& report, const hl::CommonOptions& options) {
  hl::require_device_index(options.device);
  hl::Device device;
  device.index = options.device;
  HIP_CHECK(hipGetDeviceProperties(&device.props, options.device));
  report.facts(device.facts());
  const double copy_bytes = static_cast<double>(options.size) * sizeof(float);
  const auto memory = static_cast<double>(device.props.totalGlobalMem);
  if (copy_bytes > 0.9 * memory) {
    throw hl::UsageError(
        hl::format("--size {} needs {:bytes} of device memory for the copy "
                   "measurement, but the device has {:bytes}; use a smaller "
                   "--size",
                   options.size, copy_bytes, memory));
  }
  report.note(
      hl::format("{} ({}); every measurement below runs in a child process of this "
                 "program with one setting changed in its environment",
                 device.name(), qe::kPlatform));
  if (options.mode != hl::Mode::kTour) return;
  hl::ResultTable known("variables",
                        "The settings this lesson varies (read once, at runtime start)",
                        {{"variable"}, {"platform"}, {"what it changes"}, {"in this process"}});
  for (const qe::Variable& v : qe::variables()) {
    known.row({v.name, v.platform, v.meaning, qe::setting_of(v.name)});
  }
  report.table(known);
}

/// What step 2 measured: the runs step 6 takes ratios of, and every row for step 3.
struct QueueRuns {
  hl::ChildRun one, fallback;  // the queue variable at 1, and unset (the runtime's default)
  std::vector<std::pair<std::string, hl::ChildRun>> labelled;
};

// 2. One child per queue count, each timing the same chains in both issue orders: only a
// queue shared by several streams makes the order matter.
QueueRuns compare_queue_counts(hl::Report& report, qe::Children& children, const qe::Settings& s,
                               hl::Mode mode) {
  report.note(
      hl::format("\n2. Hardware queues: {} streams, each a chain of {} dependent {} us "
                 "one-block kernels",
                 s.streams, s.chain, s.kernel_us));
  hl::ResultTable table(
      "queues",
      hl::format("Queue count against issue order (ideal {:.3} ms)", s.chain * s.kernel_us / 1e3),
      {{"setting"},
       {"child"},
       {"depth-first", "ms", 3},
       {"breadth-first", "ms", 3},
       {"depth / breadth"},
       {"breadth / ideal"}});
  QueueRuns runs;
  for (const hl::EnvSetting& setting : qe::queue_settings(s, mode)) {
    const bool one = setting.value == std::string("1");  // this child also sends block traces
    hl::ChildRun r = children.run("queues", one ? qe::kTraceArgs : qe::kNoArgs, {setting});
    qe::check_child(report, "chains correct with " + setting.describe(), r);
    if (r.succeeded()) {
      // A chain can take longer than ideal (launch costs, slow tools such as
      // compute-sanitizer) but never shorter, unless the spin clock runs fast.
      const double single = r.number("single_chain_ms") / r.number("ideal_ms");
      report.check("one chain alone takes at least 0.8 x its ideal time (spin clock not fast)",
                   single >= 0.8, hl::format("{:.2} x ideal", single));
    }
    const std::string label = setting.value ? setting.describe()
                                            : hl::format("{} unset (default {})", setting.name,
                                                         qe::kQueues.default_count);
    table.row({label, qe::child_status(r), qe::reported(r, "depth_first_ms"),
               qe::reported(r, "breadth_first_ms"),
               qe::reported(r, "depth_first_ms", "breadth_first_ms"),
               qe::reported(r, "breadth_first_ms", "ideal_ms")});
    if (!setting.value) runs.fallback = r;
    if (one) runs.one = r;
    runs.labelled.emplace_back(label, std::move(r));
  }
  if (mode == hl::Mode::kTour) {  // the other platform's variable: the child exits 77
    const hl::ChildRun foreign = children.run("queues", {"--variable", qe::kQueues.counterpart},
                                              {{qe::kQueues.counterpart, std::string("1")}});
    table.row({hl::format("{}=1", qe::kQueues.counterpart), qe::child_status(foreign), std::nullopt,
               std::nullopt, std::nullopt, std::nullopt});
  }
  report.table(table);
  qe::show_one_queue(report, runs.one, qe::kQueues.name, s.streams, s.chain, s.kernel_us);
  return runs;
}

// 3. What the runtime makes of malformed values. Each runs in its own child, so a runtime
// that rejects or crashes on a value cannot take the lesson down with it. They are shown,
// not checked, so only the tour runs them.
void try_malformed_values(hl::Report& report, qe::Children& children, const QueueRuns& measured,
                          hl::Mode mode) {
  if (mode != hl::Mode::kTour) return;
  report.note(hl::format("\n3. Malformed values of {}", qe::kQueues.name));
  hl::ResultTable bad("malformed",
                      hl::format("Malformed values of {}: the exit status of a child and what "
                                 "it measured",
                                 qe::kQueues.name),
                      {{"value"},
                       {"child"},
                       {"depth-first", "ms", 3},
                       {"breadth-first", "ms", 3},
                       {"depth-first closest to"}});
  for (const char* value : {"abc", "0", "1000"}) {
    const hl::ChildRun r = children.run("queues", {}, {{qe::kQueues.name, std::string(value)}});
    std::string closest = "-";
    double best = 1e300;
    for (const auto& [label, reference] : measured.labelled) {
      const double distance =
          std::fabs(std::log(r.number("depth_first_ms") / reference.number("depth_first_ms")));
      if (!std::isnan(distance) && distance < best) {
        best = distance;
        closest = label;
      }
    }
    bad.row({value, r.not_applicable() ? "not applicable here" : r.outcome.status(),
             qe::reported(r, "depth_first_ms"), qe::reported(r, "breadth_first_ms"), closest});
  }
  report.table(bad);
}

struct WaitRuns {
  hl::ChildRun spin, blocking;
};

// 4. One child per waiting policy: a process chooses it once, before its context exists.
WaitRuns compare_waiting_policies(hl::Report& report, qe::Children& children, const qe::Settings& s,
                                  hl::Mode mode) {
  report.note("\n4. Waiting for the GPU: hipSetDeviceFlags, one policy per child");
  hl::ResultTable table(
      "wait",
      hl::format("CPU time per wall time during a {:.1} ms wait, and the round "
                 "trip of a 10 us kernel",
                 s.wait_us / 1e3),
      {{"policy"}, {"setting"}, {"child"}, {"CPU / wall while waiting"}, {"round trip", "us", 1}});
  WaitRuns runs;
  for (const qe::Policy& policy : qe::policies()) {
    // Spin and blocking sync always run: step 6 compares them. The others belong to the
    // tour, which --policy narrows to one.
    const std::string name = policy.name;
    const bool compared = name == "spin" || name == "blocking-sync";
    if (!compared && (mode != hl::Mode::kTour || (s.policy != "all" && s.policy != name))) {
      continue;
    }
    const hl::ChildRun r = children.run("wait", {"--policy", name}, {});
    qe::check_child(report, "waiting with policy " + name, r);
    table.row({name, std::nullopt, qe::child_status(r), qe::reported(r, "cpu_per_wall"),
               qe::reported(r, "round_trip_us")});
    if (name == "spin") runs.spin = r;
    if (name == "blocking-sync") runs.blocking = r;
  }
  if (mode == hl::Mode::kTour) {  // AMD's switch under blocking sync: interrupts or polling
    const hl::ChildRun polled =
        children.run("wait", {"--policy", "blocking-sync", "--variable", "HSA_ENABLE_INTERRUPT"},
                     {{"HSA_ENABLE_INTERRUPT", std::string("0")}});
    table.row({"blocking-sync", "HSA_ENABLE_INTERRUPT=0", qe::child_status(polled),
               qe::reported(polled, "cpu_per_wall"), qe::reported(polled, "round_trip_us")});
  }
  report.table(table);
  return runs;
}

// 5. AMD's copy engines and queue size, one child per setting (elsewhere they exit 77).
// --check runs the defaults (every copied element, every launch checked); the speed test
// needs neither; the tour adds HSA_ENABLE_SDMA=0 and ROC_AQL_QUEUE_SIZE=1024.
void try_amd_copy_path(hl::Report& report, qe::Children& children, hl::Mode mode) {
  if (mode == hl::Mode::kSpeedCheck) return;
  report.note("\n5. AMD: copy engines and AQL queue size");
  hl::ResultTable table("amd_copy_path",
                        "AMD-only settings (each is a child; elsewhere it exits 77)",
                        {{"setting"}, {"child"}, {"result"}});
  const auto values = [&](const char* changed) {
    std::vector<std::optional<std::string>> all = {std::nullopt};
    if (mode == hl::Mode::kTour) all.emplace_back(changed);
    return all;
  };
  for (const std::optional<std::string>& value : values("0")) {
    const hl::ChildRun r = children.run("copy", {}, {{"HSA_ENABLE_SDMA", value}});
    qe::check_child(report, "pinned copies correct with HSA_ENABLE_SDMA " + value.value_or("unset"),
                    r);
    table.row({value ? "HSA_ENABLE_SDMA=" + *value : "HSA_ENABLE_SDMA unset (default 1)",
               qe::child_status(r),
               r.has("h2d_gbps") ? hl::format("H2D {:.1} GB/s, D2H {:.1} GB/s",
                                              r.number("h2d_gbps"), r.number("d2h_gbps"))
                                 : "-"});
  }
  for (const std::optional<std::string>& value : values("1024")) {
    const hl::ChildRun r = children.run("aql", {}, {{"ROC_AQL_QUEUE_SIZE", value}});
    qe::check_child(report, "launches complete with ROC_AQL_QUEUE_SIZE " + value.value_or("unset"),
                    r);
    table.row({value ? "ROC_AQL_QUEUE_SIZE=" + *value : "ROC_AQL_QUEUE_SIZE unset",
               qe::child_status(r),
               r.has("enqueue_ms") ? hl::format("4096 launches enqueued in {:.2} ms of {:.2} ms",
                                                r.number("enqueue_ms"), r.number("total_ms"))
                                   : "-"});
  }
  report.table(table);
}

/// The declared speed checks, in the order of their flags.
struct SpeedChecks {
  const hl::SpeedCheck& depth_first;
  const hl::SpeedCheck& breadth_vs_ideal;
  const hl::SpeedCheck& blocking_cpu;
  const hl::SpeedCheck& spin_cpu;
};

// 6. False serialization with one queue, none with the default count, and the CPU cost of
// spinning against sleeping. --check measures no time: it says whether every child was right.
void report_ratios(hl::Report& report, const QueueRuns& queues, const WaitRuns& waits,
                   const SpeedChecks& checks, const hl::CommonOptions& options) {
  if (!options.timed()) {
    report.summary(report.failures() == 0 ? "every child computed correct results"
                                          : "some children failed (see the FAIL lines)");
    return;
  }
  const double depth = queues.one.number("depth_first_ms") / queues.one.number("breadth_first_ms");
  const double breadth =
      queues.fallback.number("breadth_first_ms") / queues.fallback.number("ideal_ms");
  const double spin_cpu = waits.spin.number("cpu_per_wall");
  const double blocking_cpu = waits.blocking.number("cpu_per_wall");
  report.measurement("depth_over_breadth_one_queue", depth);
  report.measurement("breadth_over_ideal_default", breadth);
  report.measurement("cpu_per_wall.spin", spin_cpu);
  report.measurement("cpu_per_wall.blocking_sync", blocking_cpu);
  report.measurement("round_trip_us.spin", waits.spin.number("round_trip_us"));
  report.measurement("round_trip_us.blocking_sync", waits.blocking.number("round_trip_us"));
  report.note("");
  report.speed(checks.depth_first, depth);
  report.speed(checks.breadth_vs_ideal, breadth);
  report.speed(checks.spin_cpu, spin_cpu);
  report.speed(checks.blocking_cpu, blocking_cpu);
  report.summary(
      hl::format("{}=1: depth-first {:.1}x slower than breadth-first; CPU/wall spin "
                 "{:.2} vs blocking sync {:.2}",
                 qe::kQueues.name, depth, spin_cpu, blocking_cpu));
}

}  // namespace

int main(int argc, char** argv) {
  qe::Settings s;
  hl::LessonCli cli("lesson05_queue_env",
                    "Lesson 05: process-wide knobs (hardware queues, waiting policy, AMD copy "
                    "path), each measured in its own child process",
                    std::int64_t{1} << 26);
  cli.add_choice("--measure", s.measure,
                 "Run one measurement in this process and print an @result line; the lesson "
                 "runs itself this way, once per setting (none = compare the settings)",
                 {"none", "queues", "wait", "copy", "aql"});
  cli.add_choice("--policy", s.policy,
                 "Waiting policy: all (compare them) or the one a --measure wait run sets",
                 {"all", "spin", "yield", "blocking-sync", "auto"});
  cli.add_choice("--variable", s.variable,
                 "The variable a --measure run is about; one this platform does not have is "
                 "reported as not applicable (exit 77)",
                 {"auto", "GPU_MAX_HW_QUEUES", "CUDA_DEVICE_MAX_CONNECTIONS",
                  "HSA_ENABLE_INTERRUPT", "HSA_ENABLE_SDMA", "ROC_AQL_QUEUE_SIZE"});
  cli.add_flag("--trace-chains", s.trace_chains,
               "With --measure queues: also trace both orders and print @block lines (step 2)");
  cli.add_trace_output();
  cli.add_count("--streams", s.streams, "Streams, one dependent chain each", 1, 1024);
  cli.add_count("--chain", s.chain, "Kernels per chain", 1, 64);
  cli.add_count("--kernel-us", s.kernel_us, "Duration of each chain kernel in microseconds", 1,
                100000);
  cli.add_count("--wait-us", s.wait_us, "Duration of the kernel the host waits for (>= 5 ms)", 5000,
                1000000);
  const std::string queue = qe::kQueues.name;
  const SpeedChecks checks{
      cli.add_speed_check(hl::at_least(queue + "=1: depth-first / breadth-first time",
                                       "--min-depth-first-ratio",
                                       HIP_LESSONS_05_MIN_DEPTH_FIRST_RATIO)),
      cli.add_speed_check(hl::at_most(queue + " default: breadth-first / ideal chain time",
                                      "--max-breadth-vs-ideal",
                                      HIP_LESSONS_05_MAX_BREADTH_VS_IDEAL)),
      cli.add_speed_check(hl::at_most("blocking-sync: CPU time / wall time while waiting",
                                      "--max-blocking-cpu", HIP_LESSONS_05_MAX_BLOCKING_CPU)),
      cli.add_speed_check(hl::at_least("spin: CPU time / wall time while waiting", "--min-spin-cpu",
                                       HIP_LESSONS_05_MIN_SPIN_CPU))};

  return hl::run_lesson(cli, argc, argv, [&](hl::Report& report) {
    const hl::CommonOptions& options = cli.options();
    qe::refuse_meaningless_options(s, options);
    if (s.measure != "none") return qe::run_measurement(report, s, options);  // a child
    look_at_the_device(report, options);                                      // 1.
    qe::Children children(report, s, options);
    const QueueRuns queues = compare_queue_counts(report, children, s, options.mode);    // 2.
    try_malformed_values(report, children, queues, options.mode);                        // 3.
    const WaitRuns waits = compare_waiting_policies(report, children, s, options.mode);  // 4.
    try_amd_copy_path(report, children, options.mode);                                   // 5.
    report_ratios(report, queues, waits, checks, options);                               // 6.
  });
}
