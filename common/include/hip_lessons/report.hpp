/// \file report.hpp
/// \brief What a lesson reports: aligned tables for people, checks, and a JSON file.
///
/// Every lesson reports the same way: measurements as tables, each correctness check and
/// speed check as a pass/fail line, and a one-line summary. `--json FILE` writes the same
/// content for plots and for comparing machines.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>

#include "hip_lessons/options.hpp"
#include "hip_lessons/step_result.hpp"

namespace hip_lessons {

/// Collects a lesson's results, prints them as they come, and writes them as JSON.
class Report {
 public:
  /// \p mode decides what a speed entry does: enforce under Mode::kSpeedCheck, show otherwise.
  explicit Report(std::string lesson, std::ostream& out, Mode mode = Mode::kTour);
  ~Report();
  Report(const Report&) = delete;
  Report& operator=(const Report&) = delete;

  /// Prints a line (or lines) of the lesson's story to the report's stream, wrapped at
  /// kTextWidth columns.
  void note(const std::string& text);

  /// Prints \p line exactly as given, never wrapped, and flushes it: a machine-readable line
  /// that another process parses, maybe while this one runs (a child's "@result ..." line).
  void line(const std::string& line);

  /// Prints and records everything one step of the lesson found, in the order the step
  /// recorded it, under the step's heading. Under --check only the heading, the checks and
  /// the skips are printed (nothing was timed); the JSON file gets everything in every mode.
  ///
  /// A speed entry is a check under --speed-check ("speed   ok    name = 1.04 (needs >=
  /// 0.75)"), counted as a failure when it misses; in the tour the same line says what the
  /// speed test needs, and nothing fails. Either way the JSON records the ratio, the threshold
  /// and whether it was enforced. A skip prints "check   skip  <name>: <reason>" and is
  /// recorded as skipped (passed: null), neither a pass nor a failure.
  ///
  /// A schedule check (StepResult::schedule_check()) needs kernels or blocks to run at the
  /// same time (an overlap, a residency). compute-sanitizer's instrumentation changes how
  /// kernels overlap, so its tests set HIP_LESSONS_SCHEDULE_CHECKS=show: such a check is then
  /// printed and recorded ("check   -     ..."), but a miss is not a failure. Without that
  /// setting it is a check like any other.
  void step(const StepResult& result);

  /// Records a fact about the run (the seed, say) for the JSON file; a step's facts come with
  /// its StepResult. Integers stay integers in the JSON, text stays text, an empty optional is
  /// null.
  void fact(const std::string& key, const Cell& value);

  /// The one-line result shown by the lesson tour's summary table.
  void summary(const std::string& text);
  const std::string& summary() const;

  /// Number of checks that failed so far.
  int failures() const;

  /// Writes everything as JSON to \p path by write_output_file()'s rules ("-" is standard
  /// output). Throws std::runtime_error, naming the path and the reason, when the write fails.
  void write_json(const std::string& path, int exit_code) const;

 private:
  // Records a correctness check; prints "check   ok    <name>" or "check   FAIL  <name>: ...".
  void check(const std::string& name, bool passed, const std::string& detail);

  struct Data;
  std::unique_ptr<Data> data_;
  std::ostream& out_;
  Mode mode_;
};

}  // namespace hip_lessons
