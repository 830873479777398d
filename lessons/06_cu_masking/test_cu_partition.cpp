/// \file lessons/06_cu_masking/test_cu_partition.cpp
/// \brief Unit tests of lesson 06's host-side rules (cu_partition.hpp): the partitions it asks
/// for, what a grant becomes, when a read-back mask is trusted, and what a partition's block
/// trace must show. (The AMD mask rules are common/: common/tests/test_amd_cu_masks.cpp, and
/// tools/amd_models checks every mask this lesson plans against the driver's and HIP's code.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cu_partition.hpp"

TEST(ReadbackCaveat, TrustedOnlyWithoutProcessWideMasksAndWithOneBitPerUnit) {
  EXPECT_FALSE(cu_masking::readback_caveat(1, false, false));
  const auto global = cu_masking::readback_caveat(1, true, false);
  ASSERT_TRUE(global);
  EXPECT_NE(global->find("ROC_GLOBAL_CU_MASK"), std::string::npos) << *global;
  const auto hsa = cu_masking::readback_caveat(1, false, true);
  ASSERT_TRUE(hsa);
  EXPECT_NE(hsa->find("HSA_CU_MASK"), std::string::npos) << *hsa;
  // Bits are CUs but HIP counts WGPs (before 5.7): the read-back is cut to half the bits.
  EXPECT_TRUE(cu_masking::readback_caveat(2, false, false));
}

TEST(PartitionRequests, KTwoKFourKThatFitThenTwoOfK) {
  cu_masking::PartitionRules h200{132, 8, 8, "green contexts"};
  EXPECT_EQ(cu_masking::partition_requests(h200, 8),
            (std::vector<std::vector<int>>{{8}, {16}, {32}, {8, 8}}));
  // 4k no longer fits: 40 x 4 = 160 > 132; 2k = 80 does.
  EXPECT_EQ(cu_masking::partition_requests(h200, 40),
            (std::vector<std::vector<int>>{{40}, {80}, {40, 40}}));
  // NVIDIA rounds a request up before it is compared: 66 is granted as 72, 2 x 66 as 136.
  EXPECT_EQ(cu_masking::partition_requests(h200, 66),
            (std::vector<std::vector<int>>{{66}, {66, 66}}));
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

}  // namespace

TEST(PartitionTrace, BlocksWithinTheGrantPass) {
  const hip_lessons::Schedule schedule({block(0, 0, 5, 0, 10), block(0, 1, 6, 0, 10),
                                        block(0, 2, 5, 10, 20), block(1, 0, 9, 0, 10)});
  const cu_masking::UnitsSeen a = cu_masking::units_seen(schedule, 0, 2);
  const cu_masking::UnitsSeen b = cu_masking::units_seen(schedule, 1, 1);
  EXPECT_EQ(a.distinct, 2u);
  EXPECT_FALSE(a.first_past_grant);
  EXPECT_EQ(b.distinct, 1u);
  EXPECT_FALSE(b.first_past_grant);
  EXPECT_FALSE(cu_masking::first_shared_unit(schedule));
}

TEST(PartitionTrace, TheFirstBlockPastTheGrantIsNamed) {
  // In time: unit 5 at 0, unit 6 at 2, unit 7 at 3 (the third unit of a 2-unit grant), 8 at 4.
  const hip_lessons::Schedule schedule(
      {block(1, 3, 8, 4, 9), block(1, 0, 5, 0, 9), block(1, 2, 7, 3, 9), block(1, 1, 6, 2, 9)});
  const cu_masking::UnitsSeen two = cu_masking::units_seen(schedule, 1, 2);
  EXPECT_EQ(two.distinct, 4u);
  ASSERT_TRUE(two.first_past_grant);
  EXPECT_EQ(two.first_past_grant->rfind("k block 2 (launch 1) on unit 7", 0), 0u)
      << *two.first_past_grant;
  EXPECT_FALSE(cu_masking::units_seen(schedule, 1, 4).first_past_grant);
}

TEST(PartitionTrace, TheFirstBlockOnASharedUnitIsNamed) {
  const hip_lessons::Schedule schedule(
      {block(0, 0, 1, 0, 5), block(1, 0, 2, 1, 5), block(1, 1, 3, 2, 5), block(0, 1, 3, 3, 5)});
  // A third stream's blocks share nothing with streams 0 and 1 by being there.
  const hip_lessons::Schedule apart(
      {block(0, 0, 1, 0, 5), block(1, 0, 2, 0, 5), block(2, 0, 1, 0, 5), block(2, 1, 2, 0, 5)});
  const std::optional<std::string> shared = cu_masking::first_shared_unit(schedule);
  ASSERT_TRUE(shared);
  // Stream 1's block 1 ran on unit 3 first, at 2 us.
  EXPECT_EQ(*shared, "k block 1 (launch 1) on unit 3, 2.0-5.0 us");
  EXPECT_FALSE(cu_masking::first_shared_unit(apart));
}
