#include "hip_lessons/report.hpp"

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <utility>
#include <variant>

#include "output_file.hpp"

namespace hip_lessons {

namespace {

// Prints \p line within kTextWidth columns: words that do not fit continue on lines indented
// by \p indent spaces.
void print_wrapped(std::ostream& out, const std::string& line, std::size_t indent) {
  const std::string first = wrap_text(line, kTextWidth).front();
  out << first << '\n';
  const std::size_t rest = line.find_first_not_of(' ', first.size());
  if (rest == std::string::npos) return;
  for (const std::string& piece : wrap_text(line.substr(rest), kTextWidth - indent)) {
    out << std::string(indent, ' ') << piece << '\n';
  }
}

nlohmann::ordered_json to_json(const Cell& cell) {
  return std::visit([](const auto& value) { return nlohmann::ordered_json(value); }, cell.value());
}

nlohmann::ordered_json to_json(const ResultTable& table) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& row : table.rows()) {
    nlohmann::ordered_json& entry = rows.emplace_back(nlohmann::ordered_json::object());
    for (std::size_t c = 0; c < row.size(); ++c) entry[table.columns()[c].key()] = to_json(row[c]);
  }
  return rows;
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

void Report::step(const StepResult& result) {
  // Under --check nothing was timed: the checks are what the run is for. Its tables still go
  // to the JSON file; its notes and figures are not printed.
  const bool everything = mode_ != Mode::kCheck;
  const bool enforced = mode_ == Mode::kSpeedCheck;
  const char* setting = std::getenv("HIP_LESSONS_SCHEDULE_CHECKS");
  const bool show_schedule = setting != nullptr && std::string(setting) == "show";
  const auto title = [&](const std::string& text) {
    out_ << '\n';
    for (const std::string& line : wrap_text(text, kTextWidth)) out_ << line << '\n';
  };
  title(result.heading());
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
        data_->tables[e.name] = to_json(*e.table);
        break;
      case Kind::kFigure:
        if (everything) {
          title(e.name);
          out_ << e.detail;
        }
        break;
      case Kind::kSchedule:
        if (show_schedule) {
          print_wrapped(out_,
                        "check   -     " + e.name + "  (" + e.detail +
                            "; shown, not enforced: HIP_LESSONS_SCHEDULE_CHECKS=show)",
                        14);
          data_->checks.push_back({{"name", e.name},
                                   {"kind", "schedule"},
                                   {"passed", e.passed},
                                   {"enforced", false},
                                   {"detail", e.detail}});
          break;
        }
        [[fallthrough]];
      case Kind::kCheck:
        check(e.name, e.passed, e.detail);
        break;
      case Kind::kSkip:
        print_wrapped(out_, "check   skip  " + e.name + ": " + e.detail, 14);
        data_->checks.push_back(
            {{"name", e.name}, {"kind", "skip"}, {"passed", nullptr}, {"detail", e.detail}});
        break;
      case Kind::kSpeed: {
        const SpeedCheck& c = *e.speed;
        const bool passed = c.passes(e.value);
        const std::string bound = c.bound == Bound::kAtLeast ? ">=" : "<=";
        print_wrapped(out_,
                      (!enforced ? "speed   -     "
                       : passed  ? "speed   ok    "
                                 : "speed   FAIL  ") +
                          (e.detail.empty() ? "" : e.detail + ": ") + c.name + " = " +
                          fixed(e.value, 2) + (enforced ? " (needs " : " (the speed test needs ") +
                          bound + " " + fixed(c.threshold, 2) + ")",
                      14);
        if (enforced && !passed) ++data_->failures;
        data_->checks.push_back({{"name", c.name},
                                 {"label", e.detail},
                                 {"kind", "speed"},
                                 {"passed", passed},
                                 {"enforced", enforced},
                                 {"ratio", e.value},
                                 {"threshold", c.threshold},
                                 {"comparison", bound},
                                 {"flag", c.flag}});
        break;
      }
      case Kind::kMeasurement:
        data_->measurements[e.name] = e.value;
        break;
    }
  }
  if (result.summary()) summary(*result.summary());
}

void Report::check(const std::string& name, bool passed, const std::string& detail) {
  std::string line = (passed ? "check   ok    " : "check   FAIL  ") + name;
  if (!detail.empty()) line += (passed ? "  (" : ": ") + detail + (passed ? ")" : "");
  print_wrapped(out_, line, 14);
  data_->checks.push_back(
      {{"name", name}, {"kind", "correctness"}, {"passed", passed}, {"detail", detail}});
  if (!passed) ++data_->failures;
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
