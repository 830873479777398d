#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "hip_lessons/cli.hpp"
#include "hip_lessons/errors.hpp"

using hip_lessons::LessonCli;
using hip_lessons::parse_count;
using hip_lessons::UsageError;

namespace {
int parse(LessonCli& cli, std::vector<std::string> args) {
  args.insert(args.begin(), "lesson");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  return cli.parse(static_cast<int>(argv.size()), argv.data());
}

std::string usage_message(const std::string& text, std::int64_t min, std::int64_t max) {
  try {
    parse_count("--size", text, min, max);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(PerMode, CheckRunsTheDeclaredSizesTheOthersTheTimedOne) {
  hip_lessons::CommonOptions options;
  options.mode = hip_lessons::Mode::kCheck;
  EXPECT_EQ(hip_lessons::per_mode<int>(options, 4096, {1, 255, 257}),
            (std::vector<int>{1, 255, 257}));
  options.mode = hip_lessons::Mode::kTour;
  EXPECT_EQ(hip_lessons::per_mode<int>(options, 4096, {1, 255, 257}), std::vector<int>{4096});
  options.mode = hip_lessons::Mode::kSpeedCheck;
  EXPECT_EQ(hip_lessons::per_mode<int>(options, 4096, {1, 255, 257}), std::vector<int>{4096});
}

TEST(ParseCount, AcceptsPlainSuffixAndPowerForms) {
  EXPECT_EQ(parse_count("--size", "4096", 1, 1 << 30), 4096);
  EXPECT_EQ(parse_count("--size", "64K", 1, 1 << 30), 65536);
  EXPECT_EQ(parse_count("--size", "16M", 1, 1 << 30), 16 << 20);
  EXPECT_EQ(parse_count("--size", "1G", 1, std::int64_t{1} << 40), std::int64_t{1} << 30);
  EXPECT_EQ(parse_count("--size", "2^28", 1, std::int64_t{1} << 40), 1 << 28);
}

TEST(ParseCount, RejectsBadTextWithValueAndRangeInMessage) {
  for (const char* bad : {"0", "-5", "abc", "12abc", "2^", "2^x", "1.5", "", "4X",
                          "99999999999999999999999", "2^62", "2^-1"}) {
    const std::string message = usage_message(bad, 1, std::int64_t{1} << 36);
    EXPECT_FALSE(message.empty()) << "accepted '" << bad << "'";
    EXPECT_NE(message.find(std::string("'") + bad + "'"), std::string::npos) << message;
    EXPECT_NE(message.find("1..2^36"), std::string::npos) << message;
  }
}

TEST(LessonCliTest, DefaultsAndCommonFlags) {
  LessonCli cli("lesson", "test", 1024);
  ASSERT_EQ(parse(cli, {"--size", "2^20", "--repeat", "5", "--seed", "7", "--device", "1"}), -1);
  EXPECT_EQ(cli.options().size, 1 << 20);
  EXPECT_EQ(cli.options().repeat, 5);
  EXPECT_EQ(cli.options().seed, 7u);
  EXPECT_EQ(cli.options().device, 1);
}

TEST(LessonCliTest, DrawsASeedWhenNoneIsGiven) {
  LessonCli a("lesson", "test", 1024);
  LessonCli b("lesson", "test", 1024);
  ASSERT_EQ(parse(a, {}), -1);
  ASSERT_EQ(parse(b, {}), -1);
  EXPECT_NE(a.options().seed, b.options().seed);
  // A drawn seed must be accepted back by --seed, or runs could not be reproduced.
  LessonCli again("lesson", "test", 1024);
  ASSERT_EQ(parse(again, {"--seed", std::to_string(a.options().seed)}), -1);
  EXPECT_EQ(again.options().seed, a.options().seed);
}

TEST(LessonCliTest, BadInputExitsTwo) {
  const std::vector<std::vector<std::string>> cases = {{"--size", "0"},
                                                       {"--size", "-1"},
                                                       {"--size"},
                                                       {"--bogus"},
                                                       {"extra"},
                                                       {"--repeat", "0"},
                                                       {"--seed", "-3"},
                                                       {"--device", "-1"},
                                                       {"--check", "--speed-check"},
                                                       {"--repeat", ""},
                                                       {"--json", "/nonexistent-directory/x.json"}};
  for (const auto& args : cases) {
    LessonCli cli("lesson", "test", 1024);
    testing::internal::CaptureStderr();
    const int code = parse(cli, args);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(code, 2) << args[0];
    EXPECT_EQ(err.rfind("error: ", 0), 0u) << err;
  }
}

TEST(LessonCliTest, HelpExitsZero) {
  LessonCli cli("lesson", "test", 1024);
  testing::internal::CaptureStdout();
  EXPECT_EQ(parse(cli, {"--help"}), 0);
  EXPECT_NE(testing::internal::GetCapturedStdout().find("--size"), std::string::npos);
}

TEST(LessonCliTest, LessonOptionsAreValidated) {
  std::int64_t streams = 8;
  std::string variant = "float4";
  bool verbose = false;
  LessonCli cli("lesson", "test", 1024);
  cli.add_count("--streams", streams, "streams", 1, 1024);
  const auto& ratio = cli.add_speed_check(hip_lessons::at_least("a / b", "--min-ratio", 0.9));
  cli.add_choice("--variant", variant, "variant", {"scalar", "float4"});
  cli.add_flag("--verbose", verbose, "more output");
  ASSERT_EQ(
      parse(cli, {"--streams", "32", "--min-ratio", "1.5", "--variant", "scalar", "--verbose"}),
      -1);
  EXPECT_EQ(streams, 32);
  EXPECT_DOUBLE_EQ(ratio.threshold, 1.5);
  EXPECT_EQ(variant, "scalar");
  EXPECT_TRUE(verbose);

  for (const std::vector<std::string>& bad : {std::vector<std::string>{"--streams", "0"},
                                              {"--streams", "1025"},
                                              {"--min-ratio", "x"},
                                              {"--min-ratio", "-1"},
                                              {"--min-ratio", "nan"},
                                              {"--variant", "float8"}}) {
    std::int64_t s = 8;
    std::string v = "float4";
    LessonCli c("lesson", "test", 1024);
    c.add_count("--streams", s, "streams", 1, 1024);
    c.add_speed_check(hip_lessons::at_least("a / b", "--min-ratio", 0.9));
    c.add_choice("--variant", v, "variant", {"scalar", "float4"});
    testing::internal::CaptureStderr();
    EXPECT_EQ(parse(c, bad), 2) << bad[0] << " " << bad[1];
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find(bad[1]), std::string::npos) << err;
  }
}

TEST(LessonCliTest, TextOptionsAreValidatedAtParseTime) {
  auto validate = [](const std::string& text) {
    if (text.rfind("0x", 0) != 0) throw UsageError("--mask '" + text + "' is not a hex mask");
  };
  std::string mask;
  LessonCli good("lesson", "test", 1024);
  good.add_text("--mask", mask, "mask", validate);
  ASSERT_EQ(parse(good, {"--mask", "0xff"}), -1);
  EXPECT_EQ(mask, "0xff");

  std::string other;
  LessonCli bad("lesson", "test", 1024);
  bad.add_text("--mask", other, "mask", validate);
  testing::internal::CaptureStderr();
  EXPECT_EQ(parse(bad, {"--mask", "zz"}), 2);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("'zz'"), std::string::npos);
}

namespace {
std::string parse_error(LessonCli& cli, std::vector<std::string> args) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(parse(cli, std::move(args)), 2);
  return testing::internal::GetCapturedStderr();
}
}  // namespace

