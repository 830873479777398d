/// \file cu_partition.hpp
/// \brief "A stream limited to these compute units": CU masks on AMD, green contexts on NVIDIA.
///
/// HIP has no device-wide CU mask call (the article's hipDeviceSetCuMask does not exist).
/// Each vendor limits work to part of the GPU its own way:
///
/// - AMD: hipExtStreamCreateWithCUMask(&stream, words, mask) creates a stream whose kernels
///   run only on the compute units whose bits are set (bit i % 32 of word i / 32 is CU i);
///   hipExtStreamGetCUMask reads back the mask that applies. The process-wide variables
///   ROC_GLOBAL_CU_MASK (HIP's queues) and HSA_CU_MASK (ROCr's queues) are ANDed with it.
/// - NVIDIA: a green context owns a set of SMs split off the device by the driver
///   (cuDeviceGetDevResource -> cuDevSmResourceSplitByCount -> cuDevResourceGenerateDesc ->
///   cuGreenCtxCreate); cuGreenCtxStreamCreate gives a stream inside it. The driver picks
///   which SMs, and rounds the count up to its granularity.
///
/// The first part of this header is host-only (masks: building, parsing, checking) and
/// is unit tested. The second part, the CuPartitionStream class, is compiled only in
/// translation units built for a HIP platform (the lessons' .hip files).
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hip_lessons/environment.hpp"
#include "hip_lessons/errors.hpp"

namespace hip_lessons {

// =====================================================================================
// Host-only part: compute-unit masks
// =====================================================================================

/// The most compute units a mask may name: 64 words of 32 bits. (MI300X has 304 CUs.)
inline constexpr int kMaxMaskUnits = 2048;

/// A set of compute units in hipExtStreamCreateWithCUMask's layout: bit (i % 32) of
/// words[i / 32] stands for compute unit i.
struct CuMask {
  std::vector<std::uint32_t> words;

