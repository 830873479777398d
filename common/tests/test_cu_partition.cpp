#include <gtest/gtest.h>

#include <string>

#include "hip_lessons/cu_partition.hpp"
#include "hip_lessons/errors.hpp"

using hip_lessons::cu_mask_problem;
using hip_lessons::cu_mask_range;
using hip_lessons::CuMask;
using hip_lessons::parse_cu_mask;
using hip_lessons::UsageError;

TEST(CuMask, LayoutIsOneBitPerUnitThirtyTwoPerWord) {
  CuMask mask;
  mask.set(0);
  mask.set(31);
  mask.set(32);
  mask.set(65);
  ASSERT_EQ(mask.words.size(), 3u);
  EXPECT_EQ(mask.words[0], 0x80000001u);
  EXPECT_EQ(mask.words[1], 0x00000001u);
  EXPECT_EQ(mask.words[2], 0x00000002u);
  EXPECT_EQ(mask.count(), 4);
  EXPECT_EQ(mask.highest(), 65);
  EXPECT_TRUE(mask.test(32));
  EXPECT_FALSE(mask.test(33));
  EXPECT_FALSE(mask.test(-1));
  EXPECT_FALSE(mask.test(5000));
}

TEST(CuMask, RangesAndSpellings) {
  const CuMask first8 = cu_mask_range(0, 8);
  EXPECT_EQ(first8.words, (std::vector<std::uint32_t>{0xffu}));
  EXPECT_EQ(first8.hex(), "0xff");
  EXPECT_EQ(first8.ids(), "0-7");
  const CuMask across = cu_mask_range(30, 4);  // crosses the word boundary
  EXPECT_EQ(across.words, (std::vector<std::uint32_t>{0xc0000000u, 0x3u}));
  EXPECT_EQ(across.hex(), "0x3c0000000");
  EXPECT_EQ(across.ids(), "30-33");
  EXPECT_EQ(CuMask{}.hex(), "0x0");
  EXPECT_EQ(CuMask{}.ids(), "none");
  EXPECT_EQ(cu_mask_range(5, 0).count(), 0);
}

TEST(CuMask, EqualityIgnoresTrailingZeroWords) {
  CuMask a = cu_mask_range(0, 4);
  CuMask b = a.resized(4);
  EXPECT_EQ(b.words.size(), 4u);
  EXPECT_TRUE(a == b);
  b.set(100);
  EXPECT_TRUE(a != b);
  // Resizing never drops set bits.
  EXPECT_EQ(b.resized(1).highest(), 100);
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
  EXPECT_EQ(hip_lessons::cu_pair_granularity("gfx1030"), 2);
  EXPECT_EQ(hip_lessons::cu_pair_granularity("gfx1100"), 2);
  EXPECT_EQ(hip_lessons::cu_pair_granularity("gfx1201"), 2);
  EXPECT_EQ(hip_lessons::cu_pair_granularity("gfx90a:sramecc+:xnack-"), 1);
  EXPECT_EQ(hip_lessons::cu_pair_granularity("gfx942"), 1);
  EXPECT_EQ(hip_lessons::cu_pair_granularity("gfx906"), 1);
  EXPECT_EQ(hip_lessons::cu_pair_granularity(""), 1);
}

TEST(PlanCuMasks, DisjointGroupsThenTheRest) {
  const auto plan = hip_lessons::plan_cu_masks(60, 2, 8, 1);
  ASSERT_EQ(plan.groups.size(), 2u);
  EXPECT_EQ(plan.groups[0].ids(), "0-7");
  EXPECT_EQ(plan.groups[1].ids(), "8-15");
  EXPECT_EQ(plan.rest.ids(), "16-59");
  // Pairs: 7 CUs become 8, the rest keeps whole pairs only.
  const auto paired = hip_lessons::plan_cu_masks(21, 1, 7, 2);
  EXPECT_EQ(paired.groups[0].count(), 8);
  EXPECT_EQ(paired.rest.ids(), "8-19");
  // Nothing left over.
  EXPECT_EQ(hip_lessons::plan_cu_masks(16, 2, 8, 1).rest.count(), 0);
}

TEST(PlanCuMasks, GroupsThatDoNotFitAreUsageErrors) {
  EXPECT_THROW(hip_lessons::plan_cu_masks(60, 1, 61, 1), UsageError);
  EXPECT_THROW(hip_lessons::plan_cu_masks(60, 2, 31, 1), UsageError);
  EXPECT_THROW(hip_lessons::plan_cu_masks(60, 1, 0, 1), UsageError);
  try {
    hip_lessons::plan_cu_masks(20, 3, 7, 2);
    ADD_FAILURE() << "3 x 8 fitted into 20";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("8 after rounding"), std::string::npos)
        << error.what();
  }
}

TEST(PartitionRules, ExpectedGrantRoundsUpToMinimumAndAlignment) {
  hip_lessons::PartitionRules sm90;  // cuda.h: compute capability 9.0+, minimum 8, multiples of 8
  sm90.units = 132;
  sm90.min_units = 8;
  sm90.granularity = 8;
  EXPECT_EQ(hip_lessons::expected_grant(sm90, 1), 8);
  EXPECT_EQ(hip_lessons::expected_grant(sm90, 8), 8);
  EXPECT_EQ(hip_lessons::expected_grant(sm90, 66), 72);  // the H200 granted 72 for 66
  EXPECT_EQ(hip_lessons::round_up_to(7, 2), 8);
  EXPECT_EQ(hip_lessons::round_up_to(8, 1), 8);
}
