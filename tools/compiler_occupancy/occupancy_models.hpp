/// \file tools/compiler_occupancy/occupancy_models.hpp
/// \brief Occupancy on AMD as the compiler and the hardware count it, which no lesson binary
/// computes (lesson 04 follows HIP's runtime: lessons/04_occupancy/occupancy_calculator.hpp):
/// - LLVM 19's (compiler_waves_per_simd): the "Occupancy [waves/SIMD]" that clang 19's
///   -Rpass-analysis=kernel-resource-usage prints, which compiler_occupancy_check.hip compares
///   kernel by kernel;
/// - the hardware's (hardware_waves_per_simd): LLVM's register rules, with gfx9's SGPRs charged
///   in granules of 16 plus the 16 that ROCm's trap handler reserves in every wave, which LLVM
///   19's SGPR table leaves out;
/// - HIP's SGPR charge, which hipFuncAttributes cannot give the lesson, by source
///   (hip_sgpr_waves), and HIP's answer from a compiler report (hip_blocks_per_cu).
/// Host code only: test_occupancy_models.hip checks it without a GPU.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>

#include "occupancy_calculator.hpp"

namespace compiler_occupancy {

using occupancy::ceil_div;
using occupancy::round_up;

/// What the compiler reports about one kernel for one AMD target: the
/// -Rpass-analysis=kernel-resource-usage remark ("SGPRs", "VGPRs", "AGPRs",
/// "LDS Size [bytes/block]") and the code object's .max_flat_workgroup_size (1024 unless
/// __launch_bounds__ says less).
struct KernelResources {
  int sgprs = 0;                       ///< SGPRs, with those that VCC, flat scratch and XNACK take
  int vgprs = 0;                       ///< architected VGPRs
  int agprs = 0;                       ///< accumulation VGPRs (CDNA: gfx908 and later)
  std::size_t lds = 0;                 ///< static LDS bytes per workgroup
  int max_flat_workgroup_size = 1024;  ///< the largest block the kernel was compiled for
};

/// Where a kernel's AGPRs live.
enum class AgprFile {
  kNone,      ///< no AGPRs (GCN, RDNA)
  kSeparate,  ///< gfx908: a second file of 256 per lane; the larger of the two counts limits
  kUnified,   ///< gfx90a and later: one file of 512 per lane, AGPRs after the VGPRs rounded to 4
};

/// The residency rules of one set of AMD targets as LLVM's AMDGPU backend models them (what
/// "Occupancy [waves/SIMD]" is computed from), and the LDS HIP's runtime divides.
struct AmdArch {
  const char* name;           ///< "gfx1100": the target the row is named (and was checked) by
  const char* targets;        ///< every target with these rules, "gfx1100, gfx1151, ..."
  const char* gpus;           ///< products, for tables
  int wave_size;              ///< the wavefront size HIP compiles for (wave32 on gfx10+)
  int simds_per_cu;           ///< SIMDs sharing a workgroup's waves (per WGP on RDNA)
  int max_waves_per_simd;     ///< wave slots per SIMD
  int vgprs_per_simd;         ///< VGPRs per lane of one SIMD, at wave_size
  int vgpr_granule;           ///< VGPRs are allocated in units of this many
  AgprFile agprs;             ///< where AGPRs live
  bool sgprs_shared;          ///< gfx9: waves share 800 SGPRs; gfx10+: each has its own
  std::size_t lds_per_cu;     ///< LDS the resident workgroups share (per WGP on RDNA)
  int workgroups_per_cu;      ///< workgroups of more than one wave (barriers)
  std::size_t group_segment;  ///< the LDS HIP's runtime divides (ROCr's group segment)
};

/// The rules, with their sources (docs/pages/amd_targets.md, Sources): LLVM 19.1.7 (Debian's
/// clang-19), checked kernel by kernel by the tools.compiler_occupancy.* tests; gfx950 is
/// unknown to LLVM 19, so its row comes from the LLVM sources that added it (LDS 160 KiB) and is
/// not compiler-checked here. RDNA rows are for WGP mode, HIP's default (-mcumode halves SIMDs,
/// LDS and the workgroup cap).
inline const AmdArch kAmdArchs[] = {
    // name, targets, products, wave, SIMDs, waves, VGPRs, granule, AGPRs, shared SGPRs,
    // LDS per CU, workgroups per CU, HIP's LDS
    {"gfx906", "gfx906", "MI50, MI60, Radeon VII (Vega 20)", 64, 4, 10, 256, 4, AgprFile::kNone,
     true, 64 << 10, 16, 64 << 10},
    {"gfx908", "gfx908", "MI100 (CDNA)", 64, 4, 10, 256, 4, AgprFile::kSeparate, true, 64 << 10, 16,
     64 << 10},
    {"gfx90a", "gfx90a", "MI210, MI250, MI250X (CDNA2)", 64, 4, 8, 512, 8, AgprFile::kUnified, true,
     64 << 10, 16, 64 << 10},
    {"gfx942", "gfx942", "MI300X, MI300A, MI325X (CDNA3)", 64, 4, 8, 512, 8, AgprFile::kUnified,
     true, 64 << 10, 16, 64 << 10},
    {"gfx950", "gfx950", "MI350X, MI355X (CDNA4)", 64, 4, 8, 512, 8, AgprFile::kUnified, true,
     160 << 10, 16, 160 << 10},
    {"gfx1030", "gfx1030", "RDNA2 (Navi 21)", 32, 4, 16, 1024, 16, AgprFile::kNone, false,
     128 << 10, 32, 64 << 10},
    {"gfx1100", "gfx1100, gfx1151, gfx1200, gfx1201",
     "Radeon RX 7900 (RDNA3), Radeon 8060S (RDNA3.5), RX 9060 and 9070 (RDNA4)", 32, 4, 16, 1536,
     24, AgprFile::kNone, false, 128 << 10, 32, 64 << 10},
};

/// The rules of \p target (gcnArchName without its feature suffixes), or nullptr.
inline const AmdArch* amd_arch(const std::string& target) {
  for (const AmdArch& a : kAmdArchs) {
    const std::string targets = std::string(", ") + a.targets + ",";
    if (targets.find(", " + target + ",") != std::string::npos) return &a;
  }
  return nullptr;
}

/// The VGPRs a wave takes from the SIMD's file (AgprFile): the code object's .vgpr_count, which
/// hipFuncAttributes::numRegs reports (LLVM getTotalNumVGPRs).
inline int unified_vgprs(const AmdArch& a, const KernelResources& k) {
  if (a.agprs == AgprFile::kSeparate) return std::max(k.vgprs, k.agprs);
  if (a.agprs == AgprFile::kNone || k.agprs == 0) return k.vgprs;
  return static_cast<int>(round_up(k.vgprs, 4)) + k.agprs;
}

/// Waves per SIMD that \p vgprs allow (LLVM getNumWavesPerEUWithNumVGPRs; the hardware's too).
inline int waves_by_vgprs(const AmdArch& a, int vgprs) {
  if (vgprs < a.vgpr_granule) return a.max_waves_per_simd;
  const int allocated = static_cast<int>(round_up(vgprs, a.vgpr_granule));
  return std::min(std::max(a.vgprs_per_simd / allocated, 1), a.max_waves_per_simd);
}

/// Waves per SIMD that \p sgprs allow in LLVM 19's table (getOccupancyWithNumSGPRs for
/// VOLCANIC_ISLANDS and later: steps at 80, 88 and 100, not the hardware's rule); from gfx10
/// each wave slot has its own SGPRs.
inline int llvm19_waves_by_sgprs(const AmdArch& a, int sgprs) {
  if (!a.sgprs_shared) return a.max_waves_per_simd;
  const int waves = sgprs <= 80 ? 10 : sgprs <= 88 ? 9 : sgprs <= 100 ? 8 : 7;
  return std::min(waves, a.max_waves_per_simd);
}

/// SGPRs a wave takes on gfx9 for the trap handler when it is enabled, as it is under ROCm
/// (LLVM IsaInfo::TRAP_NUM_SGPRS; the amdhsa OS implies +trap-handler).
constexpr int kTrapHandlerSgprs = 16;

/// Waves per SIMD that \p sgprs allow on the hardware under ROCm: gfx9's 800 SGPRs over the
/// count rounded up to the granule of 16 plus the trap handler's 16 (LLVM getMaxNumSGPRs;
/// llvm-project PR 201342; measured on gfx942 in rocm-systems PR 10618).
inline int hardware_waves_by_sgprs(const AmdArch& a, int sgprs) {
  if (!a.sgprs_shared) return a.max_waves_per_simd;
  const int per_wave = static_cast<int>(round_up(sgprs, 16)) + kTrapHandlerSgprs;
  return std::min(800 / per_wave, a.max_waves_per_simd);
}

/// Waves per SIMD that the workgroup size and LDS allow, assuming every workgroup has the
/// kernel's largest size (LLVM 19 getOccupancyWithLocalMemSize and getMaxWorkGroupsPerCU): a
/// CU holds at most workgroups_per_cu workgroups of several waves (one wave each: as many as
/// it has wave slots), and as many as its LDS holds; their waves spread over the SIMDs.
/// Even without LDS this can be below the wave slots: a 1024-thread workgroup is 16 waves of
/// 64, and gfx906's 40 slots hold two of them, 8 waves per SIMD, not 10.
inline int waves_by_workgroups(const AmdArch& a, const KernelResources& k) {
  const int waves_per_group = ceil_div(k.max_flat_workgroup_size, a.wave_size);
  const int slots = a.max_waves_per_simd * a.simds_per_cu;
  const int by_waves =
      waves_per_group == 1 ? slots : std::min(slots / waves_per_group, a.workgroups_per_cu);
  const std::size_t by_lds = a.lds_per_cu / std::max<std::size_t>(k.lds, 1);
  if (by_lds == 0) return 1;  // more LDS than a CU has: the compiler assumes the worst
  const int groups = static_cast<int>(std::min<std::size_t>(by_lds, by_waves));
  return std::min(ceil_div(groups * waves_per_group, a.simds_per_cu), a.max_waves_per_simd);
}

/// LLVM 19's occupancy of a kernel: the "Occupancy [waves/SIMD]" of its
/// -Rpass-analysis=kernel-resource-usage remark (GCNSubtarget::computeOccupancy), the smallest
/// of the wave slots, the VGPRs, LLVM 19's SGPR table, and the workgroup size with LDS.
inline int compiler_waves_per_simd(const AmdArch& a, const KernelResources& k) {
  return std::min({a.max_waves_per_simd, waves_by_vgprs(a, unified_vgprs(a, k)),
                   llvm19_waves_by_sgprs(a, k.sgprs), waves_by_workgroups(a, k)});
}

/// Waves per SIMD the hardware holds by registers under ROCm (the workgroups come on top:
/// blocks_per_cu).
inline int hardware_waves_per_simd(const AmdArch& a, const KernelResources& k) {
  return std::min(waves_by_vgprs(a, unified_vgprs(a, k)), hardware_waves_by_sgprs(a, k.sgprs));
}

/// Workgroups of \p block threads resident on one CU (WGP) when each SIMD holds
/// \p waves_per_simd of the kernel's waves: at most the workgroup cap (workgroups of more than
/// one wave) and what the LDS per CU holds.
inline int blocks_per_cu(const AmdArch& a, const KernelResources& k, int block,
                         int waves_per_simd) {
  const int waves_per_block = ceil_div(block, a.wave_size);
  int blocks = a.simds_per_cu * waves_per_simd / waves_per_block;
  if (waves_per_block > 1) blocks = std::min(blocks, a.workgroups_per_cu);
  if (k.lds > 0) blocks = std::min(blocks, static_cast<int>(a.lds_per_cu / k.lds));
  return blocks;
}

/// Workgroups the hardware keeps resident on one CU under ROCm.
inline int hardware_blocks_per_cu(const AmdArch& a, const KernelResources& k, int block) {
  return blocks_per_cu(a, k, block, hardware_waves_per_simd(a, k));
}

/// Which SGPR charge a HIP source makes.
enum class HipSgprCharge {
  kGranuleOnly,  ///< HIP up to 6.2 (and the development branch up to 2026-08-24): alignUp(n, 16)
  kTrapReserve,  ///< rocm-systems PR 10618 (merged 2026-08-24): alignUp(n, 16) + 16
};

/// Waves per SIMD that HIP's runtime lets \p sgprs allow (occupancy::kUnlimited on gfx10+, whose
/// waves have their own SGPRs): its 800 per SIMD over the charge.
inline int hip_sgpr_waves(const AmdArch& a, int sgprs, HipSgprCharge charge) {
  if (!a.sgprs_shared || sgprs <= 0) return occupancy::kUnlimited;
  const int reserve = charge == HipSgprCharge::kTrapReserve ? kTrapHandlerSgprs : 0;
  return 800 / (static_cast<int>(round_up(sgprs, 16)) + reserve);
}

/// HIP's answer (hipOccupancyMaxActiveBlocksPerMultiprocessor) for a compiler-reported kernel
/// at \p block threads, with \p model's VGPR file and \p charge for SGPRs: HIP takes the smallest
/// of its wave counts before it turns waves into blocks, so the SGPR limit is a minimum on top.
inline int hip_blocks_per_cu(const occupancy::HipAmdModel& model, const AmdArch& a,
                             const KernelResources& k, int block, HipSgprCharge charge) {
  const occupancy::Prediction p = model.predict(unified_vgprs(a, k), k.lds, block, 1024);
  const int threads_per_block = static_cast<int>(round_up(block, model.wave_size));
  const long long sgpr_waves = hip_sgpr_waves(a, k.sgprs, charge);
  const long long by_sgprs = model.simds_per_cu * model.wave_size * sgpr_waves / threads_per_block;
  return static_cast<int>(std::min<long long>(p.blocks, by_sgprs));
}

}  // namespace compiler_occupancy
