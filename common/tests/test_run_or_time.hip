/// \file common/tests/test_run_or_time.hip
/// \brief Unit test of hl::RunOrTime's bookkeeping (timing.hpp), with rounds that return made-up
/// milliseconds: how many rounds each mode runs, that warm-ups are run but not kept, and that
/// --check gives no numbers. No HIP runtime call, no GPU.
#include <array>
#include <cstdio>
#include <optional>
#include <string>

#include "hip_lessons/format.hpp"
#include "hip_lessons/timing.hpp"

namespace hl = hip_lessons;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  std::printf("%s  %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

std::string shown(std::optional<double> value) {
  return value ? hl::format("{}", *value) : "nothing";
}

// Round r (from 1) reports r ms for its first part and 100 - r for its second, so the medians
// say which rounds were kept.
void expect_medians(hl::TimingPlan plan, int rounds, std::optional<double> first,
                    std::optional<double> second) {
  int calls = 0;
  const auto got = hl::RunOrTime(plan).medians([&] {
    ++calls;
    return std::array<double, 2>{1.0 * calls, 100.0 - calls};
  });
  expect(calls == rounds && got[0] == first && got[1] == second,
         hl::format(
             "warm-up {}, repeats {}: {} round(s), medians {} and {} (got {} round(s), {} and {})",
             plan.warmup, plan.repeats, rounds, shown(first), shown(second), calls, shown(got[0]),
             shown(got[1])));
}

}  // namespace

int main() {
  // No repeats: run once, measure nothing, whatever the warm-up says.
  expect_medians({0, 0}, 1, std::nullopt, std::nullopt);
  expect_medians({3, 0}, 1, std::nullopt, std::nullopt);
  // Timed: every warm-up round runs first and is dropped; the median is of the rest.
  expect_medians({0, 1}, 1, 1.0, 99.0);
  expect_medians({0, 4}, 4, 2.5, 97.5);
  expect_medians({1, 1}, 2, 2.0, 98.0);
  expect_medians({3, 5}, 8, 6.0, 94.0);
  expect_medians({3, 6}, 9, 6.5, 93.5);

  // A lesson's RunOrTime: the tour and --speed-check time 3 warm-ups and --repeat repeats,
  // --check runs once and gives nothing (wall() as medians()).
  hl::CommonOptions options;
  options.repeat = 4;
  for (const hl::Mode mode : {hl::Mode::kTour, hl::Mode::kSpeedCheck, hl::Mode::kCheck}) {
    options.mode = mode;
    const hl::RunOrTime runs(options);
    int calls = 0;
    const std::optional<double> ms = runs.wall([&] { ++calls; });
    const bool timed = mode != hl::Mode::kCheck;
    expect(runs.timed() == timed && calls == (timed ? 7 : 1) && ms.has_value() == timed,
           hl::format("{}: wall() runs {} time(s) and {} (got {}, {})",
                      timed ? "timed mode" : "--check", timed ? 7 : 1,
                      timed ? "returns a median" : "returns nothing", calls, shown(ms)));
  }

  std::printf("%d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