  bool test(int unit) const {
    const auto word = static_cast<std::size_t>(unit / 32);
    return unit >= 0 && word < words.size() && ((words[word] >> (unit % 32)) & 1u) != 0;
  }
  void set(int unit) {
    const auto word = static_cast<std::size_t>(unit / 32);
    if (words.size() <= word) words.resize(word + 1, 0u);
    words[word] |= 1u << (unit % 32);
  }
  /// Number of compute units in the set.
  int count() const {
    int bits = 0;
    for (std::uint32_t w : words) {
      for (; w != 0; w &= w - 1) ++bits;
    }
    return bits;
  }
  /// The highest unit in the set, or -1 for an empty set.
  int highest() const {
    for (int unit = static_cast<int>(words.size()) * 32 - 1; unit >= 0; --unit) {
      if (test(unit)) return unit;
    }
    return -1;
  }
  /// The same set padded (or trimmed, only when the dropped words are zero) to \p count words.
  CuMask resized(std::size_t count) const {
    CuMask copy = *this;
    copy.words.resize(std::max(count, static_cast<std::size_t>((highest() + 32) / 32)), 0u);
    return copy;
  }
  /// The ROCm spelling: "0x" and hex digits, most significant word first, no leading zeros.
  std::string hex() const {
    static const char digits[] = "0123456789abcdef";
    std::string text;
    for (int unit = highest() < 0 ? 0 : highest() / 4 * 4; unit >= 0; unit -= 4) {
      int nibble = 0;
      for (int b = 0; b < 4; ++b) nibble |= (test(unit + b) ? 1 : 0) << b;
      text += digits[nibble];
    }
    return "0x" + text;
  }
  /// The ID-list spelling: "0-7,16-23" ("none" for an empty set).
  std::string ids() const {
    std::string text;
    const int last = highest();
    for (int unit = 0; unit <= last; ++unit) {
      if (!test(unit)) continue;
      int end = unit;
      while (end + 1 <= last && test(end + 1)) ++end;
      text += (text.empty() ? "" : ",") + std::to_string(unit);
      if (end > unit) text += "-" + std::to_string(end);
      unit = end;
    }
    return text.empty() ? "none" : text;
  }
  friend bool operator==(const CuMask& a, const CuMask& b) {
    const std::size_t n = std::max(a.words.size(), b.words.size());
    return a.resized(n).words == b.resized(n).words;
  }
  friend bool operator!=(const CuMask& a, const CuMask& b) { return !(a == b); }
};

/// The \p count consecutive compute units first, first + 1, ..., first + count - 1.
inline CuMask cu_mask_range(int first, int count) {
  CuMask mask;
  for (int unit = first; unit < first + count; ++unit) mask.set(unit);
  return mask;
}

/// Parses a mask given on the command line as a CU list ("0-7,16-23", the ID_list of
/// ROCm's HSA_CU_MASK, parsed by parse_id_list) or a hex mask ("0xff00", the form of
/// ROC_GLOBAL_CU_MASK). Throws UsageError naming \p option and the text when it is neither,
/// when it names a unit at or above kMaxMaskUnits, or when it selects no unit at all.
inline CuMask parse_cu_mask(const std::string& option, const std::string& text) {
  const std::string forms = "; use a CU list such as 0-7,16-23 or a hex mask such as 0xff00";
  if (text.empty()) throw UsageError(option + " is empty" + forms);
  CuMask mask;
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    const std::string digits = text.substr(2);
    const bool hex =
        !digits.empty() && std::all_of(digits.begin(), digits.end(),
                                       [](unsigned char c) { return std::isxdigit(c) != 0; });
    if (!hex) throw UsageError(option + " '" + text + "' is not a hex mask" + forms);
    const std::size_t significant = digits.find_first_not_of('0');
    if (significant != std::string::npos && digits.size() - significant > kMaxMaskUnits / 4) {
      throw UsageError(option + " '" + text + "' names units beyond " +
                       std::to_string(kMaxMaskUnits - 1) + ", more than any GPU has");
    }
    for (std::size_t i = 0; i < digits.size(); ++i) {
      const char c = static_cast<char>(
          std::tolower(static_cast<unsigned char>(digits[digits.size() - 1 - i])));
      const int nibble = c <= '9' ? c - '0' : c - 'a' + 10;
      for (int b = 0; b < 4; ++b) {
        if ((nibble >> b) & 1) mask.set(static_cast<int>(4 * i) + b);
      }
    }
  } else {
    try {
      for (const int unit : parse_id_list(text, kMaxMaskUnits)) mask.set(unit);
    } catch (const UsageError& error) {
      throw UsageError(option + " '" + text +
                       "' is neither a hex mask nor a CU list: " + error.what());
    }
  }
  if (mask.count() == 0) {
    throw UsageError(option + " '" + text +
                     "' selects no compute unit; a partition needs at least one");
  }
  return mask;
}

/// \p value rounded up to a multiple of \p granularity (granularity >= 1).
inline int round_up_to(int value, int granularity) {
  return (value + granularity - 1) / granularity * granularity;
}

/// Partition granularity on AMD: 2 for GPUs whose CUs pair up into workgroup processors
/// (WGPs: RDNA, gfx10 and later), where ROCr refuses a mask that enables one CU of a pair;
/// 1 for GCN and CDNA (gfx8, gfx9: gfx906, gfx908, gfx90a, gfx942, ...).
/// \p gcn_arch_name is hipDeviceProp_t::gcnArchName, e.g. "gfx90a:sramecc+:xnack-".
inline int cu_pair_granularity(const std::string& gcn_arch_name) {
  const bool gfx1x = gcn_arch_name.rfind("gfx1", 0) == 0 && gcn_arch_name.size() >= 7 &&
                     std::isxdigit(static_cast<unsigned char>(gcn_arch_name[4])) != 0 &&
                     std::isxdigit(static_cast<unsigned char>(gcn_arch_name[5])) != 0 &&
                     std::isxdigit(static_cast<unsigned char>(gcn_arch_name[6])) != 0;
  return gfx1x ? 2 : 1;
}

