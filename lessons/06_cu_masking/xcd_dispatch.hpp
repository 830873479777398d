/// \file lessons/06_cu_masking/xcd_dispatch.hpp
/// \brief Chiplets: which XCD a workgroup runs on, and the renumbering that keeps neighbouring
/// tiles on one XCD (and so in one L2).
///
/// MI300X and MI325X (gfx942) have 8 accelerator complex dies (XCDs, "XCCs" in the driver and
/// in __smid()), 38 active CUs each; MI350X and MI355X (gfx950) 8 of 32. In SPX mode the GPU is
/// one device and the command processor hands out the workgroups of a dispatch round-robin over
/// the XCDs: workgroup k runs on XCD k mod 8. Each XCD has its own L2, so tiles 0, 1, 2, ... of
/// a GEMM land in 8 different L2s. Kernels that want neighbouring tiles to share an L2 renumber
/// their workgroups (ROCm/aiter remap_xcd): the hardware still sends workgroup k to XCD k mod 8,
/// but the kernel computes tile xcd_local_tile(k) instead of tile k, so each XCD gets one
/// contiguous range of tiles. In CPX mode each XCD is a device of its own and none of this
/// applies. Host code only (test_xcd_dispatch.cpp); nothing here was run on an MI300.
#pragma once

#include <stdexcept>

#include "hip_lessons/format.hpp"

namespace cu_masking {

/// XCDs of one SPX device: MI300X, MI325X (gfx942) and MI350X, MI355X (gfx950).
inline constexpr int kMi300Xcds = 8;

/// Compute units per XCD: 38 on MI300X and MI325X (304 in all), 32 on MI350X and MI355X (256).
inline constexpr int kMi300xCusPerXcd = 38;
inline constexpr int kMi355xCusPerXcd = 32;

namespace detail {
inline void require_positive(int value, const char* what) {
  if (value <= 0) {
    throw std::invalid_argument(hip_lessons::format("{} must be positive, got {}", what, value));
  }
}
inline void require_workgroup(int workgroup, int grid) {
  if (workgroup < 0 || workgroup >= grid) {
    throw std::invalid_argument(
        hip_lessons::format("workgroup {} is outside a grid of {}", workgroup, grid));
  }
}
}  // namespace detail

/// The XCD that workgroup \p workgroup (the flat workgroup id, x fastest) of a dispatch runs on
/// in SPX mode: round-robin, k mod \p xcds.
inline int xcd_of_workgroup(int workgroup, int xcds = kMi300Xcds) {
  detail::require_positive(xcds, "the XCD count");
  if (workgroup < 0) throw std::invalid_argument("a workgroup id is never negative");
  return workgroup % xcds;
}

/// The tile that workgroup \p workgroup of a \p grid -workgroup dispatch should compute so that
/// each XCD gets one contiguous range of tiles (ROCm/aiter remap_xcd). XCD x receives the
/// workgroups x, x + X, x + 2X, ... (X = \p xcds) and computes tiles x * per_xcd, x * per_xcd + 1,
/// ... in that order. When the grid is not a multiple of X, the first grid % X XCDs receive
/// ceil(grid / X) workgroups and the others one fewer: the ranges shrink by one after the
/// "tall" XCDs, and every tile is still computed exactly once.
inline int xcd_local_tile(int workgroup, int grid, int xcds = kMi300Xcds) {
  detail::require_positive(grid, "the grid");
  detail::require_positive(xcds, "the XCD count");
  detail::require_workgroup(workgroup, grid);
  const int per_xcd = (grid + xcds - 1) / xcds;  // the tall XCDs' share
  const int tall = grid % xcds == 0 ? xcds : grid % xcds;
  const int xcd = workgroup % xcds, position = workgroup / xcds;
  if (xcd < tall) return xcd * per_xcd + position;
  return tall * per_xcd + (xcd - tall) * (per_xcd - 1) + position;
}

/// The chunked variant (ROCm/aiter remap_xcd_chunked): each XCD takes \p chunk consecutive
/// tiles at a time, round after round; the workgroups of the last, partial round of
/// X * \p chunk keep their own number.
inline int xcd_chunked_tile(int workgroup, int grid, int chunk, int xcds = kMi300Xcds) {
  detail::require_positive(grid, "the grid");
  detail::require_positive(chunk, "the chunk");
  detail::require_positive(xcds, "the XCD count");
  detail::require_workgroup(workgroup, grid);
  const int round = xcds * chunk;
  if (workgroup >= grid / round * round) return workgroup;
  const int xcd = workgroup % xcds, position = workgroup / xcds;
  return position / chunk * round + xcd * chunk + position % chunk;
}

}  // namespace cu_masking
