/// \file tools/amd_models/test_xcd_dispatch.cpp
/// \brief Unit tests of xcd_dispatch.hpp: round-robin XCD dispatch in SPX mode and the tile
/// renumbering of ROCm/aiter's remap_xcd and remap_xcd_chunked (golden tables computed from
/// that source at commit 06d5be57), including the tail when the grid is not a multiple of 8.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "xcd_dispatch.hpp"

using amd_models::kMi300Xcds;
using amd_models::xcd_chunked_tile;
using amd_models::xcd_group_of_workgroup;
using amd_models::xcd_local_tile;

namespace {

std::vector<int> tiles(int grid, int chunk = 0) {
  std::vector<int> t;
  for (int wg = 0; wg < grid; ++wg) {
    t.push_back(chunk ? xcd_chunked_tile(wg, grid, chunk) : xcd_local_tile(wg, grid));
  }
  return t;
}

}  // namespace

TEST(XcdDispatch, WorkgroupsGoRoundRobinOverTheEightXcds) {
  for (int wg = 0; wg < 24; ++wg) EXPECT_EQ(xcd_group_of_workgroup(wg), wg % 8) << wg;
  EXPECT_EQ(xcd_group_of_workgroup(303), 7);
  EXPECT_EQ(xcd_group_of_workgroup(5, 4), 1);  // a DPX half of the device: 4 XCDs
  EXPECT_THROW(xcd_group_of_workgroup(-1), std::invalid_argument);
  EXPECT_THROW(xcd_group_of_workgroup(0, 0), std::invalid_argument);
}

TEST(XcdDispatch, RemapGivesEachXcdAContiguousRangeOfTiles) {
  // 16 workgroups: XCD x runs workgroups x and x + 8, which compute tiles 2x and 2x + 1.
  EXPECT_EQ(tiles(16), (std::vector<int>{0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15}));
  for (int wg = 0; wg < 16; ++wg) {
    EXPECT_EQ(xcd_local_tile(wg, 16) / 2, xcd_group_of_workgroup(wg)) << wg;
  }
}

TEST(XcdDispatch, RemapTailWhenTheGridIsNotAMultipleOfTheXcds) {
  // 20 workgroups: XCDs 0-3 ("tall") run 3, XCDs 4-7 run 2. XCD 0 computes tiles 0-2, XCD 3
  // 9-11, XCD 4 12-13, XCD 7 18-19.
  EXPECT_EQ(tiles(20), (std::vector<int>{0, 3,  6,  9,  12, 14, 16, 18, 1, 4,
                                         7, 10, 13, 15, 17, 19, 2,  5,  8, 11}));
  // Every grid: each tile computed exactly once, and each XCD's tiles are consecutive.
  for (int grid = 1; grid <= 400; ++grid) {
    std::vector<int> t = tiles(grid);
    std::vector<int> sorted = t;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> expected(grid);
    std::iota(expected.begin(), expected.end(), 0);
    ASSERT_EQ(sorted, expected) << "grid " << grid;
    for (int wg = kMi300Xcds; wg < grid; ++wg) {
      ASSERT_EQ(t[wg], t[wg - kMi300Xcds] + 1) << "grid " << grid << ", workgroup " << wg;
    }
  }
  EXPECT_THROW(xcd_local_tile(20, 20), std::invalid_argument);
  EXPECT_THROW(xcd_local_tile(0, 0), std::invalid_argument);
}

TEST(XcdDispatch, ChunkedRemapAndItsPartialLastRound) {
  // Chunks of 2: XCD 0 computes tiles 0, 1, then 16, 17.
  EXPECT_EQ(tiles(32, 2),
            (std::vector<int>{0,  2,  4,  6,  8,  10, 12, 14, 1,  3,  5,  7,  9,  11, 13, 15,
                              16, 18, 20, 22, 24, 26, 28, 30, 17, 19, 21, 23, 25, 27, 29, 31}));
  // 20 workgroups: one full round of 16, then workgroups 16-19 keep their numbers.
  EXPECT_EQ(tiles(20, 2), (std::vector<int>{0, 2, 4, 6,  8,  10, 12, 14, 1,  3,
                                            5, 7, 9, 11, 13, 15, 16, 17, 18, 19}));
  for (int grid = 1; grid <= 300; ++grid) {
    std::vector<int> sorted = tiles(grid, 4);
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < grid; ++i) ASSERT_EQ(sorted[i], i) << "grid " << grid;
  }
  EXPECT_THROW(xcd_chunked_tile(0, 16, 0), std::invalid_argument);
}
