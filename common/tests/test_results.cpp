// Typed tables, the formatter, and declared speed checks as the report prints and stores them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "hip_lessons/cli.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/report.hpp"
#include "hip_lessons/results.hpp"
#include "hip_lessons/speed_check.hpp"

namespace hl = hip_lessons;

namespace {

nlohmann::json written_json(const hl::Report& report) {
  // Each test writes its own file: ctest runs these tests in parallel processes.
  const std::string path = testing::TempDir() + "results_" +
                           testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
                           std::to_string(getpid()) + ".json";
  report.write_json(path, 0);
  std::ifstream file(path);
  nlohmann::json document = nlohmann::json::parse(file);
  std::remove(path.c_str());
  return document;
}

}  // namespace

TEST(FormatTest, FillsPlaceholdersByType) {
  EXPECT_EQ(hl::format("{} blocks of {} threads", 2112, 256u), "2112 blocks of 256 threads");
  EXPECT_EQ(hl::format("{:.2} TB/s", 4.3612), "4.36 TB/s");
  EXPECT_EQ(hl::format("{}", 0.75), "0.75");
  EXPECT_EQ(hl::format("{:bytes}", 3.0 * 1024 * 1024 * 1024), "3.00 GiB");
  EXPECT_EQ(hl::format("{} and {}", "text", std::string("more")), "text and more");
  EXPECT_EQ(hl::format("{{literal}} {}", true), "{literal} yes");
  EXPECT_EQ(hl::format("{:.0}", 99.6), "100");
}

TEST(FormatTest, RefusesAMismatchedPattern) {
  EXPECT_THROW(hl::format("{} {}", 1), std::invalid_argument);
  EXPECT_THROW(hl::format("{}", 1, 2), std::invalid_argument);
  EXPECT_THROW(hl::format("{:.2}", "text"), std::invalid_argument);
  EXPECT_THROW(hl::format("{:x}", 1), std::invalid_argument);
  EXPECT_THROW(hl::format("{", 1), std::invalid_argument);
}

TEST(FormatTest, ShortestAndFixed) {
  EXPECT_EQ(hl::shortest(0.75), "0.75");
  EXPECT_EQ(hl::shortest(5.0), "5");
  EXPECT_EQ(hl::shortest(1.35), "1.35");
  EXPECT_EQ(hl::fixed(3.14159, 2), "3.14");
  EXPECT_EQ(hl::format_bytes(1536), "1.50 KiB");
}

TEST(ResultTableTest, PrintsTypedValuesAligned) {
  hl::ResultTable table("bandwidth", "Bandwidth",
                        {{"variant"}, {"median", "ms", 3}, {"blocks"}, {"fits"}});
  table.row({"float4", 1.23456, 2112, true});
  table.row({"copy", std::nullopt, std::optional<int>(7), false});
  std::ostringstream out;
  table.print(out);
  EXPECT_EQ(out.str(),
            "\nBandwidth\n"
            "  variant  median ms  blocks  fits\n"
            "  -------  ---------  ------  ----\n"
            "  float4       1.235    2112  yes\n"
            "  copy             -       7  no\n");
}

TEST(ResultTableTest, RefusesARowOfTheWrongWidth) {
  hl::ResultTable table("t", "T", {{"a"}, {"b"}});
  EXPECT_THROW(table.row({1}), std::invalid_argument);
}

TEST(ResultTableTest, KeepsNumbersAsNumbersInTheJson) {
  std::ostringstream out;
  hl::Report report("test", out);
  hl::ResultTable table("sweep", "Sweep", {{"block"}, {"median", "ms", 4}, {"mode"}, {"gap"}});
  table.row({256, 0.5, "0666", std::nullopt});
  report.step(hl::StepResult("1. A step").table(table).fact("runtime_version", 13000));
  report.fact("device", "H200");
  const nlohmann::json row = written_json(report)["tables"]["sweep"][0];
  EXPECT_TRUE(row["block"].is_number_integer());
  EXPECT_EQ(row["block"], 256);
  EXPECT_DOUBLE_EQ(row["median ms"].get<double>(), 0.5);
  EXPECT_EQ(row["mode"], "0666");  // text stays text, leading zero and all
  EXPECT_TRUE(row["gap"].is_null());
  const nlohmann::json document = written_json(report);
  EXPECT_TRUE(document["facts"]["runtime_version"].is_number_integer());
  EXPECT_EQ(document["facts"]["device"], "H200");
}

