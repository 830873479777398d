/// \file lessons/05_queue_env/child_runs.hpp
/// \brief How lesson 05 runs itself as child processes: its options and speed checks, the line
/// a child reports ("@result key=value ... correct=1"), and how the parent runs a step's
/// children and tabulates what they report. Host code only (test_child_runs.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hip_lessons/child_process.hpp"
#include "hip_lessons/cli.hpp"
#include "hip_lessons/errors.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/platform.hpp"
#include "hip_lessons/step_result.hpp"

namespace queue_env {

namespace hl = hip_lessons;

/// The lesson's own options; the parent passes them on to its children.
struct Settings {
  std::string measure = "none", policy = "all", variable = "auto";
  std::int64_t streams = 16, chain = 4, kernel_us = 100, wait_us = 5000;
};

inline void add_options(hl::LessonCli& cli, Settings& s) {
  cli.add_choice("--measure", s.measure, "Measure in this process, as the lesson's children do",
                 {"none", "queues", "wait", "amd"});
  cli.add_choice("--policy", s.policy, "The waiting policy a --measure wait run sets",
                 {"all", "spin", "yield", "blocking-sync", "auto"});
  cli.add_choice("--variable", s.variable, "What a --measure run is about (other platform: 77)",
                 {"auto", "GPU_MAX_HW_QUEUES", "CUDA_DEVICE_MAX_CONNECTIONS",
                  "HSA_ENABLE_INTERRUPT", "HSA_ENABLE_SDMA", "ROC_AQL_QUEUE_SIZE"});
  cli.add_trace_output();
  cli.add_count("--streams", s.streams, "Streams, one dependent chain each", 1, 1024);
  cli.add_count("--chain", s.chain, "Kernels per chain", 1, 64);
  cli.add_count("--kernel-us", s.kernel_us, "Microseconds each chain kernel runs", 1, 100000);
  cli.add_count("--wait-us", s.wait_us, "Microseconds of a waited-for kernel", 5000, 1000000);
}

/// The speed checks of the children's ratios, declared with the build's thresholds.
struct SpeedChecks {
  const hl::SpeedCheck &depth_first, &breadth_vs_ideal, &blocking_cpu, &spin_cpu;

