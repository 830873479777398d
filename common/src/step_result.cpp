#include "hip_lessons/step_result.hpp"

namespace hip_lessons {

StepResult::Entry& StepResult::add(Kind kind, std::string name) {
  Entry& entry = entries_.emplace_back();
  entry.kind = kind;
  entry.name = std::move(name);
  return entry;
}

StepResult& StepResult::note(std::string text) {
  add(Kind::kNote, std::move(text));
  return *this;
}

StepResult& StepResult::fact(std::string key, Cell value) {
  add(Kind::kFact, std::move(key)).cell = std::move(value);
  return *this;
}

StepResult& StepResult::facts(const std::vector<Fact>& facts) {
  for (const Fact& f : facts) fact(f.key, f.value);
  return *this;
}

StepResult& StepResult::table(ResultTable table) {
  add(Kind::kTable, table.name()).table = std::move(table);
  return *this;
}

StepResult& StepResult::figure(Figure figure) {
  add(Kind::kFigure, figure.title).figure = std::move(figure);
  return *this;
}

StepResult& StepResult::check(std::string name, bool passed, std::string detail) {
  Entry& e = add(Kind::kCheck, std::move(name));
  e.passed = passed;
  e.detail = std::move(detail);
  return *this;
}

StepResult& StepResult::check_match(std::string name, const std::optional<Mismatch>& mismatch,
                                    std::size_t count) {
  if (!mismatch) return check(std::move(name), true, std::to_string(count) + " elements match");
  return check(std::move(name), false, describe(*mismatch, count));
}

StepResult& StepResult::schedule_check(std::string name, bool passed, std::string detail) {
  Entry& e = add(Kind::kSchedule, std::move(name));
  e.passed = passed;
  e.detail = std::move(detail);
  return *this;
}

StepResult& StepResult::skip(std::string name, std::string reason) {
  add(Kind::kSkip, std::move(name)).detail = std::move(reason);
  return *this;
}

StepResult& StepResult::speed(const SpeedCheck& check, std::optional<double> ratio) {
  if (!ratio) return *this;
  Entry& e = add(Kind::kSpeed, check.name);
  e.value = *ratio;
  e.speed = check;
  return *this;
}

StepResult& StepResult::measurement(std::string key, std::optional<double> value) {
  if (value) add(Kind::kMeasurement, std::move(key)).value = *value;
  return *this;
}

StepResult& StepResult::summary(std::string text) {
  summary_ = std::move(text);
  return *this;
}

std::optional<double> ratio(std::optional<double> numerator, std::optional<double> denominator) {
  if (!numerator || !denominator) return std::nullopt;
  return *numerator / *denominator;
}

}  // namespace hip_lessons
