/// \file lessons/04_occupancy/occupancy_calculator.hpp
/// \brief Lesson 04's own occupancy calculator: resident blocks per CU from the device's
/// budgets and a kernel's attributes, for the architectures whose rules were checked.
///
/// Two models, because on AMD they differ:
/// - what the runtime answers (Calculator::predict, max_potential): hipOccupancy* on either
///   platform, which main.hip compares with every answer;
/// - what the compiler and the hardware do (compiler_waves_per_simd, hardware_blocks_per_cu):
///   clang's -Rpass-analysis=kernel-resource-usage "Occupancy [waves/SIMD]", which the
///   lesson04.compiler_occupancy.* tests compare kernel by kernel.
/// Host code only, no HIP call: test_occupancy_calculator.hip checks it without a GPU.
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>

#include "hip_lessons/format.hpp"
#include "hip_lessons/platform.hpp"

namespace occupancy {

namespace hl = hip_lessons;

/// A budget that does not limit the block count.
constexpr int kUnlimited = INT_MAX;

inline int ceil_div(int a, int b) { return (a + b - 1) / b; }
inline std::size_t round_up(std::size_t value, std::size_t unit) {
  return (value + unit - 1) / unit * unit;
}

/// The per-CU (per-SM) budgets of the device. Optional ones are not reported everywhere.
struct Limits {
  std::string arch;  // gcnArchName without feature suffixes: "gfx90a", "sm_90"
  int major = 0, minor = 0;
  int compute_units = 0, warp_size = 0;
  int max_threads_per_cu = 0, max_threads_per_block = 0, regs_per_block = 0;
  std::size_t shared_per_cu = 0, shared_per_block = 0;
  std::optional<int> regs_per_cu, max_blocks_per_cu, reserved_shared_per_block;
};

/// Resident blocks per CU allowed by each budget (nothing: it does not limit), the smallest
/// of them, and the budgets that set it: "slots", "slots + block cap".
struct Prediction {
  std::optional<int> by_slots, by_registers, by_shared, by_block_cap;  // slots: warp (wave) slots
  int blocks = 0;
  std::string limiter;
};

inline Prediction finish(Prediction p, int block, int max_block) {
  const std::pair<std::optional<int>, const char*> parts[] = {{p.by_slots, "slots"},
                                                              {p.by_registers, "registers"},
                                                              {p.by_shared, "shared memory"},
                                                              {p.by_block_cap, "block cap"}};
  p.blocks = block > max_block ? 0 : kUnlimited;
  for (const auto& part : parts) p.blocks = std::min(p.blocks, part.first.value_or(kUnlimited));
  for (const auto& [value, label] : parts)
    if (value == p.blocks) p.limiter += (p.limiter.empty() ? "" : " + ") + std::string(label);
  return p;
}

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

/// The residency rules of one AMD architecture. The first group is the hardware as the
/// compiler models it (LLVM's AMDGPU backend: what "Occupancy [waves/SIMD]" is computed from);
/// the last two fields are where the HIP runtime's own model (hipOccupancy*) differs.
struct AmdArch {
  const char* name;            ///< "gfx942"
  const char* gpus;            ///< products, for tables
  int wave_size;               ///< the wavefront size HIP compiles for (wave32 on gfx10+)
  int simds_per_cu;            ///< SIMDs sharing a workgroup's waves (per WGP on RDNA)
  int max_waves_per_simd;      ///< wave slots per SIMD
  int vgprs_per_simd;          ///< VGPRs per lane of one SIMD, at wave_size
  int vgpr_granule;            ///< VGPRs are allocated in units of this many
  AgprFile agprs;              ///< where AGPRs live
  bool sgprs_shared;           ///< gfx9: waves share 800 SGPRs; gfx10+: each has its own
  std::size_t lds_per_cu;      ///< LDS the resident workgroups share (per WGP on RDNA)
  int workgroups_per_cu;       ///< workgroups of more than one wave (barriers)
  int hip_max_waves_per_simd;  ///< the runtime counts 8 on gfx9, 16 on gfx10+
  std::size_t hip_lds_per_cu;  ///< the runtime divides the group segment size
};

/// The architectures the calculator models, with their sources (lesson 04's README, Sources):
/// LLVM 19.1.7 (Debian's clang-19) for the compiler's rules, checked kernel by kernel by the
/// lesson04.compiler_occupancy.* tests; gfx950 is unknown to LLVM 19, so its row comes from
/// the LLVM sources that added it (LDS 160 KiB) and is not compiler-checked here. RDNA rows
/// are for WGP mode, HIP's default (-mcumode halves SIMDs, LDS and the workgroup cap).
inline const AmdArch kAmdArchs[] = {
    // name, products, wave, SIMDs, waves, VGPRs, granule, AGPRs, shared SGPRs, LDS per CU,
    // workgroups per CU; HIP runtime: waves, LDS per CU
    {"gfx906", "MI50, MI60, Radeon VII (Vega 20)", 64, 4, 10, 256, 4, AgprFile::kNone, true,
     64 << 10, 16, 8, 64 << 10},
    {"gfx908", "MI100 (CDNA)", 64, 4, 10, 256, 4, AgprFile::kSeparate, true, 64 << 10, 16, 8,
     64 << 10},
    {"gfx90a", "MI210, MI250, MI250X (CDNA2)", 64, 4, 8, 512, 8, AgprFile::kUnified, true, 64 << 10,
     16, 8, 64 << 10},
    {"gfx942", "MI300X, MI325X (CDNA3)", 64, 4, 8, 512, 8, AgprFile::kUnified, true, 64 << 10, 16,
     8, 64 << 10},
    {"gfx950", "MI350X, MI355X (CDNA4)", 64, 4, 8, 512, 8, AgprFile::kUnified, true, 160 << 10, 16,
     8, 160 << 10},
    {"gfx1030", "RDNA2 (Navi 21)", 32, 4, 16, 1024, 16, AgprFile::kNone, false, 128 << 10, 32, 16,
     64 << 10},
    {"gfx1100", "Radeon RX 7900 (RDNA3)", 32, 4, 16, 1536, 24, AgprFile::kNone, false, 128 << 10,
     32, 16, 64 << 10},
    {"gfx1151", "Radeon 8060S, Strix Halo (RDNA3.5)", 32, 4, 16, 1536, 24, AgprFile::kNone, false,
     128 << 10, 32, 16, 64 << 10},
    {"gfx1200", "Radeon RX 9060 (RDNA4)", 32, 4, 16, 1536, 24, AgprFile::kNone, false, 128 << 10,
     32, 16, 64 << 10},
    {"gfx1201", "Radeon RX 9070 (RDNA4)", 32, 4, 16, 1536, 24, AgprFile::kNone, false, 128 << 10,
     32, 16, 64 << 10},
};

/// The rules of \p arch (gcnArchName without its feature suffixes), or nullptr.
inline const AmdArch* amd_arch(const std::string& arch) {
  for (const AmdArch& a : kAmdArchs)
    if (arch == a.name) return &a;
  return nullptr;
}

/// The VGPRs a wave takes from the SIMD's file (AgprFile): the code object's .vgpr_count, which
/// hipFuncAttributes::numRegs reports (LLVM getTotalNumVGPRs).
inline int unified_vgprs(const AmdArch& a, const KernelResources& k) {
  if (a.agprs == AgprFile::kSeparate) return std::max(k.vgprs, k.agprs);
  if (a.agprs == AgprFile::kNone || k.agprs == 0) return k.vgprs;
  return static_cast<int>(round_up(k.vgprs, 4)) + k.agprs;
}

/// Waves per SIMD that \p vgprs allow (LLVM getNumWavesPerEUWithNumVGPRs).
inline int waves_by_vgprs(const AmdArch& a, int vgprs) {
  if (vgprs < a.vgpr_granule) return a.max_waves_per_simd;
  const int allocated = static_cast<int>(round_up(vgprs, a.vgpr_granule));
  return std::min(std::max(a.vgprs_per_simd / allocated, 1), a.max_waves_per_simd);
}

/// Waves per SIMD that \p sgprs allow: gfx9's table (LLVM getOccupancyWithNumSGPRs for
/// VOLCANIC_ISLANDS and later: 800 SGPRs, but the steps are the table's, not 800 / count);
/// from gfx10 each wave slot has its own SGPRs.
inline int waves_by_sgprs(const AmdArch& a, int sgprs) {
  if (!a.sgprs_shared) return a.max_waves_per_simd;
  const int waves = sgprs <= 80 ? 10 : sgprs <= 88 ? 9 : sgprs <= 100 ? 8 : 7;
  return std::min(waves, a.max_waves_per_simd);
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

/// The compiler's occupancy of a kernel: the "Occupancy [waves/SIMD]" of its
/// -Rpass-analysis=kernel-resource-usage remark (LLVM GCNSubtarget::computeOccupancy), the
/// smallest of the wave slots, the VGPRs, the SGPRs, and the workgroup size with LDS.
inline int compiler_waves_per_simd(const AmdArch& a, const KernelResources& k) {
  return std::min({a.max_waves_per_simd, waves_by_vgprs(a, unified_vgprs(a, k)),
                   waves_by_sgprs(a, k.sgprs), waves_by_workgroups(a, k)});
}

/// Workgroups of \p block threads the hardware keeps resident on one CU (WGP), by the
/// compiler's rules: waves per SIMD from the registers, LDS per CU, and the workgroup cap.
inline int hardware_blocks_per_cu(const AmdArch& a, const KernelResources& k, int block) {
  const int waves_per_block = ceil_div(block, a.wave_size);
  const int waves = std::min(waves_by_vgprs(a, unified_vgprs(a, k)), waves_by_sgprs(a, k.sgprs));
  int blocks = a.simds_per_cu * waves / waves_per_block;
  if (waves_per_block > 1) blocks = std::min(blocks, a.workgroups_per_cu);
  if (k.lds > 0) blocks = std::min(blocks, static_cast<int>(a.lds_per_cu / k.lds));
  return blocks;
}

/// The runtime's answers (hipOccupancy*): NVIDIA sm_90 as CUDA 13.0's cuda_occupancy.h computes
/// them; AMD (kAmdArchs) as the HIP runtime's hip_platform.cpp does.
class Calculator {
 public:
  // A binary uses the rules of the platform it was built for; the unit test asks for each
  // explicitly, so both models are tested on either build.
  explicit Calculator(const Limits& limits, hl::Platform platform = hl::build_platform())
      : l_(limits) {
    if (platform == hl::Platform::kAmd) {
      amd_ = amd_arch(l_.arch);
      if (amd_ == nullptr) {
        why_not_ = l_.arch + " is not in the calculator's kAmdArchs: its rules were not checked";
      } else if (l_.warp_size != amd_->wave_size) {
        why_not_ = hl::format("{} runs {}-thread wavefronts here; the model is for {}", l_.arch,
                              l_.warp_size, amd_->wave_size);
        amd_ = nullptr;
      }
    } else if (l_.major != 9 || l_.minor != 0) {
      why_not_ = "the calculator models sm_90 only; this device is " + l_.arch;
    } else if (!l_.regs_per_cu || !l_.max_blocks_per_cu || !l_.reserved_shared_per_block) {
      why_not_ = "registers per SM, blocks per SM or reserved shared memory not reported";
    } else if (l_.shared_per_cu > 228 * 1024) {
      why_not_ = "shared memory per SM above sm_90's 228 KiB";
    }
  }

  bool models() const { return why_not_.empty(); }
  const std::string& why_not() const { return why_not_; }
  /// Warp (wave) slots per CU in the model: the denominator of occupancy.
  int slots() const {
    return amd_ ? amd_->simds_per_cu * amd_->hip_max_waves_per_simd
                : l_.max_threads_per_cu / l_.warp_size;
  }
  /// Occupancy in percent: the warps of \p blocks blocks of \p block threads over the slots.
  double occupancy_percent(int blocks, int block) const {
    return 100.0 * blocks * ceil_div(block, l_.warp_size) / slots();
  }

  /// Resident blocks per CU of a kernel with \p attributes at \p block threads and
  /// \p dynamic_shared bytes of dynamic shared memory per block: the runtime's answer. On AMD
  /// hipFuncAttributes carries no SGPR count, so SGPRs are taken not to limit (true below 81).
  Prediction predict(const hipFuncAttributes& a, int block, std::size_t dynamic_shared) const {
    if (amd_) return hip_amd(resources(a), block, dynamic_shared);
    return models() ? sm90(a, block, dynamic_shared) : Prediction{};
  }
  /// The same for AMD from the compiler's report, SGPRs included: what
  /// hipOccupancyMaxActiveBlocksPerMultiprocessor answers for that kernel.
  Prediction predict(const KernelResources& k, int block, std::size_t dynamic_shared) const {
    return amd_ ? hip_amd(k, block, dynamic_shared) : Prediction{};
  }

  /// The block size with the most resident threads, and the grid that makes them all
  /// resident: what hipOccupancyMaxPotentialBlockSize should answer (with no block limit).
  std::pair<int, int> max_potential(const hipFuncAttributes& a, std::size_t dynamic_shared) const {
    if (amd_) {
      // The HIP runtime does not search: it takes the threads that fit by waves and registers,
      // capped by the device's largest block (not the kernel's), as the block size, then as
      // many of those blocks as fit by waves and by LDS.
      const KernelResources k = resources(a);
      const int threads = amd_->simds_per_cu * l_.warp_size *
                          std::min(amd_->hip_max_waves_per_simd, hip_register_waves(k));
      const int best =
          std::min(threads, static_cast<int>(round_up(l_.max_threads_per_block, l_.warp_size)));
      const int lds_blocks = hip_amd(k, best, dynamic_shared).by_shared.value_or(kUnlimited);
      return {best, l_.compute_units * std::min(threads / best, lds_blocks)};
    }
    // CUDA (and the HIP-on-CUDA layer) search from the largest block down in warp steps and
    // keep the first block size that reaches the most resident threads.
    const int max_block = std::min(l_.max_threads_per_block, a.maxThreadsPerBlock);
    std::pair<int, int> best;  // block, blocks per CU
    for (int b = static_cast<int>(round_up(max_block, l_.warp_size)); b > 0; b -= l_.warp_size) {
      const int block = std::min(b, max_block), blocks = predict(a, block, dynamic_shared).blocks;
      if (block * blocks > best.first * best.second) best = {block, blocks};
      if (best.first * best.second == l_.max_threads_per_cu) break;
    }
    return {best.first, best.second * l_.compute_units};
  }

 private:
  // NVIDIA sm_90 (cuda_occupancy.h): registers are allocated per warp in units of 256, at most
  // 256 per thread, in 4 sub-partitions that each hold a quarter of the register file; shared
  // memory in units of 128 bytes, and every block also takes the shared memory the driver
  // reserves per block (hipDeviceAttributeReservedSharedMemPerBlock).
  Prediction sm90(const hipFuncAttributes& a, int block, std::size_t dynamic_shared) const {
    Prediction p;
    const int warps = ceil_div(block, l_.warp_size);
    p.by_slots = l_.max_threads_per_cu / l_.warp_size / warps;
    p.by_block_cap = *l_.max_blocks_per_cu;
    const int regs_per_warp = static_cast<int>(round_up(a.numRegs * l_.warp_size, 256));
    if (a.numRegs > 256 ||
        regs_per_warp * static_cast<int>(round_up(warps, 4)) > l_.regs_per_block) {
      p.by_registers = 0;  // the block cannot launch at all
    } else if (regs_per_warp > 0) {
      const int warps_per_sub_partition = *l_.regs_per_cu / 4 / regs_per_warp;
      p.by_registers = warps_per_sub_partition * 4 / warps;
    }
    const std::size_t reserved = static_cast<std::size_t>(*l_.reserved_shared_per_block);
    const std::size_t per_block = round_up(a.sharedSizeBytes + reserved + dynamic_shared, 128);
    // Without an opt-in (hipFuncSetAttribute), a block may use sharedMemPerBlock; the driver's
    // reserve comes on top. The shared memory of the SM is its largest carveout (228 KiB
    // on sm_90), which is what an unset carveout preference gives.
    p.by_shared = per_block > l_.shared_per_block + reserved
                      ? 0
                      : static_cast<int>(l_.shared_per_cu / per_block);
    return finish(p, block, std::min(l_.max_threads_per_block, a.maxThreadsPerBlock));
  }

  // AMD as the HIP runtime models it (hip_platform.cpp, ihipOccupancyMaxActiveBlocksPer-
  // Multiprocessor). numRegs (= .vgpr_count) already holds the AGPRs on gfx90a and later.
  static KernelResources resources(const hipFuncAttributes& a) {
    return {0, a.numRegs, 0, a.sharedSizeBytes, a.maxThreadsPerBlock};
  }
  // Waves per SIMD the registers allow in the runtime's count (kUnlimited when nothing is known):
  // the VGPR file over .vgpr_count rounded to the granule; on gfx9 800 SGPRs over the SGPR count
  // rounded to 16 (not the compiler's table: waves_by_sgprs).
  int hip_register_waves(const KernelResources& k) const {
    const int vgprs = unified_vgprs(*amd_, k);
    int waves = kUnlimited;
    if (vgprs > 0)
      waves = amd_->vgprs_per_simd / static_cast<int>(round_up(vgprs, amd_->vgpr_granule));
    if (amd_->sgprs_shared && k.sgprs > 0)
      waves = std::min(waves, 800 / static_cast<int>(round_up(k.sgprs, 16)));
    return waves;
  }

  Prediction hip_amd(const KernelResources& k, int block, std::size_t dynamic_shared) const {
    Prediction p;
    const int threads_per_block = static_cast<int>(round_up(block, l_.warp_size));
    const int simd_threads = amd_->simds_per_cu * l_.warp_size;
    p.by_slots = simd_threads * amd_->hip_max_waves_per_simd / threads_per_block;
    const int register_waves = hip_register_waves(k);
    if (register_waves != kUnlimited)
      p.by_registers = simd_threads * register_waves / threads_per_block;
    const std::size_t lds = k.lds + dynamic_shared;
    if (lds > 0) p.by_shared = static_cast<int>(amd_->hip_lds_per_cu / lds);
    // The runtime's model has no blocks-per-CU cap: by_block_cap stays unlimited.
    return finish(p, block, std::min(l_.max_threads_per_block, k.max_flat_workgroup_size));
  }

  Limits l_;
  const AmdArch* amd_ = nullptr;  // AMD's rules, when the model is AMD's
  std::string why_not_;           // empty when the calculator models this device
};

}  // namespace occupancy
