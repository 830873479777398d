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
    kSchedule,     ///< a check of what a block trace shows (see Report::concurrency_check())
    kSkip,         ///< a check that cannot be made here, with the reason
    kSpeed,        ///< a declared speed check and its measured ratio
    kMeasurement,  ///< a number for the JSON file
  };

  /// One entry; which fields are used depends on its kind.
  struct Entry {
    Kind kind = Kind::kNote;
    std::string name;    ///< the check, fact or measurement name; a note's text
    std::string detail;  ///< a check's detail, a skip's reason
    bool passed = false;
    double value = 0.0;  ///< a speed ratio or a measurement
    Cell cell;           ///< a fact's value
    std::optional<ResultTable> table;
    std::optional<Figure> figure;
    std::optional<SpeedCheck> speed;
  };

  /// \p heading names the step as main.hip and the README number it: "2. One-block kernels".
  explicit StepResult(std::string heading) : heading_(std::move(heading)) {}

  /// A sentence (or lines) of the story, printed wrapped at 100 columns.
  StepResult& note(std::string text);
  /// A fact for the JSON file (not printed).
  StepResult& fact(std::string key, Cell value);
  /// Facts for the JSON file, e.g. Device::facts().
  StepResult& facts(const std::vector<Fact>& facts);
  /// A table, printed aligned and kept with typed values for the JSON file.
  StepResult& table(ResultTable table);
  /// A timeline or another text picture.
  StepResult& figure(Figure figure);
  /// A correctness check: passed or not, and what was seen.
  StepResult& check(std::string name, bool passed, std::string detail = "");
  /// A comparison with a host reference: every element of \p count matched, or the first
  /// mismatch.
  StepResult& check_match(std::string name, const std::optional<Mismatch>& mismatch,
                          std::size_t count);
  /// A check of a block trace that needs kernels or blocks to run at the same time (see
  /// Report::concurrency_check(): shown, not enforced, under compute-sanitizer).
  StepResult& schedule_check(std::string name, bool passed, std::string detail);
  /// A check that cannot be made on this platform or device, with the reason. Never a pass:
  /// the JSON file records it as skipped.
  StepResult& skip(std::string name, std::string reason);
  /// A declared speed check and the ratio measured in this run; nothing when the run was not
  /// timed (\p ratio empty, as under --check).
  StepResult& speed(const SpeedCheck& check, std::optional<double> ratio);
  /// A number for the JSON file's measurements; nothing when \p value is empty.
  StepResult& measurement(std::string key, std::optional<double> value);
  /// The lesson's one-line result for the tour's summary table (the last one recorded wins).
  StepResult& summary(std::string text);

  const std::string& heading() const { return heading_; }
  const std::vector<Entry>& entries() const { return entries_; }
  const std::optional<std::string>& summary() const { return summary_; }

 private:
  Entry& add(Kind kind, std::string name);
  std::string heading_;
  std::vector<Entry> entries_;
  std::optional<std::string> summary_;
};

/// \p numerator / \p denominator when both were measured (an untimed run gives nothing).
std::optional<double> ratio(std::optional<double> numerator, std::optional<double> denominator);

}  // namespace hip_lessons
