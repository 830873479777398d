// Unit tests of lesson 01's reading of the runtime-behaviour table, and of the table itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runtime_behaviour.hpp"

namespace {

namespace hl = hip_lessons;
using lesson01::BehaviourRow;
using lesson01::KnobInForce;
using lesson01::knobs_in_force;
using lesson01::parse_behaviour_table;
using lesson01::parse_version_range;

const std::vector<BehaviourRow>& table() { return lesson01::compiled_in_table(); }

const char* no_variables(const char*) { return nullptr; }

// The row in force for \p setting, or a failed test.
KnobInForce setting_in(const std::vector<KnobInForce>& knobs, const std::string& setting) {
  const auto it = std::find_if(knobs.begin(), knobs.end(),
                               [&](const KnobInForce& k) { return k.setting == setting; });
  if (it == knobs.end()) {
    ADD_FAILURE() << setting << " has no row for this release";
    return {};
  }
  return *it;
}

TEST(VersionRange, ParsesEveryFormAndRefusesTheRest) {
  const auto open_top = parse_version_range("5.5-");
  EXPECT_FALSE(open_top.contains({5, 4}));
  EXPECT_TRUE(open_top.contains({5, 5}));
  EXPECT_TRUE(open_top.contains({10, 2}));
  const auto closed = parse_version_range("5.0-5.3");
  EXPECT_FALSE(closed.contains({4, 5}));
  EXPECT_TRUE(closed.contains({5, 3}));
  EXPECT_FALSE(closed.contains({5, 4}));
  const auto one = parse_version_range("6.2");
  EXPECT_TRUE(one.contains({6, 2}));
  EXPECT_FALSE(one.contains({6, 3}));
  EXPECT_TRUE(parse_version_range("-11.6").contains({11, 6}));
  EXPECT_FALSE(parse_version_range("-11.6").contains({11, 7}));
  // 7.11 comes after 7.2: minors compare as numbers.
  EXPECT_FALSE(parse_version_range("7.11-").contains({7, 2}));
  EXPECT_TRUE(parse_version_range("all").contains({1, 0}));
  EXPECT_FALSE(parse_version_range("current").contains({99, 0}));
  for (const char* bad :
       {"", "5", "5.x", "5.5 -", "6.0-5.4", "5.5.5.5", "-", "latest", "4.4.21432-4.4.21401"}) {
    EXPECT_THROW(parse_version_range(bad), std::invalid_argument) << "'" << bad << "'";
  }
}

TEST(VersionRange, ABuildBoundSplitsARelease) {
  // ROCm 4.5.0 ships HIP 4.4.21401; ROCm 4.5.1 and 4.5.2 ship HIP 4.4.21432.
  const auto before = parse_version_range("4.2-4.4.21401");
  const auto after = parse_version_range("4.4.21432-4.4");
  EXPECT_TRUE(before.contains({4, 4}, 21401));
  EXPECT_FALSE(before.contains({4, 4}, 21432));
  EXPECT_TRUE(after.contains({4, 4}, 21432));
  EXPECT_FALSE(after.contains({4, 4}, 21401));
  EXPECT_FALSE(after.contains({5, 0}, 13601));
  EXPECT_TRUE(before.contains({4, 3}, 0));
  // Without the build HIP 4.4 may be either, and both ranges split it; 5.0 is not split.
  EXPECT_TRUE(before.contains({4, 4}) && after.contains({4, 4}));
  EXPECT_TRUE(before.splits({4, 4}) && after.splits({4, 4}));
  EXPECT_FALSE(parse_version_range("5.0-5.3").splits({5, 0}));
  EXPECT_TRUE(parse_version_range("4.4.21401").contains({4, 4}, 21401));
  EXPECT_FALSE(parse_version_range("4.4.21401").contains({4, 4}, 21402));
  EXPECT_TRUE(parse_version_range("6.2").contains({6, 2}, 41134));
}

TEST(BehaviourTable, RefusesMalformedRows) {
  const std::string header = "knob\tplatform\tsetting\tversions\tdefault\teffect\tsource\n";
  EXPECT_EQ(parse_behaviour_table("# comment\n" + header + "k\tAMD\tX\t5.5-\t4\te\ts\n").size(),
            1u);
  for (const char* row : {"k\tAMD\tX\t5.5-\t4\te\n", "k\tAMD\tX\t5.5-\t4\te\ts\textra\n",
                          "k\tIntel\tX\t5.5-\t4\te\ts\n", "k\tAMD\tX\tnewest\t4\te\ts\n",
                          "k\tAMD\t\t5.5-\t4\te\ts\n"}) {
    EXPECT_THROW(parse_behaviour_table(header + row), std::invalid_argument) << row;
  }
}

TEST(BehaviourTable, EveryRowIsCompleteAndSourced) {
  ASSERT_GT(table().size(), 30u);
  for (const BehaviourRow& row : table()) {
    // A row without a source may only say that its value is not established.
    if (row.source == "-") {
      EXPECT_EQ(row.default_value, "not established") << row.knob;
    }
  }
}

TEST(BehaviourTable, NoTwoRowsOfOneSettingClaimTheSameRelease) {
  std::map<std::pair<std::string, std::string>, std::vector<lesson01::VersionRange>> ranges;
  for (const BehaviourRow& row : table()) {
    const auto range = parse_version_range(row.versions);
    if (range.development_only) continue;
    auto& seen = ranges[{row.platform, row.setting}];
    for (const auto& other : seen) {
      using Range = lesson01::VersionRange;
      const bool apart =
          (range.highest && other.lowest &&
           Range::to(*range.highest) < Range::from(*other.lowest)) ||
          (other.highest && range.lowest && Range::to(*other.highest) < Range::from(*range.lowest));
      EXPECT_TRUE(apart) << row.platform << " " << row.setting << " " << row.versions
                         << " overlaps another row";
    }
    seen.push_back(range);
  }
}

TEST(KnobsInForce, Hip52IsDebianRocm52) {
  const auto knobs = knobs_in_force(table(), hl::Platform::kAmd, {5, 2}, no_variables);
  EXPECT_EQ(setting_in(knobs, "ROC_ACTIVE_WAIT_TIMEOUT").value, "10 (default)");
  EXPECT_NE(setting_in(knobs, "GPU_MAX_HW_QUEUES").effect.find("gets no queue"), std::string::npos);
  EXPECT_NE(setting_in(knobs, "HIP_VISIBLE_DEVICES").effect.find("empty counts as unset"),
            std::string::npos);
  EXPECT_EQ(setting_in(knobs, "AMD_DIRECT_DISPATCH").value, "on (default)");
  EXPECT_EQ(setting_in(knobs, "DEBUG_HIP_DYNAMIC_QUEUES").value, "absent");
  EXPECT_EQ(setting_in(knobs, "ROC_AQL_QUEUE_SIZE").value, "4096 (default)");
  EXPECT_EQ(setting_in(knobs, "hipExtStreamCreateWithCUMask").value, "one bit per CU");
  // Only AMD rows, and never a row of development sources.
  for (const KnobInForce& k : knobs) EXPECT_NE(k.setting, "CUDA_DEVICE_MAX_CONNECTIONS");
}

TEST(KnobsInForce, Rocm45IsHip44AndItsBuildPicksTheQueueSize) {
  // ROCm 4.5.x reports HIP 4.4 (ROCm/HIP bin/hipvars.pm at rocm-4.5.0): its rows are 4.4's.
  const auto rocm450 =
      knobs_in_force(table(), hl::Platform::kAmd,
                     hl::runtime_version_from(40421401, hl::Platform::kAmd), no_variables);
  EXPECT_EQ(setting_in(rocm450, "AMD_DIRECT_DISPATCH").value, "on (default)");
  EXPECT_EQ(setting_in(rocm450, "ROC_ACTIVE_WAIT_TIMEOUT").value, "50 (default)");
  EXPECT_EQ(setting_in(rocm450, "hipSetDeviceFlags").value, "spin");
  EXPECT_EQ(setting_in(rocm450, "ROC_AQL_QUEUE_SIZE").value, "absent");
  const auto rocm452 =
      knobs_in_force(table(), hl::Platform::kAmd,
                     hl::runtime_version_from(40421432, hl::Platform::kAmd), no_variables);
  EXPECT_EQ(setting_in(rocm452, "ROC_AQL_QUEUE_SIZE").value, "4096 (default)");
  // Without the build, both queue-size rows, each with the builds it is for.
  std::vector<std::string> sizes;
  for (const KnobInForce& k : knobs_in_force(table(), hl::Platform::kAmd, {4, 4}, no_variables)) {
    if (k.setting == "ROC_AQL_QUEUE_SIZE") sizes.push_back(k.value);
  }
  EXPECT_EQ(sizes, (std::vector<std::string>{"absent for HIP 4.2-4.4.21401",
                                             "4096 (default) for HIP 4.4.21432-4.4"}));
  // No AMD row is keyed by a ROCm 4.5 that hipRuntimeGetVersion never reports.
  for (const BehaviourRow& row : table()) {
    if (row.platform == "AMD") {
      EXPECT_EQ(row.versions.find("4.5"), std::string::npos) << row.knob;
    }
  }
}

TEST(KnobsInForce, LaterHipReleases) {
  const auto hip62 = knobs_in_force(table(), hl::Platform::kAmd, {6, 2}, no_variables);
  EXPECT_EQ(setting_in(hip62, "DEBUG_CLR_GRAPH_PACKET_CAPTURE").value, "on (default)");
  EXPECT_NE(setting_in(hip62, "HIP_VISIBLE_DEVICES").effect.find("hides every GPU"),
            std::string::npos);
  EXPECT_EQ(setting_in(hip62, "ROC_ACTIVE_WAIT_TIMEOUT").value, "0 (default)");
  const auto hip711 = knobs_in_force(table(), hl::Platform::kAmd, {7, 11}, no_variables);
  EXPECT_EQ(setting_in(hip711, "DEBUG_HIP_GRAPH_SEGMENT_SCHEDULING").value, "1 (default)");
  // The variable's new meaning (default 0) is in development sources, its first release unknown.
  const auto hip102 = knobs_in_force(table(), hl::Platform::kAmd, {10, 2}, no_variables);
  EXPECT_EQ(setting_in(hip102, "DEBUG_HIP_GRAPH_SEGMENT_SCHEDULING").value, "not established");
  EXPECT_EQ(setting_in(hip711, "GPU_FORCE_BLIT_COPY_SIZE").value, "not established");
  const auto hip714 = knobs_in_force(table(), hl::Platform::kAmd, {7, 14}, no_variables);
  EXPECT_EQ(setting_in(hip714, "hipGreenCtxCreate").value, "available");
}

TEST(KnobsInForce, Cuda13HasItsFourKnobs) {
  const auto knobs = knobs_in_force(table(), hl::Platform::kNvidia, {13, 0}, no_variables);
  std::set<std::string> settings;
  for (const KnobInForce& k : knobs) settings.insert(k.setting);
  EXPECT_EQ(settings, (std::set<std::string>{"CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_VISIBLE_DEVICES",
                                             "CUDA_MODULE_LOADING", "cuGreenCtxCreate"}));
  EXPECT_EQ(setting_in(knobs, "CUDA_DEVICE_MAX_CONNECTIONS").value, "8 (default)");
  EXPECT_EQ(setting_in(knobs, "CUDA_MODULE_LOADING").value, "LAZY (default)");
  const auto cuda118 = knobs_in_force(table(), hl::Platform::kNvidia, {11, 8}, no_variables);
  EXPECT_EQ(setting_in(cuda118, "CUDA_MODULE_LOADING").value, "EAGER (default)");
}

TEST(KnobsInForce, ASetVariableShowsItsValue) {
  const auto environment = [](const char* name) -> const char* {
    const std::string n = name;
    if (n == "CUDA_DEVICE_MAX_CONNECTIONS") return "2";
    if (n == "HIP_LAUNCH_BLOCKING") return "1";
    return nullptr;
  };
  const auto nvidia = knobs_in_force(table(), hl::Platform::kNvidia, {13, 0}, environment);
  EXPECT_EQ(setting_in(nvidia, "CUDA_DEVICE_MAX_CONNECTIONS").value, "'2' (set)");
  // HIP_LAUNCH_BLOCKING appeared in HIP 6.1: set on 6.0 it is read by nobody.
  const auto hip60 = knobs_in_force(table(), hl::Platform::kAmd, {6, 0}, environment);
  EXPECT_EQ(setting_in(hip60, "HIP_LAUNCH_BLOCKING").value,
            "'1' (set, but this release does not read it)");
  const auto hip61 = knobs_in_force(table(), hl::Platform::kAmd, {6, 1}, environment);
  EXPECT_EQ(setting_in(hip61, "HIP_LAUNCH_BLOCKING").value, "'1' (set)");
}

}  // namespace
