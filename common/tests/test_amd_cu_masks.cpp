/// \file common/tests/test_amd_cu_masks.cpp
/// \brief Unit tests of amd_cu_masks.hpp, rule by rule, with hand-computed answers. The same
/// rules are checked against models of the kernel driver and of HIP on every GPU shape the
/// lessons name in tools/amd_models/test_amd_cu_mask_rules.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hip_lessons/amd_cu_masks.hpp"
#include "hip_lessons/errors.hpp"

using hip_lessons::AmdMaskDevice;
using hip_lessons::cu_mask_problem;
using hip_lessons::cu_mask_range;
using hip_lessons::CuMask;
using hip_lessons::hip_counts_wgps;
using hip_lessons::mask_layout;
using hip_lessons::MaskLayout;
using hip_lessons::plan_partitions;
using hip_lessons::UsageError;

namespace {

constexpr int kHip52 = 50200000, kHip56 = 50600000, kHip57 = 50731921, kHip62 = 60200000;

// The first \p count words of \p mask, as hipExtStreamCreateWithCUMask reads them.
std::vector<std::uint32_t> first_words(const CuMask& mask, std::size_t count) {
  return {mask.words.begin(), mask.words.begin() + count};
}

AmdMaskDevice device(const char* arch, int units, int hip_version = kHip62, bool wgp = false,
                     int xccs = 1) {
  return {arch, hip_version, wgp, units, xccs, std::nullopt};
}

}  // namespace

TEST(CuMask, OneBitPerUnitThirtyTwoPerWord) {
  CuMask mask;
  for (const int bit : {0, 31, 32, 65}) mask.set(bit);
  EXPECT_EQ(first_words(mask, 4), (std::vector<std::uint32_t>{0x80000001u, 0x1u, 0x2u, 0u}));
  EXPECT_TRUE(mask.has(65));
  EXPECT_FALSE(mask.has(64));
  EXPECT_EQ(mask.count(), 4);
  EXPECT_EQ(mask.ids(), "0,31-32,65");
  EXPECT_EQ(CuMask{}.ids(), "none");
  const CuMask across = cu_mask_range(30, 4);  // crosses the word boundary
  EXPECT_EQ(first_words(across, 2), (std::vector<std::uint32_t>{0xc0000000u, 0x3u}));
  EXPECT_EQ(across.ids(), "30-33");
}

TEST(ParseCuList, ListsAndTheirRefusals) {
  EXPECT_EQ(hip_lessons::parse_cu_list("--cu-mask", "0-7"), cu_mask_range(0, 8));
  EXPECT_EQ(hip_lessons::parse_cu_list("--cu-mask", "0-15,32-47").count(), 32);
  EXPECT_EQ(hip_lessons::parse_cu_list("--cu-mask", "2047").ids(), "2047");
  for (const char* bad : {"", "zz", "0xff", "7-3", "0-3,", "0-2048"}) {
    try {
      hip_lessons::parse_cu_list("--cu-mask", bad);
      ADD_FAILURE() << "'" << bad << "' was taken";
    } catch (const UsageError& error) {
      EXPECT_EQ(std::string(error.what()).rfind("--cu-mask '" + std::string(bad) + "'", 0), 0u)
          << error.what();
    }
  }
}

TEST(HipCountsWgps, ParsedAsHipParsesABoolFlag) {
  // Unset: on. Set: strcmp(v, "true") == 0 || atoi(v) != 0; from ROCm 5.5 an empty value reaches
  // HIP as " ", which is neither; up to 5.4 an empty value left the default (on).
  for (const int version : {kHip62, 50500000}) {
    EXPECT_TRUE(hip_counts_wgps(nullptr, version));
    for (const char* on : {"true", "1", "2", "-1", " 1", "1abc"}) {
      EXPECT_TRUE(hip_counts_wgps(on, version)) << "'" << on << "' " << version;
    }
    for (const char* off : {"", " ", "0", "false", "TRUE", "True", "yes", "abc", "0x1"}) {
      EXPECT_FALSE(hip_counts_wgps(off, version)) << "'" << off << "' " << version;
    }
  }
  EXPECT_TRUE(hip_counts_wgps("", kHip52));
  EXPECT_TRUE(hip_counts_wgps("", 50400000));
}

TEST(AmdXccCount, FromTheAttributeElseFromTheCusPerXcd) {
  using hip_lessons::amd_xcc_count;
  EXPECT_EQ(amd_xcc_count("gfx942", 304, std::nullopt), 8);            // MI300X, MI325X in SPX
  EXPECT_EQ(amd_xcc_count("gfx942", 228, std::nullopt), 6);            // MI300A
  EXPECT_EQ(amd_xcc_count("gfx942", 152, std::nullopt), 4);            // MI300X in DPX
  EXPECT_EQ(amd_xcc_count("gfx942", 38, std::nullopt), 1);             // CPX: one XCC per device
  EXPECT_EQ(amd_xcc_count("gfx950", 256, std::nullopt), 8);            // MI350X, MI355X
  EXPECT_EQ(amd_xcc_count("gfx942", 80, std::nullopt), std::nullopt);  // not 38 per XCD
  EXPECT_EQ(amd_xcc_count("gfx942", 80, 4), 4);                        // HIP 7.0 says so
  EXPECT_EQ(amd_xcc_count("gfx90a", 104, std::nullopt), 1);
  EXPECT_EQ(amd_xcc_count("gfx1100", 48, std::nullopt), 1);
}

