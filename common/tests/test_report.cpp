#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hip_lessons/child_process.hpp"
#include "hip_lessons/report.hpp"
#include "hip_lessons/timeline.hpp"

using hip_lessons::Report;

TEST(Format, FixedAndBytes) {
  EXPECT_EQ(hip_lessons::fixed(3.14159, 2), "3.14");
  EXPECT_EQ(hip_lessons::format_bytes(512), "512 B");
  EXPECT_EQ(hip_lessons::format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(hip_lessons::format_bytes(64.0 * 1024 * 1024 * 1024), "64.0 GiB");
}

TEST(ReportTest, ChecksCountFailures) {
  std::ostringstream out;
  Report r("test", out);
  r.step(hip_lessons::StepResult("1. Checks").check("good", true).check("bad", false, "because"));
  EXPECT_EQ(r.failures(), 1);
  const std::string text = out.str();
  EXPECT_NE(text.find("check   FAIL  bad: because"), std::string::npos) << text;
}

// A step's result comes out in the order the step recorded it, under its heading; the tour
// prints everything, --check only the checks and skips, and the JSON gets the tables either way.
hip_lessons::StepResult sample_step() {
  hip_lessons::ResultTable table("streams", "Streams against time", {{"streams"}, {"ms", "", 1}});
  table.row({8, 0.5});
  hip_lessons::StepResult step("2. Kernels on more streams");
  step.note("a sentence of the story")
      .table(table)
      .check("kernels correct", true, "32 elements match")
      .skip("hipExtLaunchKernelGGL", "AMD only")
      .figure({"A timeline", "#### ....\n"})
      .speed(hip_lessons::at_least("1 / 8 streams", "--min", 5.0), 7.0)
      .speed(hip_lessons::at_least("untimed", "--min-untimed", 5.0), std::nullopt)
      .measurement("speedup", 7.0)
      .measurement("untimed", std::nullopt)
      .summary("8 streams: 7.0x");
  return step;
}

TEST(ReportTest, StepPrintsItsEntriesInOrderUnderItsHeading) {
  std::ostringstream out;
  Report r("test", out);
  r.step(sample_step());
  const std::string text = out.str();
  const std::size_t heading = text.find("2. Kernels on more streams");
  const std::size_t note = text.find("a sentence of the story");
  const std::size_t table = text.find("Streams against time");
  const std::size_t check = text.find("check   ok    kernels correct");
  const std::size_t skip = text.find("check   skip  hipExtLaunchKernelGGL: AMD only");
  const std::size_t figure = text.find("A timeline\n#### ....");
  const std::size_t speed = text.find("speed   -     1 / 8 streams = 7.00");
  ASSERT_NE(speed, std::string::npos) << text;
  EXPECT_TRUE(heading < note && note < table && table < check && check < skip && skip < figure &&
              figure < speed)
      << text;
  EXPECT_EQ(text.find("untimed"), std::string::npos) << text;
  EXPECT_EQ(r.summary(), "8 streams: 7.0x");
  EXPECT_EQ(r.failures(), 0);
}

TEST(ReportTest, CheckModeStepPrintsChecksAndKeepsTablesForTheJson) {
  std::ostringstream out;
  Report r("test", out, hip_lessons::Mode::kCheck);
  r.step(sample_step());
  const std::string text = out.str();
  EXPECT_NE(text.find("check   ok    kernels correct"), std::string::npos) << text;
  EXPECT_NE(text.find("check   skip  hipExtLaunchKernelGGL"), std::string::npos) << text;
  EXPECT_EQ(text.find("Streams against time"), std::string::npos) << text;
  EXPECT_EQ(text.find("a sentence of the story"), std::string::npos) << text;
  EXPECT_EQ(text.find("A timeline"), std::string::npos) << text;
  const std::string path = ::testing::TempDir() + "step_check.json";
  r.write_json(path, 0);
  std::ifstream in(path);
  const auto json = nlohmann::json::parse(in);
  EXPECT_EQ(json["tables"]["streams"][0]["streams"], 8);
  EXPECT_DOUBLE_EQ(json["measurements"]["speedup"].get<double>(), 7.0);
  EXPECT_FALSE(json["measurements"].contains("untimed"));
  std::remove(path.c_str());
}

TEST(ReportTest, ALabelledSpeedCheckKeepsItsDeclaredName) {
  // One declared check measured per partition: the label says which, the name stays the one
  // --help gives (a step must not rename it).
  const hip_lessons::SpeedCheck declared =
      hip_lessons::at_most("side by side / solo", "--max-concurrent-slowdown", 1.35);
  hip_lessons::StepResult step("3. Side by side");
  step.speed(declared, 1.02, "partition A").speed(declared, 1.5, "partition B");
  std::ostringstream out;
  Report r("test", out, hip_lessons::Mode::kSpeedCheck);
  r.step(step);
  const std::string text = out.str();
  EXPECT_NE(text.find("speed   ok    partition A: side by side / solo = 1.02 (needs <= 1.35)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("speed   FAIL  partition B: side by side / solo = 1.50"), std::string::npos)
      << text;
  EXPECT_EQ(r.failures(), 1);
  const std::string path = ::testing::TempDir() + "labelled_speed.json";
  r.write_json(path, 1);
  std::ifstream in(path);
  const auto json = nlohmann::json::parse(in);
  EXPECT_EQ(json["checks"][0]["name"], "side by side / solo");
  EXPECT_EQ(json["checks"][0]["label"], "partition A");
  EXPECT_EQ(json["checks"][0]["flag"], "--max-concurrent-slowdown");
}

TEST(ReportTest, ASkipIsRecordedAsNeitherPassNorFailure) {
  std::ostringstream out;
  Report r("test", out);
  r.step(hip_lessons::StepResult("4. Calculator")
             .skip("own calculator = API", "the calculator models sm_90 and gfx90a only"));
  EXPECT_EQ(r.failures(), 0);
  const std::string path = ::testing::TempDir() + "skip.json";
  r.write_json(path, 0);
  std::ifstream in(path);
  const auto json = nlohmann::json::parse(in);
  ASSERT_EQ(json["checks"].size(), 1u);
  EXPECT_EQ(json["checks"][0]["kind"], "skip");
  EXPECT_TRUE(json["checks"][0]["passed"].is_null());
  EXPECT_EQ(json["checks"][0]["detail"], "the calculator models sm_90 and gfx90a only");
  std::remove(path.c_str());
}

TEST(ReportTest, AFailedCheckInAStepCountsAsAFailure) {
  std::ostringstream out;
  Report r("test", out);
  hip_lessons::StepResult step("1. Check");
  step.check_match("vectorAdd", hip_lessons::Mismatch{3, 1.0, 0.0, 1}, 10);
  step.speed(hip_lessons::at_least("ratio", "--min", 2.0), 1.0);  // shown, not enforced: tour
  r.step(step);
  EXPECT_EQ(r.failures(), 1);
  EXPECT_NE(out.str().find("check   FAIL  vectorAdd: element 3 of 10"), std::string::npos);
}

// A verdict judged below main.hip becomes the entry its value says, in the order given.
TEST(StepResultTest, VerdictsAreRecordedAsChecksScheduleChecksOrSkips) {
  hip_lessons::StepResult step("1. Verdicts");
  step.record({{"held", true, "seen"},
               {"broken", false, "not seen"},
               {"needs overlap", true, "4 at once", true},
               {"not here", std::nullopt, "AMD only"}});
  using Kind = hip_lessons::StepResult::Kind;
  const auto& e = step.entries();
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].kind, Kind::kCheck);
  EXPECT_TRUE(e[0].passed);
  EXPECT_EQ(e[0].detail, "seen");
  EXPECT_EQ(e[1].kind, Kind::kCheck);
  EXPECT_FALSE(e[1].passed);
  EXPECT_EQ(e[2].kind, Kind::kSchedule);
  EXPECT_EQ(e[2].name, "needs overlap");
  EXPECT_EQ(e[3].kind, Kind::kSkip);
  EXPECT_EQ(e[3].detail, "AMD only");
}

TEST(StepResultTest, RatioOfMeasuredValuesOnly) {
  EXPECT_DOUBLE_EQ(*hip_lessons::ratio(6.0, 2.0), 3.0);
  EXPECT_FALSE(hip_lessons::ratio(std::nullopt, 2.0));
  EXPECT_FALSE(hip_lessons::ratio(6.0, std::nullopt));
}

TEST(ReportTest, CheckMatchDescribesTheMismatch) {
  std::ostringstream out;
  Report r("test", out);
  hip_lessons::Mismatch m{257, 1.5, 0.0, 3};
  r.step(hip_lessons::StepResult("1. Mismatch").check_match("vectorAdd", m, 1000));
  EXPECT_NE(out.str().find("check   FAIL  vectorAdd: element 257 of 1000"), std::string::npos);
  r.step(hip_lessons::StepResult("2. Match").check_match("vectorAdd", std::nullopt, 1000));
  EXPECT_NE(out.str().find("check   ok    vectorAdd  (1000 elements match)"), std::string::npos);
  EXPECT_EQ(r.failures(), 1);
}

TEST(ReportTest, WritesJsonWithNumbersAsNumbers) {
  std::ostringstream out;
  Report r("lesson99", out);
  r.fact("device", "test device");
  hip_lessons::ResultTable t("variants", "Variants", {{"variant"}, {"TB/s"}});
  t.row({"float4", 4.36});
  r.step(hip_lessons::StepResult("3. Bandwidth")
             .table(t)
             .measurement("bandwidth_tbps", 4.2)
             .speed(hip_lessons::at_least("ratio", "--min-ratio", 1.0), 1.5));
  r.summary("4.36 TB/s");
  const std::string path = ::testing::TempDir() + "report_test.json";
  r.write_json(path, 0);
  std::ifstream in(path);
  const auto json = nlohmann::json::parse(in);
  EXPECT_EQ(json["lesson"], "lesson99");
  EXPECT_EQ(json["summary"], "4.36 TB/s");
  EXPECT_DOUBLE_EQ(json["measurements"]["bandwidth_tbps"].get<double>(), 4.2);
  EXPECT_DOUBLE_EQ(json["tables"]["variants"][0]["TB/s"].get<double>(), 4.36);
  EXPECT_EQ(json["tables"]["variants"][0]["variant"], "float4");
  EXPECT_DOUBLE_EQ(json["checks"][0]["ratio"].get<double>(), 1.5);
  EXPECT_FALSE(std::ifstream(path + ".partial").good());
  std::remove(path.c_str());
}

TEST(ReportTest, UnwritablePathThrowsAndLeavesNothing) {
  std::ostringstream out;
  Report r("x", out);
  EXPECT_THROW(r.write_json("/nonexistent-directory/x.json", 0), std::runtime_error);
}

TEST(ReportTest, ConcurrencyChecksAreShownNotCountedUnderTheSanitizerSetting) {
  std::ostringstream out;
  Report r("test", out);
  const auto step =
      hip_lessons::StepResult("2. Overlap").schedule_check("8 at once", false, "4 at the peak");
  ::unsetenv("HIP_LESSONS_SCHEDULE_CHECKS");
  r.step(step);
  EXPECT_EQ(r.failures(), 1);
  ::setenv("HIP_LESSONS_SCHEDULE_CHECKS", "show", 1);
  r.step(step);
  ::unsetenv("HIP_LESSONS_SCHEDULE_CHECKS");
  EXPECT_EQ(r.failures(), 1);
  EXPECT_NE(out.str().find("check   FAIL  8 at once: 4 at the peak"), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("check   -     8 at once  (4 at the peak; shown, not enforced"),
            std::string::npos)
      << out.str();
}

TEST(ReportTest, LongFigureTitlesWrapWithinTheWidth) {
  std::ostringstream out;
  Report r("test", out);
  r.step(hip_lessons::StepResult("1. Timeline")
             .figure(hip_lessons::timeline(std::string(60, 't') + " " + std::string(60, 'u'),
                                           {{"row", {{0.0, 10.0}}}}, 10.0)));
  std::istringstream lines(out.str());
  std::string line;
  for (int i = 0; i < 3; ++i) std::getline(lines, line);  // the heading, a blank line before each
  std::getline(lines, line);
  EXPECT_EQ(line, std::string(60, 't'));
  std::getline(lines, line);
  EXPECT_EQ(line, std::string(60, 'u'));
}

TEST(ReportTest, MachineReadableLinesAreNeverWrapped) {
  std::ostringstream out;
  Report r("test", out);
  std::string result = "@result";
  for (int i = 0; i < 20; ++i) result += " key" + std::to_string(i) + "=" + std::to_string(i);
  ASSERT_GT(result.size(), 100u);
  r.line(result);
  EXPECT_EQ(out.str(), result + "\n");
  // The parent reads every key back (a wrapped line would lose the ones after the break).
  const auto values = hip_lessons::parse_result(out.str());
  EXPECT_EQ(values.size(), 20u);
  EXPECT_EQ(values.at("key19"), "19");
}