/// Why \p mask cannot limit a stream on a device with \p units compute units that are
/// enabled in groups of \p granularity (1, or 2 for WGP pairs); nothing when it can.
inline std::optional<std::string> cu_mask_problem(const CuMask& mask, int units, int granularity) {
  if (mask.count() == 0) return std::string("the mask selects no compute unit");
  if (mask.highest() >= units) {
    return "the mask selects compute unit " + std::to_string(mask.highest()) +
           ", but this device has " + std::to_string(units) + " (0.." + std::to_string(units - 1) +
           ")";
  }
  if (granularity > 1) {
    for (int first = 0; first <= mask.highest(); first += granularity) {
      int in_group = 0;
      for (int u = first; u < first + granularity; ++u) in_group += mask.test(u) ? 1 : 0;
      if (in_group != 0 && in_group != granularity) {
        return "the mask selects only part of the group " + std::to_string(first) + "-" +
               std::to_string(first + granularity - 1) + "; this GPU enables compute units in " +
               std::to_string(granularity) + "s (workgroup processors), select both or neither";
      }
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
    throw UsageError("a partition needs at least one compute unit (asked for " +
                     std::to_string(groups) + " x " + std::to_string(units_each) + ")");
  }
  const int each = round_up_to(units_each, granularity);
  if (static_cast<long long>(groups) * each > units) {
    throw UsageError(std::to_string(groups) + " partition(s) of " + std::to_string(units_each) +
                     " compute units" +
                     (each != units_each
                          ? " (" + std::to_string(each) + " after rounding to whole groups of " +
                                std::to_string(granularity) + ")"
                          : std::string()) +
                     " do not fit on this device, which has " + std::to_string(units));
  }
  MaskPlan plan;
  for (int g = 0; g < groups; ++g) plan.groups.push_back(cu_mask_range(g * each, each));
  const int used = groups * each;
  const int left = (units - used) / granularity * granularity;
  plan.rest = cu_mask_range(used, left);
  return plan;
}

}  // namespace hip_lessons

// =====================================================================================
// Device part: CuPartitionStream (only in translation units built for a HIP platform)
// =====================================================================================
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_NVIDIA__)

#include <hip/hip_runtime.h>

#include <cstdlib>
#include <utility>

#include "hip_lessons/device.hpp"
#include "hip_lessons/hip_check.hpp"

#if !defined(__HIP_PLATFORM_AMD__)
#include <cuda.h>
#include <cuda_runtime.h>
#endif

namespace hip_lessons {

#if !defined(__HIP_PLATFORM_AMD__)
namespace green_context {

#if CUDA_VERSION >= 12050
/// The driver entry points this header uses, declared from cuda.h's documented
/// signatures and fetched at run time with cudaGetDriverEntryPointByVersion, so the
/// binary does not link libcuda (the build machines have none).
struct Api {
  using GetErrorName = CUresult(CUDAAPI*)(CUresult, const char**);
  using GetErrorString = CUresult(CUDAAPI*)(CUresult, const char**);
  using DeviceGet = CUresult(CUDAAPI*)(CUdevice*, int);
  using DeviceGetDevResource = CUresult(CUDAAPI*)(CUdevice, CUdevResource*, CUdevResourceType);
  using DevSmResourceSplitByCount = CUresult(CUDAAPI*)(CUdevResource*, unsigned int*,
                                                       const CUdevResource*, CUdevResource*,
                                                       unsigned int, unsigned int);
  using DevResourceGenerateDesc = CUresult(CUDAAPI*)(CUdevResourceDesc*, CUdevResource*,
                                                     unsigned int);
  using GreenCtxCreate = CUresult(CUDAAPI*)(CUgreenCtx*, CUdevResourceDesc, CUdevice, unsigned int);
  using GreenCtxDestroy = CUresult(CUDAAPI*)(CUgreenCtx);
  using GreenCtxStreamCreate = CUresult(CUDAAPI*)(CUstream*, CUgreenCtx, unsigned int, int);
  using StreamDestroy = CUresult(CUDAAPI*)(CUstream);