TEST(HipGlobalCuMask, ReadAsHipReadsIt) {
  using hip_lessons::hip_global_cu_mask;
  // 104 CUs (MI210): HIP reads up to 26 hex digits from the end.
  EXPECT_EQ(hip_global_cu_mask("0xff00", 104, false)->ids(), "8-15");
  EXPECT_EQ(hip_global_cu_mask("FF00", 104, false)->ids(), "8-15");
  EXPECT_EQ(hip_global_cu_mask("0x1" + std::string(8, '0'), 104, false)->ids(), "32");
  // Dropped: no CU, every CU, unreadable.
  EXPECT_FALSE(hip_global_cu_mask("0x0", 104, false));
  EXPECT_FALSE(hip_global_cu_mask("0x" + std::string(26, 'f'), 104, false));
  EXPECT_FALSE(hip_global_cu_mask("zz", 104, false));
  // Digits past the device's are ignored: 40 CUs read 10 digits, so the leading 1 is dropped.
  EXPECT_EQ(hip_global_cu_mask("0x1f0000000ff", 40, false)->ids(), "0-7,36-39");
  // Under 32 CUs HIP's first chunk has a negative length and std::string::substr throws inside
  // HIP (the process ends at start-up): nothing here.
  EXPECT_FALSE(hip_global_cu_mask("0xf", 8, false));
  // WGP mode: 48 units read as 96 CUs' worth of digits (24), each bit a WGP (N8's 0xffff).
  EXPECT_EQ(hip_global_cu_mask("0xffff", 48, true)->ids(), "0-15");
  // 304 CUs: 76 digits, and HIP's last chunk is 68 digits long. A 76-digit mask still reads
  // right; a 100-digit one puts 28 digits in that chunk, and std::stoul overflows inside HIP
  // (nothing here).
  EXPECT_EQ(hip_global_cu_mask("0x1" + std::string(75, '0'), 304, false)->ids(), "300");
  EXPECT_FALSE(hip_global_cu_mask("0x1" + std::string(99, '0'), 304, false));
  EXPECT_EQ(hip_global_cu_mask("0xff", 304, false)->ids(), "0-7");
}

TEST(MaskLayout, CdnaOneBitPerCuAndOneShareOfEveryXcc) {
  for (const int version : {kHip52, kHip57, kHip62}) {
    const MaskLayout mi210 = mask_layout(device("gfx90a", 104, version));
    EXPECT_EQ(mi210.bits, 104);
    EXPECT_EQ(mi210.bits_per_unit, 1);
    EXPECT_EQ(mi210.cus_per_bit, 1);
    EXPECT_EQ(mi210.partition_step(), 1);
    const MaskLayout mi300x = mask_layout(device("gfx942", 304, version, false, 8));
    EXPECT_EQ(mi300x.partition_step(), 8);
    EXPECT_NE(mi300x.rule.find("XCC b mod 8"), std::string::npos) << mi300x.rule;
  }
  EXPECT_THROW(mask_layout({"gfx942", kHip62, false, 80, std::nullopt, std::nullopt}),
               hip_lessons::SkipError);
}

TEST(MaskLayout, RdnaFollowsTheHipReleaseAndTheWgpMode) {
  // 5.7 and later, WGP mode: one bit per WGP (HIP sets both CUs).
  const MaskLayout wgp = mask_layout(device("gfx1100", 48, kHip57, true));
  EXPECT_EQ(wgp.bits, 48);
  EXPECT_EQ(wgp.cus_per_bit, 2);
  EXPECT_EQ(wgp.bits_per_unit, 1);
  EXPECT_EQ(wgp.partition_step(), 1);
  EXPECT_EQ(wgp.unit, "WGP");
  // Before 5.7, WGP mode: bits are CUs, two per WGP, in pairs.
  const MaskLayout old_wgp = mask_layout(device("gfx1030", 40, kHip56, true));
  EXPECT_EQ(old_wgp.bits, 80);
  EXPECT_EQ(old_wgp.bits_per_unit, 2);
  EXPECT_EQ(old_wgp.bit_granularity, 2);
  EXPECT_EQ(old_wgp.partition_step(), 1);
  // WGP mode off: CUs, in pairs on every release (ROCr 4.5-5.2 accepted half a WGP, but the
  // driver enables the whole WGP for either bit).
  for (const int version : {kHip52, kHip62}) {
    const MaskLayout cu_mode = mask_layout(device("gfx1100", 96, version, false));
    EXPECT_EQ(cu_mode.bit_granularity, 2);
    EXPECT_EQ(cu_mode.partition_step(), 2);
  }
}

