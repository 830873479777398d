#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <string>
#include <vector>

#include "hip_lessons/errors.hpp"
#include "hip_lessons/lesson.hpp"

using namespace hip_lessons;

namespace {
int run(std::vector<std::string> args, const std::function<void(Report&)>& body) {
  args.insert(args.begin(), "lesson");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  LessonCli cli("lesson", "test", 1024);
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int code = run_lesson(cli, static_cast<int>(argv.size()), argv.data(),
                              [&](Lesson& lesson) { body(lesson.report); });
  testing::internal::GetCapturedStdout();
  testing::internal::GetCapturedStderr();
  return code;
}
}  // namespace

TEST(RunLesson, MapsOutcomesToExitCodes) {
  EXPECT_EQ(run({}, [](Report& r) { r.step(StepResult("1. A step").check("fine", true)); }),
            kExitPass);
  EXPECT_EQ(run({}, [](Report& r) { r.step(StepResult("1. A step").check("broken", false)); }),
            kExitFail);
  EXPECT_EQ(run({}, [](Report&) { throw UsageError("bad"); }), kExitUsage);
  EXPECT_EQ(run({}, [](Report&) { throw SkipError("no GPU"); }), kExitSkip);
  EXPECT_EQ(run({},
                [](Report&) {
                  throw HipError("hipMalloc", "f.hip", 3, "hipErrorOutOfMemory", "out of memory");
                }),
            kExitFail);
}

TEST(RunLesson, BadArgumentsNeverRunTheBody) {
  bool ran = false;
  EXPECT_EQ(run({"--size", "abc"}, [&](Report&) { ran = true; }), kExitUsage);
  EXPECT_EQ(run({"--json", "/nonexistent-directory/x.json"}, [&](Report&) { ran = true; }),
            kExitUsage);
  EXPECT_FALSE(ran);
}

TEST(RunLesson, WritesJsonWithTheExitCode) {
  const std::string path = ::testing::TempDir() + "run_lesson.json";
  EXPECT_EQ(run({"--json", path},
                [](Report& r) { r.step(StepResult("1. A step").check("broken", false)); }),
            kExitFail);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"exit_code\": 1"), std::string::npos) << text;
  std::remove(path.c_str());
}

TEST(RunLesson, BadInputFoundLateWritesNoJson) {
  const std::string path = ::testing::TempDir() + "run_lesson_usage.json";
  std::remove(path.c_str());
  EXPECT_EQ(run({"--json", path}, [](Report&) { throw UsageError("too large"); }), kExitUsage);
  EXPECT_FALSE(std::ifstream(path).good());
}

TEST(RunLesson, WarnsAboutAMalformedEnvironmentUnlessTheLessonDiagnosesIt) {
  ::setenv("ROC_GLOBAL_CU_MASK", "zz", 1);
  auto output_of = [](EnvironmentWarnings warnings) {
    std::string program = "lesson";
    char* argv[] = {program.data()};
    LessonCli cli("lesson", "test", 1024);
    testing::internal::CaptureStdout();
    const int code = run_lesson(
        cli, 1, argv, [](Lesson& l) { l.report.step(StepResult("1. A step").check("fine", true)); },
        warnings);
    const std::string out = testing::internal::GetCapturedStdout();
    EXPECT_EQ(code, kExitPass);
    return out;
  };
  const std::string warned = output_of(EnvironmentWarnings::kPrint);
  const std::string quiet = output_of(EnvironmentWarnings::kLeaveToLesson);
  ::unsetenv("ROC_GLOBAL_CU_MASK");
  EXPECT_NE(warned.find("warning: ROC_GLOBAL_CU_MASK='zz': 'zz' is not a hex mask"),
            std::string::npos)
      << warned;
  EXPECT_EQ(quiet.find("ROC_GLOBAL_CU_MASK"), std::string::npos) << quiet;
}
