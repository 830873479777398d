/// \file amd_cu_masks.hpp
/// \brief AMD compute-unit masks: what one mask bit is, which masks the runtime and the kernel
/// driver honour, and partitions of a device that every XCC can run. Host code only: pure
/// functions of the device's shape, the HIP release and the environment, tested against models
/// of the kernel driver and of HIP (tools/amd_models). Lessons 06 and 08 build every AMD mask
/// with them, and refuse what the hardware would hang on or the runtime would quietly change.
///
/// Three numberings meet here:
///   - HIP bits: what hipExtStreamCreateWithCUMask and ROC_GLOBAL_CU_MASK take. One bit per CU,
///     except on gfx10+ in WGP mode (GPU_ENABLE_WGP_MODE, on by default) from HIP 5.7, where
///     one bit is a workgroup processor (WGP) and HIP sets both of its CUs.
///   - CU IDs: what the kernel driver's queue mask, and so HSA_CU_MASK, takes: one per CU. The
///     driver deals them out symmetrically: on a GPU of X XCCs (MI300: 8 in SPX mode) ID i
///     belongs to XCC i mod X, and within an XCC consecutive IDs go to different shader engines.
///   - units: what multiProcessorCount counts: CUs, or WGPs in WGP mode.
/// Every XCC takes every X-th workgroup of every dispatch whatever the mask says, so a mask that
/// leaves an XCC without a CU leaves that XCC's workgroups nowhere to run: the queue hangs. A
/// shader engine without a CU is fine (masks of one CU are routine on single-XCC GPUs).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hip_lessons {

/// The most mask bits handled: 64 words of 32 bits (MI300X has 304 CUs).
inline constexpr int kMaxMaskBits = 2048;

/// A set of mask bits as hipExtStreamCreateWithCUMask takes them: 32-bit words, bit (i % 32)
/// of word i / 32 standing for bit i.
struct CuMask {
  std::array<std::uint32_t, kMaxMaskBits / 32> words{};
  bool has(int bit) const { return (words[bit / 32] >> (bit % 32)) & 1u; }
  void set(int bit) { words[bit / 32] |= 1u << (bit % 32); }
  int count() const;
  /// The ID-list spelling, "0-7,16-23" ("none" for an empty set).
  std::string ids() const;
  friend bool operator==(const CuMask& a, const CuMask& b) { return a.words == b.words; }
};

/// The bits first, first + 1, ..., first + count - 1.
CuMask cu_mask_range(int first, int count);

/// Parses a CU list such as "0-7,16-23" (HSA_CU_MASK's syntax) given as \p option; UsageError
/// naming the option for anything else, and for a list that selects nothing.
CuMask parse_cu_list(const std::string& option, const std::string& text);

/// GPU_ENABLE_WGP_MODE (\p value; nullptr when unset) as HIP \p hip_version parses a bool flag:
/// unset is on; set, only "true" or what atoi() reads as non-zero is on ("TRUE", "yes", "0x1"
/// are off), and "" is off from HIP 5.5 (HIP_VERSION 50500000, ROCclr 38aa1bd4) and on before.
bool hip_counts_wgps(const char* value, int hip_version);

/// One AMD device as the mask rules see it: read from HIP and the environment by the lesson
/// (amd_mask_device()), or written down for a GPU shape by the tests.
struct AmdMaskDevice {
  std::string arch;                   ///< gcnArchName up to the first ':', e.g. "gfx942"
  int hip_version = 0;                ///< HIP_VERSION of the running HIP (hipRuntimeGetVersion)
  bool wgp_mode = false;              ///< HIP runs this gfx10+ device in WGP mode (never on gfx9)
  int physical_units = 0;             ///< hipDeviceAttributePhysicalMultiProcessorCount
  std::optional<int> xccs;            ///< XCCs of the device (amd_xcc_count()); nothing: unknown
  std::optional<CuMask> global_mask;  ///< ROC_GLOBAL_CU_MASK as HIP took it, in HIP bits
  /// HSA_CU_MASK's CU IDs for this GPU (ROCr applies them to every queue, below HIP): nothing
  /// when it names no set for this GPU.
  std::optional<CuMask> hsa_cu_mask{};
  /// ROCr's index of this GPU (what HSA_CU_MASK counts), when it can be told from HIP's
  /// (HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES renumber in HIP only); nothing: unknown.
  std::optional<int> rocr_index{};
  /// Why ROCr's index cannot be told (a UUID in HIP_VISIBLE_DEVICES); empty when known.
  std::string rocr_unknown{};
  /// Why HSA_CU_MASK is set but its CUs for this GPU cannot be told (ROCr's index unknown, a
  /// value ROCr ignores in part); empty otherwise. mask_layout() then skips.
  std::string hsa_unknown{};
};