TEST(LessonCliTest, NamesAnUnknownOptionFirstAndSuggestsTheNearest) {
  LessonCli cli("lesson", "test", 1024);
  EXPECT_EQ(parse_error(cli, {"--sise", "1024"})
                .rfind("error: unknown option '--sise'; did you mean '--size'?\n", 0),
            0u);
  LessonCli far("lesson", "test", 1024);
  EXPECT_EQ(
      parse_error(far, {"--no-such-flag"}).rfind("error: unknown option '--no-such-flag'\n", 0),
      0u);
  LessonCli stray("lesson", "test", 1024);
  EXPECT_EQ(parse_error(stray, {"surplus"}).rfind("error: unexpected argument 'surplus'", 0), 0u);
}

TEST(LessonCliTest, AMissingValueNamesItsOption) {
  LessonCli alone("lesson", "test", 1024);
  EXPECT_EQ(parse_error(alone, {"--size"}).rfind("error: --size needs a value\n", 0), 0u);
  LessonCli last("lesson", "test", 1024);
  EXPECT_EQ(
      parse_error(last, {"--repeat", "5", "--json"}).rfind("error: --json needs a value\n", 0), 0u);
}

TEST(LessonCliTest, OnlySizeLikeOptionsListTheForms) {
  LessonCli cli("lesson", "test", 1024);
  EXPECT_NE(parse_error(cli, {"--size", "0"}).find("(forms: 4096"), std::string::npos);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--repeat", "0"}, {"--device", "x"}, {"--block", "0"}}) {
    LessonCli other("lesson", "test", 1024);
    std::int64_t block = 256;
    other.add_block_size(block);
    const std::string message = parse_error(other, args);
    EXPECT_EQ(message.find("forms:"), std::string::npos) << message;
  }
  LessonCli block_cli("lesson", "test", 1024);
  std::int64_t block = 256;
  block_cli.add_block_size(block);
  EXPECT_NE(parse_error(block_cli, {"--block", "4096"}).find("in 1..1024"), std::string::npos);
}

