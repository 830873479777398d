/// \file lessons/06_cu_masking/cu_partition.hpp
/// \brief Lesson 06's machinery: "a stream limited to these compute units", on both vendors.
///
/// HIP has no device-wide CU mask call (the article's hipDeviceSetCuMask does not exist):
/// - AMD: hipExtStreamCreateWithCUMask(&stream, words, mask) creates a stream whose kernels run
///   only on the compute units whose bits are set (what a bit is depends on the GPU and the HIP
///   release: cu_mask_layout()); hipExtStreamGetCUMask reads the stream's mask back, which is
///   not always what its queue got (readback_caveat()).
/// - NVIDIA: the driver splits off sets of SMs (cuDeviceGetDevResource ->
///   cuDevSmResourceSplitByCount), each becomes a green context (cuDevResourceGenerateDesc ->
///   cuGreenCtxCreate) with a stream inside (cuGreenCtxStreamCreate). The driver picks which
///   SMs, and rounds the count up to its granularity.
///
/// The first part (masks: building, parsing, checking) is host-only and unit tested
/// (test_cu_partition.cpp); the second is compiled only for a HIP platform.
#pragma once

#include <algorithm>
#include <bitset>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hip_lessons/environment.hpp"
#include "hip_lessons/errors.hpp"
#include "hip_lessons/format.hpp"

namespace cu_masking {
namespace hl = hip_lessons;

/// The most compute units a mask may name: 64 words of 32 bits. (MI300X has 304 CUs.)
inline constexpr int kMaxMaskUnits = 2048;

/// A set of compute units. hipExtStreamCreateWithCUMask takes it as 32-bit words, bit (i % 32)
/// of word i / 32 standing for unit i (words(), from_words()).
struct CuMask {
  std::bitset<kMaxMaskUnits> units;

  int count() const { return static_cast<int>(units.count()); }
  /// The highest unit in the set, or -1 for an empty set.
  int highest() const {
    int unit = kMaxMaskUnits - 1;
    while (unit >= 0 && !units[unit]) --unit;
    return unit;
  }
  /// The first \p count words of the mask.
  std::vector<std::uint32_t> words(std::size_t count) const {
    std::vector<std::uint32_t> w(count, 0u);
    for (std::size_t u = 0; u < std::min<std::size_t>(32 * count, kMaxMaskUnits); ++u) {
      if (units[u]) w[u / 32] |= 1u << (u % 32);
    }
    return w;
  }
  static CuMask from_words(const std::vector<std::uint32_t>& words) {
    CuMask mask;
    for (std::size_t u = 0; u < std::min<std::size_t>(32 * words.size(), kMaxMaskUnits); ++u) {
      if ((words[u / 32] >> (u % 32)) & 1u) mask.units.set(u);
    }
    return mask;
  }
  /// The ROCm spelling: "0x" and hex digits, most significant first, no leading zeros.
  std::string hex() const {
    std::string text = "0x";
    for (int u = std::max(0, highest()) / 4 * 4; u >= 0; u -= 4) {
      text +=
          "0123456789abcdef"[units[u] | units[u + 1] << 1 | units[u + 2] << 2 | units[u + 3] << 3];
    }
    return text;
  }
  /// The ID-list spelling: "0-7,16-23" ("none" for an empty set).
  std::string ids() const {
    std::string text;
    for (int u = 0, last = highest(); u <= last; ++u) {
      if (!units[u]) continue;
      int end = u;
      while (end < last && units[end + 1]) ++end;
      text +=
          (text.empty() ? "" : ",") + (end > u ? hl::format("{}-{}", u, end) : hl::format("{}", u));
      u = end;
    }
    return text.empty() ? "none" : text;
  }
  friend bool operator==(const CuMask& a, const CuMask& b) { return a.units == b.units; }
  friend bool operator!=(const CuMask& a, const CuMask& b) { return a.units != b.units; }
};

/// The \p count consecutive compute units first, first + 1, ..., first + count - 1.
inline CuMask cu_mask_range(int first, int count) {
  CuMask mask;
  for (int unit = first; unit < first + count; ++unit) mask.units.set(unit);
  return mask;
}

/// Parses a mask given on the command line as a CU list ("0-7,16-23", the ID_list of ROCm's
/// HSA_CU_MASK) or a hex mask ("0xff00", the form of ROC_GLOBAL_CU_MASK). Throws UsageError
/// naming \p option and the text when it is neither, names a unit at or above kMaxMaskUnits,
/// or selects no unit at all.
inline CuMask parse_cu_mask(const std::string& option, const std::string& text) {
  const std::string forms = "; use a CU list such as 0-7,16-23 or a hex mask such as 0xff00";
  if (text.empty()) throw hl::UsageError(option + " is empty" + forms);
  CuMask mask;
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    const std::string digits = text.substr(2);
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(),
                                       [](unsigned char c) { return std::isxdigit(c) != 0; })) {
      throw hl::UsageError(hl::format("{} '{}' is not a hex mask{}", option, text, forms));
    }
    const std::size_t significant = digits.find_first_not_of('0');
    if (significant != std::string::npos && digits.size() - significant > kMaxMaskUnits / 4) {
      throw hl::UsageError(hl::format("{} '{}' names units beyond {}, more than any GPU has",
                                      option, text, kMaxMaskUnits - 1));
    }
    for (std::size_t i = 0; i < digits.size(); ++i) {
      const int c = std::tolower(static_cast<unsigned char>(digits[digits.size() - 1 - i]));
      const int nibble = c <= '9' ? c - '0' : c - 'a' + 10;
      for (int b = 0; b < 4; ++b) {
        if ((nibble >> b) & 1) mask.units.set(4 * i + b);
      }
    }
  } else {
    try {
      for (const int unit : hl::parse_id_list(text, kMaxMaskUnits)) mask.units.set(unit);
    } catch (const hl::UsageError& error) {
      throw hl::UsageError(hl::format("{} '{}' is neither a hex mask nor a CU list: {}", option,
                                      text, error.what()));
    }
  }
  if (mask.count() == 0) {
    throw hl::UsageError(hl::format(
        "{} '{}' selects no compute unit; a partition needs at least one", option, text));
  }
  return mask;
}

