#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hip_lessons/report.hpp"

using hip_lessons::Report;
using hip_lessons::Table;

TEST(Format, FixedAndBytes) {
  EXPECT_EQ(hip_lessons::fixed(3.14159, 2), "3.14");
  EXPECT_EQ(hip_lessons::format_bytes(512), "512 B");
  EXPECT_EQ(hip_lessons::format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(hip_lessons::format_bytes(64.0 * 1024 * 1024 * 1024), "64.0 GiB");
}

TEST(TableTest, AlignsColumnsAndRightAlignsNumbers) {
  Table t({"variant", "TB/s"});
  t.add_row({"float4", "4.36"});
  t.add_row({"one element per thread", "3.4"});
  std::ostringstream out;
  t.print(out);
  const std::string text = out.str();
  EXPECT_NE(text.find("  variant                 TB/s\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  float4                  4.36\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  one element per thread   3.4\n"), std::string::npos) << text;
}

TEST(TableTest, RejectsRowOfWrongWidth) {
  Table t({"a", "b"});
  EXPECT_THROW(t.add_row({"1"}), std::invalid_argument);
}

TEST(ReportTest, ChecksCountFailuresAndPrintRatios) {
  std::ostringstream out;
  Report r("test", out);
  EXPECT_TRUE(r.check("good", true));
  EXPECT_FALSE(r.check("bad", false, "because"));
  EXPECT_TRUE(r.check_ratio_at_least("fast", 1.04, 0.90));
  EXPECT_FALSE(r.check_ratio_at_least("slow", 0.50, 0.90));
  EXPECT_TRUE(r.check_ratio_at_most("small", 0.02, 0.25));
  EXPECT_FALSE(r.check_ratio_at_most("large", 0.30, 0.25));
  EXPECT_EQ(r.failures(), 3);
  const std::string text = out.str();
  EXPECT_NE(text.find("speed   ok    fast = 1.04 (needs >= 0.90)"), std::string::npos) << text;
  EXPECT_NE(text.find("speed   FAIL  slow = 0.50 (needs >= 0.90)"), std::string::npos) << text;
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
  Table t({"variant", "TB/s"});
  t.add_row({"float4", "4.36"});
  r.table("variants", "Variants", t);
  r.check_ratio_at_least("ratio", 1.5, 1.0);
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
