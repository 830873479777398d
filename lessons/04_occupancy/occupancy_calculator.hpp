/// \file lessons/04_occupancy/occupancy_calculator.hpp
/// \brief Lesson 04's own occupancy calculator: resident blocks per CU from the device's
/// budgets and a kernel's attributes, as the runtime's hipOccupancy* functions compute them.
/// NVIDIA sm_90 as CUDA 13.0's cuda_occupancy.h does; AMD as the HIP release that runs does,
/// for the releases whose occupancy code was read (HIP's answer changed between releases), and
/// for any other a reason why not. Host code only, no HIP call: test_occupancy_calculator.hip
/// checks it without a GPU. What the compiler and the hardware allow on AMD, which no lesson
/// binary computes, is modelled in tools/compiler_occupancy.
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "amd_residency.hpp"
#include "hip_lessons/amd_cu_masks.hpp"
#include "hip_lessons/environment.hpp"
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

/// The VGPR file HIP's occupancy code divides: VGPRs per SIMD lane, and the granule it rounds a
/// kernel's count up with.
struct VgprFile {
  int vgprs = 0, granule = 0;
};

/// The HIP releases whose occupancy code the calculator follows (README, Sources).
constexpr hl::RuntimeVersion kFirstHipRead{4, 5}, kLastHipRead{6, 2};

/// HIP's VGPR file for \p isa at \p wave_size in release \p hip, the only part of its model
/// that changed from 4.5 to 6.2; nothing, with the reason in \p why_not, for a release or
/// target whose answer the calculator cannot give.
inline std::optional<VgprFile> hip_vgpr_file(hl::RuntimeVersion hip, IsaVersion isa, int wave_size,
                                             std::string& why_not) {
  if (hip < kFirstHipRead || kLastHipRead < hip) {
    why_not = hl::format(
        "{} is not one of the releases whose occupancy code the calculator follows ({}.{} to "
        "{}.{}; later sources take the VGPR file from the compiler and add a trap-handler SGPR "
        "reserve)",
        hl::runtime_name(hip, hl::Platform::kAmd), kFirstHipRead.major, kFirstHipRead.minor,
        kLastHipRead.major, kLastHipRead.minor);
    return std::nullopt;
  }
  const bool gfx90a = isa.major == 9 && isa.minor == 0 && isa.stepping == 10;
  // Up to 5.4 hipamd's hip_platform.cpp holds the numbers, the same for wave32 and wave64.
  if (hip < hl::RuntimeVersion{5, 5}) {
    if (isa.major >= 10) return VgprFile{1024, 8};
    return gfx90a ? VgprFile{512, 8} : VgprFile{256, 4};
  }
  // From 5.5 a table in ROCclr's (later clr's) rocdevice.cpp; 5.5 to 6.0 give 512 of the
  // gfx94x only to gfx940, 6.1 to all of them, and 6.2 adds gfx11.5 rows.
  const bool gfx94x = isa.major == 9 && isa.minor == 4;
  const bool all_gfx94x = !(hip < hl::RuntimeVersion{6, 1});
  VgprFile file{256, 4};  // gfx9 and older, and every major without a row (gfx12, gfx950)
  if (gfx90a || (gfx94x && (isa.stepping == 0 || all_gfx94x))) {
    file = {512, 8};
  } else if (isa.major == 10) {
    file = isa.minor <= 1 ? VgprFile{1024, 8} : VgprFile{1024, 16};
  } else if (isa.major == 11 && isa.minor == 0) {
    file = isa.stepping <= 1 ? VgprFile{1536, 24} : VgprFile{1024, 16};
  } else if (isa.major == 11 && hip < hl::RuntimeVersion{6, 2}) {
    why_not = hl::format("HIP {}.{} has no VGPR row for gfx11.{} (its VGPR file counts as 0)",
                         hip.major, hip.minor, isa.minor);
    return std::nullopt;
  } else if (isa.major == 11) {
    const bool gfx1151 = isa.minor == 5 && isa.stepping == 1;
    file = gfx1151 ? VgprFile{1536, 24} : VgprFile{1024, 16};
  }
  if (isa.major >= 10 && wave_size == 64) file = {file.vgprs / 2, file.granule / 2};
  return file;
}

/// The SIMDs HIP's occupancy code counts per unit on \p isa in release \p hip: 4 on gfx9; on
/// gfx10+ from HIP 5.5 4 for a kernel compiled in WGP mode and 2 for a CU-mode one
/// (\p kernel_cu_mode, -mcumode; ROCm/clr rocm-6.2.2 hipamd/src/hip_platform.cpp:393-394,
/// "(wrkGrpInfo->isWGPMode_ ? 4 : 2)"; said to be the same from hipamd rocm-5.5.0, not re-read);
/// before 5.5 the device's count, the ISA's 2 doubled only in WGP mode (\p device_wgp_mode,
/// GPU_ENABLE_WGP_MODE; ROCclr rocm-4.2.0 rocdevice.cpp and rocm-5.4.3 device.cpp, not re-read for
/// this rule).
inline int hip_simds_per_cu(IsaVersion isa, hl::RuntimeVersion hip, bool device_wgp_mode,
                            bool kernel_cu_mode) {
  if (isa.major <= 9) return 4;
  if (hip < hl::RuntimeVersion{5, 5}) return device_wgp_mode ? 4 : 2;
  return kernel_cu_mode ? 2 : 4;
}

