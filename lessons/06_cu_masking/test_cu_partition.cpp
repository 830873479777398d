/// \file lessons/06_cu_masking/test_cu_partition.cpp
/// \brief Unit tests of lesson 06's host-side rules (cu_partition.hpp): masks, their layout by
/// GPU and HIP release, partition plans, and what a partition's block trace must show.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cu_partition.hpp"
#include "hip_lessons/errors.hpp"

using cu_masking::cu_mask_layout;
using cu_masking::cu_mask_problem;
using cu_masking::cu_mask_range;
using cu_masking::CuMask;
using cu_masking::hip_counts_wgps;
using cu_masking::parse_cu_mask;
using hip_lessons::UsageError;

namespace {
// The first \p count words of \p mask, as hipExtStreamCreateWithCUMask reads them.
std::vector<std::uint32_t> first_words(const CuMask& mask, std::size_t count) {
  return {mask.words.begin(), mask.words.begin() + count};
}
}  // namespace

TEST(CuMask, LayoutIsOneBitPerUnitThirtyTwoPerWord) {
  CuMask mask;
  for (const int unit : {0, 31, 32, 65}) mask.set(unit);
  EXPECT_EQ(first_words(mask, 4), (std::vector<std::uint32_t>{0x80000001u, 0x1u, 0x2u, 0u}));
  EXPECT_TRUE(mask.has(65));
  EXPECT_FALSE(mask.has(64));
  EXPECT_EQ(mask.count(), 4);
  EXPECT_EQ(mask.ids(), "0,31-32,65");
  // The words as HIP reads them back: one unit in each of the 64 words.
  CuMask read_back;
  read_back.words.fill(1u);
  EXPECT_EQ(read_back.count(), 64);
  EXPECT_TRUE(read_back.has(2016));
}

TEST(CuMask, RangesAndTheIdListSpelling) {
  EXPECT_EQ(first_words(cu_mask_range(0, 8), 1), (std::vector<std::uint32_t>{0xffu}));
  EXPECT_EQ(cu_mask_range(0, 8).ids(), "0-7");
  const CuMask across = cu_mask_range(30, 4);  // crosses the word boundary
  EXPECT_EQ(first_words(across, 2), (std::vector<std::uint32_t>{0xc0000000u, 0x3u}));
  EXPECT_EQ(across.ids(), "30-33");
  EXPECT_EQ(CuMask{}.ids(), "none");
  EXPECT_EQ(cu_mask_range(5, 0).count(), 0);
  // The same units are the same mask; another unit is not.
  CuMask b;
  b.words[0] = 0xfu;
  EXPECT_TRUE(cu_mask_range(0, 4) == b);
  b.set(100);
  EXPECT_FALSE(cu_mask_range(0, 4) == b);
}

TEST(ParseCuMask, ListsAndHexGiveTheSameMask) {
  EXPECT_EQ(parse_cu_mask("--cu-mask", "0-7"), cu_mask_range(0, 8));
  EXPECT_EQ(parse_cu_mask("--cu-mask", "0xff"), cu_mask_range(0, 8));
  EXPECT_EQ(parse_cu_mask("--cu-mask", "0XFF"), cu_mask_range(0, 8));
  EXPECT_EQ(parse_cu_mask("--cu-mask", "0x0000ff"), cu_mask_range(0, 8));
  const CuMask mixed = parse_cu_mask("--cu-mask", "0-15,32-47");
  EXPECT_EQ(mixed.count(), 32);
  EXPECT_EQ(first_words(mixed, 2), (std::vector<std::uint32_t>{0xffffu, 0xffffu}));
  EXPECT_EQ(parse_cu_mask("--cu-mask", "0x337F").ids(), "0-6,8-9,12-13");
  EXPECT_EQ(parse_cu_mask("--cu-mask", "2047").ids(), "2047");
  EXPECT_EQ(parse_cu_mask("--cu-mask", "0x8" + std::string(511, '0')).ids(), "2047");
}