  GetErrorName get_error_name = nullptr;
  GetErrorString get_error_string = nullptr;
  DeviceGet device_get = nullptr;
  DeviceGetDevResource device_get_dev_resource = nullptr;
  DevSmResourceSplitByCount dev_sm_resource_split_by_count = nullptr;
  DevResourceGenerateDesc dev_resource_generate_desc = nullptr;
  GreenCtxCreate green_ctx_create = nullptr;
  GreenCtxDestroy green_ctx_destroy = nullptr;
  GreenCtxStreamCreate green_ctx_stream_create = nullptr;
  StreamDestroy stream_destroy = nullptr;
};

/// The ABI version the entry points are requested at: CUDA 12.5, the first release with
/// cuGreenCtxStreamCreate (green contexts themselves arrived in 12.4).
inline constexpr unsigned int kAbiVersion = 12050;

template <class Fn>
void load_entry(const char* name, Fn& fn) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t e =
      cudaGetDriverEntryPointByVersion(name, &address, kAbiVersion, cudaEnableDefault, &status);
  if (e != cudaSuccess) {
    throw HipError(std::string("cudaGetDriverEntryPointByVersion(\"") + name + "\")", __FILE__,
                   __LINE__, cudaGetErrorName(e), cudaGetErrorString(e), static_cast<int>(e));
  }
  if (status != cudaDriverEntryPointSuccess || address == nullptr) {
    throw SkipError(std::string("the CUDA driver has no ") + name +
                    (status == cudaDriverEntryPointVersionNotSufficent
                         ? " at the CUDA 12.5 ABI (driver too old)"
                         : " (entry point not found)") +
                    ": green contexts need a CUDA 12.5 or newer driver");
  }
  fn = reinterpret_cast<Fn>(address);
}

/// Loads the entry points once; throws SkipError (with the reason) when the driver lacks them.
inline const Api& api() {
  static const Api loaded = [] {
    int driver = 0;
    HIP_CHECK(hipDriverGetVersion(&driver));
    if (driver < static_cast<int>(kAbiVersion)) {
      throw SkipError("the installed driver supports CUDA " + std::to_string(driver / 1000) + "." +
                      std::to_string(driver % 1000 / 10) +
                      "; green-context streams need CUDA 12.5 or newer (green contexts 12.4, "
                      "cuGreenCtxStreamCreate 12.5): update the NVIDIA driver");
    }
    Api a;
    load_entry("cuGetErrorName", a.get_error_name);
    load_entry("cuGetErrorString", a.get_error_string);
    load_entry("cuDeviceGet", a.device_get);
    load_entry("cuDeviceGetDevResource", a.device_get_dev_resource);
    load_entry("cuDevSmResourceSplitByCount", a.dev_sm_resource_split_by_count);
    load_entry("cuDevResourceGenerateDesc", a.dev_resource_generate_desc);
    load_entry("cuGreenCtxCreate", a.green_ctx_create);
    load_entry("cuGreenCtxDestroy", a.green_ctx_destroy);
    load_entry("cuGreenCtxStreamCreate", a.green_ctx_stream_create);
    load_entry("cuStreamDestroy", a.stream_destroy);
    return a;
  }();
  return loaded;
}

/// Throws for a failed driver call: SkipError when the driver says the feature is not
/// supported here (for example under MPS or vGPU), HipError with the CUDA error otherwise.
inline void check(CUresult result, const char* call, const char* file, int line) {
  if (result == CUDA_SUCCESS) return;
  const char* name = "CUDA_ERROR_UNKNOWN";
  const char* text = "unknown driver error";
  (void)api().get_error_name(result, &name);
  (void)api().get_error_string(result, &text);
  if (result == CUDA_ERROR_NOT_SUPPORTED) {
    throw SkipError(std::string(call) + " reported " + name +
                    ": green contexts are not available on this GPU or set-up");
  }
  throw HipError(call, file, line, name, text, static_cast<int>(result));
}
/// Checks a driver call; \p name is the driver function, for the message.
#define HIP_LESSONS_CU_CHECK(name, call) \
  ::hip_lessons::green_context::check((call), name, __FILE__, __LINE__)

/// The SM resource of the whole device, the input of every split.
inline CUdevResource device_sms(CUdevice device) {
  CUdevResource whole{};
  HIP_LESSONS_CU_CHECK("cuDeviceGetDevResource",
                       api().device_get_dev_resource(device, &whole, CU_DEV_RESOURCE_TYPE_SM));
  return whole;
}

inline CUdevice driver_device(int index) {
  CUdevice device = 0;
  HIP_LESSONS_CU_CHECK("cuDeviceGet", api().device_get(&device, index));
  return device;
}
#endif  // CUDA_VERSION >= 12050

}  // namespace green_context
#endif  // NVIDIA