TEST(LessonCliTest, HelpShowsTypesAndDefaultsAsWritten) {
  LessonCli cli("lesson", "test", 1024);
  cli.add_speed_check(hip_lessons::at_most("a / b", "--max-fraction", 0.75));
  testing::internal::CaptureStdout();
  EXPECT_EQ(parse(cli, {"--help"}), 0);
  const std::string help = testing::internal::GetCapturedStdout();
  EXPECT_NE(help.find("--max-fraction X=0.75"), std::string::npos) << help;
  EXPECT_NE(help.find("--size N=1024"), std::string::npos) << help;
  EXPECT_NE(help.find("--json FILE"), std::string::npos) << help;
  EXPECT_EQ(help.find("0.750000"), std::string::npos) << help;
}

namespace {
std::string help_of(LessonCli& cli) {
  testing::internal::CaptureStdout();
  parse(cli, {"--help"});
  return testing::internal::GetCapturedStdout();
}

// The forms a size message offers: the list after "forms: ", up to the closing parenthesis.
std::vector<std::string> offered_forms(const std::string& text) {
  std::vector<std::string> forms;
  const std::size_t begin = text.find("forms: ");
  if (begin == std::string::npos) return forms;
  const std::string list = text.substr(begin + 7, text.find(')', begin) - begin - 7);
  for (std::size_t at = 0; at <= list.size();) {
    const std::size_t comma = std::min(list.find(", ", at), list.size());
    forms.push_back(list.substr(at, comma - at));
    at = comma + 2;
  }
  return forms;
}
}  // namespace

TEST(LessonCliTest, HelpGivesTheSizeRangeOnce) {
  LessonCli cli("lesson", "test", 1024);
  const std::string help = help_of(cli);
  EXPECT_NE(help.find("Problem size in elements (1..2^36; forms: 4096, 64K, 16M, 1G, 2^28)"),
            std::string::npos)
      << help;
  EXPECT_EQ(help.find("up to 1.."), std::string::npos) << help;
}

TEST(LessonCliTest, ALessonSaysWhatItsSizeCounts) {
  LessonCli cli("lesson", "test", 200, 100000);
  cli.describe_size("The victim's launches per setting");
  const std::string help = help_of(cli);
  EXPECT_NE(help.find("The victim's launches per setting (1..100000"), std::string::npos) << help;
  EXPECT_EQ(help.find("Problem size in elements"), std::string::npos) << help;
}

TEST(LessonCliTest, SizeFormsOfferedStayWithinTheLessonsCap) {
  for (const std::int64_t cap : {std::int64_t{100000}, std::int64_t{1} << 30, std::int64_t{1000}}) {
    LessonCli cli("lesson", "test", 200, cap);
    const std::string help = help_of(cli);
    LessonCli again("lesson", "test", 200, cap);
    const std::string message = parse_error(again, {"--size", "0"});
    for (const std::string& text : {help, message}) {
      const std::vector<std::string> forms = offered_forms(text);
      EXPECT_FALSE(forms.empty()) << text;
      for (const std::string& form : forms) {
        EXPECT_NO_THROW(parse_count("--size", form, 1, cap)) << form << " in: " << text;
      }
    }
  }
}

