/// \file tools/amd_models/test_cu_mask_map.cpp
/// \brief Unit tests of cu_mask_map.hpp: the kernel driver's symmetric CU-mask map (golden
/// tables from the examples in the comment of mqd_symmetrically_map_cu_mask, ROCm/amdgpu
/// drivers/gpu/drm/amd/amdkfd/kfd_mqd_manager.c at 6cdb8618), its consequences for the masks
/// 0-7 and 0,8,16,..., and the __smid() encodings of ROCm/clr's amd_device_functions.h.
#include <gtest/gtest.h>

#include <numeric>
#include <set>
#include <stdexcept>
#include <vector>

#include "cu_mask_map.hpp"

using amd_models::CuLocation;
using amd_models::driver_bits_of_hip_bit;
using amd_models::driver_cu_mask_map;
using amd_models::GpuTopology;
using amd_models::smid_of;

namespace {

// Example shapes. The driver only uses the counts of active CUs per array; a real GPU's come
// from its harvest (rocminfo prints the SE and SA counts).
GpuTopology one_xcc(int engines, int arrays, int cus, bool pairs = false) {
  return {"example", 1, engines, arrays, std::vector<int>(engines * arrays, cus), pairs};
}

// MI300X in SPX mode: 8 XCCs of 4 SEs (the __smid() SE field is 2 bits on gfx942) and 38
// active CUs; which arrays lost their 2 CUs differs from chip to chip: 10, 10, 9, 9 here.
GpuTopology mi300x_spx() { return {"MI300X SPX", 8, 4, 1, {10, 10, 9, 9}, false}; }

}  // namespace

TEST(CuMaskMap, OneArrayPerEngineFourEnginesAsTheDriverCommentSays) {
  const std::vector<CuLocation> map = driver_cu_mask_map(one_xcc(4, 1, 4));
  ASSERT_EQ(map.size(), 16u);
  EXPECT_EQ(map[0], (CuLocation{0, 0, 0, 0}));  // bit0 -> se_mask[0] bit0
  EXPECT_EQ(map[1], (CuLocation{0, 1, 0, 0}));  // bit1 -> se_mask[1] bit0
  EXPECT_EQ(map[4], (CuLocation{0, 0, 0, 1}));  // bit4 -> se_mask[0] bit1
}

TEST(CuMaskMap, TwoArraysPerEngineFourEnginesAsTheDriverCommentSays) {
  const std::vector<CuLocation> map = driver_cu_mask_map(one_xcc(4, 2, 2));
  EXPECT_EQ(map[0], (CuLocation{0, 0, 0, 0}));  // SE0, SH0, CU0
  EXPECT_EQ(map[1], (CuLocation{0, 1, 0, 0}));  // SE1, SH0, CU0
  EXPECT_EQ(map[4], (CuLocation{0, 0, 1, 0}));  // SE0, SH1, CU0
  EXPECT_EQ(map[5], (CuLocation{0, 1, 1, 0}));  // SE1, SH1, CU0
  EXPECT_EQ(map[8], (CuLocation{0, 0, 0, 1}));  // SE0, SH0, CU1
}

TEST(CuMaskMap, EveryActiveCuGetsExactlyOneBit) {
  for (const GpuTopology& gpu : {one_xcc(8, 1, 13), mi300x_spx(), one_xcc(4, 2, 8, true)}) {
    const std::vector<CuLocation> map = driver_cu_mask_map(gpu);
    std::set<std::vector<int>> cus;
    for (const CuLocation& c : map) cus.insert({c.xcc, c.se, c.sa, c.cu});
    const int step = gpu.wgp_pairs ? 2 : 1;
    const int active = std::accumulate(gpu.active_cus.begin(), gpu.active_cus.end(), 0);
    EXPECT_EQ(static_cast<int>(cus.size()) * step, gpu.xccs * active);
  }
  EXPECT_EQ(driver_cu_mask_map(mi300x_spx()).size(), 304u);
}

// MI300X, SPX: XCC x reads bits x, x + 8, x + 16, ... (the driver comment's "bit n+1 -> XCC0
// SE1" for n XCCs is one off: with XCCs 0..n-1 it is bit n, as the loop does).
TEST(CuMaskMap, Mi300xFirstEightBitsSpreadOverTheEightXcds) {
  const std::vector<CuLocation> map = driver_cu_mask_map(mi300x_spx());
  for (int bit = 0; bit < 8; ++bit) EXPECT_EQ(map[bit], (CuLocation{bit, 0, 0, 0})) << bit;
}

TEST(CuMaskMap, Mi300xEveryEighthBitLandsOnXcd0SpreadOverItsEngines) {
  const std::vector<CuLocation> map = driver_cu_mask_map(mi300x_spx());
  // 0, 8, 16, 24: XCC0's four SEs; 32: back to SE0, the next CU. Not SE0 only.
  EXPECT_EQ(map[0], (CuLocation{0, 0, 0, 0}));
  EXPECT_EQ(map[8], (CuLocation{0, 1, 0, 0}));
  EXPECT_EQ(map[16], (CuLocation{0, 2, 0, 0}));
  EXPECT_EQ(map[24], (CuLocation{0, 3, 0, 0}));
  EXPECT_EQ(map[32], (CuLocation{0, 0, 0, 1}));
  std::set<int> engines;
  for (int bit = 0; bit < 304; bit += 8) {
    EXPECT_EQ(map[bit].xcc, 0) << bit;
    engines.insert(map[bit].se);
  }
  EXPECT_EQ(engines.size(), 4u);
  // SEs 2 and 3 have 9 CUs: after CU 8 of every SE, bits 288 and 296 go to SE0 and SE1's CU 9.
  EXPECT_EQ(map[288], (CuLocation{0, 0, 0, 9}));
  EXPECT_EQ(map[296], (CuLocation{0, 1, 0, 9}));
}