/// Reads an environment variable: std::getenv in a lesson, a table in the tests.
using EnvLookup = const char* (*)(const char* name, const void* context);

/// The device the mask rules see, from what HIP reports and the environment the runtime read:
/// \p gcn_arch (gcnArchName), \p hip_version, \p physical_units
/// (hipDeviceAttributePhysicalMultiProcessorCount), \p xcc_attribute
/// (hipDeviceAttributeNumberOfXccs, HIP 7.0 and later), HIP's \p hip_index, and
/// GPU_ENABLE_WGP_MODE, ROC_GLOBAL_CU_MASK, HSA_CU_MASK, HIP_VISIBLE_DEVICES and
/// CUDA_VISIBLE_DEVICES read through \p env. amd_mask_device() is this with HIP's answers.
AmdMaskDevice describe_amd_device(const std::string& gcn_arch, int hip_version, int physical_units,
                                  std::optional<int> xcc_attribute, int hip_index, EnvLookup env,
                                  const void* context = nullptr);

/// ROCr's index of HIP's device \p hip_index: HIP_VISIBLE_DEVICES when set and not empty, else
/// CUDA_VISIBLE_DEVICES, lists ROCr's indices in HIP's order, up to the first that is not a
/// number (ROCm/clr rocclr/device/rocm/rocdevice.cpp, rocm-6.2.2: the first invalid index ends
/// the list); HSA_CU_MASK counts ROCr's (ROCR-Runtime src/core/util/flag.cpp, rocm-6.2.4: "GPU
/// indexes are taken post ROCR_VISIBLE_DEVICES reordering"). Nothing when the list holds a
/// UUID ("GPU-...", HIP 6.2 and later) or does not reach \p hip_index.
std::optional<int> rocr_gpu_index(int hip_index, const char* hip_visible, const char* cuda_visible);

/// The CU IDs HSA_CU_MASK (\p value) gives ROCr's GPU \p rocr_gpu, or nothing when no set names
/// it. SkipError when ROCr would ignore part of the value (lesson 01's check says which).
std::optional<CuMask> hsa_cu_mask_for(const std::string& value, int rocr_gpu);

/// The partition size a lesson takes when --partition is not given: the smallest multiple of
/// the partition step of at least \p at_least units for which \p count partitions (and, with
/// \p leave_rest, a non-empty rest) can be planned; when none of at least \p at_least fits, the
/// largest smaller one that does; \p at_least itself when none fits at all (the lesson's own
/// refusal then names the reason) or the device's shape is unknown (its skip does).
int default_partition_units(const AmdMaskDevice& device, int count, bool leave_rest,
                            int at_least = 8);

/// The XCCs of a device: \p attribute (hipDeviceAttributeNumberOfXccs, HIP 7.0 and later) when
/// positive; else 1 on every arch but gfx940-942 and gfx950, whose XCDs hold 38 and 32 CUs
/// (MI300X, MI300A, MI325X; MI350X, MI355X), so that \p physical_units / that is the count in
/// every compute-partition mode; nothing when it does not divide (a part the project does not
/// know).
std::optional<int> amd_xcc_count(const std::string& arch, int physical_units,
                                 std::optional<int> attribute);

/// ROC_GLOBAL_CU_MASK (\p text) as HIP reads it at start-up on a device of \p physical_units
/// (HIP's units, WGPs in WGP mode; ROCm/clr rocclr/device/rocm/rocdevice.cpp,
/// Device::getGlobalCUMask, the same from ROCclr rocm-4.2.0 to clr amd-staging f9f995c6): an
/// optional 0x, then at most as many hex digits from the end as the device's CUs fill, 8 at a
/// time. Nothing when HIP drops it (unreadable, no CU, or every CU): the queues use every CU.
std::optional<CuMask> hip_global_cu_mask(const std::string& text, int physical_units,
                                         bool wgp_mode);