/// HIP's model of one AMD device (hip_platform.cpp, ihipOccupancyMaxActiveBlocksPerMulti-
/// processor), the same in every release read but for the VGPR file: 8 waves per SIMD counted
/// on gfx9 and older ("limited by SPI 32 per CU"), 16 on gfx10+; the SIMDs of hip_simds_per_cu();
/// the group segment (64 KiB) over the block's LDS; no cap
/// on workgroups. SGPRs also limit waves (800 per SIMD on gfx9), but hipFuncAttributes does not
/// report them: the model takes them not to (true up to 96 SGPRs in these releases).
struct HipAmdModel {
  IsaVersion isa;
  int wave_size = 64;
  VgprFile vgpr_file;
  std::size_t lds_bytes = std::size_t{64} << 10;
  int simds_per_cu = 4;  ///< hip_simds_per_cu()

  int max_waves_per_simd() const { return isa.major <= 9 ? 8 : 16; }
  /// Waves per SIMD that \p vgprs (.vgpr_count, hipFuncAttributes::numRegs) allow. HIP "aligns
  /// up" with a power-of-two mask, (n + g - 1) & ~(g - 1), which for a granule of 24 is not a
  /// multiple of 24: 100 VGPRs count as 104, not 120.
  int register_waves(int vgprs) const {
    const std::size_t mask = static_cast<std::size_t>(vgpr_file.granule) - 1;
    const std::size_t counted = (static_cast<std::size_t>(vgprs) + mask) & ~mask;
    return static_cast<int>(static_cast<std::size_t>(vgpr_file.vgprs) / counted);
  }
  /// Resident blocks of \p block threads: \p vgprs per lane (0: none, they do not limit) and
  /// \p lds bytes of static and dynamic LDS; no block above \p max_block.
  Prediction predict(int vgprs, std::size_t lds, int block, int max_block) const {
    Prediction p;
    const int threads_per_block = static_cast<int>(round_up(block, wave_size));
    const int simd_threads = simds_per_cu * wave_size;
    p.by_slots = simd_threads * max_waves_per_simd() / threads_per_block;
    if (vgprs > 0) p.by_registers = simd_threads * register_waves(vgprs) / threads_per_block;
    if (lds > 0) p.by_shared = static_cast<int>(lds_bytes / lds);
    return finish(p, block, max_block);
  }
};

/// The runtime's answers (hipOccupancy*): NVIDIA sm_90 as CUDA 13.0's cuda_occupancy.h computes
/// them; AMD as the HIP release that hipRuntimeGetVersion reports (\p runtime_version) does.
class Calculator {
 public:
  // A binary uses the rules of the platform it was built for; the unit test asks for each
  // explicitly, so both models are tested on either build.
  // GPU_ENABLE_WGP_MODE (\p wgp_mode_env) matters to HIP before 5.5; the lesson's kernels are
  // compiled in WGP mode (no -mcumode), which HIP 5.5 and later go by.
  Calculator(const Limits& limits, int runtime_version,
             hl::Platform platform = hl::build_platform(),
             const char* wgp_mode_env = std::getenv("GPU_ENABLE_WGP_MODE"))
      : l_(limits) {
    if (platform == hl::Platform::kAmd) {
      const hl::RuntimeVersion hip = hl::runtime_version_from(runtime_version, platform);
      const std::optional<IsaVersion> isa = isa_version(l_.arch);
      if (!isa) {
        why_not_ = l_.arch + " is not an AMD gfx target name";
      } else if (const auto file = hip_vgpr_file(hip, *isa, l_.warp_size, why_not_)) {
        amd_ = HipAmdModel{*isa, l_.warp_size, *file};
        amd_->simds_per_cu =
            hip_simds_per_cu(*isa, hip, hl::hip_counts_wgps(wgp_mode_env, runtime_version), false);
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
    return amd_ ? amd_->simds_per_cu * amd_->max_waves_per_simd()
                : l_.max_threads_per_cu / l_.warp_size;
  }
  /// Occupancy in percent: the warps of \p blocks blocks of \p block threads over the slots.
  double occupancy_percent(int blocks, int block) const {
    return 100.0 * blocks * ceil_div(block, l_.warp_size) / slots();
  }

  /// Resident blocks per CU of a kernel with \p attributes at \p block threads and
  /// \p dynamic_shared bytes of dynamic shared memory per block: the runtime's answer. HIP
  /// compares the block with the device's largest, not the kernel's.
  Prediction predict(const hipFuncAttributes& a, int block, std::size_t dynamic_shared) const {
    if (amd_)
      return amd_->predict(a.numRegs, a.sharedSizeBytes + dynamic_shared, block,
                           l_.max_threads_per_block);
    return models() ? sm90(a, block, dynamic_shared) : Prediction{};
  }

  /// The block size with the most resident threads, and the grid that makes them all
  /// resident: what hipOccupancyMaxPotentialBlockSize should answer (with no block limit).
  std::pair<int, int> max_potential(const hipFuncAttributes& a, std::size_t dynamic_shared) const {
    if (amd_) {
      // The HIP runtime does not search: it takes the threads that fit by waves and registers,
      // capped by the device's largest block (not the kernel's), as the block size, then as
      // many of those blocks as fit by waves and by LDS.
      const int waves = a.numRegs > 0 ? amd_->register_waves(a.numRegs) : kUnlimited;
      const int threads =
          amd_->simds_per_cu * l_.warp_size * std::min(amd_->max_waves_per_simd(), waves);
      const int best =
          std::min(threads, static_cast<int>(round_up(l_.max_threads_per_block, l_.warp_size)));
      const int lds_blocks = predict(a, best, dynamic_shared).by_shared.value_or(kUnlimited);
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

  Limits l_;
  std::optional<HipAmdModel> amd_;  // HIP's rules, when the model is AMD's and known
  std::string why_not_;             // empty when the calculator models this device
};

}  // namespace occupancy
