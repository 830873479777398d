/// \file lessons/04_occupancy/main.hip
/// \brief Lesson 04: size a grid from occupancy, and compute occupancy yourself.
///
/// The story: (1) the per-CU limits that decide how many blocks can be resident at once, and
/// what a kernel uses of them (hipFuncGetAttributes); (2) the lesson's own occupancy
/// calculator, compared with hipOccupancyMaxActiveBlocksPerMultiprocessor and
/// hipOccupancyMaxPotentialBlockSize for every kernel and block size it prints; (3) the
/// article's grid formula against the correct one (maxBlocks is per CU, so the grid of a
/// grid-stride loop is maxBlocks x CU count); (4) dynamic shared memory and register pressure
/// (__launch_bounds__) lowering occupancy, each change predicted by the API; (5) a sweep over
/// block and grid size for a memory-bound and a compute-bound kernel, showing where the
/// occupancy-derived launch lands against the best one.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <iostream>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/lesson.hpp"
#include "hip_lessons/timing.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;
using occupancy::Unary;

namespace {

constexpr int kUnlimited = INT_MAX;
/// Elements of the compute-bound problems (16 MiB per array): enough work for every config of
/// the sweep to run for a while, independent of --size, which sizes the memory-bound problem.
constexpr std::size_t kComputeElements = std::size_t{1} << 22;

int ceil_div(int a, int b) { return (a + b - 1) / b; }
std::size_t round_up(std::size_t value, std::size_t unit) {
  return (value + unit - 1) / unit * unit;
}
std::string shown(int value) { return value == kUnlimited ? "-" : std::to_string(value); }

// =========================================================================================
// 1. What limits residency: the device's per-CU budgets and the kernel's use of them
// =========================================================================================

/// The per-CU (per-SM) budgets of the device. Optional ones are not reported everywhere.
struct Limits {
  std::string arch;  // gcnArchName without feature suffixes: "gfx90a", "sm_90"
  int major = 0, minor = 0;
  int compute_units = 0, warp_size = 0;
  int max_threads_per_cu = 0, max_threads_per_block = 0, regs_per_block = 0;
  std::size_t shared_per_cu = 0, shared_per_block = 0;
  std::optional<int> regs_per_cu, max_blocks_per_cu, reserved_shared_per_block;
};

// Some attributes are "CUDA only" in HIP's header (hipDeviceAttributeMaxBlocksPerMultiProcessor,
// ...ReservedSharedMemPerBlock) or newer than an installed ROCm. A refused query is an answer
// here ("not reported"), so it is not HIP_CHECKed; its error is cleared so that the next
// HIP_CHECK_LAUNCH does not report it against an unrelated launch.
std::optional<int> optional_attribute(hipDeviceAttribute_t attribute, int device) {
  int value = 0;
  if (hipDeviceGetAttribute(&value, attribute, device) == hipSuccess) return value;
  (void)hipGetLastError();
  return std::nullopt;
}

Limits read_limits(const hl::Device& device) {
  const hipDeviceProp_t& p = device.props;
  Limits l;
  l.arch = std::string(p.gcnArchName).substr(0, std::string(p.gcnArchName).find(':'));
  l.major = p.major;
  l.minor = p.minor;
  l.compute_units = p.multiProcessorCount;
  l.warp_size = p.warpSize;
  l.max_threads_per_cu = p.maxThreadsPerMultiProcessor;
  l.max_threads_per_block = p.maxThreadsPerBlock;
  l.regs_per_block = p.regsPerBlock;
  l.shared_per_cu = p.maxSharedMemoryPerMultiProcessor;
  l.shared_per_block = p.sharedMemPerBlock;
  l.regs_per_cu = optional_attribute(hipDeviceAttributeMaxRegistersPerMultiprocessor, device.index);
  l.max_blocks_per_cu =
      optional_attribute(hipDeviceAttributeMaxBlocksPerMultiProcessor, device.index);
  l.reserved_shared_per_block =
      optional_attribute(hipDeviceAttributeReservedSharedMemPerBlock, device.index);
  return l;
}

void report_limits(hl::Report& report, const Limits& l) {
  const std::string cu = hl::kComputeUnitName;
  const auto opt = [](const std::optional<int>& v) {
    return v ? std::to_string(*v) : std::string("not reported");
  };
  hl::Table table({"limit", "value", "what it bounds"});
  table.add_row({"architecture", l.arch, "which allocation rules apply"});
  table.add_row({cu + "s", std::to_string(l.compute_units),
                 "a full-device grid is blocks per " + cu + " x this"});
  table.add_row({std::string(hl::kWarpName) + " size", std::to_string(l.warp_size),
                 "threads are scheduled (and slots counted) in these units"});
  table.add_row(
      {"threads per " + cu, std::to_string(l.max_threads_per_cu),
       std::to_string(l.max_threads_per_cu / l.warp_size) + " " + hl::kWarpName + " slots"});
  table.add_row({"threads per block", std::to_string(l.max_threads_per_block), "largest block"});
  table.add_row({"registers per " + cu, opt(l.regs_per_cu),
                 "shared by all resident " + std::string(hl::kWarpName) + "s"});
  table.add_row({"registers per block", std::to_string(l.regs_per_block), "one block's maximum"});
  table.add_row({"shared memory per " + cu, std::to_string(l.shared_per_cu),
                 "bytes, shared by resident blocks"});
  table.add_row(
      {"shared memory per block", std::to_string(l.shared_per_block), "bytes, without opt-in"});
  table.add_row({"reserved shared memory per block", opt(l.reserved_shared_per_block),
                 "bytes the runtime adds to each block"});
  table.add_row({"blocks per " + cu, opt(l.max_blocks_per_cu),
                 "cap on resident blocks, whatever their size"});
  report.table("device_limits", "Residency budgets of one " + cu, table);
}

/// A kernel of the lesson and what the compiler made of it.
struct KernelInfo {
  std::string name;
  const void* address = nullptr;
  hipFuncAttributes attributes{};
};

KernelInfo kernel_info(const std::string& name, const void* address) {
  KernelInfo k{name, address, {}};
  HIP_CHECK(hipFuncGetAttributes(&k.attributes, address));
  return k;
}

void report_kernels(hl::Report& report, const std::vector<KernelInfo>& kernels) {
  hl::Table table({"kernel", "registers per thread", "static shared bytes",
                   "spill (local) bytes per thread", "max threads per block"});
  for (const KernelInfo& k : kernels) {
    table.add_row({k.name, std::to_string(k.attributes.numRegs),
                   std::to_string(k.attributes.sharedSizeBytes),
                   std::to_string(k.attributes.localSizeBytes),
                   std::to_string(k.attributes.maxThreadsPerBlock)});
  }
  report.table("kernel_attributes", "What each kernel uses (hipFuncGetAttributes)", table);
}

// =========================================================================================
// 2. Theoretical occupancy, computed here and compared with the runtime
// =========================================================================================

/// Resident blocks per CU allowed by each budget, and the smallest of them.
struct Prediction {
  int by_slots = kUnlimited;  // warp (wave) slots
  int by_registers = kUnlimited;
  int by_shared = kUnlimited;
  int by_block_cap = kUnlimited;  // blocks-per-CU cap
  int blocks = 0;
  std::string limiter;
};

Prediction finish(Prediction p, int block, int max_block) {
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

/// The allocation rules of the architectures this calculator models. Each number was checked
/// against a source (see README): NVIDIA sm_90 against CUDA 13.0's cuda_occupancy.h (the
/// occupancy calculator NVIDIA ships); AMD gfx90a against the HIP runtime's own occupancy
/// function (hip_platform.cpp) and LLVM's AMDGPU register tables.
class Calculator {
 public:
  explicit Calculator(const Limits& limits) : l_(limits) {
#if defined(__HIP_PLATFORM_AMD__)
    if (l_.arch == "gfx90a") {
      model_ = Model::kGfx90a;
    } else {
      why_not_ = "the calculator models gfx90a only; " + l_.arch +
                 " has other (or runtime-version-dependent) VGPR budgets and wave limits that "
                 "were not verified for this lesson";
    }
#else
    if (l_.major == 9 && l_.minor == 0) {
      if (!l_.regs_per_cu || !l_.max_blocks_per_cu || !l_.reserved_shared_per_block) {
        why_not_ =
            "the device does not report registers per SM, blocks per SM or reserved "
            "shared memory per block";
      } else if (l_.shared_per_cu > 228 * 1024) {
        why_not_ = "shared memory per SM above sm_90's 228 KiB";
      } else {
        model_ = Model::kSm90;
      }
    } else {
      why_not_ = "the calculator models sm_90 only; this device is " + l_.arch;
    }
#endif
  }

  bool models() const { return model_ != Model::kNone; }
  const std::string& why_not() const { return why_not_; }
  /// Warp (wave) slots per CU in the model: the denominator of occupancy.
  int slots() const {
    return model_ == Model::kGfx90a ? kGfx90aSimds * kGfx90aWavesPerSimd
                                    : l_.max_threads_per_cu / l_.warp_size;
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

/// A "skip" line in the style of the report's check lines: the comparison was not made, and
/// why. Recorded as a fact so the JSON shows it too.
void report_skip(hl::Report& report, const std::string& name, const std::string& why) {
  std::cout << "check   skip  " << name << ": " << why << '\n';
  report.fact("skipped: " + name, why);
}

/// Block sizes printed for each kernel: multiples of the warp size up to the kernel's limit,
/// including ones that are not powers of two (they exercise the rounding to whole warps).
std::vector<int> printed_block_sizes(const Limits& l, const hipFuncAttributes& a) {
  const int max_block = std::min(l.max_threads_per_block, a.maxThreadsPerBlock);
  std::vector<int> sizes;
  for (const int warps : {1, 2, 3, 4, 6, 8, 12, 16, 20, 32}) {
    if (warps * l.warp_size <= max_block) sizes.push_back(warps * l.warp_size);
  }
  return sizes;
}

/// One kernel's table: the calculator's budgets against the runtime's answer, for every
/// printed block size (and \p dynamic_shared bytes per block). Returns whether all agree.
bool compare_with_runtime(hl::Report& report, const Calculator& calc, const Limits& l,
                          const KernelInfo& k, const std::vector<int>& blocks,
                          std::size_t dynamic_shared, const std::string& label) {
  const std::string warps = std::string(hl::kWarpName) + "s per block";
  hl::Table table({"block", "dynamic shared bytes", warps, "by slots", "by registers",
                   "by shared memory", "by block cap", "calculator", "API", "occupancy %",
                   "limited by"});
  int disagreements = 0;
  std::string first;
  for (const int block : blocks) {
    const int api = occupancy::max_active_blocks(k.address, block, dynamic_shared);
    const int warps_per_block = ceil_div(block, l.warp_size);
    if (!calc.models()) {
      table.add_row({std::to_string(block), std::to_string(dynamic_shared),
                     std::to_string(warps_per_block), "", "", "", "", "n/a", std::to_string(api),
                     hl::fixed(100.0 * api * warps_per_block / calc.slots(), 1), "not modelled"});
      continue;
    }
    const Prediction p = calc.predict(k.attributes, block, dynamic_shared);
    if (p.blocks != api && disagreements++ == 0) {
      first = "block " + std::to_string(block) + ": calculator " + std::to_string(p.blocks) +
              ", API " + std::to_string(api);
    }
    table.add_row({std::to_string(block), std::to_string(dynamic_shared),
                   std::to_string(warps_per_block), shown(p.by_slots), shown(p.by_registers),
                   shown(p.by_shared), shown(p.by_block_cap), std::to_string(p.blocks),
                   std::to_string(api), hl::fixed(100.0 * api * warps_per_block / calc.slots(), 1),
                   p.blocks == api ? p.limiter : p.limiter + "  <- DIFFERS"});
  }
  report.table("occupancy." + label,
               "Resident blocks per " + std::string(hl::kComputeUnitName) + ": " + label + " (" +
                   std::to_string(k.attributes.numRegs) + " registers, " +
                   std::to_string(k.attributes.sharedSizeBytes) + " static shared bytes)",
               table);
  const std::string name =
      "own occupancy calculation = hipOccupancyMaxActiveBlocksPerMultiprocessor, " + label + ", " +
      std::to_string(blocks.size()) + " block size(s)";
  if (!calc.models()) {
    report_skip(report, name, calc.why_not());
    return true;
  }
  return report.check(
      name, disagreements == 0,
      disagreements == 0 ? "" : std::to_string(disagreements) + " differ, " + first);
}

/// hipOccupancyMaxPotentialBlockSize against the calculator's own choice.
std::pair<int, int> compare_max_potential(hl::Report& report, const Calculator& calc,
                                          const KernelInfo& k) {
  int grid = 0;
  int block = 0;
  HIP_CHECK(hipOccupancyMaxPotentialBlockSize(&grid, &block, k.address, 0, 0));
  const std::string name = "own choice = hipOccupancyMaxPotentialBlockSize, " + k.name;
  if (!calc.models()) {
    report_skip(report, name, calc.why_not());
  } else {
    const auto [own_block, own_grid] = calc.max_potential(k.attributes, 0);
    report.check(name, own_block == block && own_grid == grid,
                 "API block " + std::to_string(block) + ", grid " + std::to_string(grid) +
                     "; calculator block " + std::to_string(own_block) + ", grid " +
                     std::to_string(own_grid));
  }
  return {block, grid};
}

// =========================================================================================
// Problems, validation and timing
// =========================================================================================

/// The memory-bound problem: a = b + s * c on --size elements.
struct TriadProblem {
  std::size_t n;
  std::vector<float> expected;
  hl::DeviceBuffer<float> b, c, a;

  TriadProblem(std::size_t count, std::uint64_t seed)
      : n(count), expected(count), b(count), c(count), a(count) {
    std::vector<float> hb(n), hc(n);
    hl::fill_uniform(hb, seed);
    hl::fill_uniform(hc, seed + 1);
    for (std::size_t i = 0; i < n; ++i) expected[i] = occupancy::triad_reference(hb[i], hc[i]);
    b.upload(hb);
    c.upload(hc);
  }
  void launch(unsigned int grid, unsigned int block, std::size_t dynamic_shared, hipStream_t s,
              std::size_t count) {
    occupancy::launch_triad(grid, block, dynamic_shared, s, b.data(), c.data(), a.data(), count);
  }
};

/// A problem for the x -> y kernels. The inputs are random but repeat 1024 distinct values, so
/// the host reference costs 1024 evaluations (1024 FMAs each) instead of one per element,
/// and every element can still be compared.
struct UnaryProblem {
  std::size_t n;
  std::vector<float> distinct;
  std::vector<std::uint32_t> which;
  hl::DeviceBuffer<float> x, y;

  UnaryProblem(std::size_t count, std::uint64_t seed)
      : n(count), distinct(1024), which(count), x(count), y(count) {
    hl::fill_uniform(distinct, seed);
    std::mt19937_64 generator(seed + 2);
    std::uniform_int_distribution<std::uint32_t> pick(
        0, static_cast<std::uint32_t>(distinct.size() - 1));
    std::vector<float> hx(n);
    for (std::size_t i = 0; i < n; ++i) {
      which[i] = pick(generator);
      hx[i] = distinct[which[i]];
    }
    x.upload(hx);
  }
  std::vector<float> expected(Unary kernel) const {
    std::vector<float> per_value(distinct.size());
    for (std::size_t v = 0; v < distinct.size(); ++v)
      per_value[v] = occupancy::reference(kernel, distinct[v]);
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = per_value[which[i]];
    return out;
  }
};

/// Compares the first \p count elements of \p output with \p expected.
bool validate(hl::Report& report, const std::string& what, const hl::DeviceBuffer<float>& output,
              const std::vector<float>& expected, std::size_t count, hl::Tolerance tolerance = {}) {
  const std::vector<float> actual = output.download();
  return report.check_match(
      what, hl::first_mismatch(expected.data(), actual.data(), count, tolerance), count);
}

// The register kernels add 64 values; allow a few units in the last place in case a compiler
// orders that sum differently. The triad and the FMA chain must match bit for bit.
hl::Tolerance tolerance_for(Unary kernel) {
  return kernel == Unary::kFmaChain ? hl::Tolerance{} : hl::Tolerance{1e-6, 1e-6};
}

std::string grid_name(unsigned int grid, unsigned int block) {
  return "grid " + std::to_string(grid) + " x block " + std::to_string(block);
}

// =========================================================================================
// 3. The article's grid formula against the correct one
// =========================================================================================

//! [article_grid]
// The article sized its grid-stride launch with
//     grid = (N + 256 * maxBlocks - 1) / (256 * maxBlocks)
// treating maxBlocks (from hipOccupancyMaxActiveBlocksPerMultiprocessor) as a device-wide
// count. It is per CU: the grid that makes every block resident at once is maxBlocks x CUs.
unsigned int article_grid(std::size_t n, unsigned int block, int max_blocks_per_cu) {
  const std::size_t per_block =
      static_cast<std::size_t>(block) * static_cast<std::size_t>(max_blocks_per_cu);
  return static_cast<unsigned int>(std::max<std::size_t>(1, (n + per_block - 1) / per_block));
}

unsigned int occupancy_grid(int max_blocks_per_cu, int compute_units) {
  return static_cast<unsigned int>(max_blocks_per_cu * compute_units);
}
//! [article_grid]

void compare_article_grid(hl::Report& report, TriadProblem& p, const Limits& l, unsigned int block,
                          int max_blocks, const hl::TimingPlan& plan, hipStream_t stream) {
  // At N = block x maxBlocks x CUs the article's formula gives exactly one block per CU.
  const std::size_t small =
      std::min<std::size_t>(p.n, static_cast<std::size_t>(block) * max_blocks * l.compute_units);
  const unsigned int full = occupancy_grid(max_blocks, l.compute_units);
  hl::Table table({"N", "formula", "grid", "blocks per " + std::string(hl::kComputeUnitName),
                   "resident rounds", "elements per thread", "median ms", "TB/s"});
  for (const std::size_t n : {p.n, small}) {
    for (const bool article : {true, false}) {
      const unsigned int grid = article ? article_grid(n, block, max_blocks) : full;
      p.a.poison();
      const hl::Stats t =
          hl::time_on_stream(stream, plan, [&] { p.launch(grid, block, 0, stream, n); });
      validate(report,
               std::string(article ? "article" : "correct") + " grid, N = " + std::to_string(n) +
                   ", " + grid_name(grid, block),
               p.a, p.expected, n);
      const double threads = static_cast<double>(grid) * block;
      table.add_row(
          {std::to_string(n), article ? "ceil(N / (block x maxBlocks))" : "maxBlocks x CUs",
           std::to_string(grid), hl::fixed(static_cast<double>(grid) / l.compute_units, 2),
           hl::fixed(static_cast<double>(grid) / full, 2),
           hl::fixed(static_cast<double>(n) / threads, 1), hl::fixed(t.median, 4),
           hl::fixed(hl::terabytes_per_second(3.0 * n * sizeof(float), t.median), 2)});
    }
  }
  report.table("article_grid",
               "The article's grid against maxBlocks x CUs (triad, block " + std::to_string(block) +
                   ", maxBlocks = " + std::to_string(max_blocks) + " per " + hl::kComputeUnitName +
                   ")",
               table);
  std::cout << "The article's grid grows with N and ignores the device: at N = " << small
            << " it launches one block per " << hl::kComputeUnitName << " (1/" << max_blocks
            << " of the resident capacity); for large N it launches many rounds of blocks,\n"
               "which works, but only because the grid-stride loop also covers any grid.\n";
}

// =========================================================================================
// 4. What lowers occupancy: dynamic shared memory and registers
// =========================================================================================

void dynamic_shared_memory(hl::Report& report, const Calculator& calc, const Limits& l,
                           const KernelInfo& triad, TriadProblem* p, unsigned int block,
                           const hl::TimingPlan& plan, hipStream_t stream) {
  std::vector<std::size_t> sizes;
  for (const std::size_t kib : {0, 8, 16, 32, 48}) {
    if (kib * 1024 + triad.attributes.sharedSizeBytes <= l.shared_per_block)
      sizes.push_back(kib * 1024);
  }
  hl::Table table(
      {"dynamic shared bytes", "calculator", "API", "occupancy %", "grid", "median ms", "TB/s"});
  bool agree = true;
  for (const std::size_t bytes : sizes) {
    const int api = occupancy::max_active_blocks(triad.address, static_cast<int>(block), bytes);
    const int own =
        calc.models() ? calc.predict(triad.attributes, static_cast<int>(block), bytes).blocks : -1;
    agree = agree && (own == api || !calc.models());
    const int warps_per_block = ceil_div(static_cast<int>(block), l.warp_size);
    const unsigned int grid = occupancy_grid(std::max(api, 1), l.compute_units);
    std::string ms = "", tbps = "";
    if (p != nullptr) {  // timed in the tour and the speed run, not in --check
      p->a.poison();
      const hl::Stats t =
          hl::time_on_stream(stream, plan, [&] { p->launch(grid, block, bytes, stream, p->n); });
      validate(report,
               "triad with " + std::to_string(bytes) + " dynamic shared bytes, " +
                   grid_name(grid, block),
               p->a, p->expected, p->n);
      ms = hl::fixed(t.median, 4);
      tbps = hl::fixed(hl::terabytes_per_second(3.0 * p->n * sizeof(float), t.median), 2);
    }
    table.add_row({std::to_string(bytes), calc.models() ? std::to_string(own) : "n/a",
                   std::to_string(api), hl::fixed(100.0 * api * warps_per_block / calc.slots(), 1),
                   std::to_string(grid), ms, tbps});
  }
  report.table("dynamic_shared",
               "Dynamic shared memory per block lowers residency (triad, block " +
                   std::to_string(block) + "; the kernel does not even use it)",
               table);
  const std::string name =
      "own occupancy calculation = API with dynamic shared memory, triad, block " +
      std::to_string(block) + ", " + std::to_string(sizes.size()) + " sizes";
  if (calc.models()) {
    report.check(name, agree);
  } else {
    report_skip(report, name, calc.why_not());
  }
}

void register_pressure(hl::Report& report, const Calculator& calc, const Limits& l,
                       const KernelInfo& unbounded, const KernelInfo& bounded, UnaryProblem* p,
                       const hl::TimingPlan& plan, hipStream_t stream) {
  const int block = occupancy::kBoundedBlock;
  hl::Table table({"kernel", "registers per thread", "spill bytes per thread", "API blocks",
                   "occupancy %", "grid", "median ms", "x unbounded"});
  double unbounded_ms = 0.0;
  std::vector<int> api_blocks;
  for (const Unary kernel : {Unary::kRegistersUnbounded, Unary::kRegistersBounded}) {
    const KernelInfo* info = kernel == Unary::kRegistersUnbounded ? &unbounded : &bounded;
    const int api = occupancy::max_active_blocks(info->address, block, 0);
    api_blocks.push_back(api);
    const unsigned int grid = occupancy_grid(std::max(api, 1), l.compute_units);
    std::string ms = "", speed = "";
    if (p != nullptr) {
      p->y.poison();
      const hl::Stats t = hl::time_on_stream(stream, plan, [&] {
        occupancy::launch_unary(kernel, grid, block, stream, p->x.data(), p->y.data(), p->n);
      });
      validate(report, std::string(occupancy::name(kernel)) + ", " + grid_name(grid, block), p->y,
               p->expected(kernel), p->n, tolerance_for(kernel));
      if (kernel == Unary::kRegistersUnbounded) unbounded_ms = t.median;
      ms = hl::fixed(t.median, 4);
      speed = hl::fixed(unbounded_ms / t.median, 2);
    }
    const int warps_per_block = ceil_div(block, l.warp_size);
    table.add_row({occupancy::name(kernel), std::to_string(info->attributes.numRegs),
                   std::to_string(info->attributes.localSizeBytes), std::to_string(api),
                   hl::fixed(100.0 * api * warps_per_block / calc.slots(), 1), std::to_string(grid),
                   ms, speed});
  }
  report.table("register_pressure",
               "Registers per thread lower residency; __launch_bounds__(" + std::to_string(block) +
                   ", " + std::to_string(occupancy::kLaunchBoundsHint) + ") caps them",
               table);
#if defined(__HIP_PLATFORM_AMD__)
  std::cout << "On AMD the second __launch_bounds__ number is the minimum waves per SIMD ("
            << occupancy::kLaunchBoundsHint << "); the compiler treats it as a target for its "
            << "register allocation, so the API shows what it achieved.\n";
#else
  // CUDA's second number is a promise the compiler keeps by capping registers: that many
  // blocks of 256 threads fit by registers, so the API must predict at least that many.
  report.check(
      "__launch_bounds__(" + std::to_string(block) + ", " +
          std::to_string(occupancy::kLaunchBoundsHint) + ") gives >= " +
          std::to_string(occupancy::kLaunchBoundsHint) + " resident blocks per SM (API)",
      api_blocks[1] >= occupancy::kLaunchBoundsHint,
      "API says " + std::to_string(api_blocks[1]) + ", unbounded " + std::to_string(api_blocks[0]));
#endif
  std::cout << "More resident blocks is not automatically faster: the capped kernel may spill "
               "values to memory (spill bytes above), and that traffic costs time.\n";
}

// =========================================================================================
// 5. The sweep: where the occupancy-derived launch lands
// =========================================================================================

struct SweepResult {
  double occupancy_rate = 0.0;   // the occupancy-sized launch at --block
  double one_per_cu_rate = 0.0;  // one block per CU at --block
  double best_rate = 0.0;
  std::string best;
};

/// Times \p launch for every (block, blocks-per-CU) of the sweep, each on a poisoned output
/// (\p poison) that is validated afterwards (\p check_output), and prints the table (also
/// written to the JSON as plot-ready rows). \p rate converts a median time to the figure of
/// merit (TB/s or TFLOP/s).
template <class Launch, class Rate, class Poison, class Validate>
SweepResult sweep(hl::Report& report, const std::string& key, const std::string& name,
                  const std::string& unit, const Limits& l, const KernelInfo& k, std::size_t n,
                  unsigned int chosen_block, std::pair<int, int> max_potential,
                  const hl::TimingPlan& plan, hipStream_t stream, Launch&& launch, Rate&& rate,
                  Poison&& poison, Validate&& check_output) {
  struct Row {
    unsigned int block, grid;
    int per_cu;
    std::string roles;
    double ms = 0.0, value = 0.0;
  };
  std::vector<Row> rows;
  const int max_block = std::min(l.max_threads_per_block, k.attributes.maxThreadsPerBlock);
  std::set<int> blocks;
  for (const int b : {64, 128, 256, 512, 1024}) {
    if (b % l.warp_size == 0 && b <= max_block) blocks.insert(b);
  }
  blocks.insert(static_cast<int>(chosen_block));
  if (max_potential.first > 0) blocks.insert(max_potential.first);
  for (const int block : blocks) {
    const int api = occupancy::max_active_blocks(k.address, block, 0);
    std::set<int> per_cu = {1, 2, 4, 8, 16, 32};
    if (api > 0) per_cu.insert(api);
    for (const int m : per_cu) {
      Row r{static_cast<unsigned int>(block), occupancy_grid(m, l.compute_units), m, "", 0.0, 0.0};
      if (block == static_cast<int>(chosen_block) && m == api) r.roles += "occupancy grid, ";
      if (block == static_cast<int>(chosen_block) && m == 1) r.roles += "one block per CU, ";
      if (block == max_potential.first && static_cast<int>(r.grid) == max_potential.second)
        r.roles += "max potential, ";
      rows.push_back(r);
    }
    // The usual launch, one element per thread, where it fits HIP's 2^32 work-item limit.
    const std::size_t grid = (n + block - 1) / block;
    if (grid * block < (std::size_t{1} << 32)) {
      rows.push_back({static_cast<unsigned int>(block), static_cast<unsigned int>(grid), -1,
                      "one element per thread, ", 0.0, 0.0});
    }
  }
  for (Row& r : rows) {
    poison();
    const hl::Stats t = hl::time_on_stream(stream, plan, [&] { launch(r.grid, r.block); });
    check_output(r.grid, r.block);
    r.ms = t.median;
    r.value = rate(t.median);
  }
  const auto best = std::max_element(rows.begin(), rows.end(),
                                     [](const Row& x, const Row& y) { return x.value < y.value; });
  best->roles += "best, ";
  SweepResult result;
  result.best_rate = best->value;
  result.best = grid_name(best->grid, best->block);
  hl::Table table({"block", "blocks per " + std::string(hl::kComputeUnitName), "grid", "median ms",
                   unit, "% of best", "choice"});
  for (const Row& r : rows) {
    if (r.roles.find("occupancy grid") != std::string::npos) result.occupancy_rate = r.value;
    if (r.roles.find("one block per CU") != std::string::npos) result.one_per_cu_rate = r.value;
    const std::string roles = r.roles.empty() ? "" : r.roles.substr(0, r.roles.size() - 2);
    table.add_row({std::to_string(r.block),
                   r.per_cu < 0 ? hl::fixed(static_cast<double>(r.grid) / l.compute_units, 1)
                                : std::to_string(r.per_cu),
                   std::to_string(r.grid), hl::fixed(r.ms, 4), hl::fixed(r.value, 3),
                   hl::fixed(100.0 * r.value / best->value, 1), roles});
  }
  report.table(key,
               "Sweep: " + name + ", N = " + std::to_string(n) +
                   " (occupancy grid = API blocks per " + hl::kComputeUnitName + " x " +
                   std::to_string(l.compute_units) + ")",
               table);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t block_option = 256;
  double min_vs_best = 0.70;
  double min_vs_one_block = 3.0;
  hl::LessonCli cli(
      "lesson04_occupancy",
      "Lesson 04: size grid-stride launches from occupancy, and compute occupancy yourself",
      std::int64_t{1} << 26);
  cli.add_count("--block", block_option,
                "Threads per block of the occupancy-sized launch (a multiple of the warp size)", 1,
                1024);
  cli.add_number("--min-occupancy-vs-best", min_vs_best,
                 "Speed check: occupancy-sized launch / best launch of the sweep must reach this",
                 0.0, 1.0);
  cli.add_number("--min-vs-one-block-per-cu", min_vs_one_block,
                 "Speed check: occupancy-sized launch / one block per CU must reach this", 0.0,
                 1000.0);

  return hl::run_lesson(cli, argc, argv, [&](hl::Report& report) {
    const hl::CommonOptions& options = cli.options();
    // Every GPU's warp size is a multiple of 32, so this much is known before opening one.
    if (block_option % 32 != 0) {
      throw hl::UsageError("--block " + std::to_string(block_option) +
                           " is not a multiple of 32; block sizes must be whole warps (32 threads "
                           "on NVIDIA and RDNA, 64 on GCN and CDNA)");
    }
    const hl::Device device = hl::open_device(options.device);
    hl::describe_device(report, device);
    const Limits limits = read_limits(device);
    if (block_option % limits.warp_size != 0) {
      throw hl::UsageError("--block " + std::to_string(block_option) +
                           " is not a multiple of this device's " + hl::kWarpName + " size " +
                           std::to_string(limits.warp_size));
    }
    if (block_option > limits.max_threads_per_block) {
      throw hl::UsageError("--block " + std::to_string(block_option) +
                           " is above this device's limit of " +
                           std::to_string(limits.max_threads_per_block) + " threads per block");
    }
    const auto block = static_cast<unsigned int>(block_option);

    // --- 1. Budgets and kernels -----------------------------------------------------------
    report_limits(report, limits);
    const KernelInfo triad = kernel_info("triad", occupancy::triad_address());
    const KernelInfo fma = kernel_info("fma_chain", occupancy::address(Unary::kFmaChain));
    const KernelInfo unbounded =
        kernel_info("registers_unbounded", occupancy::address(Unary::kRegistersUnbounded));
    const KernelInfo bounded =
        kernel_info("registers_bounded", occupancy::address(Unary::kRegistersBounded));
    report_kernels(report, {triad, fma, unbounded, bounded});

    // --- 2. The calculator against the runtime, kernel by kernel --------------------------
    const Calculator calc(limits);
    std::cout << "\nOccupancy = resident " << hl::kWarpName << "s / " << hl::kWarpName
              << " slots per " << hl::kComputeUnitName << " (" << calc.slots()
              << " here). Blocks become resident "
              << "while every budget has room; the tightest budget sets the count.\n";
    if (!calc.models()) std::cout << "calculator: not applicable here: " << calc.why_not() << '\n';
    for (const KernelInfo* k : {&triad, &fma, &unbounded, &bounded}) {
      compare_with_runtime(report, calc, limits, *k, printed_block_sizes(limits, k->attributes), 0,
                           k->name);
    }
    const auto triad_potential = compare_max_potential(report, calc, triad);
    const auto fma_potential = compare_max_potential(report, calc, fma);

    const int max_blocks = occupancy::max_active_blocks(triad.address, static_cast<int>(block), 0);
    if (max_blocks < 1) {
      throw std::runtime_error("hipOccupancyMaxActiveBlocksPerMultiprocessor says no block of " +
                               std::to_string(block) + " threads of the triad fits on a CU");
    }
    const unsigned int grid = occupancy_grid(max_blocks, limits.compute_units);
    std::cout << "\nOccupancy-sized grid-stride launch of the triad: maxBlocks = " << max_blocks
              << " per " << hl::kComputeUnitName << " x " << limits.compute_units << " = grid "
              << grid << " blocks of " << block << "\n";
    report.fact("occupancy_grid", grid);
    report.fact("max_blocks_per_cu", max_blocks);
    const hl::TimingPlan plan{3, options.repeat};
    hl::GpuStream stream;

    if (options.check) {
      // Every kernel on random inputs, at sizes that catch guards and grid-stride mistakes,
      // with the grids the lesson discusses.
      for (const std::size_t n :
           {std::size_t{1}, std::size_t{255}, std::size_t{257}, (std::size_t{1} << 20) + 3}) {
        TriadProblem p(n, options.seed);
        const std::pair<unsigned int, unsigned int> launches[] = {
            {grid, block},
            {static_cast<unsigned int>(limits.compute_units), block},
            {article_grid(n, block, max_blocks), block},
            {static_cast<unsigned int>(triad_potential.second),
             static_cast<unsigned int>(triad_potential.first)}};
        for (const auto& launch : launches) {
          const unsigned int g = launch.first;
          const unsigned int b = launch.second;
          p.a.poison();
          p.launch(g, b, 0, nullptr, n);
          HIP_CHECK(hipDeviceSynchronize());
          validate(report, "triad, N = " + std::to_string(n) + ", " + grid_name(g, b), p.a,
                   p.expected, n);
        }
      }
      dynamic_shared_memory(report, calc, limits, triad, nullptr, block, plan, stream);
      for (const std::size_t n : {std::size_t{1}, std::size_t{257}, (std::size_t{1} << 16) + 3}) {
        UnaryProblem p(n, options.seed);
        for (const Unary kernel :
             {Unary::kFmaChain, Unary::kRegistersUnbounded, Unary::kRegistersBounded}) {
          const int b =
              kernel == Unary::kFmaChain ? static_cast<int>(block) : occupancy::kBoundedBlock;
          const int m = occupancy::max_active_blocks(occupancy::address(kernel), b, 0);
          const std::vector<float> expected = p.expected(kernel);
          for (const unsigned int g : {occupancy_grid(std::max(m, 1), limits.compute_units),
                                       static_cast<unsigned int>(limits.compute_units)}) {
            p.y.poison();
            occupancy::launch_unary(kernel, g, static_cast<unsigned int>(b), nullptr, p.x.data(),
                                    p.y.data(), n);
            HIP_CHECK(hipDeviceSynchronize());
            validate(report,
                     std::string(occupancy::name(kernel)) + ", N = " + std::to_string(n) + ", " +
                         grid_name(g, static_cast<unsigned int>(b)),
                     p.y, expected, n, tolerance_for(kernel));
          }
        }
      }
      register_pressure(report, calc, limits, unbounded, bounded, nullptr, plan, stream);
      report.summary(report.failures() == 0
                         ? "calculator and kernels checked; occupancy grid " + std::to_string(grid)
                         : "checks failed");
      return;
    }

    // --- 3..5. Timed: tour and speed run --------------------------------------------------
    const auto n = static_cast<std::size_t>(options.size);
    hl::require_device_memory(3 * n * sizeof(float) + 2 * kComputeElements * sizeof(float),
                              "--size " + std::to_string(n));
    report.fact("elements", static_cast<double>(n));
    TriadProblem triad_problem(n, options.seed);
    UnaryProblem compute_problem(kComputeElements, options.seed);

    compare_article_grid(report, triad_problem, limits, block, max_blocks, plan, stream);
    dynamic_shared_memory(report, calc, limits, triad, &triad_problem, block, plan, stream);
    register_pressure(report, calc, limits, unbounded, bounded, &compute_problem, plan, stream);

    const double bytes = 3.0 * n * sizeof(float);
    const SweepResult memory = sweep(
        report, "sweep_triad", "triad (memory-bound)", "TB/s", limits, triad, n, block,
        triad_potential, plan, stream,
        [&](unsigned int g, unsigned int b) { triad_problem.launch(g, b, 0, stream, n); },
        [&](double ms) { return hl::terabytes_per_second(bytes, ms); },
        [&] { triad_problem.a.poison(); },
        [&](unsigned int g, unsigned int b) {
          validate(report, "triad, " + grid_name(g, b), triad_problem.a, triad_problem.expected, n);
        });
    const std::vector<float> fma_expected = compute_problem.expected(Unary::kFmaChain);
    const SweepResult compute = sweep(
        report, "sweep_fma_chain", "fma_chain (compute-bound)", "TFLOP/s", limits, fma,
        kComputeElements, block, fma_potential, plan, stream,
        [&](unsigned int g, unsigned int b) {
          occupancy::launch_unary(Unary::kFmaChain, g, b, stream, compute_problem.x.data(),
                                  compute_problem.y.data(), kComputeElements);
        },
        [&](double ms) { return occupancy::kChainFlopsPerElement * kComputeElements / (ms * 1e9); },
        [&] { compute_problem.y.poison(); },
        [&](unsigned int g, unsigned int b) {
          validate(report, "fma_chain, " + grid_name(g, b), compute_problem.y, fma_expected,
                   kComputeElements);
        });

    const double memory_vs_best = memory.occupancy_rate / memory.best_rate;
    const double compute_vs_best = compute.occupancy_rate / compute.best_rate;
    const double memory_vs_one = memory.occupancy_rate / memory.one_per_cu_rate;
    report.measurement("triad_occupancy_tbps", memory.occupancy_rate);
    report.measurement("triad_one_block_per_cu_tbps", memory.one_per_cu_rate);
    report.measurement("triad_best_tbps", memory.best_rate);
    report.measurement("fma_chain_occupancy_tflops", compute.occupancy_rate);
    report.measurement("fma_chain_best_tflops", compute.best_rate);
    std::cout << '\n';
    if (options.speed_check) {
      report.check_ratio_at_least("triad: occupancy grid / best of sweep", memory_vs_best,
                                  min_vs_best);
      report.check_ratio_at_least("fma_chain: occupancy grid / best of sweep", compute_vs_best,
                                  min_vs_best);
      report.check_ratio_at_least("triad: occupancy grid / one block per CU", memory_vs_one,
                                  min_vs_one_block);
    } else {
      std::cout << "triad: occupancy grid / best = " << hl::fixed(memory_vs_best, 2)
                << ", fma_chain: occupancy grid / best = " << hl::fixed(compute_vs_best, 2)
                << " (the speed test requires >= " << hl::fixed(min_vs_best, 2) << ")\n"
                << "triad: occupancy grid / one block per " << hl::kComputeUnitName << " = "
                << hl::fixed(memory_vs_one, 2)
                << " (the speed test requires >= " << hl::fixed(min_vs_one_block, 2) << ")\n";
    }
    report.summary("occupancy grid " + std::to_string(max_blocks) + " x " +
                   std::to_string(limits.compute_units) + " (block " + std::to_string(block) +
                   "): triad " + hl::fixed(memory.occupancy_rate, 2) +
                   " TB/s = " + hl::fixed(memory_vs_best, 2) + " x best, " +
                   hl::fixed(memory_vs_one, 2) + " x one block per " + hl::kComputeUnitName);
  });
}