/// \p value rounded up to a multiple of \p granularity (granularity >= 1).
inline int round_up_to(int value, int granularity) {
  return (value + granularity - 1) / granularity * granularity;
}

/// Whether \p gcn_arch_name (hipDeviceProp_t::gcnArchName, e.g. "gfx90a:sramecc+:xnack-") is a
/// gfx10 or later GPU, whose CUs pair up into workgroup processors (WGPs: RDNA).
inline bool has_wgps(const std::string& gcn_arch_name) {
  return gcn_arch_name.rfind("gfx1", 0) == 0 && gcn_arch_name.size() >= 7 &&
         std::all_of(gcn_arch_name.begin() + 4, gcn_arch_name.begin() + 7,
                     [](unsigned char c) { return std::isxdigit(c) != 0; });
}

/// HIP's GPU_ENABLE_WGP_MODE as the runtime reads it: on (the default) unless set to 0 or
/// "false". It changes only how HIP counts compute units and converts masks; whether a kernel
/// runs in WGP or CU mode was fixed when it was compiled (-mcumode).
inline bool hip_counts_wgps(const char* gpu_enable_wgp_mode) {
  if (gpu_enable_wgp_mode == nullptr || *gpu_enable_wgp_mode == '\0') return true;
  const std::string value = gpu_enable_wgp_mode;
  return value != "0" && value != "false";
}

/// hipRuntimeGetVersion() of the first HIP that turns each stream-mask bit into a CU pair in
/// WGP mode (HIP_VERSION = major * 10000000 + minor * 100000 + patch on AMD): ROCm 6.0.
inline constexpr int kHipConvertsWgpMasks = 60000000;

