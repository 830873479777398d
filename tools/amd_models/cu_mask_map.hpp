/// \file tools/amd_models/cu_mask_map.hpp
/// \brief Which compute unit each CU-mask bit enables: the kernel driver's symmetric map
/// (amdkfd's mqd_symmetrically_map_cu_mask, explained in the README), and what __smid() reports
/// on each architecture. Host code only (test_cu_mask_map.cpp), from the sources, not a GPU.
#pragma once

#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "hip_lessons/format.hpp"

namespace amd_models {

/// The shape of one device as the driver sees it, for one XCC (all XCCs alike).
struct GpuTopology {
  std::string name;           ///< for tables: "MI300X (gfx942), SPX"
  int xccs = 1;               ///< XCCs in one device (driver node): 8 for MI300X in SPX, 1 in CPX
  int shader_engines = 1;     ///< per XCC
  int arrays_per_engine = 1;  ///< shader arrays (SH) per SE
  /// Active CUs of each array, SE-major (index se * arrays_per_engine + sa); harvested CUs are
  /// missing from the count, which is all the driver uses.
  std::vector<int> active_cus;
  bool wgp_pairs = false;  ///< gfx10 and later: CUs are enabled two at a time (one WGP)
};

/// One CU (for a WGP, its first CU; the second is cu + 1).
struct CuLocation {
  int xcc = 0, se = 0, sa = 0, cu = 0;
  friend bool operator==(const CuLocation& a, const CuLocation& b) {
    return a.xcc == b.xcc && a.se == b.se && a.sa == b.sa && a.cu == b.cu;
  }
};

/// Element i: the CU that bit i of a driver CU mask enables, for every bit the driver reads
/// (one per active CU). The driver's loop, once per XCC x: i starts at x and grows by
/// (pairs ? 2 : 1) * xccs; for cu = 0, 1, ... (in steps of 2 with pairs), for each SA, for each
/// SE whose SA has more than cu active CUs, bit i (with pairs also i + 1) goes to (x, se, sa, cu).
inline std::vector<CuLocation> driver_cu_mask_map(const GpuTopology& gpu) {
  if (gpu.xccs <= 0 || gpu.shader_engines <= 0 || gpu.arrays_per_engine <= 0 ||
      static_cast<int>(gpu.active_cus.size()) != gpu.shader_engines * gpu.arrays_per_engine) {
    throw std::invalid_argument("the topology needs positive counts and one CU count per array");
  }
  const int step = gpu.wgp_pairs ? 2 : 1;
  const int bits = gpu.xccs * std::accumulate(gpu.active_cus.begin(), gpu.active_cus.end(), 0);
  std::vector<CuLocation> map(bits, CuLocation{-1, -1, -1, -1});  // -1: not reached yet
  for (int xcc = 0; xcc < gpu.xccs; ++xcc) {
    int bit = xcc;
    for (int cu = 0; cu < 16 && bit < bits; cu += step) {  // the driver's 16 CUs per array
      for (int sa = 0; sa < gpu.arrays_per_engine && bit < bits; ++sa) {
        for (int se = 0; se < gpu.shader_engines && bit < bits; ++se) {
          if (gpu.active_cus[se * gpu.arrays_per_engine + sa] <= cu) continue;
          for (int b = bit; b < bit + step && b < bits; ++b) map[b] = {xcc, se, sa, cu};
          bit += step * gpu.xccs;
        }
      }
    }
  }
  for (int b = 0; b < bits; ++b) {
    if (map[b].xcc >= 0) continue;
    throw std::invalid_argument(hip_lessons::format(
        "{}: bit {} reaches no CU (more than 16 CUs in an array, or XCCs with pairs)", gpu.name,
        b));
  }
  return map;
}

/// The CU that driver mask bit \p bit enables; nothing at or past the device's active CUs,
/// which the driver ignores (it clamps the mask's length).
inline std::optional<CuLocation> cu_of_driver_bit(const std::vector<CuLocation>& map, int bit) {
  if (bit < 0 || bit >= static_cast<int>(map.size())) return std::nullopt;
  return map[bit];
}

/// The driver bits that bit \p bit of a HIP stream mask becomes: itself, or on gfx10+ with HIP
/// counting WGPs (GPU_ENABLE_WGP_MODE, the default) since HIP 5.7 the pair 2 * bit, 2 * bit + 1
/// (ROCm/clr rocdevice.cpp, Device::acquireQueue).
inline std::vector<int> driver_bits_of_hip_bit(int bit, bool hip_converts_to_wgp_pairs) {
  if (bit < 0) throw std::invalid_argument("a mask bit is never negative");
  return hip_converts_to_wgp_pairs ? std::vector<int>{2 * bit, 2 * bit + 1} : std::vector<int>{bit};
}

/// What __smid() returns for a wave on \p location (ROCm/clr amd_device_functions.h, __smid);
/// \p cu_mode is -mcumode (RDNA only). On gfx9 the SA is not part of the value: two arrays' CUs
/// can share one. Throws for an architecture the header does not decode the same way.
inline unsigned smid_of(const std::string& arch, const CuLocation& location, bool cu_mode = false) {
  const auto u = [](int v) { return static_cast<unsigned>(v); };
  const bool gfx12 = arch.rfind("gfx12", 0) == 0;
  if (arch == "gfx940" || arch == "gfx941" || arch == "gfx942" || arch == "gfx950") {
    return (u(location.xcc) << 6) | (u(location.se) << 4) | u(location.cu);  // XCC 4, SE 2, CU 4
  }
  if (arch.rfind("gfx10", 0) == 0 || arch.rfind("gfx11", 0) == 0 || gfx12) {
    // SE (2 bits on gfx10, 3 on gfx11, 4 on gfx12), SA (1), WGP (4), and in CU mode the CU
    // within the WGP (1 bit; gfx10/gfx11 only).
    const unsigned value = (((u(location.se) << 1) | u(location.sa)) << 4) | u(location.cu) / 2;
    return cu_mode && !gfx12 ? (value << 1) | (u(location.cu) % 2) : value;
  }
  // SE (3 bits on gfx908/gfx90a, 2 before), CU (4 bits); no SA, no XCC.
  if (arch.rfind("gfx9", 0) == 0) return (u(location.se) << 4) | u(location.cu);
  throw std::invalid_argument("no __smid() decoding for " + arch);
}

}  // namespace amd_models