TEST(SpeedCheckTest, IsEnforcedOnlyInTheSpeedCheckMode) {
  const hl::SpeedCheck check = hl::at_least("best / copy", "--min-copy-ratio", 0.75);
  const auto step = hl::StepResult("3. Speed").speed(check, 0.5);
  std::ostringstream enforced_out;
  hl::Report enforced("test", enforced_out, hl::Mode::kSpeedCheck);
  enforced.step(step);
  EXPECT_EQ(enforced.failures(), 1);
  EXPECT_EQ(enforced_out.str(), "\n3. Speed\nspeed   FAIL  best / copy = 0.50 (needs >= 0.75)\n");

  std::ostringstream tour_out;
  hl::Report tour("test", tour_out, hl::Mode::kTour);
  tour.step(step);
  EXPECT_EQ(tour.failures(), 0);
  EXPECT_EQ(tour_out.str(),
            "\n3. Speed\nspeed   -     best / copy = 0.50 (the speed test needs >= 0.75)\n");
  const nlohmann::json recorded = written_json(tour)["checks"][0];
  EXPECT_EQ(recorded["enforced"], false);
  EXPECT_EQ(recorded["passed"], false);
  EXPECT_EQ(recorded["flag"], "--min-copy-ratio");
}

TEST(SpeedCheckTest, AtMostPassesAtTheThreshold) {
  const hl::SpeedCheck check = hl::at_most("breadth / ideal", "--max-breadth", 1.75);
  EXPECT_TRUE(check.passes(1.75));
  EXPECT_FALSE(check.passes(1.76));
  std::ostringstream out;
  hl::Report report("test", out, hl::Mode::kSpeedCheck);
  report.step(hl::StepResult("5. Order").speed(check, 1.75));
  EXPECT_EQ(out.str(), "\n5. Order\nspeed   ok    breadth / ideal = 1.75 (needs <= 1.75)\n");
  EXPECT_EQ(written_json(report)["checks"][0]["comparison"], "<=");
}

TEST(SpeedCheckTest, TheFlagReplacesTheDeclaredThreshold) {
  hl::LessonCli cli("lesson_test", "test", 1024);
  const hl::SpeedCheck& check =
      cli.add_speed_check(hl::at_least("best / copy", "--min-copy-ratio", 0.75));
  const char* argv[] = {"lesson_test", "--speed-check", "--min-copy-ratio", "0.5"};
  ASSERT_EQ(cli.parse(4, argv), -1);
  EXPECT_DOUBLE_EQ(check.threshold, 0.5);
  EXPECT_EQ(cli.options().mode, hl::Mode::kSpeedCheck);
  EXPECT_TRUE(cli.options().timed());
}

TEST(ModeTest, CheckRunsDoNotTime) {
  hl::LessonCli cli("lesson_test", "test", 1024);
  const char* argv[] = {"lesson_test", "--check"};
  ASSERT_EQ(cli.parse(2, argv), -1);
  EXPECT_EQ(cli.options().mode, hl::Mode::kCheck);
  EXPECT_FALSE(cli.options().timed());
}

TEST(BlockSizeTest, WholeWarpsAreCheckedBeforeAnyGpuWork) {
  hl::LessonCli cli("lesson_test", "test", 1024);
  std::int64_t block = 256;
  cli.add_block_size(block, hl::BlockRule::kWholeWarps);
  const char* argv[] = {"lesson_test", "--block", "100"};
  testing::internal::CaptureStderr();
  EXPECT_EQ(cli.parse(3, argv), 2);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("not a multiple of 32"), std::string::npos);
}