/// A stream whose kernels run only on a subset of the device's compute units. Destroying
/// it destroys the stream and, on NVIDIA, its green context. Move-only.
///
/// Make one with partition_device() (disjoint partitions of a size, plus the rest) or
/// CuPartitionStream::from_mask() (explicit units on AMD; on NVIDIA only the count counts).
class CuPartitionStream {
 public:
  CuPartitionStream(CuPartitionStream&& other) noexcept { *this = std::move(other); }
  CuPartitionStream& operator=(CuPartitionStream&& other) noexcept {
    if (this != &other) {
      release();
      stream_ = std::exchange(other.stream_, nullptr);
      requested_ = other.requested_;
      granted_ = other.granted_;
      placement_ = std::move(other.placement_);
#if defined(__HIP_PLATFORM_AMD__)
      requested_mask_ = std::move(other.requested_mask_);
      applied_mask_ = std::move(other.applied_mask_);
#else
      green_ = std::exchange(other.green_, nullptr);
#endif
    }
    return *this;
  }
  CuPartitionStream(const CuPartitionStream&) = delete;
  CuPartitionStream& operator=(const CuPartitionStream&) = delete;
  ~CuPartitionStream() { release(); }

  hipStream_t get() const noexcept { return stream_; }
  operator hipStream_t() const noexcept { return stream_; }  // NOLINT: reads like a stream
  void synchronize() { HIP_CHECK(hipStreamSynchronize(stream_)); }

  /// Compute units asked for, and the number the platform actually gave.
  int requested_units() const noexcept { return requested_; }
  int granted_units() const noexcept { return granted_; }
  /// Where the partition lies: "CUs 0-7 (0xff)" on AMD, "green context" on NVIDIA.
  const std::string& placement() const noexcept { return placement_; }

#if defined(__HIP_PLATFORM_AMD__)
  /// The mask asked for, and the mask hipExtStreamGetCUMask reports for the stream.
  const CuMask& requested_mask() const noexcept { return requested_mask_; }
  const CuMask& applied_mask() const noexcept { return applied_mask_; }
#endif

  /// A stream on exactly the units of \p mask (AMD). On NVIDIA the driver chooses which
  /// SMs a green context gets, so only mask.count() is used. Throws UsageError when the
  /// mask does not fit the device.
  static CuPartitionStream from_mask(const Device& device, const CuMask& mask);

 private:
  CuPartitionStream() = default;
  friend struct PartitionFactory;

  void release() noexcept {
    if (stream_ != nullptr) {
      (void)hipStreamSynchronize(stream_);  // never pull the units out from under running work
#if defined(__HIP_PLATFORM_AMD__)
      (void)hipStreamDestroy(stream_);
#elif CUDA_VERSION >= 12050
      (void)green_context::api().stream_destroy(stream_);
#endif
      stream_ = nullptr;
    }
#if !defined(__HIP_PLATFORM_AMD__) && CUDA_VERSION >= 12050
    // The stream first: cuGreenCtxDestroy leaves streams behind, unusable.
    if (green_ != nullptr) (void)green_context::api().green_ctx_destroy(green_);
    green_ = nullptr;
#endif
  }

  hipStream_t stream_ = nullptr;
  int requested_ = 0;
  int granted_ = 0;
  std::string placement_;
#if defined(__HIP_PLATFORM_AMD__)
  CuMask requested_mask_;
  CuMask applied_mask_;
#else
  CUgreenCtx green_ = nullptr;
#endif
};

/// Disjoint partitions of one device, each with its own stream.
struct DevicePartition {
  std::vector<CuPartitionStream> groups;  ///< the partitions of the requested size
  std::optional<CuPartitionStream> rest;  ///< what is left, when asked for and non-empty
};

