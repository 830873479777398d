#include "hip_lessons/report.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <variant>

#include "output_file.hpp"

namespace hip_lessons {

namespace {

// Prints \p line within kTextWidth columns: words that do not fit continue on lines indented
// by \p indent spaces.
void print_wrapped(std::ostream& out, const std::string& line, std::size_t indent) {
  if (line.size() <= kTextWidth) {
    out << line << '\n';
    return;
  }
  const std::string first = wrap_text(line, kTextWidth).front();
  out << first << '\n';
  const std::size_t rest = line.find_first_not_of(' ', first.size());
  if (rest == std::string::npos) return;
  for (const std::string& piece : wrap_text(line.substr(rest), kTextWidth - indent)) {
    out << std::string(indent, ' ') << piece << '\n';
  }
}

nlohmann::ordered_json to_json(const Cell& cell) {
  struct Visitor {
    nlohmann::ordered_json operator()(std::monostate) const { return nullptr; }
    nlohmann::ordered_json operator()(std::int64_t v) const { return v; }
    nlohmann::ordered_json operator()(double v) const { return v; }
    nlohmann::ordered_json operator()(bool v) const { return v; }
    nlohmann::ordered_json operator()(const std::string& v) const { return v; }
  };
  return std::visit(Visitor{}, cell.value());
}

}  // namespace

struct Report::Data {
  std::string lesson;
  nlohmann::ordered_json facts = nlohmann::ordered_json::object();
  nlohmann::ordered_json measurements = nlohmann::ordered_json::object();
  nlohmann::ordered_json tables = nlohmann::ordered_json::object();
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  std::string summary;
  int failures = 0;
};

Report::Report(std::string lesson, std::ostream& out, Mode mode)
    : data_(std::make_unique<Data>()), out_(out), mode_(mode) {
  data_->lesson = std::move(lesson);
}

Report::~Report() = default;

void Report::note(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t lead = std::min(line.find_first_not_of(' '), line.size());
    print_wrapped(out_, line, lead + 2);
  }
}

void Report::line(const std::string& line) {
  out_ << line << std::endl;  // another process waits for it: a pipe would otherwise hold it
}

void Report::fact(const std::string& key, const Cell& value) { data_->facts[key] = to_json(value); }

void Report::facts(const std::vector<Fact>& facts) {
  for (const Fact& f : facts) fact(f.key, f.value);
}

void Report::figure(const Figure& figure) {
  out_ << '\n';
  for (const std::string& line : wrap_text(figure.title, kTextWidth)) out_ << line << '\n';
  out_ << figure.text;
}

void Report::step(const StepResult& result) {
  // Under --check nothing was timed: the checks are what the run is for. Its tables still go
  // to the JSON file; its notes and figures are not printed.
  const bool everything = mode_ != Mode::kCheck;
  out_ << '\n';
  for (const std::string& line : wrap_text(result.heading(), kTextWidth)) out_ << line << '\n';
  for (const StepResult::Entry& e : result.entries()) {
    using Kind = StepResult::Kind;
    switch (e.kind) {
      case Kind::kNote:
        if (everything) note(e.name);
        break;
      case Kind::kFact:
        fact(e.name, e.cell);
        break;
      case Kind::kTable:
        if (everything) e.table->print(out_);
        record_table(*e.table);
        break;
      case Kind::kFigure:
        if (everything) figure(*e.figure);
        break;
      case Kind::kCheck:
        check(e.name, e.passed, e.detail);
        break;
      case Kind::kSchedule:
        concurrency_check(e.name, e.passed, e.detail);
        break;
      case Kind::kSkip:
        skip(e.name, e.detail);
        break;
      case Kind::kSpeed:
        speed(*e.speed, e.value);
        break;
      case Kind::kMeasurement:
        measurement(e.name, e.value);
        break;
    }
  }
  if (result.summary()) summary(*result.summary());
}

void Report::table(const ResultTable& table) {
  table.print(out_);
  record_table(table);
}