TEST(ResultTableTest, WrapsHeadersThenTextToStayWithinTheWidth) {
  hl::ResultTable table("wide", "Wide", {{"block"}, {"dynamic shared bytes"}, {"what it bounds"}});
  table.row({256, 0, "the number of blocks that can be resident on one compute unit at once"});
  std::ostringstream out;
  table.print(out, 40);
  EXPECT_EQ(out.str(),
            "\nWide\n"
            "         dynamic\n"
            "         shared\n"
            "  block  bytes    what it bounds\n"
            "  -----  -------  ----------------------\n"
            "    256        0  the number of blocks\n"
            "                  that can be resident\n"
            "                  on one compute unit at\n"
            "                  once\n");
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 40u) << line;
}

TEST(ResultTableTest, SharesTheWidthBetweenTextColumnsAndKeepsLongWordsWhole) {
  // Two text columns too wide together: both narrow, the wider first, and the column
  // holding a word that cannot wrap keeps that word on one line.
  hl::ResultTable table("two", "Two", {{"setting"}, {"child"}, {"meaning"}});
  table.row({"CUDA_DEVICE_MAX_CONNECTIONS=32", "exit 0, wrong results",
             "how many hardware work queues the runtime opens"});
  std::ostringstream out;
  table.print(out, 60);
  std::istringstream lines(out.str());
  std::size_t widest = 0;
  for (std::string line; std::getline(lines, line);) widest = std::max(widest, line.size());
  EXPECT_LE(widest, 60u) << out.str();
  EXPECT_NE(out.str().find("CUDA_DEVICE_MAX_CONNECTIONS=32"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("exit 0,"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("exit 0, wrong results"), std::string::npos) << out.str();
}

TEST(ResultTableTest, NarrowsNoTextColumnBelowItsHeadersLongestWord) {
  // The second column's cells are short but its header's word is not: the column keeps the
  // header's width, so every column below it stays aligned under its header.
  hl::ResultTable table("header", "Header", {{"setting"}, {"breadth-first-order"}, {"meaning"}});
  table.row({"CUDA_DEVICE_MAX_CONNECTIONS=32", "ok", "how many hardware work queues it opens"});
  std::ostringstream out;
  table.print(out, 50);
  std::istringstream lines(out.str());
  std::string title, blank, header, rule;
  std::getline(lines, blank);
  std::getline(lines, title);
  std::getline(lines, header);
  std::getline(lines, rule);
  EXPECT_NE(rule.find(std::string(19, '-')), std::string::npos) << out.str();
  EXPECT_EQ(header.find("meaning"), rule.rfind("  ") + 2) << out.str();
}

TEST(ResultTableTest, StaysWiderWhenOnlyUnbreakableWordsAreLeft) {
  hl::ResultTable table("long", "Long", {{"name"}, {"n"}});
  table.row({"averyveryverylongword_that_cannot_wrap", 1});
  std::ostringstream out;
  table.print(out, 20);
  EXPECT_NE(out.str().find("  averyveryverylongword_that_cannot_wrap  1\n"), std::string::npos)
      << out.str();
}

TEST(FormatTest, WrapsAtSpacesKeepingInnerSpacing) {
  EXPECT_EQ(hl::wrap_text("check   ok    name", 100),
            std::vector<std::string>{"check   ok    name"});
  EXPECT_EQ(hl::wrap_text("aa bb  cc", 5), (std::vector<std::string>{"aa bb", "cc"}));
  EXPECT_EQ(hl::wrap_text("averyveryverylongword x", 5),
            (std::vector<std::string>{"averyveryverylongword", "x"}));
}

TEST(ResultTableTest, ANarrowTableIsPrintedAsItIs) {
  hl::ResultTable table("t", "T", {{"a"}, {"b"}});
  table.row({"x  y", 1});
  std::ostringstream out;
  table.print(out);
  EXPECT_EQ(out.str(), "\nT\n  a     b\n  ----  -\n  x  y  1\n");
}

TEST(ReportTest, LongCheckLinesWrapUnderTheName) {
  std::ostringstream out;
  hl::Report report("test", out);
  report.step(
      hl::StepResult("1. A step")
          .check(std::string(60, 'n'), true, std::string(50, 'd') + " and more words here"));
  const std::string text = out.str();
  EXPECT_EQ(text, "\n1. A step\ncheck   ok    " + std::string(60, 'n') + "\n              (" +
                      std::string(50, 'd') + " and more words here)\n");
}
