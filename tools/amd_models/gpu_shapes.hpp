/// \file tools/amd_models/gpu_shapes.hpp
/// \brief The AMD GPUs the lessons name, as the kernel driver (GpuTopology) and as HIP
/// (AmdMaskDevice) see them: every mask rule is tested on each. Counts of active CUs per
/// shader array are the driver's whole input; where a product's harvest pattern is not
/// published, the one used here is marked as assumed (any pattern with the same totals tests
/// the same rules).
#pragma once

#include <string>
#include <vector>

#include "cu_mask_map.hpp"
#include "hip_lessons/amd_cu_masks.hpp"

namespace amd_models {

/// One GPU: its driver topology and the HIP side of it.
struct GpuShape {
  GpuTopology topology;
  std::string arch;  ///< gcnArchName up to ':'
  /// CUs of the device; HIP reports them as physical units (WGPs in WGP mode: half).
  int cus() const;
  /// The device as HIP \p hip_version sees it with GPU_ENABLE_WGP_MODE = \p wgp_mode (gfx10+), XCCs
  /// from the arch (as a HIP before 7.0 would) and no ROC_GLOBAL_CU_MASK.
  hip_lessons::AmdMaskDevice device(int hip_version, bool wgp_mode = true) const;
};

inline int GpuShape::cus() const {
  int per_xcc = 0;
  for (const int n : topology.active_cus) per_xcc += n;
  return per_xcc * topology.xccs;
}

inline hip_lessons::AmdMaskDevice GpuShape::device(int hip_version, bool wgp_mode) const {
  const bool rdna = topology.wgp_pairs;
  const int units = rdna && wgp_mode ? cus() / 2 : cus();
  return {arch,
          hip_version,
          rdna && wgp_mode,
          units,
          hip_lessons::amd_xcc_count(arch, units, std::nullopt),
          std::nullopt};
}

/// The shapes every mask test covers. SE and SA counts as rocminfo prints them for these parts;
/// CUs per array from the products' CU counts.
inline const std::vector<GpuShape>& gpu_shapes() {
  static const std::vector<GpuShape> shapes = {
      // MI300X (gfx942), SPX: 8 XCCs of 4 SEs, 38 of 40 CUs active per XCC (which arrays lost
      // the 2 differs from chip to chip: 10, 10, 9, 9 here). CPX: one XCC per device.
      {{"MI300X SPX", 8, 4, 1, {10, 10, 9, 9}, false}, "gfx942"},
      {{"MI300X CPX", 1, 4, 1, {10, 10, 9, 9}, false}, "gfx942"},
      // MI300A (gfx942): 6 XCCs of 38 CUs (228).
      {{"MI300A SPX", 6, 4, 1, {10, 9, 10, 9}, false}, "gfx942"},
      // MI250X, one GCD (gfx90a): 110 CUs over 8 SEs (14 x 6 + 13 x 2, assumed).
      {{"MI250X GCD", 1, 8, 1, {14, 14, 14, 14, 14, 14, 13, 13}, false}, "gfx90a"},
      // MI210 (gfx90a): 104 CUs, 8 SEs of 13.
      {{"MI210", 1, 8, 1, std::vector<int>(8, 13), false}, "gfx90a"},
      // MI100 (gfx908): 120 CUs, 8 SEs of 15.
      {{"MI100", 1, 8, 1, std::vector<int>(8, 15), false}, "gfx908"},
      // RX 7900 XTX (gfx1100): 96 CUs (48 WGPs), 6 SEs x 2 SAs x 4 WGPs.
      {{"RX 7900 XTX", 1, 6, 2, std::vector<int>(12, 8), true}, "gfx1100"},
      // RX 9070 (gfx1201): 56 CUs (28 WGPs) of Navi 48's 64; one WGP off per SE (assumed).
      {{"RX 9070", 1, 4, 2, {8, 6, 8, 6, 8, 6, 8, 6}, true}, "gfx1201"},
      // A harvested RDNA2 (gfx1030), RX 6800 XT: 72 of 80 CUs, one WGP off per SA pair
      // (assumed), so the arrays are uneven.
      {{"RX 6800 XT (harvested RDNA2)", 1, 4, 2, {10, 8, 10, 8, 10, 8, 10, 8}, true}, "gfx1030"},
  };
  return shapes;
}

}  // namespace amd_models