/// How the bits of hipExtStreamCreateWithCUMask's mask map to the compute units HIP reports
/// (multiProcessorCount, which counts WGPs on gfx10+ while HIP is in WGP mode).
struct MaskLayout {
  int bits_per_unit = 1;    ///< mask bits per reported unit (2: the bits are CUs, units WGPs)
  int bit_granularity = 1;  ///< bits come in groups of this many (2: both CUs of a WGP)
  std::string rule;         ///< the rule in words, for the rules table
  /// Units are enabled in groups of this many (partition sizes are multiples of it).
  int unit_granularity() const { return std::max(1, bit_granularity / bits_per_unit); }
};

/// The layout on a GPU named \p gcn_arch_name, under HIP \p hip_runtime_version, with HIP
/// counting WGPs (\p wgp_mode, hip_counts_wgps()) or CUs. ROCr (and the kernel driver) refuse a
/// gfx10+ mask that enables one CU of a WGP. HIP before 6.0 passes the stream's bits to ROCr
/// unchanged, so a bit is a CU; from 6.0, in WGP mode, HIP turns each bit into the WGP's two
/// CUs, so one bit is one WGP, one reported unit (clr rocdevice.cpp, Device::acquireQueue).
inline MaskLayout cu_mask_layout(const std::string& gcn_arch_name, int hip_runtime_version,
                                 bool wgp_mode) {
  if (!has_wgps(gcn_arch_name)) return {1, 1, "one bit per CU"};
  if (!wgp_mode) return {1, 2, "one bit per CU, both CUs of a WGP or neither"};
  if (hip_runtime_version >= kHipConvertsWgpMasks) {
    return {1, 1, "one bit per WGP (HIP >= 6.0 sets both its CUs)"};
  }
  return {2, 2, "one bit per CU, two per reported unit (a WGP) (HIP < 6.0)"};
}

/// The mask of \p units (reported units) in mask bits: unit u becomes bits u * b .. u * b + b - 1
/// for b = \p bits_per_unit.
inline CuMask units_to_bits(const CuMask& units, int bits_per_unit) {
  CuMask bits;
  for (int u = 0; u <= units.highest(); ++u) {
    for (int b = 0; units.units[u] && b < bits_per_unit && u * bits_per_unit + b < kMaxMaskUnits;
         ++b) {
      bits.units.set(u * bits_per_unit + b);
    }
  }
  return bits;
}

/// Why hipExtStreamGetCUMask's answer is not the mask a stream's queue got, or nothing when it
/// is. With ROC_GLOBAL_CU_MASK set, clr up to at least ROCm 7.2 computes the AND of the two
/// masks but copies it out only when no global mask is set, so the caller's buffer comes back
/// as it went in; HSA_CU_MASK is applied by ROCr, below HIP; and HIP before 6.0 ANDs the answer
/// with a mask of multiProcessorCount bits, cutting off the upper CUs of a WGP GPU's mask.
inline std::optional<std::string> readback_caveat(const MaskLayout& layout, bool global_cu_mask,
                                                  bool hsa_cu_mask) {
  if (global_cu_mask) {
    return std::string(
        "ROC_GLOBAL_CU_MASK is set: hipExtStreamGetCUMask may return the buffer unchanged");
  }
  if (hsa_cu_mask) return std::string("HSA_CU_MASK narrows queues in ROCr, below HIP");
  if (layout.bits_per_unit > 1) {
    return std::string("this HIP cuts the read-back to multiProcessorCount bits");
  }
  return std::nullopt;
}

/// Why \p mask cannot limit a stream on a device whose mask has \p units bits, enabled in
/// groups of \p granularity (1, or 2 for the CU pairs of a WGP); nothing when it can.
inline std::optional<std::string> cu_mask_problem(const CuMask& mask, int units, int granularity) {
  if (mask.count() == 0) return std::string("the mask selects no compute unit");
  if (mask.highest() >= units) {
    return hl::format("the mask sets bit {}, but this device's mask has {} bits (0..{})",
                      mask.highest(), units, units - 1);
  }
  for (int first = 0; granularity > 1 && first <= mask.highest(); first += granularity) {
    int in_group = 0;
    for (int u = first; u < first + granularity; ++u) in_group += mask.units[u] ? 1 : 0;
    if (in_group != 0 && in_group != granularity) {
      return hl::format(
          "the mask sets only part of the group {}-{}; here mask bits are CUs enabled in {}s "
          "(a workgroup processor's CUs), set both or neither",
          first, first + granularity - 1, granularity);
    }
  }
  return std::nullopt;
}