TEST(CuMaskProblem, EachRuleNamesWhatIsWrong) {
  const auto says = [](const AmdMaskDevice& d, const CuMask& mask, const std::string& text) {
    const auto problem = cu_mask_problem(d, mask);
    ASSERT_TRUE(problem) << mask.ids() << " should be refused for " << text;
    EXPECT_NE(problem->find(text), std::string::npos) << *problem;
  };
  const AmdMaskDevice mi210 = device("gfx90a", 104);
  EXPECT_FALSE(cu_mask_problem(mi210, cu_mask_range(0, 1)));  // one CU: fine on one XCC
  says(mi210, CuMask{}, "no compute unit");
  says(mi210, cu_mask_range(100, 5), "bit 104");
  const AmdMaskDevice rx7900_cu_mode = device("gfx1100", 96, kHip62, false);
  EXPECT_FALSE(cu_mask_problem(rx7900_cu_mode, cu_mask_range(2, 4)));
  says(rx7900_cu_mode, cu_mask_range(1, 2), "only part of bits 0-1");
  const AmdMaskDevice mi300x = device("gfx942", 304, kHip62, false, 8);
  EXPECT_FALSE(cu_mask_problem(mi300x, cu_mask_range(0, 8)));  // one CU on each XCC
  CuMask every_eighth;
  for (int bit = 0; bit < 64; bit += 8) every_eighth.set(bit);
  says(mi300x, every_eighth, "XCC 1 no CU");  // all on XCC 0: the queue would hang
  says(mi300x, cu_mask_range(0, 7), "XCC 7 no CU");
  AmdMaskDevice global = mi210;
  global.global_mask = cu_mask_range(8, 8);
  EXPECT_FALSE(cu_mask_problem(global, cu_mask_range(8, 4)));
  says(global, cu_mask_range(0, 4), "outside ROC_GLOBAL_CU_MASK");
}

TEST(PlanPartitions, DisjointEqualSharesOfEveryXccAndTheRest) {
  const auto plan = plan_partitions(device("gfx90a", 60), {8, 8}, true);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].ids(), "0-7");
  EXPECT_EQ(plan[1].ids(), "8-15");
  EXPECT_EQ(plan[2].ids(), "16-59");
  // MI300X: 16 CUs = 2 on each XCC, the next partition the next 2 of each.
  const auto mi300x = plan_partitions(device("gfx942", 304, kHip62, false, 8), {16, 8});
  EXPECT_EQ(mi300x[0].ids(), "0-15");
  EXPECT_EQ(mi300x[1].ids(), "16-23");
  // Inside a global mask: its bits, in order.
  AmdMaskDevice global = device("gfx90a", 104);
  global.global_mask = hip_lessons::hip_global_cu_mask("0xf0f0", 104, false);
  const auto inside = plan_partitions(global, {4, 4}, true);
  EXPECT_EQ(inside[0].ids(), "4-7");
  EXPECT_EQ(inside[1].ids(), "12-15");
  EXPECT_EQ(inside[2].count(), 0);
  // CU mode on RDNA: 6 CUs are 3 whole WGPs.
  EXPECT_EQ(plan_partitions(device("gfx1100", 96, kHip62, false), {6})[0].ids(), "0-5");
}

TEST(PlanPartitions, RefusalsNameTheRuleAndTheNearestValidSize) {
  const auto refusal = [](const AmdMaskDevice& d, std::vector<int> sizes) {
    try {
      plan_partitions(d, sizes);
    } catch (const UsageError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  const AmdMaskDevice mi300x = device("gfx942", 304, kHip62, false, 8);
  const std::string five = refusal(mi300x, {5});
  EXPECT_NE(five.find("multiples of 8 CUs"), std::string::npos) << five;
  EXPECT_NE(five.find("nearest valid size is 8"), std::string::npos) << five;
  EXPECT_NE(refusal(mi300x, {13}).find("nearest valid size is 16"), std::string::npos);
  const std::string odd = refusal(device("gfx1100", 96, kHip62, false), {7});
  EXPECT_NE(odd.find("multiples of 2 CUs"), std::string::npos) << odd;
  const std::string big = refusal(device("gfx90a", 104), {64, 64});
  EXPECT_NE(big.find("do not fit in this device's 104 CUs"), std::string::npos) << big;
}

TEST(CuIds, HipBitsBecomeTheDriversCusAndAnHsaCuMaskValue) {
  const AmdMaskDevice rx7900 = device("gfx1100", 48, kHip62, true);
  EXPECT_EQ(hip_lessons::cu_ids_of(rx7900, cu_mask_range(0, 4)).ids(), "0-7");
  EXPECT_EQ(hip_lessons::cu_ids_of(rx7900, cu_mask_range(6, 1)).ids(), "12-13");
  const AmdMaskDevice mi210 = device("gfx90a", 104);
  EXPECT_EQ(hip_lessons::cu_ids_of(mi210, cu_mask_range(8, 96)).ids(), "8-103");
  EXPECT_EQ(hip_lessons::hsa_cu_mask_value(1, cu_mask_range(8, 96)), "1:8-103");
  EXPECT_EQ(hip_lessons::units_of(device("gfx1030", 40, kHip56, true), cu_mask_range(0, 8)), 4);
}