/// How HIP bits map to CUs and units on one device, and which masks it takes.
struct MaskLayout {
  int bits = 0;             ///< HIP bits of the device: 0 .. bits - 1
  int bits_per_unit = 1;    ///< HIP bits per unit (2 where bits are CUs and units WGPs)
  int cus_per_bit = 1;      ///< CU IDs per HIP bit (2 where a bit is a WGP)
  int bit_granularity = 1;  ///< HIP bits come in whole groups of this many (2: a WGP's CUs)
  int xccs = 1;             ///< bit b belongs to XCC b mod xccs
  std::string unit;         ///< "CU" or "WGP"
  std::string rule;         ///< one mask bit, in words
  /// Partition sizes, in units, are multiples of this: whole WGPs, and as many per XCC.
  int partition_step() const;
};

/// The layout of \p device (see MaskLayout). On gfx10+ CUs pair up into WGPs: in WGP mode HIP
/// counts WGPs, and from HIP 5.7 sets both CUs of each bit (ROCm/clr 8c123212). Where HIP's bits
/// are still CUs, a mask takes both CUs of a WGP or neither, on every release: ROCr 5.3 and
/// later refuses one alone (ROCR-Runtime AqlQueue::SetCUMasking), and the kernel driver enables
/// the whole WGP for either bit anyway (amdkfd mqd_symmetrically_map_cu_mask, en_mask 0x3).
/// Throws SkipError when the device's XCC count is unknown, and UsageError when
/// ROC_GLOBAL_CU_MASK, which HIP gives every queue, sets half a WGP or leaves an XCC no CU.
MaskLayout mask_layout(const AmdMaskDevice& device);

/// Why \p mask (HIP bits) cannot limit a queue on \p device, or nothing: it names no bit, a bit
/// past the device, a bit outside ROC_GLOBAL_CU_MASK (HIP would AND them, or use the global
/// mask alone), part of a WGP, or leaves an XCC with no CU (that XCC's workgroups never run).
std::optional<std::string> cu_mask_problem(const AmdMaskDevice& device, const CuMask& mask);

/// Disjoint masks (HIP bits) of \p units_each units each, inside ROC_GLOBAL_CU_MASK, the same
/// number of bits on every XCC; with \p rest, one more of every whole group left (maybe empty).
/// UsageError naming the rule and the nearest valid size when a size is not a multiple of the
/// partition step, or when they do not fit.
std::vector<CuMask> plan_partitions(const AmdMaskDevice& device, const std::vector<int>& units_each,
                                    bool rest = false);

/// The units every queue of the process can use on \p device: all of them, or those inside
/// ROC_GLOBAL_CU_MASK and HSA_CU_MASK. Not multiProcessorCount, which under a global mask in
/// WGP mode is half the WGPs the queues get (ROCm/clr rocm-6.2.2 rocdevice.cpp:3433-3434,
/// "maxComputeUnits_ = settings().enableWgpMode_ ? availCUs / 2 : availCUs", while acquireQueue
/// widens each bit to a WGP, :3148) and which does not see HSA_CU_MASK at all.
int available_units(const AmdMaskDevice& device);

/// The units a grid sized "blocks per unit" must count to fill what its queue can use:
/// available_units() of \p amd on AMD, \p reported (multiProcessorCount) without one (NVIDIA).
int grid_units(const std::optional<AmdMaskDevice>& amd, int reported);

/// The units \p mask (HIP bits) holds on \p device.
int units_of(const AmdMaskDevice& device, const CuMask& mask);

/// The CU IDs (the kernel driver's numbering, HSA_CU_MASK's) of HIP bits \p mask.
CuMask cu_ids_of(const AmdMaskDevice& device, const CuMask& mask);

/// HSA_CU_MASK's value that limits every queue of a process to \p cu_ids on GPU \p gpu:
/// "0:0-7,16-23".
std::string hsa_cu_mask_value(int gpu, const CuMask& cu_ids);

}  // namespace hip_lessons