/// Builds the streams (internal: keeps the platform code in one place).
struct PartitionFactory {
#if defined(__HIP_PLATFORM_AMD__)
  /// A stream on the CUs of \p mask (AMD), with the mask that applies read back.
  static CuPartitionStream masked_stream(const Device& device, const CuMask& mask, int requested) {
    const auto words = static_cast<std::size_t>((device.compute_units() + 31) / 32);
    const CuMask request = mask.resized(words);
    CuPartitionStream s;
    //! [amd_cu_mask_stream]
    // One bit per compute unit, 32 per uint32_t; the argument after the stream is the
    // number of 32-bit words, not of bits.
    HIP_CHECK(hipExtStreamCreateWithCUMask(
        &s.stream_, static_cast<std::uint32_t>(request.words.size()), request.words.data()));
    // What applies: the stream's mask ANDed with ROC_GLOBAL_CU_MASK when that is set.
    std::vector<std::uint32_t> applied(kMaxMaskUnits / 32, 0u);
    HIP_CHECK(hipExtStreamGetCUMask(s.stream_, static_cast<std::uint32_t>(applied.size()),
                                    applied.data()));
    //! [amd_cu_mask_stream]
    s.requested_ = requested;
    s.requested_mask_ = request;
    s.applied_mask_.words = applied;
    s.granted_ = s.applied_mask_.count();
    s.placement_ = "CUs " + s.applied_mask_.ids() + " (" + s.applied_mask_.hex() + ")";
    return s;
  }
#elif CUDA_VERSION >= 12050
  /// A stream in a new green context that owns the SMs of \p sms (NVIDIA).
  static CuPartitionStream green_stream(CUdevice device, CUdevResource sms, int requested) {
    CuPartitionStream s;
    //! [nvidia_green_context_stream]
    CUdevResourceDesc desc = nullptr;
    const green_context::Api& cu = green_context::api();
    HIP_LESSONS_CU_CHECK("cuDevResourceGenerateDesc",
                         cu.dev_resource_generate_desc(&desc, &sms, 1));
    // CU_GREEN_CTX_DEFAULT_STREAM is required by the driver API.
    HIP_LESSONS_CU_CHECK("cuGreenCtxCreate",
                         cu.green_ctx_create(&s.green_, desc, device, CU_GREEN_CTX_DEFAULT_STREAM));
    // The stream must be non-blocking; 0 is the default priority.
    CUstream stream = nullptr;
    HIP_LESSONS_CU_CHECK("cuGreenCtxStreamCreate",
                         cu.green_ctx_stream_create(&stream, s.green_, CU_STREAM_NON_BLOCKING, 0));
    // A CUstream is a cudaStream_t is a hipStream_t here: HIP launches and events use it.
    s.stream_ = stream;
    //! [nvidia_green_context_stream]
    s.requested_ = requested;
    s.granted_ = static_cast<int>(sms.sm.smCount);
    s.placement_ = "green context, " + std::to_string(sms.sm.smCount) + " SMs chosen by the driver";
    return s;
  }
#endif

