#include "hip_lessons/environment.hpp"

#include <gtest/gtest.h>

#include "hip_lessons/errors.hpp"

using hip_lessons::check_environment_value;
using hip_lessons::parse_id_list;

TEST(Environment, ValidValuesPass) {
  EXPECT_FALSE(check_environment_value("HIP_PLATFORM", "amd"));
  EXPECT_FALSE(check_environment_value("HIP_PATH", "/"));
  EXPECT_FALSE(check_environment_value("HIP_VISIBLE_DEVICES", "0,2"));
  EXPECT_FALSE(check_environment_value("ROCR_VISIBLE_DEVICES", "0,GPU-4b2c1a9f8d3e"));
  EXPECT_FALSE(check_environment_value("GPU_MAX_HW_QUEUES", "8"));
  EXPECT_FALSE(check_environment_value("HSA_ENABLE_SDMA", "0"));
  EXPECT_FALSE(check_environment_value("ROC_GLOBAL_CU_MASK", "0xff"));
  EXPECT_FALSE(check_environment_value("HSA_CU_MASK", "0,2-4,7:0-15,32-47; 3-9:0x337F"));
  EXPECT_FALSE(check_environment_value("CUDA_DEVICE_MAX_CONNECTIONS", "32"));
  EXPECT_FALSE(check_environment_value("SOMETHING_ELSE", "whatever"));
}

TEST(Environment, MalformedValuesAreExplained) {
  struct Case { const char* name; const char* value; const char* says; };
  const Case cases[] = {
      {"HIP_PLATFORM", "hip", "not a platform"},
      {"HIP_PATH", "/nonexistent-hip", "not a directory"},
      {"CUDA_VISIBLE_DEVICES", "", "hides every GPU"},
      {"HIP_VISIBLE_DEVICES", "0,x", "'x'"},
      {"GPU_MAX_HW_QUEUES", "abc", "'abc'"},
      {"GPU_MAX_HW_QUEUES", "0", "1..1024"},
      {"GPU_MAX_HW_QUEUES", "1000000000000", "not an integer"},
      {"HSA_ENABLE_INTERRUPT", "yes", "not 0 or 1"},
      {"ROC_GLOBAL_CU_MASK", "zz", "hex mask"},
      {"ROC_GLOBAL_CU_MASK", "0x0", "no CU"},
      {"HSA_CU_MASK", "0-15", "no ':'"},
      {"HSA_CU_MASK", "0:15-3", "reversed"},
      {"CUDA_DEVICE_MAX_CONNECTIONS", "33", "1..32"},
  };
  for (const Case& c : cases) {
    const auto problem = check_environment_value(c.name, c.value);
    ASSERT_TRUE(problem.has_value()) << c.name << "=" << c.value;
    EXPECT_NE(problem->find(c.says), std::string::npos) << *problem;
  }
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