/// What the platform allows a partition to look like on one device.
struct PartitionRules {
  int units = 0;          ///< compute units of the whole device
  int min_units = 1;      ///< the smallest partition
  int granularity = 1;    ///< partition sizes are multiples of this
  std::string mechanism;  ///< the API that enforces it
};

/// The size a request for \p requested units is rounded to under \p rules (the split API
/// on NVIDIA decides for itself; this is the documented rule, used to plan ahead).
inline int expected_grant(const PartitionRules& rules, int requested) {
  return std::max(rules.min_units, round_up_to(requested, rules.granularity));
}

/// Disjoint masks for \p groups partitions of \p units_each units (rounded up to the
/// granularity), laid out from unit 0, and the rest of the device (rounded down to whole
/// groups; empty when nothing is left). Throws UsageError when the groups do not fit.
struct MaskPlan {
  std::vector<CuMask> groups;
  CuMask rest;
};
inline MaskPlan plan_cu_masks(int units, int groups, int units_each, int granularity) {
  if (groups < 1 || units_each < 1) {
    throw hl::UsageError(hl::format(
        "a partition needs at least one compute unit (asked for {} x {})", groups, units_each));
  }
  const int each = round_up_to(units_each, granularity);
  if (static_cast<long long>(groups) * each > units) {
    const std::string rounded =
        each == units_each
            ? ""
            : hl::format(" ({} after rounding to whole groups of {})", each, granularity);
    throw hl::UsageError(
        hl::format("{} partition(s) of {} compute units{} do not fit on this device, which has {}",
                   groups, units_each, rounded, units));
  }
  MaskPlan plan;
  for (int g = 0; g < groups; ++g) plan.groups.push_back(cu_mask_range(g * each, each));
  plan.rest = cu_mask_range(groups * each, (units - groups * each) / granularity * granularity);
  return plan;
}

}  // namespace cu_masking

// =============================================================================================
// Device part: CuPartitionStream (only in translation units built for a HIP platform)
// =============================================================================================
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_NVIDIA__)

#include <hip/hip_runtime.h>

#include <cstdlib>
#include <memory>

#include "hip_lessons/device.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/report.hpp"

#if !defined(__HIP_PLATFORM_AMD__)
#include <cudaTypedefs.h>  // cuda.h, and the PFN_ types of the driver entry points
// The driver's entry points come through the hip_on_cuda layer's loader, so nothing links
// libcuda; green contexts need CUDA 12.5 headers (cuGreenCtxStreamCreate).
#if CUDA_VERSION >= 12050 && __has_include(<hip/hip_on_cuda/driver.h>)
#include <hip/hip_on_cuda/driver.h>
#define CU_MASKING_GREEN_CONTEXTS 1
#endif
#endif

namespace cu_masking {

/// The calls that make a partition here, and the process-wide settings that narrow it.
#if defined(__HIP_PLATFORM_AMD__)
inline constexpr const char* kPartitionCalls =
    "AMD: hipExtStreamCreateWithCUMask(&stream, words, mask), read back with "
    "hipExtStreamGetCUMask";
inline constexpr const char* kProcessWideSettings[] = {"ROC_GLOBAL_CU_MASK", "HSA_CU_MASK"};
inline constexpr const char* kProcessWideEffect = " (ANDed with every stream's mask)";
#else
inline constexpr const char* kPartitionCalls =
    "NVIDIA: cuDevSmResourceSplitByCount -> cuDevResourceGenerateDesc -> cuGreenCtxCreate -> "
    "cuGreenCtxStreamCreate";
// Streams on one hardware queue run in order whatever their SMs (see main.hip).
inline constexpr const char* kProcessWideSettings[] = {"CUDA_DEVICE_MAX_CONNECTIONS"};
inline constexpr const char* kProcessWideEffect = "";
#endif

/// A stream whose kernels run only on some of the device's compute units. It converts to
/// hipStream_t, so launches and events are plain HIP. Copies share the stream; the last one
/// destroys it (and, on NVIDIA, its green context) once the work on it has finished.
struct CuPartitionStream {
  hipStream_t stream = nullptr;
  int requested_units = 0;  ///< what was asked for
  int granted_units = 0;    ///< what the platform gave (NVIDIA rounds up; AMD: see masked_stream)
  std::string placement;    ///< "mask bits 0-7 (0xff)" on AMD, "green context, 8 SMs" on NVIDIA
  CuMask requested_mask;    ///< AMD: the mask bits asked for
  CuMask applied_mask;      ///< AMD: the mask hipExtStreamGetCUMask reports for the stream
  std::optional<std::string> readback_caveat;  ///< AMD: why applied_mask may not be the truth
  std::shared_ptr<void> owner;                 ///< destroys the stream with the last copy