TEST(ParseCuMask, MalformedMasksAreRefusedWithTheOptionAndText) {
  struct Case {
    const char* text;
    const char* says;
  };
  const Case cases[] = {
      {"", "is empty"},
      {"zz", "neither a hex mask nor a CU list"},
      {"0x", "not a hex mask"},
      {"0xfg", "not a hex mask"},
      {"0x0", "selects no compute unit"},
      {"0x000", "selects no compute unit"},
      {"7-3", "reversed"},
      {"0-3,", "ends with ','"},
      {"1,,2", "not an ID or a range"},
      {"-1", "not an ID or a range"},
      {"2048", "out of range"},
      {"0-2048", "out of range"},
  };
  for (const Case& c : cases) {
    try {
      parse_cu_mask("--cu-mask", c.text);
      ADD_FAILURE() << "accepted '" << c.text << "'";
    } catch (const UsageError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("--cu-mask"), std::string::npos) << message;
      EXPECT_NE(message.find(c.says), std::string::npos) << message;
    }
  }
  // 513 significant hex digits name unit 2048 and beyond.
  EXPECT_THROW(parse_cu_mask("--cu-mask", "0x1" + std::string(512, '0')), UsageError);
  EXPECT_NO_THROW(parse_cu_mask("--cu-mask", "0x8" + std::string(511, '0')));
}

TEST(CuMaskProblem, EmptyTooWideAndBrokenPairs) {
  EXPECT_FALSE(cu_mask_problem(cu_mask_range(0, 8), 8, 1));
  const auto empty = cu_mask_problem(CuMask{}, 8, 1);
  ASSERT_TRUE(empty);
  EXPECT_NE(empty->find("no compute unit"), std::string::npos);
  const auto wide = cu_mask_problem(cu_mask_range(0, 9), 8, 1);
  ASSERT_TRUE(wide);
  EXPECT_NE(wide->find("bit 8"), std::string::npos) << *wide;
  EXPECT_NE(wide->find("0..7"), std::string::npos) << *wide;
  const auto last = cu_mask_problem(parse_cu_mask("--cu-mask", "9,2047"), 8, 1);
  ASSERT_TRUE(last);
  EXPECT_NE(last->find("bit 2047"), std::string::npos) << *last;
  // WGP devices where bits are CUs: pairs 0-1, 2-3, ...
  EXPECT_FALSE(cu_mask_problem(cu_mask_range(2, 4), 8, 2));
  const auto half = cu_mask_problem(cu_mask_range(1, 2), 8, 2);
  ASSERT_TRUE(half);
  EXPECT_NE(half->find("0-1"), std::string::npos) << *half;
}

TEST(MaskLayout, GcnAndCdnaTakeOneBitPerCuOnEveryRelease) {
  for (const char* arch : {"gfx90a:sramecc+:xnack-", "gfx942", "gfx906", ""}) {
    for (const int version : {50200000, 50731921, 60000000, 70200000}) {
      for (const bool wgp_mode : {true, false}) {
        const cu_masking::MaskLayout layout = cu_mask_layout(arch, version, wgp_mode);
        EXPECT_EQ(layout.bits_per_unit, 1) << arch;
        EXPECT_EQ(layout.bit_granularity, 1) << arch;
        EXPECT_EQ(layout.unit_granularity(), 1) << arch;
      }
    }
  }
}