TEST(CuMaskMap, SingleXccWhoseEngineCountDividesEightPutsEveryEighthBitOnSe0) {
  for (const int engines : {1, 2, 4, 8}) {
    const std::vector<CuLocation> map = driver_cu_mask_map(one_xcc(engines, 1, 16));
    for (int bit = 0; bit < engines * 16; bit += 8) {
      EXPECT_EQ(map[bit].se, 0) << engines << " SEs, bit " << bit;
    }
  }
  // ... and bits 0-7 over the SEs (MI210-like: 8 SEs of 13 CUs).
  const std::vector<CuLocation> mi210 = driver_cu_mask_map(one_xcc(8, 1, 13));
  for (int bit = 0; bit < 8; ++bit) EXPECT_EQ(mi210[bit], (CuLocation{0, bit, 0, 0})) << bit;
  // With 6 SEs (8 not a multiple), 0, 8, 16 spread: SE0, SE2, SE4.
  const std::vector<CuLocation> six = driver_cu_mask_map(one_xcc(6, 1, 16));
  EXPECT_EQ(six[8].se, 2);
  EXPECT_EQ(six[16].se, 4);
}

TEST(CuMaskMap, RdnaCusComeInPairsSpreadEngineFirstThenArray) {
  // gfx1100-like: 6 SEs x 2 SAs x 8 CUs (4 WGPs per array), 96 CUs.
  const std::vector<CuLocation> map = driver_cu_mask_map(one_xcc(6, 2, 8, true));
  ASSERT_EQ(map.size(), 96u);
  EXPECT_EQ(map[0], (CuLocation{0, 0, 0, 0}));
  EXPECT_EQ(map[1], map[0]);                     // either bit of a pair enables both CUs
  EXPECT_EQ(map[2], (CuLocation{0, 1, 0, 0}));   // pair 1: SE1
  EXPECT_EQ(map[12], (CuLocation{0, 0, 1, 0}));  // pair 6: SE0, SA1
  EXPECT_EQ(map[24], (CuLocation{0, 0, 0, 2}));  // pair 12: SE0, SA0, the next WGP (CUs 2, 3)
  // HIP (5.7 and later, WGP mode) turns stream-mask bit b into driver bits 2b and 2b + 1.
  EXPECT_EQ(driver_bits_of_hip_bit(6, true), (std::vector<int>{12, 13}));
  EXPECT_EQ(driver_bits_of_hip_bit(6, false), (std::vector<int>{6}));
  EXPECT_EQ(map[driver_bits_of_hip_bit(12, true)[0]], (CuLocation{0, 0, 0, 2}));
  // 48 WGPs: HIP bit 48 is driver bit 96, beyond the 96 CUs, and the driver ignores it.
  EXPECT_FALSE(amd_models::cu_of_driver_bit(map, driver_bits_of_hip_bit(48, true)[0]));
  EXPECT_EQ(amd_models::cu_of_driver_bit(map, 95), map[95]);
}

TEST(CuMaskMap, RejectsTopologiesTheDriverCannotMap) {
  EXPECT_THROW(driver_cu_mask_map({"no arrays", 1, 2, 1, {4}, false}), std::invalid_argument);
  EXPECT_THROW(driver_cu_mask_map({"17 CUs", 1, 1, 1, {17}, false}), std::invalid_argument);
  EXPECT_THROW(driver_bits_of_hip_bit(-1, true), std::invalid_argument);
}

TEST(Smid, EncodingPerArchitecture) {
  // gfx942/gfx950: XCC (4 bits) . SE (2) . CU (4).
  EXPECT_EQ(smid_of("gfx942", {3, 2, 0, 7}), (3u << 6) | (2u << 4) | 7u);
  EXPECT_EQ(smid_of("gfx950", {7, 3, 0, 15}), 511u);
  // gfx9 before: SE . CU, no XCC and no SA (two arrays' CUs can share a value).
  EXPECT_EQ(smid_of("gfx90a", {0, 5, 0, 12}), 92u);
  EXPECT_EQ(smid_of("gfx906", {0, 1, 1, 3}), smid_of("gfx906", {0, 1, 0, 3}));
  // RDNA: SE . SA . WGP, and in CU mode (gfx10/gfx11) the CU of the WGP.
  EXPECT_EQ(smid_of("gfx1100", {0, 3, 1, 6}), (7u << 4) | 3u);
  EXPECT_EQ(smid_of("gfx1100", {0, 3, 1, 7}, true), (((7u << 4) | 3u) << 1) | 1u);
  EXPECT_EQ(smid_of("gfx1201", {0, 3, 1, 7}, true), (7u << 4) | 3u);
  EXPECT_THROW(smid_of("gfx803", {}), std::invalid_argument);
}
