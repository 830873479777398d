/// \file lessons/04_occupancy/occupancy_calculator.hpp
/// \brief Lesson 04's own occupancy calculator: resident blocks per CU from the device's
/// budgets and a kernel's attributes, for the architectures whose rules were checked.
///
/// Host code only: it takes numbers (Limits, hipFuncAttributes) and makes no HIP call, so
/// test_occupancy_calculator.hip checks it without a GPU. main.hip compares every answer with
/// hipOccupancyMaxActiveBlocksPerMultiprocessor and hipOccupancyMaxPotentialBlockSize.
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

/// Resident blocks per CU allowed by each budget, and the smallest of them.
struct Prediction {
  int by_slots = kUnlimited;  // warp (wave) slots
  int by_registers = kUnlimited;
  int by_shared = kUnlimited;
  int by_block_cap = kUnlimited;  // blocks-per-CU cap
  int blocks = 0;
  std::string limiter;  // the budgets that set the count: "slots", "slots + block cap"
};

/// A budget's answer for a table: nothing when it does not limit.
inline std::optional<int> limit(int blocks) {
  return blocks == kUnlimited ? std::nullopt : std::optional<int>(blocks);
}

inline Prediction finish(Prediction p, int block, int max_block) {
  p.blocks =
      block > max_block ? 0 : std::min({p.by_slots, p.by_registers, p.by_shared, p.by_block_cap});
  const std::pair<int, const char*> parts[] = {{p.by_slots, "slots"},
                                               {p.by_registers, "registers"},
                                               {p.by_shared, "shared memory"},
                                               {p.by_block_cap, "block cap"}};
  for (const auto& [value, label] : parts) {
    if (value == p.blocks) p.limiter += (p.limiter.empty() ? "" : " + ") + std::string(label);
  }
  return p;
}

using hip_lessons::Platform;

/// The allocation rules of the architectures this calculator models. Each number was checked
/// against a source (see README): NVIDIA sm_90 against CUDA 13.0's cuda_occupancy.h (the
/// occupancy calculator NVIDIA ships); AMD gfx90a against the HIP runtime's own occupancy
/// function (hip_platform.cpp) and LLVM's AMDGPU register tables.
class Calculator {
 public:
  // Which vendor's rules apply: a binary uses the rules of the platform it was built for; the
  // unit test asks for each explicitly, so both models are tested on either build.
  explicit Calculator(const Limits& limits, Platform platform = hip_lessons::build_platform())
      : l_(limits) {
    if (platform == Platform::kAmd) {
      if (l_.arch == "gfx90a") {
        model_ = Model::kGfx90a;
      } else {
        why_not_ = hip_lessons::format(
            "the calculator models gfx90a only; {} has other (or runtime-version-dependent) "
            "VGPR budgets and wave limits that were not verified for this lesson",
            l_.arch);
      }
    } else if (l_.major != 9 || l_.minor != 0) {
      why_not_ = "the calculator models sm_90 only; this device is " + l_.arch;
    } else if (!l_.regs_per_cu || !l_.max_blocks_per_cu || !l_.reserved_shared_per_block) {
      why_not_ =
          "the device does not report registers per SM, blocks per SM or reserved shared memory "
          "per block";
    } else if (l_.shared_per_cu > 228 * 1024) {
      why_not_ = "shared memory per SM above sm_90's 228 KiB";
    } else {
      model_ = Model::kSm90;
    }
  }

  bool models() const { return model_ != Model::kNone; }
  const std::string& why_not() const { return why_not_; }
  /// Warp (wave) slots per CU in the model: the denominator of occupancy.
  int slots() const {
    return model_ == Model::kGfx90a ? kGfx90aSimds * kGfx90aWavesPerSimd
                                    : l_.max_threads_per_cu / l_.warp_size;
  }
  /// Occupancy in percent: the warps of \p blocks blocks of \p block threads over the slots.
  double occupancy_percent(int blocks, int block) const {
    return 100.0 * blocks * ceil_div(block, l_.warp_size) / slots();
  }

  /// Resident blocks per CU of a kernel with \p attributes at \p block threads and
  /// \p dynamic_shared bytes of dynamic shared memory per block.
  Prediction predict(const hipFuncAttributes& a, int block, std::size_t dynamic_shared) const {
    const int max_block = std::min(l_.max_threads_per_block, a.maxThreadsPerBlock);
    return model_ == Model::kSm90 ? sm90(a, block, dynamic_shared, max_block)
                                  : gfx90a(a, block, dynamic_shared, max_block);
  }

  /// The block size with the most resident threads, and the grid that makes them all
  /// resident: what hipOccupancyMaxPotentialBlockSize should answer (with no block limit).
  std::pair<int, int> max_potential(const hipFuncAttributes& a, std::size_t dynamic_shared) const {
    const int max_block = std::min(l_.max_threads_per_block, a.maxThreadsPerBlock);
    if (model_ == Model::kGfx90a) {
      // The HIP runtime does not search: it takes the threads that fit by waves and VGPRs,
      // capped by the device's largest block (not the kernel's), as the block size, then as
      // many of those blocks as fit by waves and by LDS.
      const int threads = kGfx90aSimds * gfx90a_waves_per_simd(a) * l_.warp_size;
      const int best =
          std::min(threads, static_cast<int>(round_up(l_.max_threads_per_block, l_.warp_size)));
      const int lds_blocks = gfx90a(a, best, dynamic_shared, max_block).by_shared;
      return {best, l_.compute_units * std::min(threads / best, lds_blocks)};
    }
    // CUDA (and the HIP-on-CUDA layer) search from the largest block down in warp steps and
    // keep the first block size that reaches the most resident threads.
    int best_block = 0, best_blocks = 0, best_threads = 0;
    for (int b = static_cast<int>(round_up(max_block, l_.warp_size)); b > 0; b -= l_.warp_size) {
      const int block = std::min(b, max_block);
      const int blocks = predict(a, block, dynamic_shared).blocks;
      if (block * blocks > best_threads) {
        best_threads = block * blocks;
        best_block = block;
        best_blocks = blocks;
      }
      if (best_threads == l_.max_threads_per_cu) break;
    }
    return {best_block, best_blocks * l_.compute_units};
  }