TEST(MaskLayout, RdnaFollowsTheHipRelease) {
  // HIP 5.7 and later, WGP mode (the default): one bit per WGP, the unit HIP reports. 50731921
  // is ROCm 5.7.0's and 5.7.1's HIP_VERSION (5.7.31921), 50701000 a made-up 5.7 build.
  for (const int version : {50700000, 50701000, 50731921, 60000000, 70200000}) {
    for (const char* arch : {"gfx1030", "gfx1100", "gfx1201"}) {
      const cu_masking::MaskLayout wgp = cu_mask_layout(arch, version, true);
      EXPECT_EQ(wgp.bits_per_unit, 1) << arch << " " << version;
      EXPECT_EQ(wgp.bit_granularity, 1) << arch << " " << version;
      EXPECT_EQ(wgp.unit_granularity(), 1) << arch << " " << version;
    }
  }
  // Before 5.7 (5.2.3 is Debian's, 5.6.1 the last without the conversion): bits are CUs, two
  // per reported WGP.
  for (const int version : {50200003, 50600000, 50631061, 50699999}) {
    const cu_masking::MaskLayout cu_bits = cu_mask_layout("gfx1030", version, true);
    EXPECT_EQ(cu_bits.bits_per_unit, 2) << version;
    EXPECT_EQ(cu_bits.bit_granularity, 2) << version;
    EXPECT_EQ(cu_bits.unit_granularity(), 1) << version;
  }
  // GPU_ENABLE_WGP_MODE off: HIP counts CUs, bits are CUs, and ROCr wants both CUs of a WGP.
  for (const int version : {50200003, 50731921, 60000000}) {
    const cu_masking::MaskLayout cu_mode = cu_mask_layout("gfx1030", version, false);
    EXPECT_EQ(cu_mode.bits_per_unit, 1) << version;
    EXPECT_EQ(cu_mode.bit_granularity, 2) << version;
    EXPECT_EQ(cu_mode.unit_granularity(), 2) << version;
  }
}

TEST(MaskLayout, ArchitectureNames) {
  // With WGP mode off, only gfx10+ (RDNA) wants both CUs of a WGP: granularity 2.
  const auto has_wgps = [](const char* arch) {
    return cu_mask_layout(arch, 60000000, false).bit_granularity == 2;
  };
  EXPECT_TRUE(has_wgps("gfx1030"));
  EXPECT_TRUE(has_wgps("gfx1151"));
  EXPECT_FALSE(has_wgps("gfx90a:sramecc+:xnack-"));
  EXPECT_FALSE(has_wgps("gfx10"));
  EXPECT_FALSE(has_wgps(""));
}

TEST(MaskLayout, GpuEnableWgpModeIsParsedAsHipParsesABoolFlag) {
  // Unset: the default, on. Set: strcmp(v, "true") == 0 || atoi(v) != 0; from ROCm 5.5 set but
  // empty reaches HIP as " ", which is neither.
  constexpr int kHip62 = 60200000, kHip55 = 50500000;
  for (int version : {kHip62, kHip55}) {
    EXPECT_TRUE(hip_counts_wgps(nullptr, version));
    for (const char* on : {"true", "1", "2", "-1", " 1", "1abc"}) {
      EXPECT_TRUE(hip_counts_wgps(on, version)) << "'" << on << "' " << version;
    }
    for (const char* off :
         {"", " ", "0", "false", "FALSE", "TRUE", "True", "yes", "on", "abc", "0x1"}) {
      EXPECT_FALSE(hip_counts_wgps(off, version)) << "'" << off << "' " << version;
    }
  }
}

TEST(MaskLayout, AnEmptyGpuEnableWgpModeCountedAsUnsetBeforeRocm55) {
  // Up to ROCm 5.4 (Debian's HIP 5.2.3 among them) an empty value left the flag at its default.
  constexpr int kHip52 = 50200000, kHip54 = 50400000;
  EXPECT_TRUE(hip_counts_wgps("", kHip52));
  EXPECT_TRUE(hip_counts_wgps("", kHip54));
  EXPECT_FALSE(hip_counts_wgps("0", kHip52));
  EXPECT_FALSE(hip_counts_wgps("yes", kHip52));
}