  static SpeedChecks declare(hl::LessonCli& cli, const std::string& queue, double depth_first,
                             double breadth_vs_ideal, double blocking_cpu, double spin_cpu) {
    return {cli.add_speed_check(hl::at_least(queue + "=1: depth-first / breadth-first time",
                                             "--min-depth-first-ratio", depth_first)),
            cli.add_speed_check(hl::at_most(queue + " default: breadth-first / ideal chain time",
                                            "--max-breadth-vs-ideal", breadth_vs_ideal)),
            cli.add_speed_check(hl::at_most("blocking-sync: CPU time / wall time while waiting",
                                            "--max-blocking-cpu", blocking_cpu)),
            cli.add_speed_check(hl::at_least("spin: CPU time / wall time while waiting",
                                             "--min-spin-cpu", spin_cpu))};
  }
};

/// Refuses options that mean nothing together (UsageError, exit 2). A child about a variable
/// a \p platform build's runtime does not read is "not applicable here" (SkipError, exit 77),
/// before any GPU work; the amd child is about AMD's HSA_ENABLE_SDMA and ROC_AQL_QUEUE_SIZE.
inline void refuse_or_skip(const Settings& s, hl::Mode mode,
                           hl::Platform platform = hl::build_platform()) {
  const bool child = s.measure != "none";
  if (!child && (s.variable != "auto" || s.policy != "all")) {
    throw hl::UsageError("--variable and --policy belong to a --measure run");
  }
  if (child && mode != hl::Mode::kTour) {
    throw hl::UsageError("--check and --speed-check run the children themselves: no --measure");
  }
  if (child && (s.measure == "wait") != (s.policy != "all")) {
    throw hl::UsageError("--measure wait needs one --policy, and --policy needs --measure wait");
  }
  const std::string& v = s.variable;
  const std::string owner = v == "HSA_ENABLE_INTERRUPT"                           ? "wait"
                            : v == "HSA_ENABLE_SDMA" || v == "ROC_AQL_QUEUE_SIZE" ? "amd"
                                                                                  : "queues";
  if (v != "auto" && owner != s.measure) {
    throw hl::UsageError("--variable " + v + " belongs to --measure " + owner);
  }
  const std::string about = s.measure == "amd" && v == "auto" ? "HSA_ENABLE_SDMA" : v;
  const auto reader = about.rfind("CUDA_", 0) == 0 ? hl::Platform::kNvidia : hl::Platform::kAmd;
  if (about != "auto" && reader != platform) {
    throw hl::SkipError("not applicable here: " + about + " is read by the " +
                        hl::platform_name(reader) + " runtime only");
  }
}

/// Refuses (UsageError, exit 2) a --size of \p floats that the copy child could not hold in
/// the \p device_bytes of the GPU (it keeps a 10% margin).
inline void refuse_copy_size(std::int64_t floats, std::size_t device_bytes) {
  const double bytes = static_cast<double>(floats) * sizeof(float);
  if (bytes > 0.9 * static_cast<double>(device_bytes)) {
    throw hl::UsageError(
        hl::format("--size {} needs {:bytes} for the copy child; the device has {:bytes}", floats,
                   bytes, static_cast<double>(device_bytes)));
  }
}

/// A child's one machine-readable line: "@result", every measurement among a step's \p entries
/// as key=value, and correct=1 when all of its checks passed (else correct=0).
inline std::string result_line(const std::vector<hl::StepResult::Entry>& entries) {
  std::string line = hl::kResultPrefix;
  bool correct = true;
  for (const hl::StepResult::Entry& e : entries) {
    if (e.kind == hl::StepResult::Kind::kCheck) correct = correct && e.passed;
    if (e.kind != hl::StepResult::Kind::kMeasurement) continue;
    line += e.name + "=" + hl::shortest(e.value) + " ";
  }
  return line + (correct ? "correct=1" : "correct=0");
}

/// One child of a step: its row, its arguments, how its environment differs from the
/// parent's, whether only the tour runs it, and whether it is only shown (not a check).
struct Child {
  std::string label;
  std::vector<std::string> args;
  std::vector<hl::EnvSetting> changes;
  bool tour_only = false, shown = false;
};

/// The child of --measure \p measure about --variable \p set ("NAME=VALUE" or "NAME unset").
inline Child about(const std::string& measure, const hl::EnvSetting& set, bool tour_only = false,
                   bool shown = false) {
  return {set.describe(), {"--measure", measure, "--variable", set.name}, {set}, tour_only, shown};
}

/// What a step's children reported: a verdict per child that is not only shown, the table of
/// their values, and child \p label's value of \p key, or nothing (none reported, or --check:
/// its children's times are not reported).
struct Runs {
  std::map<std::string, hl::ChildRun> by_label;
  bool timed;
  hl::ResultTable table;
  std::vector<hl::Verdict> verdicts{};
  std::optional<double> operator()(const std::string& label, const std::string& key) const {
    const double value = by_label.count(label) ? by_label.at(label).number(key) : NAN;
    return timed && !std::isnan(value) ? std::optional<double>(value) : std::nullopt;
  }
};

/// How the parent's tables show the children's values, by @result key.
inline const std::map<std::string, hl::Column> kColumns = {
    {"depth_first_ms", {"depth-first", "ms", 3}},
    {"breadth_first_ms", {"breadth-first", "ms", 3}},
    {"ideal_ms", {"ideal", "ms", 3}},
    {"cpu_per_wall", {"CPU / wall while waiting"}},
    {"round_trip_us", {"round trip", "us", 1}},
    {"h2d_gbps", {"host-to-device", "GB/s", 1}},
    {"d2h_gbps", {"device-to-host", "GB/s", 1}},
    {"enqueue_ms", {"launches enqueued", "ms"}},
    {"total_ms", {"until done", "ms"}}};

/// Runs the children of the parent's steps, each with the options they all share.
struct Children {
  std::vector<std::string> shared;
  hl::Mode mode;
  std::function<hl::ChildRun(const std::vector<std::string>&, const std::vector<hl::EnvSetting>&)>
      launch = [](const auto& args, const auto& env) { return hl::run_self(args, env, 120.0); };

  /// Children share the run's options; checking their own results, --check's need 3 repeats.
  static Children of(const Settings& s, const hl::CommonOptions& o) {
    const int repeat = o.timed() ? o.repeat : 3;
    return {{"--device", std::to_string(o.device), "--seed", std::to_string(o.seed), "--repeat",
             std::to_string(repeat), "--size", std::to_string(o.size), "--streams",
             std::to_string(s.streams), "--chain", std::to_string(s.chain), "--kernel-us",
             std::to_string(s.kernel_us), "--wait-us", std::to_string(s.wait_us)},
            o.mode};
  }

  /// Runs \p children (tour-only ones in the tour only). Each is a verdict that it passed its
  /// own checks (else its status and last lines), a skip when it is about a variable this
  /// platform lacks (exit 77), or neither when shown; the table \p name has their \p keys.
  Runs run(const std::string& name, const std::string& title, const std::vector<std::string>& keys,
           const std::vector<Child>& children) const {
    std::vector<hl::Column> columns = {"setting", "child"};
    for (const std::string& key : keys) columns.push_back(kColumns.at(key));
    Runs runs{{}, mode != hl::Mode::kCheck, hl::ResultTable(name, title, columns)};
    for (const Child& c : children) {
      if (c.tour_only && mode != hl::Mode::kTour) continue;
      std::vector<std::string> args = c.args;
      args.insert(args.end(), shared.begin(), shared.end());
      const hl::ChildRun& r = runs.by_label[c.label] = launch(args, c.changes);
      if (r.not_applicable()) runs.verdicts.push_back({c.label, std::nullopt, r.tail(1)});
      if (!r.not_applicable() && !c.shown) {
        runs.verdicts.push_back(
            {c.label, r.succeeded(), r.succeeded() ? "" : r.outcome.status() + ": " + r.tail()});
      }
      std::vector<hl::Cell> row = {c.label, r.outcome.status()};
      for (const std::string& key : keys) row.push_back(runs(c.label, key));
      runs.table.row(row);
    }
    return runs;
  }
};

}  // namespace queue_env