 private:
  enum class Model { kNone, kSm90, kGfx90a };

  //! [sm90_rules]
  // NVIDIA sm_90 (cuda_occupancy.h): registers are allocated per warp in units of 256, in 4
  // sub-partitions that each hold a quarter of the register file; shared memory in units of
  // 128 bytes, and every block also takes the shared memory the driver reserves per block
  // (hipDeviceAttributeReservedSharedMemPerBlock).
  static constexpr int kSm90RegisterUnit = 256;
  static constexpr int kSm90SubPartitions = 4;
  static constexpr int kSm90MaxRegistersPerThread = 256;  // the header's per-thread limit check
  static constexpr std::size_t kSm90SharedUnit = 128;

  Prediction sm90(const hipFuncAttributes& a, int block, std::size_t dynamic_shared,
                  int max_block) const {
    Prediction p;
    const int warps = ceil_div(block, l_.warp_size);
    p.by_slots = l_.max_threads_per_cu / l_.warp_size / warps;
    p.by_block_cap = *l_.max_blocks_per_cu;

    const int regs_per_warp =
        static_cast<int>(round_up(a.numRegs * l_.warp_size, kSm90RegisterUnit));
    if (a.numRegs > kSm90MaxRegistersPerThread ||
        regs_per_warp * static_cast<int>(round_up(warps, kSm90SubPartitions)) > l_.regs_per_block) {
      p.by_registers = 0;  // the block cannot launch at all
    } else if (regs_per_warp > 0) {
      const int warps_per_sub_partition = *l_.regs_per_cu / kSm90SubPartitions / regs_per_warp;
      p.by_registers = warps_per_sub_partition * kSm90SubPartitions / warps;
    }

    const std::size_t reserved = static_cast<std::size_t>(*l_.reserved_shared_per_block);
    const std::size_t per_block =
        round_up(a.sharedSizeBytes + reserved + dynamic_shared, kSm90SharedUnit);
    // Without an opt-in (hipFuncSetAttribute), a block may use sharedMemPerBlock; the driver's
    // reserve comes on top. The shared memory of the SM is its largest carveout (228 KiB
    // on sm_90), which is what an unset carveout preference gives.
    p.by_shared = per_block > l_.shared_per_block + reserved
                      ? 0
                      : static_cast<int>(l_.shared_per_cu / per_block);
    return finish(p, block, max_block);
  }
  //! [sm90_rules]

  //! [gfx90a_rules]
  // AMD gfx90a (CDNA2) as the HIP runtime models it: 4 SIMDs per CU, at most 8 waves per SIMD
  // counted, 512 VGPRs per SIMD lane allocated in granules of 8, 64 KiB of LDS per CU. SGPRs
  // can also limit waves (800 per SIMD, in units of 16), but hipFuncGetAttributes does not
  // report a kernel's SGPRs; the calculator assumes they do not limit (true below 96 SGPRs).
  static constexpr int kGfx90aSimds = 4;
  static constexpr int kGfx90aWavesPerSimd = 8;
  static constexpr int kGfx90aVgprsPerLane = 512;
  static constexpr int kGfx90aVgprGranule = 8;
  static constexpr std::size_t kGfx90aLdsPerCu = 64 * 1024;

  static int gfx90a_waves_per_simd(const hipFuncAttributes& a) {
    const int by_vgprs =
        a.numRegs > 0
            ? kGfx90aVgprsPerLane / static_cast<int>(round_up(a.numRegs, kGfx90aVgprGranule))
            : kGfx90aWavesPerSimd;
    return std::min(kGfx90aWavesPerSimd, by_vgprs);
  }

  Prediction gfx90a(const hipFuncAttributes& a, int block, std::size_t dynamic_shared,
                    int max_block) const {
    Prediction p;
    const int threads_per_block = static_cast<int>(round_up(block, l_.warp_size));
    p.by_slots = kGfx90aSimds * kGfx90aWavesPerSimd * l_.warp_size / threads_per_block;
    if (a.numRegs > 0) {
      const int vgpr_waves =
          kGfx90aVgprsPerLane / static_cast<int>(round_up(a.numRegs, kGfx90aVgprGranule));
      p.by_registers = kGfx90aSimds * vgpr_waves * l_.warp_size / threads_per_block;
    }
    const std::size_t lds = a.sharedSizeBytes + dynamic_shared;
    if (lds > 0) p.by_shared = static_cast<int>(kGfx90aLdsPerCu / lds);
    // The runtime's model has no blocks-per-CU cap: by_block_cap stays unlimited.
    return finish(p, block, max_block);
  }
  //! [gfx90a_rules]

  Limits l_;
  Model model_ = Model::kNone;
  std::string why_not_;
};

}  // namespace occupancy