TEST(ReadbackCaveat, TrustedOnlyWithoutProcessWideMasksAndWithOneBitPerUnit) {
  const auto one = cu_mask_layout("gfx90a", 60000000, true);
  EXPECT_FALSE(cu_masking::readback_caveat(one, false, false));
  EXPECT_FALSE(
      cu_masking::readback_caveat(cu_mask_layout("gfx1030", 50731921, true), false, false));
  const auto global = cu_masking::readback_caveat(one, true, false);
  ASSERT_TRUE(global);
  EXPECT_NE(global->find("ROC_GLOBAL_CU_MASK"), std::string::npos) << *global;
  const auto hsa = cu_masking::readback_caveat(one, false, true);
  ASSERT_TRUE(hsa);
  EXPECT_NE(hsa->find("HSA_CU_MASK"), std::string::npos) << *hsa;
  // Bits are CUs but HIP counts WGPs (before 5.7): the read-back is cut to half the bits.
  EXPECT_TRUE(cu_masking::readback_caveat(cu_mask_layout("gfx1030", 50600000, true), false, false));
}

TEST(PlanCuMasks, DisjointGroupsThenTheRest) {
  const auto plan = cu_masking::plan_cu_masks(60, 2, 8, 1);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].ids(), "0-7");
  EXPECT_EQ(plan[1].ids(), "8-15");
  EXPECT_EQ(plan[2].ids(), "16-59");
  // Pairs: 7 CUs become 8, the rest keeps whole pairs only.
  const auto paired = cu_masking::plan_cu_masks(21, 1, 7, 2);
  EXPECT_EQ(paired[0].count(), 8);
  EXPECT_EQ(paired[1].ids(), "8-19");
  EXPECT_FALSE(cu_mask_problem(paired[0], 21, 2));
  // Planned in CU bits, two per WGP (HIP before 5.7): pair-aligned whatever the request.
  for (const CuMask& bits : cu_masking::plan_cu_masks(80, 2, 2 * 3, 2)) {
    EXPECT_FALSE(cu_mask_problem(bits, 80, 2)) << bits.ids();
  }
  // Nothing left over.
  EXPECT_EQ(cu_masking::plan_cu_masks(16, 2, 8, 1).back().count(), 0);
}

TEST(PlanCuMasks, GroupsThatDoNotFitAreUsageErrors) {
  EXPECT_THROW(cu_masking::plan_cu_masks(60, 1, 61, 1), UsageError);
  EXPECT_THROW(cu_masking::plan_cu_masks(60, 2, 31, 1), UsageError);
  EXPECT_THROW(cu_masking::plan_cu_masks(60, 1, 0, 1), UsageError);
  try {
    cu_masking::plan_cu_masks(20, 3, 7, 2);
    ADD_FAILURE() << "3 x 8 fitted into 20";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("(8 in groups of 2)"), std::string::npos)
        << error.what();
  }
}

TEST(PartitionRules, ExpectedGrantRoundsUpToMinimumAndAlignment) {
  cu_masking::PartitionRules sm90;  // cuda.h: compute capability 9.0+, minimum 8, multiples of 8
  sm90.units = 132;
  sm90.min_units = 8;
  sm90.granularity = 8;
  EXPECT_EQ(cu_masking::expected_grant(sm90, 1), 8);
  EXPECT_EQ(cu_masking::expected_grant(sm90, 8), 8);
  EXPECT_EQ(cu_masking::expected_grant(sm90, 66), 72);  // the H200 granted 72 for 66
  EXPECT_EQ(cu_masking::round_up_to(7, 2), 8);
  EXPECT_EQ(cu_masking::round_up_to(8, 1), 8);
}

namespace {

// Block `index` of trace stream `stream` on unit `unit` from `start` to `end` microseconds.
hip_lessons::TracedBlock block(int stream, unsigned index, unsigned unit, double start,
                               double end) {
  return {"k", stream, stream, index, unit, start, end};
}

// The checks a step recorded, as "name: passed" (skips as "name: skip").
std::vector<std::string> checks_of(const hip_lessons::StepResult& step) {
  std::vector<std::string> checks;
  for (const auto& e : step.entries()) {
    const bool skip = e.kind == hip_lessons::StepResult::Kind::kSkip;
    checks.push_back(e.name + ": " + (skip ? "skip" : e.passed ? "passed" : "failed"));
  }
  return checks;
}

}  // namespace

