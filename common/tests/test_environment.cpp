#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "hip_lessons/environment.hpp"
#include "hip_lessons/errors.hpp"

using hip_lessons::check_environment_value;
using hip_lessons::global_cu_mask_ends_hip;
using hip_lessons::parse_id_list;
using hip_lessons::Platform;

namespace hip_lessons {
// How a version prints in a failed expectation.
std::ostream& operator<<(std::ostream& out, RuntimeVersion version) {
  return out << version.major << "." << version.minor;
}
bool operator==(RuntimeVersion a, RuntimeVersion b) { return !(a < b) && !(b < a); }
}  // namespace hip_lessons

namespace {
// Sets one variable for the lifetime of the object and puts the old value back afterwards.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    const char* old = ::getenv(name);
    had_value_ = old != nullptr;
    if (had_value_) old_value_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedVariable() {
    if (had_value_) {
      ::setenv(name_.c_str(), old_value_.c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  std::string name_;
  std::string old_value_;
  bool had_value_ = false;
};

// The warnings about \p name only (the machine running the tests may set others).
std::vector<std::string> warnings_about(
    const std::string& name, Platform platform,
    std::optional<hip_lessons::RuntimeVersion> runtime = std::nullopt) {
  std::vector<std::string> about;
  for (const std::string& w : hip_lessons::environment_warnings(platform, runtime)) {
    if (w.rfind(name + "=", 0) == 0) about.push_back(w);
  }
  return about;
}
}  // namespace

// HIP's parser throws on a GPU of 4 to 31 CUs for any value it reads (clr rocm-6.2.2
// rocdevice.cpp:3410-3413): compPhysicalCUs = CUs / 4 < 8, so its chunk length is negative.
TEST(Environment, GlobalCuMaskEndsHipUnder32Cus) {
  EXPECT_TRUE(global_cu_mask_ends_hip("0xff", 16));  // 4 digits read: 4 - 8 < 0
  EXPECT_TRUE(global_cu_mask_ends_hip("f", 28));     // no 0x: the same
  EXPECT_TRUE(global_cu_mask_ends_hip("0x1", 4));
  EXPECT_FALSE(global_cu_mask_ends_hip("0xff", 32));                    // 8 digits: one whole chunk
  EXPECT_FALSE(global_cu_mask_ends_hip("0xffffffffffffffffffff", 60));  // long: cut, no throw
  EXPECT_FALSE(global_cu_mask_ends_hip("0xff", 2));  // 0 digits: the loop never runs
  EXPECT_FALSE(global_cu_mask_ends_hip("0x", 16));   // nothing left after 0x: not read
  EXPECT_FALSE(global_cu_mask_ends_hip("", 16));
}

TEST(Environment, ValidValuesPass) {
  EXPECT_FALSE(check_environment_value("HIP_PLATFORM", "amd"));
  EXPECT_FALSE(check_environment_value("HIP_PATH", "/"));
  EXPECT_FALSE(check_environment_value("HIP_VISIBLE_DEVICES", "0,2"));
  EXPECT_FALSE(check_environment_value("ROCR_VISIBLE_DEVICES", "0,GPU-4b2c1a9f8d3e"));
  EXPECT_FALSE(check_environment_value("GPU_MAX_HW_QUEUES", "8"));
  // HIP sets no upper bound on the queue count.
  EXPECT_FALSE(check_environment_value("GPU_MAX_HW_QUEUES", "5000"));
  EXPECT_FALSE(check_environment_value("HSA_ENABLE_SDMA", "0"));
  EXPECT_FALSE(check_environment_value("ROC_GLOBAL_CU_MASK", "0xff"));
  // HIP strips an optional 0x: plain hex is a mask too.
  EXPECT_FALSE(check_environment_value("ROC_GLOBAL_CU_MASK", "ff"));
  EXPECT_FALSE(check_environment_value("HSA_CU_MASK", "0,2-4,7:0-15,32-47; 1,8-9:0x337F"));
  EXPECT_FALSE(check_environment_value("CUDA_DEVICE_MAX_CONNECTIONS", "32"));
  EXPECT_FALSE(check_environment_value("SOMETHING_ELSE", "whatever"));
}

TEST(Environment, MalformedValuesAreExplained) {
  struct Case {
    const char* name;
    const char* value;
    const char* says;
  };
  const Case cases[] = {
      {"HIP_PLATFORM", "hip", "not a platform"},
      {"HIP_PATH", "/nonexistent-hip", "not a directory"},
      {"ROCR_VISIBLE_DEVICES", "", "empty"},
      {"HIP_VISIBLE_DEVICES", "0,x", "'x'"},
      {"GPU_MAX_HW_QUEUES", "abc", "'abc' is not an integer"},
      {"GPU_MAX_HW_QUEUES", "0", "not a positive integer"},
      {"GPU_MAX_HW_QUEUES", "1000000000000", "overflows atoi()"},
      {"HSA_ENABLE_INTERRUPT", "yes", "not 0 or 1"},
      {"HSA_ENABLE_SDMA", "2", "treats it as unset"},
      {"ROC_GLOBAL_CU_MASK", "zz", "'zz' is not a hex mask"},
      {"ROC_GLOBAL_CU_MASK", "0x0", "no CU"},
      {"ROC_GLOBAL_CU_MASK", "000", "no CU"},
      {"HSA_CU_MASK", "0-15", "exactly one ':'"},
      {"HSA_CU_MASK", "0:15-3", "reversed"},
      {"CUDA_DEVICE_MAX_CONNECTIONS", "33", "1..32"},
  };
  for (const Case& c : cases) {
    const auto problem = check_environment_value(c.name, c.value);
    ASSERT_TRUE(problem.has_value()) << c.name << "=" << c.value;
    EXPECT_NE(problem->find(c.says), std::string::npos) << *problem;
  }
}

TEST(Environment, QueueCountWarningsSayWhatHipReads) {
  // HIP reads GPU_MAX_HW_QUEUES with atoi() (clr rocclr/utils/flags.cpp).
  const auto word = check_environment_value("GPU_MAX_HW_QUEUES", "abc", Platform::kAmd);
  ASSERT_TRUE(word.has_value());
  EXPECT_NE(word->find("atoi() as 0"), std::string::npos) << *word;
  EXPECT_NE(word->find("one hardware queue per priority level"), std::string::npos) << *word;
  const auto zero = check_environment_value("GPU_MAX_HW_QUEUES", "0", Platform::kAmd);
  ASSERT_TRUE(zero.has_value());
  EXPECT_NE(zero->find("atoi() as 0"), std::string::npos) << *zero;
  const auto trailing = check_environment_value("GPU_MAX_HW_QUEUES", "8abc", Platform::kAmd);
  ASSERT_TRUE(trailing.has_value());
  EXPECT_NE(trailing->find("'8abc' is not an integer; HIP reads it with atoi() as 8"),
            std::string::npos)
      << *trailing;
  const auto negative = check_environment_value("GPU_MAX_HW_QUEUES", "-1", Platform::kAmd);
  ASSERT_TRUE(negative.has_value());
  EXPECT_NE(negative->find("4294967295"), std::string::npos) << *negative;
}

TEST(Environment, QueueCountZeroDependsOnTheHipRelease) {
  // ROCclr acquireQueue: rocm-5.4.3 asks an empty pool (no queue), rocm-5.5.0 creates one.
  const auto old_hip = check_environment_value("GPU_MAX_HW_QUEUES", "0", Platform::kAmd, {{5, 4}});
  ASSERT_TRUE(old_hip.has_value());
  EXPECT_NE(old_hip->find("HIP 5.4 then gives a stream no hardware queue"), std::string::npos)
      << *old_hip;
  const auto new_hip = check_environment_value("GPU_MAX_HW_QUEUES", "0", Platform::kAmd, {{5, 5}});
  ASSERT_TRUE(new_hip.has_value());
  EXPECT_NE(new_hip->find("HIP 5.5 then shares one hardware queue"), std::string::npos) << *new_hip;
}

TEST(Environment, AnEmptyHipDeviceListHidesEveryGpuFromHip55On) {
  // ROCclr 38aa1bd4 (first in rocm-5.5.0): an empty value becomes " ", which is no index.
  for (const char* name : {"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"}) {
    EXPECT_FALSE(check_environment_value(name, "", Platform::kAmd, {{5, 2}})) << name;
    EXPECT_FALSE(check_environment_value(name, "", Platform::kAmd, {{5, 4}})) << name;
    for (const hip_lessons::RuntimeVersion hip :
         {hip_lessons::RuntimeVersion{5, 5}, {6, 2}, {10, 0}}) {
      const auto problem = check_environment_value(name, "", Platform::kAmd, hip);
      ASSERT_TRUE(problem.has_value()) << name << " on HIP " << hip.major << "." << hip.minor;
      EXPECT_NE(problem->find("hides every GPU"), std::string::npos) << *problem;
    }
    // Without the version the warning names both rules.
    const auto unknown = check_environment_value(name, "", Platform::kAmd);
    ASSERT_TRUE(unknown.has_value()) << name;
    EXPECT_NE(unknown->find("HIP 5.5 and later"), std::string::npos) << *unknown;
    EXPECT_NE(unknown->find("HIP 5.4 and earlier ignore an empty value"), std::string::npos);
  }
  // An empty HIP_VISIBLE_DEVICES wins over CUDA_VISIBLE_DEVICES; the empty CUDA one only
  // matters when HIP_VISIBLE_DEVICES is unset.
  EXPECT_NE(check_environment_value("HIP_VISIBLE_DEVICES", "", Platform::kAmd, {{6, 2}})
                ->find("even when CUDA_VISIBLE_DEVICES lists some"),
            std::string::npos);
  EXPECT_NE(check_environment_value("CUDA_VISIBLE_DEVICES", "", Platform::kAmd, {{6, 2}})
                ->find("when HIP_VISIBLE_DEVICES is unset"),
            std::string::npos);
  // CUDA hides every GPU on an empty list in every release; ROCr exposes none.
  const auto on_nvidia = check_environment_value("CUDA_VISIBLE_DEVICES", "", Platform::kNvidia);
  ASSERT_TRUE(on_nvidia.has_value());
  EXPECT_NE(on_nvidia->find("hides every GPU from CUDA"), std::string::npos) << *on_nvidia;
  EXPECT_TRUE(check_environment_value("ROCR_VISIBLE_DEVICES", "", Platform::kAmd, {{5, 2}}));
  // HIP on NVIDIA reads no HIP variable: an empty one is not a device-list problem there.
  EXPECT_FALSE(check_environment_value("HIP_VISIBLE_DEVICES", "", Platform::kNvidia));
}

TEST(Environment, HsaCuMaskWarnsOnExactlyWhatRocrRejects) {
  // ROCm/ROCR-Runtime src/core/util/flag.cpp, Flag::parse_masks (rocm-4.5.0 .. rocm-6.2.4).
  struct Case {
    const char* value;
    const char* says;  // nullptr: ROCr accepts it
  };
  const Case cases[] = {
      {"0:0x0", "set 1 '0:0X0' has a mask that enables no CU (0x0)"},
      {"0:0x", "enables no CU"},
      {"0:3,3,1-4", "repeats CU 3"},
      {"0:0-7,4-9", "repeats CU 4"},
      {"0,0:1", "repeats GPU 0"},
      {"0:0-3;0:4-7", "set 2 '0:4-7' names GPU 0, which an earlier set has"},
      {"0-2:0-3;1:4-7", "names GPU 1"},
      {"0:1;2:x", "set 2 '2:X' 'X' is not a decimal CU ID"},
      // The example of ROCr's own comment names GPUs 3, 4 and 7 in both sets: rejected.
      {"0,2-4,7:0-15,32-47; 3-9:0x337F", "set 2 '3-9:0X337F' names GPU 3"},
      {"0:1:2", "exactly one ':'"},
      {"0:1;;1:2", "set 2 '' is not GPUs:CUs"},
      {"0:1--3", "more than one '-'"},
      {"0:1,,2", "empty CU ID"},
      {":1", "has no GPU ID"},
      {"0:1x5", "does not start with 0x"},
      {"0:0xfg", "not a hex digit"},
      // Accepted by ROCr: IDs above the CU count are dropped silently, not an error.
      {"0:0-200", nullptr},
      {"0:1000000", nullptr},
      {" 0 : 1 - 3 ; 1 : 0XFF ", nullptr},
      {"0:0xff;", nullptr},
      {"0:-3", nullptr},  // ROCr reads the empty start as 0: the range 0-3
      {"0:+3", nullptr},
      {"0:0x00000000ff", nullptr},
      {"", nullptr},
  };
  for (const Case& c : cases) {
    const auto problem = check_environment_value("HSA_CU_MASK", c.value, Platform::kAmd);
    if (c.says == nullptr) {
      EXPECT_FALSE(problem.has_value()) << "'" << c.value << "': " << problem.value_or("");
      continue;
    }
    ASSERT_TRUE(problem.has_value()) << "'" << c.value << "' must be reported";
    EXPECT_NE(problem->find(c.says), std::string::npos) << *problem;
    EXPECT_NE(problem->find("ROCr silently ignores that set and every later one"),
              std::string::npos)
        << *problem;
  }
}

TEST(Environment, RuntimeVersionsDecodeAndOrder) {
  using hip_lessons::runtime_version_from;
  using hip_lessons::RuntimeVersion;
  // HIP 5.2.3 reports 50221153 (hip_version.h: 5 * 10^7 + 2 * 10^5 + 21153); CUDA 13.0 13000.
  EXPECT_EQ(runtime_version_from(50221153, Platform::kAmd), (RuntimeVersion{5, 2}));
  EXPECT_EQ(runtime_version_from(71100000, Platform::kAmd), (RuntimeVersion{7, 11}));
  EXPECT_EQ(runtime_version_from(100200000, Platform::kAmd), (RuntimeVersion{10, 2}));
  EXPECT_EQ(runtime_version_from(13000, Platform::kNvidia), (RuntimeVersion{13, 0}));
  EXPECT_EQ(runtime_version_from(12040, Platform::kNvidia), (RuntimeVersion{12, 4}));
  // HIP's build number travels with the version (a few rules split a release by builds).
  EXPECT_EQ(runtime_version_from(50221153, Platform::kAmd).build, 21153);
  EXPECT_EQ(runtime_version_from(40421432, Platform::kAmd).build, 21432);
  EXPECT_FALSE(runtime_version_from(13000, Platform::kNvidia).build);
  EXPECT_TRUE((RuntimeVersion{7, 2}) < (RuntimeVersion{7, 11}));
  EXPECT_TRUE((RuntimeVersion{7, 14}) < (RuntimeVersion{10, 0}));
  EXPECT_FALSE((RuntimeVersion{5, 5}) < (RuntimeVersion{5, 5}));
  EXPECT_EQ(hip_lessons::runtime_name({5, 2}, Platform::kAmd), "HIP 5.2");
  EXPECT_EQ(hip_lessons::runtime_name({13, 0}, Platform::kNvidia), "CUDA 13.0");
}

TEST(EnvironmentWarnings, NameTheMalformedSettingAndWhoReadsIt) {
  const ScopedVariable queues("GPU_MAX_HW_QUEUES", "abc");
  const auto amd = warnings_about("GPU_MAX_HW_QUEUES", Platform::kAmd);
  ASSERT_EQ(amd.size(), 1u);
  EXPECT_NE(amd[0].find("GPU_MAX_HW_QUEUES='abc': 'abc' is not an integer; HIP reads it"),
            std::string::npos)
      << amd[0];
  EXPECT_EQ(amd[0].find("ignores"), std::string::npos) << amd[0];
  const auto nvidia = warnings_about("GPU_MAX_HW_QUEUES", Platform::kNvidia);
  ASSERT_EQ(nvidia.size(), 1u);
  EXPECT_NE(nvidia[0].find("not an integer"), std::string::npos) << nvidia[0];
  EXPECT_NE(nvidia[0].find("this NVIDIA build ignores it (CUDA_DEVICE_MAX_CONNECTIONS"),
            std::string::npos)
      << nvidia[0];
}

TEST(EnvironmentWarnings, AValidSettingOfTheOtherPlatformIsReportedAsIgnored) {
  const ScopedVariable devices("HIP_VISIBLE_DEVICES", "99");
  EXPECT_TRUE(warnings_about("HIP_VISIBLE_DEVICES", Platform::kAmd).empty());
  const auto nvidia = warnings_about("HIP_VISIBLE_DEVICES", Platform::kNvidia);
  ASSERT_EQ(nvidia.size(), 1u);
  EXPECT_NE(nvidia[0].find("HIP_VISIBLE_DEVICES='99': only the AMD runtime reads it"),
            std::string::npos)
      << nvidia[0];
  EXPECT_NE(nvidia[0].find("CUDA_VISIBLE_DEVICES does that here"), std::string::npos);
}

TEST(EnvironmentWarnings, AnEmptyDeviceListIsJudgedForTheRuntimeGiven) {
  const ScopedVariable cuda("CUDA_VISIBLE_DEVICES", "");
  EXPECT_TRUE(warnings_about("CUDA_VISIBLE_DEVICES", Platform::kAmd, {{5, 2}}).empty());
  const auto hip62 = warnings_about("CUDA_VISIBLE_DEVICES", Platform::kAmd, {{6, 2}});
  ASSERT_EQ(hip62.size(), 1u);
  EXPECT_NE(hip62[0].find("CUDA_VISIBLE_DEVICES='': is set but empty, which hides every GPU"),
            std::string::npos)
      << hip62[0];
  EXPECT_NE(hip62[0].find("in HIP 6.2"), std::string::npos) << hip62[0];
}

TEST(EnvironmentWarnings, BuildTimeVariablesAndValidSettingsStayQuiet) {
  const ScopedVariable path("HIP_PATH", "/nonexistent-hip");
  const ScopedVariable connections("CUDA_DEVICE_MAX_CONNECTIONS", "16");
  EXPECT_TRUE(warnings_about("HIP_PATH", Platform::kNvidia).empty());
  EXPECT_TRUE(warnings_about("CUDA_DEVICE_MAX_CONNECTIONS", Platform::kNvidia).empty());
}

TEST(DeviceSelection, ListsOnlyTheVariablesThisPlatformReads) {
  const ScopedVariable hip("HIP_VISIBLE_DEVICES", "99");
  const ScopedVariable cuda("CUDA_VISIBLE_DEVICES", "");
  const auto nvidia = hip_lessons::device_selection_settings(Platform::kNvidia);
  EXPECT_EQ(std::count(nvidia.begin(), nvidia.end(), "CUDA_VISIBLE_DEVICES=''"), 1);
  EXPECT_EQ(std::count(nvidia.begin(), nvidia.end(), "HIP_VISIBLE_DEVICES='99'"), 0);
  const auto amd = hip_lessons::device_selection_settings(Platform::kAmd);
  EXPECT_EQ(std::count(amd.begin(), amd.end(), "HIP_VISIBLE_DEVICES='99'"), 1);
}

TEST(Environment, EveryListedVariableHasMeaningAndDefault) {
  EXPECT_EQ(hip_lessons::scheduling_variables().size(), 12u);
  for (const auto& v : hip_lessons::scheduling_variables()) {
    EXPECT_FALSE(v.meaning.empty()) << v.name;
    EXPECT_FALSE(v.default_value.empty()) << v.name;
  }
}

TEST(IdList, ParsesIdsAndRanges) {
  EXPECT_EQ(parse_id_list("0,2-4,7", 8), (std::vector<int>{0, 2, 3, 4, 7}));
  EXPECT_EQ(parse_id_list("3,3,1", 8), (std::vector<int>{1, 3}));
  for (const char* bad : {"", "a", "1-", "-1", "4-2", "0,8", "1,,2", "1,"}) {
    EXPECT_THROW(parse_id_list(bad, 8), hip_lessons::UsageError) << bad;
  }
}

TEST(HardwareQueues, TheVariableOfEachPlatformAndTheCountInForce) {
  EXPECT_STREQ(hip_lessons::hardware_queue_variable(hip_lessons::Platform::kAmd).name,
               "GPU_MAX_HW_QUEUES");
  EXPECT_EQ(hip_lessons::hardware_queue_variable(hip_lessons::Platform::kAmd).default_count, 4);
  EXPECT_STREQ(hip_lessons::hardware_queue_variable(hip_lessons::Platform::kNvidia).name,
               "CUDA_DEVICE_MAX_CONNECTIONS");
  EXPECT_EQ(hip_lessons::hardware_queue_variable(hip_lessons::Platform::kNvidia).default_count, 8);
  ::unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
  EXPECT_EQ(hip_lessons::hardware_queue_count(hip_lessons::Platform::kNvidia), 8);
  ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "2", 1);
  EXPECT_EQ(hip_lessons::hardware_queue_count(hip_lessons::Platform::kNvidia), 2);
  ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "abc", 1);  // malformed: the default stays
  EXPECT_EQ(hip_lessons::hardware_queue_count(hip_lessons::Platform::kNvidia), 8);
  ::unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
}
