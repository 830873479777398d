/// \file lessons/04_occupancy/amd_residency.hpp
/// \brief Host-only facts of lesson 04 about AMD hardware, apart from HIP's model of it: an
/// arch's ISA version, the waves a SIMD holds in hardware, and so what step 4 may see of HIP's
/// answer on one traced unit. Tested in test_occupancy_calculator.hip and, on every GPU of the
/// simulated fleet, in tools/amd_models/test_amd_fleet.cpp.
#pragma once

#include <algorithm>
#include <optional>
#include <string>

#include "hip_lessons/format.hpp"

namespace occupancy {
namespace hl = hip_lessons;

/// SIMDs of one gfx9 CU (GCN and CDNA).
inline constexpr int kGfx9SimdsPerCu = 4;

/// An AMD target's ISA version as HIP's runtime compares it: gfx90a is 9.0.10, gfx1151 11.5.1.
struct IsaVersion {
  int major = 0, minor = 0, stepping = 0;
};

/// The ISA version of \p arch ("gfx90a"), or nothing when it is not a gfx target name. The
/// last two characters are the minor version and the stepping, in hex.
inline std::optional<IsaVersion> isa_version(const std::string& arch) {
  const std::size_t size = arch.size(), minor_at = size - 2;
  if (arch.rfind("gfx", 0) != 0 || size < 6 || size > 7 ||
      arch.find_first_not_of("0123456789", 3) < minor_at ||
      arch.find_first_not_of("0123456789abcdef", minor_at) != std::string::npos)
    return std::nullopt;
  return IsaVersion{std::stoi(arch.substr(3, minor_at - 3)),
                    std::stoi(arch.substr(minor_at, 1), nullptr, 16),
                    std::stoi(arch.substr(minor_at + 1), nullptr, 16)};
}

/// Waves one SIMD holds in the hardware of \p isa, as LLVM's AMDGPU backend counts them
/// (llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp, getMaxWavesPerEU, LLVM 17 to 19: "if
/// (isGFX90A(*STI)) return 8; if (!isGFX10Plus(*STI)) return 10; return hasGFX10_3Insts(*STI)
/// ? 16 : 20;"): 8 on gfx90a, gfx94x and gfx950 (the gfx90a instructions), 10 on the other gfx9
/// and older, 20 on gfx10.1, 16 from gfx10.3. HIP counts 8 on every gfx9 (HipAmdModel).
inline int hardware_waves_per_simd(IsaVersion isa) {
  const bool gfx90a_insts =
      isa.major == 9 && (isa.minor >= 4 || (isa.minor == 0 && isa.stepping >= 10));
  if (gfx90a_insts) return 8;
  if (isa.major <= 9) return 10;
  return isa.major == 10 && isa.minor < 3 ? 20 : 16;
}

/// What step 4 may see, on one traced unit, of \p predicted resident blocks of \p block threads
/// (hipOccupancyMaxActiveBlocksPerMultiprocessor) on \p arch, or why it cannot judge.
struct ResidencyBound {
  int least = 0, most = 0;
  std::string note;                 ///< why most > least, for the check's detail
  std::optional<std::string> skip;  ///< why the trace cannot be compared with the API
  bool holds(int measured) const { return least <= measured && measured <= most; }
};

/// Where the hardware's wave slots equal HIP's (gfx90a and later CDNA, NVIDIA), exactly
/// \p predicted. On gfx900-gfx908 (MI50, MI60, Radeon VII, MI100) the hardware holds 10 waves
/// per SIMD where HIP counts 8, so a unit may hold more: up to the blocks 4 SIMDs of 10 waves
/// fit, and never fewer than HIP's answer. RDNA (gfx10+) is not judged: the traced unit is a
/// WGP unless built with -mcumode, and GPU_ENABLE_WGP_MODE changes what the API counts.
inline ResidencyBound residency_bound(const std::string& arch, int predicted, int block,
                                      int wave_size) {
  ResidencyBound bound{predicted, predicted, "", std::nullopt};
  const std::optional<IsaVersion> isa = isa_version(arch);
  if (!isa) return bound;  // NVIDIA: the API's model is the hardware's
  if (isa->major >= 10) {
    bound.skip =
        "on RDNA the traced unit is a WGP (two CUs) unless built with -mcumode, and "
        "GPU_ENABLE_WGP_MODE changes the CUs and slots the API counts";
    return bound;
  }
  const int hip_waves = 8, hardware = hardware_waves_per_simd(*isa);
  if (hardware > hip_waves && block > 0 && wave_size > 0) {
    const int waves_per_block = (block + wave_size - 1) / wave_size;
    bound.most = std::max(predicted, kGfx9SimdsPerCu * hardware / waves_per_block);
    bound.note =
        hl::format(" (the hardware holds {} waves per SIMD where HIP counts {}: {} to {} allowed)",
                   hardware, hip_waves, bound.least, bound.most);
  }
  return bound;
}

}  // namespace occupancy
