#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hip_lessons/child_process.hpp"
#include "hip_lessons/report.hpp"

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
  EXPECT_TRUE(r.check("good", true));
  EXPECT_FALSE(r.check("bad", false, "because"));
  EXPECT_EQ(r.failures(), 1);
  const std::string text = out.str();
  EXPECT_NE(text.find("check   FAIL  bad: because"), std::string::npos) << text;
}

TEST(ReportTest, CheckMatchDescribesTheMismatch) {
  std::ostringstream out;
  Report r("test", out);
  hip_lessons::Mismatch m{257, 1.5, 0.0, 3};
  EXPECT_FALSE(r.check_match("vectorAdd", m, 1000));
  EXPECT_NE(out.str().find("element 257 of 1000"), std::string::npos);
  EXPECT_TRUE(r.check_match("vectorAdd", std::nullopt, 1000));
}

TEST(ReportTest, WritesJsonWithNumbersAsNumbers) {
  std::ostringstream out;
  Report r("lesson99", out);
  r.fact("device", "test device");
  r.measurement("bandwidth_tbps", 4.2);
  hip_lessons::ResultTable t("variants", "Variants", {{"variant"}, {"TB/s"}});
  t.row({"float4", 4.36});
  r.table(t);
  r.speed(hip_lessons::at_least("ratio", "--min-ratio", 1.0), 1.5);
  r.summary("4.36 TB/s");
  const std::string path = ::testing::TempDir() + "report_test.json";
  r.write_json(path, 0);
  std::ifstream in(path);
  const auto json = nlohmann::json::parse(in);
  EXPECT_EQ(json["lesson"], "lesson99");
  EXPECT_EQ(json["summary"], "4.36 TB/s");
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
  ::unsetenv("HIP_LESSONS_SCHEDULE_CHECKS");
  EXPECT_FALSE(r.concurrency_check("8 at once", false, "4 at the peak"));
  EXPECT_EQ(r.failures(), 1);
  ::setenv("HIP_LESSONS_SCHEDULE_CHECKS", "show", 1);
  EXPECT_TRUE(r.concurrency_check("8 at once", false, "4 at the peak"));
  ::unsetenv("HIP_LESSONS_SCHEDULE_CHECKS");
  EXPECT_EQ(r.failures(), 1);
  EXPECT_NE(out.str().find("check   FAIL  8 at once: 4 at the peak"), std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("check   -     8 at once  (4 at the peak; shown, not enforced"),
            std::string::npos)
      << out.str();
}

TEST(ReportTest, LongTimelineTitlesWrapWithinTheWidth) {
  std::ostringstream out;
  Report r("test", out);
  r.timeline(std::string(60, 't') + " " + std::string(60, 'u'), {{"row", {{0.0, 10.0}}}}, 10.0);
  std::istringstream lines(out.str());
  std::string line;
  std::getline(lines, line);  // the blank line before the title
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
