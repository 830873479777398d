/// \file tools/amd_models/xcd_dispatch.hpp
/// \brief Chiplets (docs/pages/amd_targets.md, "Chiplets"): which workgroups share an XCD in SPX
/// mode, and ROCm/aiter's renumbering that keeps neighbouring tiles on one XCD, so in one L2 (in
/// CPX mode each XCD is a device). Host code only (test_xcd_dispatch.cpp), not run on an MI300.
#pragma once

#include <stdexcept>

#include "hip_lessons/format.hpp"

namespace amd_models {

/// XCDs of one SPX device: MI300X, MI325X (gfx942) and MI350X, MI355X (gfx950).
inline constexpr int kMi300Xcds = 8;

/// Throws std::invalid_argument unless 0 <= \p workgroup < \p grid and \p xcds, \p chunk > 0.
inline void require_dispatch(int workgroup, long long grid, int xcds, int chunk = 1) {
  if (workgroup < 0 || workgroup >= grid || xcds <= 0 || chunk <= 0) {
    throw std::invalid_argument(hip_lessons::format(
        "workgroup {} of a grid of {} on {} XCDs in chunks of {}: the workgroup must lie in the "
        "grid, the counts be positive",
        workgroup, grid, xcds, chunk));
  }
}

/// The XCD group of \p workgroup (the flat id, x fastest) in SPX mode: round-robin, so
/// workgroups k and k + X run on the same XCD. Which physical XCD a group is on is not
/// documented (amdkfd starts each queue on the next XCC), so this is a label, k mod X.
inline int xcd_group_of_workgroup(int workgroup, int xcds = kMi300Xcds) {
  require_dispatch(workgroup, workgroup + 1LL, xcds);
  return workgroup % xcds;
}

/// The tile that \p workgroup of a \p grid -workgroup dispatch computes so that each XCD gets
/// one contiguous range: XCD x receives workgroups x, x + X, ... (X = \p xcds) and computes
/// tiles x * per_xcd, x * per_xcd + 1, ... When X does not divide the grid, the first grid % X
/// ("tall") XCDs receive one workgroup more, and the later ranges are one tile shorter.
inline int xcd_local_tile(int workgroup, int grid, int xcds = kMi300Xcds) {
  require_dispatch(workgroup, grid, xcds);
  const int per_xcd = (grid + xcds - 1) / xcds;  // the tall XCDs' share
  const int tall = grid % xcds == 0 ? xcds : grid % xcds;
  const int xcd = workgroup % xcds, position = workgroup / xcds;
  return xcd * per_xcd - (xcd > tall ? xcd - tall : 0) + position;  // 1 less per short XCD before
}

/// The chunked variant (remap_xcd_chunked): each XCD takes \p chunk consecutive tiles at a
/// time; the workgroups of the last, partial round of X * \p chunk keep their own number.
inline int xcd_chunked_tile(int workgroup, int grid, int chunk, int xcds = kMi300Xcds) {
  require_dispatch(workgroup, grid, xcds, chunk);
  const int round = xcds * chunk;
  if (workgroup >= grid / round * round) return workgroup;
  const int xcd = workgroup % xcds, position = workgroup / xcds;
  return position / chunk * round + xcd * chunk + position % chunk;
}

}  // namespace amd_models
