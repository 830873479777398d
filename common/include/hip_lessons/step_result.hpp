/// \file step_result.hpp
/// \brief What one step of a lesson found, as one typed value that Report::step() prints.
///
/// A lesson's main.hip is a story of a few steps. Each step does its HIP work and records what
/// it found in a StepResult: tables of typed values, correctness checks, checks of a block
/// trace, declared speed checks with the ratios measured, skipped checks with the reason,
/// timelines, measurements for the JSON file. main() hands the result to Report::step(), which
/// prints it in the order it was recorded, under the step's heading, the same way in every
/// lesson. Under --check the report shows what was checked and leaves the tables and figures
/// to the JSON file.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hip_lessons/results.hpp"
#include "hip_lessons/speed_check.hpp"
#include "hip_lessons/validation.hpp"

namespace hip_lessons {

/// A check judged below main.hip (on a trace, on a child's output), for a step to record: it
/// held or not, or it does not apply here (no value; \p detail says why), which is a skip.
/// One that needs kernels or blocks at the same time is a schedule check (see Report::step()).
struct Verdict {
  std::string name;
  std::optional<bool> held;
  std::string detail{};
  bool needs_overlap = false;
};

/// What a step found, in the order the step recorded it.
class StepResult {
 public:
  /// What one entry of the result is.
  enum class Kind {
    kNote,         ///< a sentence of the story
    kFact,         ///< a fact for the JSON file
    kTable,        ///< a table of typed values
    kFigure,       ///< a timeline
    kCheck,        ///< a correctness check
    kSchedule,     ///< a check of what a block trace shows (see Report::step())
    kSkip,         ///< a check that cannot be made here, with the reason
    kSpeed,        ///< a declared speed check and its measured ratio
    kMeasurement,  ///< a number for the JSON file
  };

  /// One entry; which fields are used depends on its kind.
  struct Entry {
    Kind kind = Kind::kNote;
    std::string name{};    ///< the check, fact or measurement name; a note's text; a title
    std::string detail{};  ///< a check's detail, a skip's reason, a figure's text
    bool passed = false;
    double value = 0.0;  ///< a speed ratio or a measurement
    Cell cell{};         ///< a fact's value
    std::optional<ResultTable> table{};
    std::optional<SpeedCheck> speed{};
  };

  /// \p heading names the step as main.hip and the README number it: "2. One-block kernels".
  explicit StepResult(std::string heading) : heading_(std::move(heading)) {}

  /// A sentence (or lines) of the story, printed wrapped at 100 columns.
  StepResult& note(std::string text) { return add({Kind::kNote, std::move(text)}); }
  /// A fact for the JSON file (not printed).
  StepResult& fact(std::string key, Cell value) {
    return add({Kind::kFact, std::move(key), "", false, 0.0, std::move(value)});
  }
  /// Facts for the JSON file, e.g. Device::facts().
  StepResult& facts(const std::vector<Fact>& facts) {
    for (const Fact& f : facts) fact(f.key, f.value);
    return *this;
  }
  /// A table, printed aligned and kept with typed values for the JSON file.
  StepResult& table(ResultTable table) {
    return add({Kind::kTable, table.name(), "", false, 0.0, {}, std::move(table)});
  }
  /// A timeline or another text picture.
  StepResult& figure(Figure figure) {
    return add({Kind::kFigure, std::move(figure.title), std::move(figure.text)});
  }
  /// A correctness check: passed or not, and what was seen.
  StepResult& check(std::string name, bool passed, std::string detail = "") {
    return add({Kind::kCheck, std::move(name), std::move(detail), passed});
  }
  /// A comparison with a host reference: every element of \p count matched, or the first
  /// mismatch.
  StepResult& check_match(std::string name, const std::optional<Mismatch>& mismatch,
                          std::size_t count) {
    return check(std::move(name), !mismatch, describe(mismatch, count));
  }
  /// A check of a block trace that needs kernels or blocks to run at the same time (see
  /// Report::step(): shown, not enforced, under compute-sanitizer).
  StepResult& schedule_check(std::string name, bool passed, std::string detail) {
    return add({Kind::kSchedule, std::move(name), std::move(detail), passed});
  }
  /// Each of \p verdicts, in order, as a check, a schedule check or a skip (see Verdict).
  StepResult& record(const std::vector<Verdict>& verdicts) {
    for (const Verdict& v : verdicts) {
      if (!v.held) skip(v.name, v.detail);
      if (v.held && v.needs_overlap) schedule_check(v.name, *v.held, v.detail);
      if (v.held && !v.needs_overlap) check(v.name, *v.held, v.detail);
    }
    return *this;
  }
  /// A check that cannot be made on this platform or device, with the reason. Never a pass:
  /// the JSON file records it as skipped.
  StepResult& skip(std::string name, std::string reason) {
    return add({Kind::kSkip, std::move(name), std::move(reason)});
  }
  /// A declared speed check and the ratio measured in this run; nothing when the run was not
  /// timed (\p ratio empty, as under --check). A check measured more than once in a step (per
  /// partition, per setting) says which with \p label: "8 SMs: <the declared name> = ...". The
  /// declared name, the one --help gives, is printed whole.
  StepResult& speed(const SpeedCheck& check, std::optional<double> ratio, std::string label = "") {
    if (!ratio) return *this;
    return add(
        {Kind::kSpeed, check.name, std::move(label), false, *ratio, {}, std::nullopt, check});
  }
  /// A number for the JSON file's measurements; nothing when \p value is empty.
  StepResult& measurement(std::string key, std::optional<double> value) {
    return value ? add({Kind::kMeasurement, std::move(key), "", false, *value}) : *this;
  }
  /// The lesson's one-line result for the tour's summary table (the last one recorded wins).
  StepResult& summary(std::string text) {
    summary_ = std::move(text);
    return *this;
  }

  const std::string& heading() const { return heading_; }
  const std::vector<Entry>& entries() const { return entries_; }
  const std::optional<std::string>& summary() const { return summary_; }

 private:
  StepResult& add(Entry entry) {
    entries_.push_back(std::move(entry));
    return *this;
  }
  std::string heading_;
  std::vector<Entry> entries_;
  std::optional<std::string> summary_;
};

/// \p numerator / \p denominator when both were measured (an untimed run gives nothing).
inline std::optional<double> ratio(std::optional<double> numerator,
                                   std::optional<double> denominator) {
  if (!numerator || !denominator) return std::nullopt;
  return *numerator / *denominator;
}

}  // namespace hip_lessons