void Report::record_table(const ResultTable& table) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& row : table.rows()) {
    nlohmann::ordered_json entry = nlohmann::ordered_json::object();
    for (std::size_t c = 0; c < row.size(); ++c) entry[table.columns()[c].key()] = to_json(row[c]);
    rows.push_back(std::move(entry));
  }
  data_->tables[table.name()] = std::move(rows);
}

void Report::measurement(const std::string& key, double value) { data_->measurements[key] = value; }

bool Report::check(const std::string& name, bool passed, const std::string& detail) {
  std::string line = (passed ? "check   ok    " : "check   FAIL  ") + name;
  if (!detail.empty()) line += (passed ? "  (" : ": ") + detail + (passed ? ")" : "");
  print_wrapped(out_, line, 14);
  data_->checks.push_back(
      {{"name", name}, {"kind", "correctness"}, {"passed", passed}, {"detail", detail}});
  if (!passed) ++data_->failures;
  return passed;
}

bool Report::concurrency_check(const std::string& name, bool passed, const std::string& detail) {
  const char* setting = std::getenv("HIP_LESSONS_SCHEDULE_CHECKS");
  if (setting == nullptr || std::string(setting) != "show") return check(name, passed, detail);
  print_wrapped(out_,
                "check   -     " + name + "  (" + detail +
                    "; shown, not enforced: HIP_LESSONS_SCHEDULE_CHECKS=show)",
                14);
  data_->checks.push_back({{"name", name},
                           {"kind", "schedule"},
                           {"passed", passed},
                           {"enforced", false},
                           {"detail", detail}});
  return true;
}

void Report::skip(const std::string& name, const std::string& reason) {
  print_wrapped(out_, "check   skip  " + name + ": " + reason, 14);
  data_->checks.push_back(
      {{"name", name}, {"kind", "skip"}, {"passed", nullptr}, {"detail", reason}});
}

bool Report::check_match(const std::string& name, const std::optional<Mismatch>& mismatch,
                         std::size_t count) {
  if (!mismatch) return check(name, true, std::to_string(count) + " elements match");
  return check(name, false, describe(*mismatch, count));
}

bool Report::speed(const SpeedCheck& check, double ratio) {
  const bool enforced = mode_ == Mode::kSpeedCheck;
  const bool passed = check.passes(ratio);
  if (enforced) {
    print_wrapped(out_,
                  (passed ? "speed   ok    " : "speed   FAIL  ") + check.name + " = " +
                      fixed(ratio, 2) + " (needs " + check.requirement() + ")",
                  14);
    if (!passed) ++data_->failures;
  } else {
    print_wrapped(out_,
                  "speed   -     " + check.name + " = " + fixed(ratio, 2) +
                      " (the speed test needs " + check.requirement() + ")",
                  14);
  }
  data_->checks.push_back({{"name", check.name},
                           {"kind", "speed"},
                           {"passed", passed},
                           {"enforced", enforced},
                           {"ratio", ratio},
                           {"threshold", check.threshold},
                           {"comparison", check.bound == Bound::kAtLeast ? ">=" : "<="},
                           {"flag", check.flag}});
  return passed || !enforced;
}

std::string SpeedCheck::requirement() const {
  return (bound == Bound::kAtLeast ? ">= " : "<= ") + fixed(threshold, 2);
}

void Report::summary(const std::string& text) { data_->summary = text; }
const std::string& Report::summary() const { return data_->summary; }
int Report::failures() const { return data_->failures; }

void Report::write_json(const std::string& path, int exit_code) const {
  nlohmann::ordered_json document = {{"lesson", data_->lesson},
                                     {"exit_code", exit_code},
                                     {"mode", mode_ == Mode::kCheck        ? "check"
                                              : mode_ == Mode::kSpeedCheck ? "speed-check"
                                                                           : "tour"},
                                     {"summary", data_->summary},
                                     {"facts", data_->facts},
                                     {"measurements", data_->measurements},
                                     {"tables", data_->tables},
                                     {"checks", data_->checks}};
  write_output_file(path, document.dump(2) + "\n");
}

}  // namespace hip_lessons
