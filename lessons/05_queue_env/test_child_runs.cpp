/// \file lessons/05_queue_env/test_child_runs.cpp
/// \brief Unit tests of how lesson 05 runs its children (child_runs.hpp): which options make a
/// child, the line a child reports, and how the parent checks and tabulates its children,
/// with children whose outcome the test decides. No GPU needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "child_runs.hpp"

namespace hl = hip_lessons;
namespace qe = queue_env;

namespace {

qe::Settings child(const std::string& measure, const std::string& variable = "auto",
                   const std::string& policy = "all") {
  qe::Settings s;
  s.measure = measure;
  s.variable = variable;
  s.policy = policy;
  return s;
}

// A finished child: its exit code, its output, and what its @result line said.
hl::ChildRun finished(int exit_code, const std::string& output) {
  hl::ChildRun run;
  run.outcome.exit_code = exit_code;
  run.outcome.output = output;
  run.values = hl::parse_result(output);
  return run;
}

const hl::Verdict* verdict(const qe::Runs& runs, const std::string& name) {
  for (const hl::Verdict& v : runs.verdicts) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

}  // namespace

TEST(ChildRuns, OptionsThatMeanNothingTogetherAreRefused) {
  const auto tour = hl::Mode::kTour;
  EXPECT_NO_THROW(qe::refuse_or_skip(child("none"), tour));
  EXPECT_NO_THROW(qe::refuse_or_skip(child("queues"), tour));
  EXPECT_NO_THROW(qe::refuse_or_skip(child("wait", "auto", "spin"), tour));
  EXPECT_THROW(qe::refuse_or_skip(child("none", "GPU_MAX_HW_QUEUES"), tour), hl::UsageError);
  EXPECT_THROW(qe::refuse_or_skip(child("none", "auto", "spin"), tour), hl::UsageError);
  EXPECT_THROW(qe::refuse_or_skip(child("wait"), tour), hl::UsageError);
  EXPECT_THROW(qe::refuse_or_skip(child("queues", "auto", "spin"), tour), hl::UsageError);
  EXPECT_THROW(qe::refuse_or_skip(child("queues"), hl::Mode::kCheck), hl::UsageError);
  EXPECT_THROW(qe::refuse_or_skip(child("queues", "HSA_ENABLE_SDMA"), tour), hl::UsageError);
  EXPECT_THROW(qe::refuse_or_skip(child("amd", "GPU_MAX_HW_QUEUES"), tour), hl::UsageError);
}

TEST(ChildRuns, AChildAboutTheOtherPlatformsVariableIsNotApplicable) {
  const auto tour = hl::Mode::kTour;
  const auto amd = hl::Platform::kAmd, nvidia = hl::Platform::kNvidia;
  EXPECT_THROW(qe::refuse_or_skip(child("queues", "GPU_MAX_HW_QUEUES"), tour, nvidia),
               hl::SkipError);
  EXPECT_NO_THROW(qe::refuse_or_skip(child("queues", "GPU_MAX_HW_QUEUES"), tour, amd));
  EXPECT_THROW(qe::refuse_or_skip(child("queues", "CUDA_DEVICE_MAX_CONNECTIONS"), tour, amd),
               hl::SkipError);
  EXPECT_NO_THROW(qe::refuse_or_skip(child("queues", "CUDA_DEVICE_MAX_CONNECTIONS"), tour, nvidia));
  // The amd child is about AMD's variables whether --variable names one or not.
  EXPECT_THROW(qe::refuse_or_skip(child("amd"), tour, nvidia), hl::SkipError);
  EXPECT_THROW(qe::refuse_or_skip(child("amd", "ROC_AQL_QUEUE_SIZE"), tour, nvidia), hl::SkipError);
  EXPECT_NO_THROW(qe::refuse_or_skip(child("amd"), tour, amd));
  EXPECT_THROW(
      qe::refuse_or_skip(child("wait", "HSA_ENABLE_INTERRUPT", "blocking-sync"), tour, nvidia),
      hl::SkipError);
  try {
    qe::refuse_or_skip(child("amd"), tour, nvidia);
  } catch (const hl::SkipError& e) {
    EXPECT_NE(std::string(e.what()).find("not applicable here"), std::string::npos);
  }
}

TEST(ChildRuns, TheResultLineCarriesEveryMeasurementAndWhetherAllChecksPassed) {
  hl::StepResult step("child");
  step.check("first", true).measurement("depth_first_ms", 5.014).measurement("ideal_ms", 0.4);
  const auto values = hl::parse_result("noise\n" + qe::result_line(step.entries()) + "\n");
  EXPECT_EQ(values.at("depth_first_ms"), "5.014");
  EXPECT_EQ(values.at("ideal_ms"), "0.4");
  EXPECT_EQ(values.at("correct"), "1");
  step.check("second", false);
  EXPECT_EQ(hl::parse_result(qe::result_line(step.entries())).at("correct"), "0");
}

TEST(ChildRuns, AChildAboutAVariableIsLabelledByItsSetting) {
  const qe::Child set = qe::about("queues", {"Q", "1"}, true), unset = qe::about("amd", {"Q", {}});
  EXPECT_EQ(set.label, "Q=1");
  EXPECT_EQ(set.args, (std::vector<std::string>{"--measure", "queues", "--variable", "Q"}));
  EXPECT_TRUE(set.tour_only);
  EXPECT_FALSE(set.shown);
  EXPECT_TRUE(qe::about("queues", {"Q", "abc"}, true, true).shown);
  EXPECT_EQ(unset.label, "Q unset");
  EXPECT_FALSE(unset.changes[0].value.has_value());
  EXPECT_FALSE(unset.tour_only || unset.shown);
}

TEST(ChildRuns, ChildrenShareTheRunsOptionsAndCheckWithThreeRepeats) {
  hl::CommonOptions options;
  options.repeat = 10;
  options.seed = 42;
  options.mode = hl::Mode::kCheck;
  const auto repeats = [&] {
    const auto shared = qe::Children::of(qe::Settings{}, options).shared;
    const auto flag = std::find(shared.begin(), shared.end(), "--repeat");
    EXPECT_NE(std::find(shared.begin(), shared.end(), "42"), shared.end());
    return flag == shared.end() || flag + 1 == shared.end() ? "" : *(flag + 1);
  };
  EXPECT_EQ(repeats(), "3");
  options.mode = hl::Mode::kTour;
  EXPECT_EQ(repeats(), "10");
}

TEST(ChildRuns, EachChildIsACheckASkipOrOnlyShown) {
  std::vector<std::vector<std::string>> started;
  qe::Children children{{"--seed", "7"}, hl::Mode::kTour};
  children.launch = [&](const std::vector<std::string>& args, const auto& changes) {
    started.push_back(args);
    const std::string who = changes.empty() ? "" : changes[0].describe();
    if (who == "Q=1") return finished(0, "@result depth_first_ms=5 correct=1\n");
    if (who == "OTHER=1") return finished(77, "skipped: not applicable here: OTHER\n");
    if (who == "Q=abc") return finished(1, "one\ntwo\nthree\nfour\nfive\n");
    return finished(-1, "");  // killed: Q=0
  };
  const qe::Runs runs = children.run("queues", "title", {"depth_first_ms"},
                                     {{"Q=1", {"--measure", "queues"}, {{"Q", "1"}}},
                                      {"OTHER=1", {"--measure", "queues"}, {{"OTHER", "1"}}},
                                      {"Q=abc", {"--measure", "queues"}, {{"Q", "abc"}}},
                                      {"Q=0", {"--measure", "queues"}, {{"Q", "0"}}, true, true}});
  ASSERT_EQ(started.size(), 4u);
  EXPECT_EQ(started[0].back(), "7");  // the shared options come last
  ASSERT_EQ(runs.verdicts.size(), 3u);
  EXPECT_EQ(verdict(runs, "Q=1")->held, true);
  EXPECT_EQ(verdict(runs, "OTHER=1")->held, std::nullopt);  // a skip
  EXPECT_EQ(verdict(runs, "OTHER=1")->detail, "skipped: not applicable here: OTHER");
  EXPECT_EQ(verdict(runs, "Q=abc")->held, false);
  EXPECT_EQ(verdict(runs, "Q=abc")->detail, "exit 1: two | three | four | five");
  EXPECT_EQ(verdict(runs, "Q=0"), nullptr);  // shown, not checked
  EXPECT_EQ(runs("Q=1", "depth_first_ms"), 5.0);
  EXPECT_EQ(runs("Q=abc", "depth_first_ms"), std::nullopt);
  const hl::ResultTable& table = runs.table;
  EXPECT_EQ(table.name(), "queues");
  ASSERT_EQ(table.rows().size(), 4u);
  EXPECT_EQ(table.columns()[2].key(), "depth-first ms");
}

TEST(ChildRuns, CheckRunsSkipTheTourOnlyChildrenAndReportNoTimes) {
  int started = 0;
  qe::Children children{{}, hl::Mode::kCheck};
  children.launch = [&](const auto&, const auto&) {
    ++started;
    return finished(0, "@result depth_first_ms=5 correct=1\n");
  };
  const qe::Runs runs = children.run("queues", "title", {"depth_first_ms"},
                                     {{"always", {}, {}}, {"tour", {}, {}, true}});
  EXPECT_EQ(started, 1);
  ASSERT_EQ(runs.verdicts.size(), 1u);  // the tour-only child did not run
  EXPECT_EQ(verdict(runs, "always")->held, true);
  EXPECT_EQ(runs("always", "depth_first_ms"), std::nullopt);
}

TEST(ChildRuns, ASizeTheCopyChildCannotHoldIsRefused) {
  const std::size_t gib = std::size_t{1} << 30;
  EXPECT_NO_THROW(qe::refuse_copy_size(std::int64_t{1} << 26, gib));   // 256 MiB of 1 GiB
  EXPECT_NO_THROW(qe::refuse_copy_size(241591910, gib));               // just under 90%
  EXPECT_THROW(qe::refuse_copy_size(241591911, gib), hl::UsageError);  // just over
  try {
    qe::refuse_copy_size(std::int64_t{1} << 28, gib);  // 1 GiB of floats: more than 90%
    ADD_FAILURE() << "a --size of the whole device was accepted";
  } catch (const hl::UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--size 268435456 needs 1.00 GiB for the copy child; the device has 1.00 GiB");
  }
}