TEST(PartitionTrace, BlocksWithinTheGrantPass) {
  const hip_lessons::Schedule schedule({block(0, 0, 5, 0, 10), block(0, 1, 6, 0, 10),
                                        block(0, 2, 5, 10, 20), block(1, 0, 9, 0, 10)});
  hip_lessons::StepResult step("s");
  cu_masking::check_units(step, schedule, 0, "A", 2);
  cu_masking::check_units(step, schedule, 1, "B", 1);
  cu_masking::check_disjoint(step, schedule, "A and B", true);
  EXPECT_EQ(checks_of(step),
            (std::vector<std::string>{"A: blocks ran on at most its 2 granted units: passed",
                                      "B: blocks ran on at most its 1 granted units: passed",
                                      "A and B ran on disjoint units: passed"}));
  EXPECT_EQ(step.entries()[0].detail, "2 distinct ids");
}

TEST(PartitionTrace, TheFirstBlockPastTheGrantIsNamed) {
  // In time: unit 5 at 0, unit 6 at 2, unit 7 at 3 (the third unit of a 2-unit grant), 8 at 4.
  const hip_lessons::Schedule schedule(
      {block(1, 3, 8, 4, 9), block(1, 0, 5, 0, 9), block(1, 2, 7, 3, 9), block(1, 1, 6, 2, 9)});
  hip_lessons::StepResult step("s");
  cu_masking::check_units(step, schedule, 1, "B", 2);
  cu_masking::check_units(step, schedule, 1, "B", 4);
  ASSERT_EQ(step.entries().size(), 2u);
  EXPECT_FALSE(step.entries()[0].passed);
  const std::string detail = step.entries()[0].detail;
  EXPECT_NE(detail.find("4 distinct ids"), std::string::npos) << detail;
  EXPECT_NE(detail.find("first past the grant: k block 2 (launch 1) on unit 7"), std::string::npos)
      << detail;
  EXPECT_TRUE(step.entries()[1].passed);
}

TEST(PartitionTrace, TheFirstBlockOnASharedUnitIsNamed) {
  const hip_lessons::Schedule schedule(
      {block(0, 0, 1, 0, 5), block(1, 0, 2, 1, 5), block(1, 1, 3, 2, 5), block(0, 1, 3, 3, 5)});
  // A third stream's blocks share nothing with streams 0 and 1 by being there.
  const hip_lessons::Schedule apart(
      {block(0, 0, 1, 0, 5), block(1, 0, 2, 0, 5), block(2, 0, 1, 0, 5), block(2, 1, 2, 0, 5)});
  hip_lessons::StepResult step("s");
  cu_masking::check_disjoint(step, schedule, "A and B", true);
  cu_masking::check_disjoint(step, apart, "C and D", true);
  ASSERT_EQ(step.entries().size(), 2u);
  EXPECT_FALSE(step.entries()[0].passed);
  // Stream 1's block 1 ran on unit 3 first, at 2 us.
  EXPECT_NE(step.entries()[0].detail.find("k block 1 (launch 1) on unit 3, 2.0-5.0 us"),
            std::string::npos)
      << step.entries()[0].detail;
  EXPECT_TRUE(step.entries()[1].passed);
}

TEST(PartitionTrace, DisjointIsCheckedWhereUnitIdsAreUniqueAndSkippedOnAmd) {
  const hip_lessons::Schedule schedule({block(0, 0, 3, 0, 5), block(1, 0, 3, 1, 5)});
  hip_lessons::StepResult step("s");
  cu_masking::check_disjoint(step, schedule, "A and B");
  const bool amd = hip_lessons::build_platform() == hip_lessons::Platform::kAmd;
  EXPECT_EQ(checks_of(step),
            std::vector<std::string>{amd ? "A and B ran on disjoint units: skip"
                                         : "A and B ran on disjoint units: failed"});
}
