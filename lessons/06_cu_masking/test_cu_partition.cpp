/// \file lessons/06_cu_masking/test_cu_partition.cpp
/// \brief Unit tests of lesson 06's host-side mask code (cu_partition.hpp): no GPU needed.
#include <gtest/gtest.h>

#include <string>

#include "cu_partition.hpp"
#include "hip_lessons/errors.hpp"

using cu_masking::cu_mask_problem;
using cu_masking::cu_mask_range;
using cu_masking::CuMask;
using cu_masking::parse_cu_mask;
using hip_lessons::UsageError;

TEST(CuMask, LayoutIsOneBitPerUnitThirtyTwoPerWord) {
  CuMask mask;
  for (const int unit : {0, 31, 32, 65}) mask.units.set(unit);
  EXPECT_EQ(mask.words(3), (std::vector<std::uint32_t>{0x80000001u, 0x1u, 0x2u}));
  EXPECT_EQ(mask.words(4).back(), 0u);
  EXPECT_EQ(CuMask::from_words(mask.words(3)), mask);
  EXPECT_EQ(mask.count(), 4);
  EXPECT_EQ(mask.highest(), 65);
  EXPECT_EQ(CuMask{}.highest(), -1);
  // A mask wider than the words asked for is cut there; words past kMaxMaskUnits read as 0.
  EXPECT_EQ(mask.words(2), (std::vector<std::uint32_t>{0x80000001u, 0x1u}));
  EXPECT_EQ(CuMask::from_words(std::vector<std::uint32_t>(70, 1u)).count(), 64);
}

TEST(CuMask, RangesAndSpellings) {
  const CuMask first8 = cu_mask_range(0, 8);
  EXPECT_EQ(first8.words(1), (std::vector<std::uint32_t>{0xffu}));
  EXPECT_EQ(first8.hex(), "0xff");
  EXPECT_EQ(first8.ids(), "0-7");
  const CuMask across = cu_mask_range(30, 4);  // crosses the word boundary
  EXPECT_EQ(across.words(2), (std::vector<std::uint32_t>{0xc0000000u, 0x3u}));
  EXPECT_EQ(across.hex(), "0x3c0000000");
  EXPECT_EQ(across.ids(), "30-33");
  EXPECT_EQ(CuMask{}.hex(), "0x0");
  EXPECT_EQ(CuMask{}.ids(), "none");
  EXPECT_EQ(cu_mask_range(5, 0).count(), 0);
}

TEST(CuMask, EqualityComparesTheSets) {
  const CuMask a = cu_mask_range(0, 4);
  CuMask b = CuMask::from_words({0xfu, 0u, 0u, 0u});  // trailing zero words change nothing
  EXPECT_TRUE(a == b);
  b.units.set(100);
  EXPECT_TRUE(a != b);
}

TEST(ParseCuMask, ListsAndHexGiveTheSameMask) {
  EXPECT_EQ(parse_cu_mask("--cu-mask", "0-7"), cu_mask_range(0, 8));
  EXPECT_EQ(parse_cu_mask("--cu-mask", "0xff"), cu_mask_range(0, 8));
  EXPECT_EQ(parse_cu_mask("--cu-mask", "0XFF"), cu_mask_range(0, 8));
  EXPECT_EQ(parse_cu_mask("--cu-mask", "0x0000ff"), cu_mask_range(0, 8));
  const CuMask mixed = parse_cu_mask("--cu-mask", "0-15,32-47");
  EXPECT_EQ(mixed.count(), 32);
  EXPECT_EQ(mixed.hex(), "0xffff0000ffff");
  EXPECT_EQ(parse_cu_mask("--cu-mask", "0x337F").ids(), "0-6,8-9,12-13");
  EXPECT_EQ(parse_cu_mask("--cu-mask", "2047").highest(), 2047);
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
  EXPECT_NE(wide->find("compute unit 8"), std::string::npos) << *wide;
  EXPECT_NE(wide->find("0..7"), std::string::npos) << *wide;
  // WGP devices: CUs come in pairs 0-1, 2-3, ...
  EXPECT_FALSE(cu_mask_problem(cu_mask_range(2, 4), 8, 2));
  const auto half = cu_mask_problem(cu_mask_range(1, 2), 8, 2);
  ASSERT_TRUE(half);
  EXPECT_NE(half->find("0-1"), std::string::npos) << *half;
}

TEST(CuPairGranularity, RdnaPairsCdnaDoesNot) {
  EXPECT_EQ(cu_masking::cu_pair_granularity("gfx1030"), 2);
  EXPECT_EQ(cu_masking::cu_pair_granularity("gfx1100"), 2);
  EXPECT_EQ(cu_masking::cu_pair_granularity("gfx1201"), 2);
  EXPECT_EQ(cu_masking::cu_pair_granularity("gfx90a:sramecc+:xnack-"), 1);
  EXPECT_EQ(cu_masking::cu_pair_granularity("gfx942"), 1);
  EXPECT_EQ(cu_masking::cu_pair_granularity("gfx906"), 1);
  EXPECT_EQ(cu_masking::cu_pair_granularity(""), 1);
}

TEST(PlanCuMasks, DisjointGroupsThenTheRest) {
  const auto plan = cu_masking::plan_cu_masks(60, 2, 8, 1);
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_EQ(plan.groups[0].ids(), "0-7");
  EXPECT_EQ(plan.groups[1].ids(), "8-15");
  EXPECT_EQ(plan.rest.ids(), "16-59");
  // Pairs: 7 CUs become 8, the rest keeps whole pairs only.
  const auto paired = cu_masking::plan_cu_masks(21, 1, 7, 2);
  EXPECT_EQ(paired.groups[0].count(), 8);
  EXPECT_EQ(paired.rest.ids(), "8-19");
  // Nothing left over.
  EXPECT_EQ(cu_masking::plan_cu_masks(16, 2, 8, 1).rest.count(), 0);
}

TEST(PlanCuMasks, GroupsThatDoNotFitAreUsageErrors) {
  EXPECT_THROW(cu_masking::plan_cu_masks(60, 1, 61, 1), UsageError);
  EXPECT_THROW(cu_masking::plan_cu_masks(60, 2, 31, 1), UsageError);
  EXPECT_THROW(cu_masking::plan_cu_masks(60, 1, 0, 1), UsageError);
  try {
    cu_masking::plan_cu_masks(20, 3, 7, 2);
    ADD_FAILURE() << "3 x 8 fitted into 20";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("8 after rounding"), std::string::npos)
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