  operator hipStream_t() const noexcept { return stream; }  // NOLINT: reads like a stream
};

/// Disjoint partitions of one device, each with its own stream.
struct DevicePartition {
  std::vector<CuPartitionStream> groups;  ///< the partitions of the requested size
  std::optional<CuPartitionStream> rest;  ///< what is left, when asked for and not empty
};

#if defined(__HIP_PLATFORM_AMD__)
/// How this device's and this HIP's mask bits map to the units HIP reports (cu_mask_layout()).
inline MaskLayout device_mask_layout(const hl::Device& device) {
  int version = 0;
  HIP_CHECK(hipRuntimeGetVersion(&version));
  return cu_mask_layout(device.props.gcnArchName, version,
                        hip_counts_wgps(std::getenv("GPU_ENABLE_WGP_MODE")));
}

/// A stream on the mask bits of \p mask (laid out by \p layout), with the mask read back.
inline CuPartitionStream masked_stream(const hl::Device& device, const MaskLayout& layout,
                                       const CuMask& mask, int requested) {
  const int bits = device.compute_units() * layout.bits_per_unit;
  const std::vector<std::uint32_t> request = mask.words(static_cast<std::size_t>(bits + 31) / 32);
  CuPartitionStream s;
  //! [amd_cu_mask_stream]
  // One bit per compute unit, 32 per uint32_t; the argument after the stream is the
  // number of 32-bit words, not of bits.
  HIP_CHECK(hipExtStreamCreateWithCUMask(&s.stream, static_cast<std::uint32_t>(request.size()),
                                         request.data()));
  // Destroyed with the last copy, after its work: never pull the CUs out from under a kernel.
  s.owner = std::shared_ptr<void>(s.stream, [](hipStream_t stream) {
    (void)hipStreamSynchronize(stream);
    (void)hipStreamDestroy(stream);
  });
  // The stream's mask as HIP keeps it (ANDed with what HIP thinks the device has).
  std::vector<std::uint32_t> applied(kMaxMaskUnits / 32, 0u);
  HIP_CHECK(
      hipExtStreamGetCUMask(s.stream, static_cast<std::uint32_t>(applied.size()), applied.data()));
  //! [amd_cu_mask_stream]
  s.requested_units = requested;
  s.requested_mask = CuMask::from_words(request);
  s.applied_mask = CuMask::from_words(applied);
  s.readback_caveat = cu_masking::readback_caveat(layout, std::getenv("ROC_GLOBAL_CU_MASK"),
                                                  std::getenv("HSA_CU_MASK"));
  // Trust the read-back only where the HIP source says it is the queue's mask.
  const CuMask& granted = s.readback_caveat ? s.requested_mask : s.applied_mask;
  s.granted_units = std::max(1, granted.count() / layout.bits_per_unit);
  s.placement = hl::format("mask bits {} ({})", granted.ids(), granted.hex());
  return s;
}
#elif defined(CU_MASKING_GREEN_CONTEXTS)
/// Driver function \p name at the CUDA 12.5 ABI (green contexts 12.4, their streams 12.5),
/// fetched by the hip_on_cuda layer with cudaGetDriverEntryPointByVersion.
template <class Fn>
Fn driver(const char* name) {
  Fn fn = nullptr;
  const hipError_t found = hip_on_cuda::detail::driver_entry_point(name, &fn, 12050);
  if (found == hipErrorNotSupported) {
    throw hl::SkipError(hl::format(
        "the CUDA driver has no {} at the CUDA 12.5 ABI: green contexts need a 12.5 driver", name));
  }
  hl::check_hip(found, name, __FILE__, __LINE__);
  return fn;
}

/// Calls driver function \p name (type \p Fn, from cudaTypedefs.h). CUDA_ERROR_NOT_SUPPORTED
/// (green contexts refused here, e.g. under MPS or vGPU) is a skip; any other error a HipError.
template <class Fn, class... Args>
void cu_call(const char* name, Args... args) {
  const CUresult result = driver<Fn>(name)(args...);
  if (result == CUDA_SUCCESS) return;
  const char* error = "CUDA_ERROR_UNKNOWN";
  const char* text = "unknown driver error";
  (void)driver<PFN_cuGetErrorName_v6000>("cuGetErrorName")(result, &error);
  (void)driver<PFN_cuGetErrorString_v6000>("cuGetErrorString")(result, &text);
  if (result == CUDA_ERROR_NOT_SUPPORTED) {
    throw hl::SkipError(hl::format(
        "{} reported {}: green contexts are not available on this GPU or set-up", name, error));
  }
  throw hl::HipError(name, __FILE__, __LINE__, error, text, static_cast<int>(result));
}

/// The driver's handle of HIP device \p index, and the SM resource of the whole device.
inline CUdevice driver_device(int index) {
  CUdevice device = 0;
  cu_call<PFN_cuDeviceGet_v2000>("cuDeviceGet", &device, index);
  return device;
}
inline CUdevResource device_sms(CUdevice device) {
  CUdevResource whole{};
  cu_call<PFN_cuDeviceGetDevResource_v12040>("cuDeviceGetDevResource", device, &whole,
                                             CU_DEV_RESOURCE_TYPE_SM);
  return whole;
}

/// A stream in a new green context that owns the SMs of \p sms.
inline CuPartitionStream green_stream(CUdevice device, CUdevResource sms, int requested) {
  const auto destroy_context = driver<PFN_cuGreenCtxDestroy_v12040>("cuGreenCtxDestroy");
  const auto destroy_stream = driver<PFN_cuStreamDestroy_v4000>("cuStreamDestroy");
  CuPartitionStream s;
  //! [nvidia_green_context_stream]
  CUdevResourceDesc desc = nullptr;
  cu_call<PFN_cuDevResourceGenerateDesc_v12040>("cuDevResourceGenerateDesc", &desc, &sms, 1);
  // CU_GREEN_CTX_DEFAULT_STREAM is required by the driver API.
  CUgreenCtx green = nullptr;
  cu_call<PFN_cuGreenCtxCreate_v12040>("cuGreenCtxCreate", &green, desc, device,
                                       CU_GREEN_CTX_DEFAULT_STREAM);
  const std::shared_ptr<void> context(green, [=](CUgreenCtx g) { (void)destroy_context(g); });
  // The stream must be non-blocking; 0 is the default priority.
  CUstream stream = nullptr;
  cu_call<PFN_cuGreenCtxStreamCreate_v12050>("cuGreenCtxStreamCreate", &stream, green,
                                             CU_STREAM_NON_BLOCKING, 0);
  // A CUstream is a cudaStream_t is a hipStream_t here: HIP launches and events use it.
  s.stream = stream;
  // cuGreenCtxDestroy leaves the context's streams behind, unusable: the stream goes first
  // (after its work), then the context its deleter holds.
  s.owner = std::shared_ptr<void>(stream, [=](CUstream st) {
    (void)hipStreamSynchronize(st);
    (void)destroy_stream(st);
    (void)context;
  });
  //! [nvidia_green_context_stream]
  s.requested_units = requested;
  s.granted_units = static_cast<int>(sms.sm.smCount);
  s.placement = hl::format("green context, {} SMs chosen by the driver", sms.sm.smCount);
  return s;
}
#else
[[noreturn]] inline void no_green_contexts() {
  throw hl::SkipError(hl::format(
      "this build has no green contexts: they need CUDA 12.5 or newer headers (this one has "
      "{}.{}) and the project's hip_on_cuda layer, whose loader fetches the driver calls",
      CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10));
}
#endif

/// What partitions look like on \p device: unit count, smallest partition, granularity.
inline PartitionRules partition_rules(const hl::Device& device) {
#if defined(__HIP_PLATFORM_AMD__)
  const MaskLayout layout = device_mask_layout(device);
  return {device.compute_units(), layout.unit_granularity(), layout.unit_granularity(),
          "hipExtStreamCreateWithCUMask: " + layout.rule};
#elif defined(CU_MASKING_GREEN_CONTEXTS)
  int version = 0;
  HIP_CHECK(hipDriverGetVersion(&version));
  if (version < 12050) {
    throw hl::SkipError(hl::format(
        "the installed driver supports CUDA {}.{}; green-context streams need CUDA 12.5 or newer "
        "(green contexts 12.4, cuGreenCtxStreamCreate 12.5): update the NVIDIA driver",
        version / 1000, version % 1000 / 10));
  }
  // cuda.h: partitions "have minimum SM count requirements, often rounding up and aligning".
  const CUdevResource whole = device_sms(driver_device(device.index));
  return {static_cast<int>(whole.sm.smCount), static_cast<int>(whole.sm.minSmPartitionSize),
          static_cast<int>(whole.sm.smCoscheduledAlignment),
          "green contexts (cuDevSmResourceSplitByCount)"};
#else
  (void)device;
  no_green_contexts();
#endif
}

/// partition_rules(), after refusing (UsageError) a --partition \p k larger than the device or
/// whose grant does not fit twice (two disjoint partitions of k units are what lesson 06 needs).
inline PartitionRules checked_partition_rules(const hl::Device& device, int k) {
  const char* unit = hl::kComputeUnitName;
  if (k > device.compute_units()) {
    throw hl::UsageError(hl::format("--partition {} is larger than this device, which has {} {}s",
                                    k, device.compute_units(), unit));
  }
  const PartitionRules rules = partition_rules(device);
  const int granted = expected_grant(rules, k);
  if (2 * granted > rules.units) {
    throw hl::UsageError(hl::format(
        "--partition {} is granted as {} {}s here, and two partitions of that size must fit in "
        "the device's {} {}s; use at most {}",
        k, granted, unit, rules.units, unit,
        rules.units / 2 / rules.granularity * rules.granularity));
  }
  return rules;
}

/// \p groups disjoint partitions of at least \p units_each compute units each, and, when
/// \p with_rest, one more stream on everything left over. Throws UsageError when they do
/// not fit, SkipError when the platform cannot partition.
inline DevicePartition partition_device(const hl::Device& device, int groups, int units_each,
                                        bool with_rest = false) {
  if (units_each < 1 || units_each > device.compute_units()) {
    throw hl::UsageError(hl::format("a partition of {} {}s does not fit: this device has {}",
                                    units_each, hl::kComputeUnitName, device.compute_units()));
  }
  DevicePartition result;
#if defined(__HIP_PLATFORM_AMD__)
  // Planned in reported units, then spread into mask bits (two per unit before HIP 6.0 on RDNA).
  const MaskLayout layout = device_mask_layout(device);
  const MaskPlan plan =
      plan_cu_masks(device.compute_units(), groups, units_each, layout.unit_granularity());
  for (const CuMask& mask : plan.groups) {
    result.groups.push_back(
        masked_stream(device, layout, units_to_bits(mask, layout.bits_per_unit), units_each));
  }
  if (with_rest && plan.rest.count() > 0) {
    result.rest = masked_stream(device, layout, units_to_bits(plan.rest, layout.bits_per_unit),
                                plan.rest.count());
  }
#elif defined(CU_MASKING_GREEN_CONTEXTS)
  //! [nvidia_split]
  const CUdevice dev = driver_device(device.index);
  CUdevResource whole = device_sms(dev);
  std::vector<CUdevResource> parts(static_cast<std::size_t>(groups));
  CUdevResource remaining{};
  unsigned int created = static_cast<unsigned int>(groups);
  // Splits off `groups` disjoint SM sets of at least units_each SMs each; the driver
  // rounds the count up to its minimum and alignment (see partition_rules()).
  cu_call<PFN_cuDevSmResourceSplitByCount_v12040>("cuDevSmResourceSplitByCount", parts.data(),
                                                  &created, &whole, &remaining, 0,
                                                  static_cast<unsigned int>(units_each));
  //! [nvidia_split]
  if (created < static_cast<unsigned int>(groups)) {
    throw hl::UsageError(hl::format(
        "{} partition(s) of {} SMs do not fit: the driver rounds a request up to its "
        "granularity (minimum {}, multiples of {}) and could make only {} such partition(s) "
        "from the device's {} SMs",
        groups, units_each, whole.sm.minSmPartitionSize, whole.sm.smCoscheduledAlignment, created,
        whole.sm.smCount));
  }
  for (const CUdevResource& part : parts) {
    result.groups.push_back(green_stream(dev, part, units_each));
  }
  if (with_rest && remaining.type == CU_DEV_RESOURCE_TYPE_SM && remaining.sm.smCount > 0) {
    result.rest = green_stream(dev, remaining, static_cast<int>(remaining.sm.smCount));
  }
#else
  (void)groups;
  (void)with_rest;
  no_green_contexts();
#endif
  return result;
}

/// Checks that the platform gave what was asked: on AMD the mask read back is the mask
/// requested, where the read-back can be trusted (readback_caveat(): otherwise it says why not,
/// and the grant is taken as the request); on NVIDIA at least the request, and no more than the
/// device.
inline void check_grant(hl::Report& report, const std::string& name, const CuPartitionStream& s,
                        const PartitionRules& rules) {
#if defined(__HIP_PLATFORM_AMD__)
  (void)rules;
  if (s.readback_caveat) {
    report.note(
        hl::format("note    {}: requested {}; hipExtStreamGetCUMask says {}, not checked: {}", name,
                   s.requested_mask.hex(), s.applied_mask.hex(), *s.readback_caveat));
    return;
  }
  report.check(
      name + ": hipExtStreamGetCUMask reads back the requested mask",
      s.applied_mask == s.requested_mask,
      hl::format("requested {}, applied {}", s.requested_mask.hex(), s.applied_mask.hex()));
#else
  report.check(name + ": granted at least the request and no more than the device",
               s.granted_units >= s.requested_units && s.granted_units <= rules.units,
               hl::format("requested {}, granted {}", s.requested_units, s.granted_units));
#endif
}

/// A stream on exactly the mask bits of \p mask (AMD: the bits the HIP call takes, laid out by
/// cu_mask_layout()). On NVIDIA the driver chooses which SMs a green context gets, so only
/// mask.count() counts. Throws UsageError when the mask does not fit the device.
inline CuPartitionStream from_mask(const hl::Device& device, const CuMask& mask) {
#if defined(__HIP_PLATFORM_AMD__)
  const MaskLayout layout = device_mask_layout(device);
#else
  const MaskLayout layout{};
#endif
  const int bits = device.compute_units() * layout.bits_per_unit;
  if (const auto problem = cu_mask_problem(mask, bits, layout.bit_granularity)) {
    throw hl::UsageError(hl::format("{} mask {} ({}) cannot be used: {}", hl::kComputeUnitName,
                                    mask.hex(), mask.ids(), *problem));
  }
#if defined(__HIP_PLATFORM_AMD__)
  return masked_stream(device, layout, mask, std::max(1, mask.count() / layout.bits_per_unit));
#else
  return partition_device(device, 1, mask.count()).groups.front();
#endif
}

}  // namespace cu_masking

#endif  // a HIP platform