TEST(LessonCliTest, HelpFitsOneHundredColumns) {
  LessonCli cli("lesson_with_a_long_name",
                "Lesson 99: a description longer than one line of the terminal, as some lessons "
                "have, which the help must break at a space rather than run past column 100",
                1024);
  std::string word = "auto";
  cli.add_choice("--variable", word, "What a run is about (other platform: 77)",
                 {"auto", "GPU_MAX_HW_QUEUES", "CUDA_DEVICE_MAX_CONNECTIONS",
                  "HSA_ENABLE_INTERRUPT", "HSA_ENABLE_SDMA", "ROC_AQL_QUEUE_SIZE"});
  cli.add_speed_check(
      hip_lessons::at_most("CUDA_DEVICE_MAX_CONNECTIONS default: breadth-first / ideal chain time",
                           "--max-breadth-first-ratio-with-a-long-flag-name", 1.5));
  const std::string help = help_of(cli);
  std::size_t lines = 0;
  for (std::size_t at = 0; at < help.size(); ++lines) {
    const std::size_t end = std::min(help.find('\n', at), help.size());
    EXPECT_LE(end - at, 100u) << help.substr(at, end - at);
    at = end + 1;
  }
  EXPECT_GT(lines, 12u) << help;
  EXPECT_NE(help.find("ROC_AQL_QUEUE_SIZE"), std::string::npos) << help;
}

TEST(LessonCliTest, ALessonWithNothingToRepeatRefusesRepeat) {
  LessonCli cli("lesson", "test", 1024);
  cli.refuse_repeat("each setting runs --size launches once");
  testing::internal::CaptureStderr();
  EXPECT_EQ(parse(cli, {"--repeat", "5"}), 2);
  const std::string error = testing::internal::GetCapturedStderr();
  EXPECT_NE(error.find("--repeat: each setting runs --size launches once"), std::string::npos)
      << error;
  LessonCli plain("lesson", "test", 1024);
  plain.refuse_repeat("nothing to repeat");
  EXPECT_EQ(parse(plain, {"--size", "8"}), -1);  // not given: fine
  testing::internal::CaptureStdout();
  EXPECT_EQ(parse(plain, {"--help"}), 0);
  const std::string help = testing::internal::GetCapturedStdout();
  EXPECT_EQ(help.find("--repeat"), std::string::npos) << help;
}

TEST(LessonCliTest, AnOptionGivenTwiceIsNamedAsSuchNotAsMissing) {
  LessonCli spaced("lesson", "test", 1 << 20);
  EXPECT_EQ(parse_error(spaced, {"--size", "4096", "--size", "8192"}),
            "error: --size was given twice ('4096', then '8192'); give it once\n");
  LessonCli joined("lesson", "test", 1 << 20);
  EXPECT_EQ(parse_error(joined, {"--size=4096", "--size=8192", "--repeat", "3"})
                .rfind("error: --size was given twice", 0),
            0u);
  LessonCli thrice("lesson", "test", 1 << 20);
  EXPECT_EQ(parse_error(thrice, {"--repeat", "1", "--repeat", "2", "--repeat", "3"}),
            "error: --repeat was given 3 times ('1', '2', '3'); give it once\n");
}

TEST(LessonCliTest, AnUnwritableJsonPathIsRefusedBeforeTheRun) {
  // /proc accepts no new file, root or not: the report could never be written there.
  LessonCli cli("lesson", "test", 1024);
  const std::string err = parse_error(cli, {"--json", "/proc/version"});
  EXPECT_EQ(err.rfind("error: --json '/proc/version' cannot be written", 0), 0u) << err;
}

TEST(LessonCliTest, OneFileForTheTraceAndTheJsonIsRefused) {
  const std::string file = testing::TempDir() + "hl_cli_same_output.json";
  const std::string dot_path = testing::TempDir() + "./hl_cli_same_output.json";
  for (const auto& [trace, json] : {std::pair{file, file}, std::pair{file, dot_path}}) {
    LessonCli cli("lesson", "test", 1024);
    cli.add_trace_output();
    const std::string err = parse_error(cli, {"--trace", trace, "--json", json});
    EXPECT_NE(err.find("--trace"), std::string::npos) << err;
    EXPECT_NE(err.find("--json"), std::string::npos) << err;
    EXPECT_NE(err.find("same file"), std::string::npos) << err;
  }
  LessonCli apart("lesson", "test", 1024);
  apart.add_trace_output();
  EXPECT_EQ(parse(apart, {"--trace", file + ".trace", "--json", file}), -1);
}