  static DevicePartition split(const Device& device, int groups, int units_each, bool with_rest) {
    if (units_each < 1 || units_each > device.compute_units()) {
      throw UsageError("a partition of " + std::to_string(units_each) + " " + kComputeUnitName +
                       "s does not fit: this device has " + std::to_string(device.compute_units()));
    }
    DevicePartition result;
#if defined(__HIP_PLATFORM_AMD__)
    const MaskPlan plan = plan_cu_masks(device.compute_units(), groups, units_each,
                                        cu_pair_granularity(device.props.gcnArchName));
    for (const CuMask& mask : plan.groups) {
      result.groups.push_back(masked_stream(device, mask, units_each));
    }
    if (with_rest && plan.rest.count() > 0) {
      result.rest.emplace(masked_stream(device, plan.rest, plan.rest.count()));
    }
#elif CUDA_VERSION >= 12050
    //! [nvidia_split]
    const CUdevice dev = green_context::driver_device(device.index);
    CUdevResource whole = green_context::device_sms(dev);
    std::vector<CUdevResource> parts(static_cast<std::size_t>(groups));
    CUdevResource remaining{};
    unsigned int created = static_cast<unsigned int>(groups);
    // Splits off `groups` disjoint SM sets of at least units_each SMs each; the driver
    // rounds the count up to its minimum and alignment (see partition_rules()).
    HIP_LESSONS_CU_CHECK(
        "cuDevSmResourceSplitByCount",
        green_context::api().dev_sm_resource_split_by_count(
            parts.data(), &created, &whole, &remaining, 0, static_cast<unsigned int>(units_each)));
    //! [nvidia_split]
    if (created < static_cast<unsigned int>(groups)) {
      throw UsageError(
          std::to_string(groups) + " partition(s) of " + std::to_string(units_each) +
          " SMs do not fit: the driver rounds a request up to its granularity (minimum " +
          std::to_string(whole.sm.minSmPartitionSize) + ", multiples of " +
          std::to_string(whole.sm.smCoscheduledAlignment) + ") and could make only " +
          std::to_string(created) + " such partition(s) from the device's " +
          std::to_string(whole.sm.smCount) + " SMs");
    }
    for (CUdevResource& part : parts) {
      result.groups.push_back(green_stream(dev, part, units_each));
    }
    if (with_rest && remaining.type == CU_DEV_RESOURCE_TYPE_SM && remaining.sm.smCount > 0) {
      result.rest.emplace(green_stream(dev, remaining, static_cast<int>(remaining.sm.smCount)));
    }
#else
    (void)groups;
    (void)with_rest;
    throw SkipError("this binary was built with CUDA " + std::to_string(CUDA_VERSION / 1000) + "." +
                    std::to_string(CUDA_VERSION % 1000 / 10) +
                    " headers; green-context streams need CUDA 12.5 or newer to build");
#endif
    return result;
  }
};

/// What partitions look like on \p device: unit count, smallest partition, granularity.
inline PartitionRules partition_rules(const Device& device) {
  PartitionRules rules;
  rules.units = device.compute_units();
#if defined(__HIP_PLATFORM_AMD__)
  rules.granularity = cu_pair_granularity(device.props.gcnArchName);
  rules.min_units = rules.granularity;
  rules.mechanism = "hipExtStreamCreateWithCUMask (one mask bit per CU)";
#elif CUDA_VERSION >= 12050
  //! [nvidia_rules]
  const CUdevResource whole = green_context::device_sms(green_context::driver_device(device.index));
  rules.units = static_cast<int>(whole.sm.smCount);
  rules.min_units = static_cast<int>(whole.sm.minSmPartitionSize);
  rules.granularity = static_cast<int>(whole.sm.smCoscheduledAlignment);
  //! [nvidia_rules]
  rules.mechanism = "green contexts (cuDevSmResourceSplitByCount)";
#else
  throw SkipError("this binary was built with CUDA " + std::to_string(CUDA_VERSION / 1000) + "." +
                  std::to_string(CUDA_VERSION % 1000 / 10) +
                  " headers; green-context streams need CUDA 12.5 or newer to build");
#endif
  return rules;
}

/// \p groups disjoint partitions of at least \p units_each compute units each, and, when
/// \p with_rest, one more stream on everything left over. Throws UsageError when they do
/// not fit, SkipError when the platform cannot partition (NVIDIA driver before 12.5).
inline DevicePartition partition_device(const Device& device, int groups, int units_each,
                                        bool with_rest = false) {
  return PartitionFactory::split(device, groups, units_each, with_rest);
}

inline CuPartitionStream CuPartitionStream::from_mask(const Device& device, const CuMask& mask) {
#if defined(__HIP_PLATFORM_AMD__)
  const int granularity = cu_pair_granularity(device.props.gcnArchName);
  if (const auto problem = cu_mask_problem(mask, device.compute_units(), granularity)) {
    throw UsageError("CU mask " + mask.hex() + " (" + mask.ids() + ") cannot be used: " + *problem);
  }
  return PartitionFactory::masked_stream(device, mask, mask.count());
#else
  if (const auto problem = cu_mask_problem(mask, device.compute_units(), 1)) {
    throw UsageError("SM mask " + mask.hex() + " (" + mask.ids() + ") cannot be used: " + *problem);
  }
  DevicePartition split = PartitionFactory::split(device, 1, mask.count(), false);
  return std::move(split.groups.front());
#endif
}

}  // namespace hip_lessons

#endif  // a HIP platform
