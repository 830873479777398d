#include "hip_lessons/environment.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "hip_lessons/errors.hpp"

namespace hip_lessons {

namespace {

// The first HIP release in which an empty device list hides every GPU and GPU_MAX_HW_QUEUES=0
// shares a queue (both changed in ROCm 5.5; see check_empty_hip_device_list, check_hw_queues).
constexpr RuntimeVersion kHip55{5, 5};
constexpr Platform kAmd = Platform::kAmd;

// The pieces between separators; a trailing separator adds no empty piece (as ROCr's split()).
std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> pieces;
  std::stringstream in(text);
  for (std::string piece; std::getline(in, piece, separator);) pieces.push_back(piece);
  return pieces;
}

bool is_unsigned_integer(const std::string& text) {
  return !text.empty() && text.size() <= 9 &&
         std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

// The CUs of every GPU the kernel driver lists (/sys/class/kfd/kfd/topology/nodes/N/properties:
// simd_count / simd_per_cu; CPU nodes have no SIMDs). Empty where there is no KFD: before HIP
// starts, this is the only count the environment check can have.
std::vector<int> kfd_gpu_compute_units() {
  std::vector<int> counts;
  for (int node = 0; node < 64; ++node) {
    std::ifstream file("/sys/class/kfd/kfd/topology/nodes/" + std::to_string(node) + "/properties");
    if (!file) break;
    long simds = 0, per_cu = 0;
    std::string key;
    long number = 0;
    while (file >> key >> number) {
      if (key == "simd_count") simds = number;
      if (key == "simd_per_cu") per_cu = number;
    }
    if (simds > 0 && per_cu > 0) counts.push_back(static_cast<int>(simds / per_cu));
  }
  return counts;
}

// ROC_GLOBAL_CU_MASK as HIP reads it (ROCm/clr rocclr/device/rocm/rocdevice.cpp,
// Device::getGlobalCUMask): an optional 0x, then hex digits, 8 at a time through
// std::stoul(..., 16). A mask HIP cannot read, one that enables no CU, and one that enables
// every CU are all dropped: the queues then run on every CU.
std::optional<std::string> check_global_cu_mask(const std::string& value) {
  const bool prefix = value.size() > 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
  const std::string digits = prefix ? value.substr(2) : value;
  const bool hex = !digits.empty() && std::all_of(digits.begin(), digits.end(),
                                                  [](unsigned char c) { return std::isxdigit(c); });
  if (!hex) {
    return "'" + value + "' is not a hex mask such as 0xff or ff; HIP may misread it, and " +
           "uses every CU when it cannot read it at all";
  }
  if (digits.find_first_not_of('0') == std::string::npos) {
    return "'" + value + "' enables no CU at all; HIP ignores an empty mask and uses every CU";
  }
  for (const int cus : kfd_gpu_compute_units()) {
    if (global_cu_mask_ends_hip(value, cus)) {
      return "a GPU here has " + std::to_string(cus) +
             " CUs (fewer than 32): HIP's start-up throws on any ROC_GLOBAL_CU_MASK there and "
             "ends the process (ROCm/clr rocm-6.2.2 rocdevice.cpp:3410-3413); unset it";
    }
  }
  return std::nullopt;
}

// What C's atoi() makes of \p text, as HIP's flag parser reads every integer flag
// (ROCm/clr rocclr/utils/flags.cpp, Flag::setValue): leading blanks and one sign, then the
// leading digits, as strtoll reads them; anything else stops it, so "abc" is 0 and "8abc" is 8.
// Returns nothing when the number overflows an int, where atoi's result is undefined.
std::optional<long long> atoi_reading(const std::string& text) {
  errno = 0;
  const long long value = std::strtoll(text.c_str(), nullptr, 10);
  if (errno == ERANGE || value < INT_MIN || value > INT_MAX) return std::nullopt;
  return value;
}

// GPU_MAX_HW_QUEUES is a uint flag of HIP (ROCm/clr rocclr/utils/flags.hpp, default 4) read
// with atoi(). HIP sets no upper bound; a positive integer is taken as it is. The rest is
// warned about with what HIP makes of it. What 0 does changed in ROCm 5.5 (ROCclr
// device/rocm/rocdevice.cpp, acquireQueue, rocm-5.4.3 vs rocm-5.5.0): before, a stream
// asks an empty pool for a queue and gets none; since, the first stream creates one queue per
// priority level and every later stream shares it.
std::optional<std::string> check_hw_queues(const std::string& value,
                                           std::optional<RuntimeVersion> runtime) {
  const bool plain = is_unsigned_integer(value);
  const auto read = atoi_reading(value);
  if (plain && read && *read > 0) return std::nullopt;
  const std::string what =
      "'" + value + "' is not " + (plain ? "a positive integer" : "an integer");
  if (!read) return what + "; it overflows atoi(), so what HIP reads is undefined";
  const std::string reads = what + "; HIP reads it with atoi() ";
  if (*read < 0) {
    return reads + "into an unsigned flag as " + std::to_string(static_cast<unsigned int>(*read)) +
           ", so the queue pool has no practical limit";
  }
  if (*read > 0) return reads + "as " + std::to_string(*read);
  const std::string shares = "shares one hardware queue per priority level among all streams";
  const std::string none = "gives a stream no hardware queue at all";
  if (runtime) {
    return reads + "as 0, and " + runtime_name(*runtime, kAmd) + " then " +
           (*runtime < kHip55 ? none : shares + " (as with 1)");
  }
  return reads + "as 0: HIP 5.5 and later then " + shares + " (as with 1); HIP 5.4 and earlier " +
         none;
}

// An empty HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES, as HIP on AMD reads it. Up to ROCm 5.4
// HIP's flag parser skipped empty values, so an empty list counted as unset. ROCclr commit
// 38aa1bd4 (first in rocm-5.5.0, utils/flags.cpp) stores it as " ", which is no valid index,
// so HIP hides every GPU, as CUDA does (the same in ROCm/clr rocm-6.2.2).
// HIP reads HIP_VISIBLE_DEVICES when it is non-empty (" " is), else CUDA_VISIBLE_DEVICES
// (ROCm/clr rocclr/device/rocm/rocdevice.cpp, rocm-6.2.2).
std::optional<std::string> check_empty_hip_device_list(const std::string& name,
                                                       std::optional<RuntimeVersion> runtime) {
  if (runtime && *runtime < kHip55) return std::nullopt;  // counts as unset
  const std::string hides =
      name == "HIP_VISIBLE_DEVICES"
          ? "hides every GPU, even when CUDA_VISIBLE_DEVICES lists some"
          : "hides every GPU when HIP_VISIBLE_DEVICES is unset (HIP reads this one only then)";
  const std::string release = runtime
                                  ? runtime_name(*runtime, kAmd) + " (HIP 5.5 and later)"
                                  : "HIP 5.5 and later (HIP 5.4 and earlier ignore an empty value)";
  return "is set but empty, which " + hides + " in " + release + "; unset it";
}

std::optional<std::string> check_visible_devices(const std::string& name, const std::string& value,
                                                 Platform platform,
                                                 std::optional<RuntimeVersion> runtime) {
  if (value.empty()) {
    // CUDA documents an empty list as "no GPU visible".
    if (platform == Platform::kNvidia && name == "CUDA_VISIBLE_DEVICES") {
      return std::string("is set but empty, which hides every GPU from CUDA; unset it");
    }
    // ROCr filters by ROCR_VISIBLE_DEVICES whenever it is set (core/util/flag.h,
    // os::IsEnvVarSet), so an empty list exposes no GPU.
    if (name == "ROCR_VISIBLE_DEVICES") {
      return std::string("is set but empty, which exposes no GPU to ROCr; unset it");
    }
    if (platform == Platform::kAmd) return check_empty_hip_device_list(name, runtime);
    return std::nullopt;  // HIP_VISIBLE_DEVICES on NVIDIA: read by nobody (ignored_by says so)
  }
  for (const std::string& item : split(value, ',')) {
    const bool uuid = item.rfind("GPU-", 0) == 0 && item.size() > 4;
    if (!uuid && !is_unsigned_integer(item)) {
      return "item '" + item + "' is neither a device index nor a GPU-<uuid>";
    }
  }
  return std::nullopt;
}

// An ID of an HSA_CU_MASK list as ROCr reads it: strtoul(..., 10) must use every character,
// so the empty start of "-3" reads as 0 (the range 0-3) and "+3" as 3. Nothing when ROCr
// rejects it.
std::optional<unsigned long> rocr_id(const std::string& text) {
  char* end = nullptr;
  const unsigned long id = std::strtoul(text.c_str(), &end, 10);
  if (*end != '\0') return std::nullopt;
  return id;
}

using Ranges = std::vector<std::pair<unsigned long, unsigned long>>;

// An ID list of HSA_CU_MASK (GPUs or CUs) as ROCr's get_elements() reads it. Returns the
// problem that makes ROCr reject it, or nothing and the IDs as ranges in \p ranges.
std::optional<std::string> check_rocr_id_list(const std::string& list, const char* what,
                                              Ranges& ranges) {
  for (const std::string& item : split(list, ',')) {
    // ROCr indexes the first piece of an empty item that is not there (undefined behaviour).
    if (item.empty()) return "has an empty " + std::string(what) + " ID between two commas";
    const auto ends = split(item, '-');
    if (ends.size() > 2) return "'" + item + "' has more than one '-'";
    const auto first = rocr_id(ends[0]);
    const auto last = ends.size() == 2 ? rocr_id(ends[1]) : first;
    if (!first || !last) return "'" + item + "' is not a decimal " + what + " ID or range";
    if (*last < *first) return "'" + item + "' is a reversed range";
    ranges.emplace_back(*first, *last);
  }
  if (ranges.empty()) return "has no " + std::string(what) + " ID";
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].first <= ranges[i - 1].second) {
      return "repeats " + std::string(what) + " " + std::to_string(ranges[i].first);
    }
  }
  return std::nullopt;
}

// HSA_CU_MASK as ROCr parses it (ROCm/ROCR-Runtime src/core/util/flag.cpp, Flag::parse_masks,
// the same from rocm-4.5.0, where the variable appeared, to rocm-6.2.4 and ROCm/rocm-systems
// projects/rocr-runtime of 2025): whitespace removed, upper-cased, sets split at ';', each
// "GPUs:CUs" with CUs a hex mask (0x...) or an ID list. The first set ROCr rejects ends the
// parse, silently: that set and every later one are ignored. IDs above the GPU or CU count are
// dropped, not an error; without a device this check cannot know the counts, so it takes every
// ID as existing (ROCr also rejects a set whose IDs all lie above the count).
std::optional<std::string> check_cu_sets(const std::string& value) {
  std::string text;
  for (const unsigned char c : value) {
    if (!std::isspace(c)) text += static_cast<char>(std::toupper(c));
  }
  Ranges gpus_so_far;
  const auto sets = split(text, ';');
  for (std::size_t i = 0; i < sets.size(); ++i) {
    const std::string& set = sets[i];
    const auto rejected = [&](const std::string& problem) {
      return "set " + std::to_string(i + 1) + " '" + set + "' " + problem +
             "; ROCr silently ignores that set and every later one";
    };
    const auto parts = split(set, ':');
    if (parts.size() != 2) return rejected("is not GPUs:CUs (it needs exactly one ':')");
    const std::string& cus = parts[1];
    if (cus.size() > 1 && cus[1] == 'X') {
      if (cus[0] != '0') return rejected("has a mask that does not start with 0x");
      const std::string digits = cus.substr(2);
      if (!std::all_of(digits.begin(), digits.end(),
                       [](unsigned char c) { return std::isxdigit(c); })) {
        return rejected("has a mask with a character that is not a hex digit");
      }
      if (digits.find_first_not_of('0') == std::string::npos) {
        return rejected("has a mask that enables no CU (0x0)");
      }
    } else {
      Ranges cu_ranges;
      if (const auto problem = check_rocr_id_list(cus, "CU", cu_ranges)) return rejected(*problem);
    }
    Ranges gpus;
    if (const auto problem = check_rocr_id_list(parts[0], "GPU", gpus)) return rejected(*problem);
    for (const auto& gpu : gpus) {
      for (const auto& earlier : gpus_so_far) {
        if (gpu.first <= earlier.second && earlier.first <= gpu.second) {
          return rejected("names GPU " + std::to_string(std::max(gpu.first, earlier.first)) +
                          ", which an earlier set has");
        }
      }
    }
    gpus_so_far.insert(gpus_so_far.end(), gpus.begin(), gpus.end());
  }
  return std::nullopt;
}

}  // namespace

bool global_cu_mask_ends_hip(const std::string& value, int cus) {
  // HIP strips a leading "0x" or "0X", then reads min(length, cus / 4) digits in chunks; the
  // first chunk's length is cus / 4 - 8 when cus / 4 < 8.
  const std::string pre = value.substr(0, 2);
  const std::size_t digits = pre == "0x" || pre == "0X" ? value.size() - 2 : value.size();
  const int compressed = cus / 4;
  return digits > 0 && compressed > 0 && compressed < 8;
}

Platform build_platform() {
#if HIP_LESSONS_BUILT_FOR_AMD
  return Platform::kAmd;
#else
  return Platform::kNvidia;
#endif
}

RuntimeVersion runtime_version_from(int encoded, Platform platform) {
  if (platform == Platform::kAmd) {
    return {encoded / 10000000, encoded / 100000 % 100, encoded % 100000};
  }
  return {encoded / 1000, encoded % 1000 / 10};
}

std::string runtime_name(RuntimeVersion version, Platform platform) {
  return std::string(platform == Platform::kAmd ? "HIP " : "CUDA ") +
         std::to_string(version.major) + "." + std::to_string(version.minor);
}

HardwareQueueVariable hardware_queue_variable(Platform platform) {
  if (platform == Platform::kAmd) return {"GPU_MAX_HW_QUEUES", 4, "CUDA_DEVICE_MAX_CONNECTIONS"};
  return {"CUDA_DEVICE_MAX_CONNECTIONS", 8, "GPU_MAX_HW_QUEUES"};
}

int hardware_queue_count(Platform platform) {
  const HardwareQueueVariable variable = hardware_queue_variable(platform);
  const char* value = std::getenv(variable.name);
  if (value == nullptr || check_environment_value(variable.name, value, platform)) {
    return variable.default_count;
  }
  return std::atoi(value);
}

bool EnvironmentVariable::applies_to(Platform build) const {
  return platform == "both" || platform == platform_name(build);
}

std::string EnvironmentVariable::ignored_by(Platform build) const {
  if (!read_at_run_time || applies_to(build)) return "";
  return "only the " + platform + " runtime reads it; this " + platform_name(build) +
         " build ignores it" + (counterpart.empty() ? "" : " (" + counterpart + " does that here)");
}

const std::vector<EnvironmentVariable>& scheduling_variables() {
  // HIP on NVIDIA is a header layer over the CUDA runtime: it reads no HIP_* or AMD variable
  // at run time, so only the CUDA variables select devices and queues there.
  static const std::vector<EnvironmentVariable> variables = {
      {"HIP_PLATFORM", "both", "which HIP platform hipcc and hipconfig target (amd, nvidia)",
       "detected", false, ""},
      {"HIP_PATH", "both", "where the HIP installation is", "/opt/rocm or the hipcc location",
       false, ""},
      {"ROCM_PATH", "AMD", "where the ROCm installation is", "/opt/rocm", false, ""},
      {"HIP_VISIBLE_DEVICES", "AMD", "device indices the HIP runtime exposes, renumbered from 0",
       "all", true, "CUDA_VISIBLE_DEVICES"},
      {"ROCR_VISIBLE_DEVICES", "AMD",
       "devices (indices or GPU-<uuid>) ROCr exposes to every runtime", "all", true,
       "CUDA_VISIBLE_DEVICES"},
      {"CUDA_VISIBLE_DEVICES", "both",
       "devices the CUDA driver exposes; HIP on AMD reads it while HIP_VISIBLE_DEVICES is unset",
       "all", true, ""},
      {"GPU_MAX_HW_QUEUES", "AMD",
       "hardware queues HIP creates per device; more streams share them", "4", true,
       "CUDA_DEVICE_MAX_CONNECTIONS"},
      {"HSA_ENABLE_SDMA", "AMD",
       "1: copies may use the SDMA copy engines; 0: blit kernels on the CUs",
       "ROCr's choice per GPU", true, ""},
      {"HSA_ENABLE_INTERRUPT", "AMD", "1: completion signals by interrupt; 0: the host polls", "1",
       true, ""},
      {"ROC_GLOBAL_CU_MASK", "AMD", "hex CU mask applied to every queue HIP creates", "all CUs",
       true, ""},
      {"HSA_CU_MASK", "AMD", "per-GPU CU lists applied by ROCr at queue creation (GPUs:CUs;...)",
       "all CUs", true, ""},
      {"CUDA_DEVICE_MAX_CONNECTIONS", "NVIDIA",
       "hardware work queues (connections) per device; streams beyond share them", "8", true,
       "GPU_MAX_HW_QUEUES"},
  };
  return variables;
}

std::optional<std::string> check_environment_value(const std::string& name,
                                                   const std::string& value, Platform platform,
                                                   std::optional<RuntimeVersion> runtime) {
  if (name == "HIP_PLATFORM") {
    if (value == "amd" || value == "nvidia" || value == "hcc" || value == "nvcc")
      return std::nullopt;
    return "'" + value + "' is not a platform; use amd or nvidia";
  }
  if (name == "HIP_PATH" || name == "ROCM_PATH") {
    struct stat info {};
    if (::stat(value.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) return std::nullopt;
    return "'" + value + "' is not a directory";
  }
  if (name == "HIP_VISIBLE_DEVICES" || name == "ROCR_VISIBLE_DEVICES" ||
      name == "CUDA_VISIBLE_DEVICES") {
    return check_visible_devices(name, value, platform, runtime);
  }
  if (name == "GPU_MAX_HW_QUEUES") return check_hw_queues(value, runtime);
  // ROCr compares these with "0" and "1" only (ROCm/ROCR-Runtime core/util/flag.h).
  if (name == "HSA_ENABLE_SDMA" || name == "HSA_ENABLE_INTERRUPT") {
    if (value == "0" || value == "1") return std::nullopt;
    return "'" + value + "' is not 0 or 1; ROCr treats " +
           (name == "HSA_ENABLE_SDMA" ? "it as unset (its per-GPU default)"
                                      : "anything but 0 as 1 (interrupts on)");
  }
  if (name == "ROC_GLOBAL_CU_MASK") return check_global_cu_mask(value);
  if (name == "HSA_CU_MASK") return check_cu_sets(value);
  if (name == "CUDA_DEVICE_MAX_CONNECTIONS") {
    if (is_unsigned_integer(value) && std::stoi(value) >= 1 && std::stoi(value) <= 32) return {};
    return "'" + value + "' is not an integer in 1..32";
  }
  return std::nullopt;
}

std::vector<std::string> environment_warnings(Platform platform,
                                              std::optional<RuntimeVersion> runtime) {
  std::vector<std::string> warnings;
  for (const EnvironmentVariable& variable : scheduling_variables()) {
    const char* raw = std::getenv(variable.name.c_str());
    if (raw == nullptr || !variable.read_at_run_time) continue;
    std::string text = check_environment_value(variable.name, raw, platform, runtime).value_or("");
    const std::string ignored = variable.ignored_by(platform);
    if (!ignored.empty()) text += (text.empty() ? "" : "; ") + ignored;
    if (!text.empty()) warnings.push_back(variable.name + "='" + raw + "': " + text);
  }
  return warnings;
}

std::vector<std::string> device_selection_settings(Platform platform) {
  std::vector<std::string> settings;
  for (const EnvironmentVariable& variable : scheduling_variables()) {
    const char* value = std::getenv(variable.name.c_str());
    const bool device_list = variable.name.find("_VISIBLE_DEVICES") != std::string::npos;
    if (value != nullptr && device_list && variable.applies_to(platform)) {
      settings.push_back(variable.name + "='" + value + "'");
    }
  }
  return settings;
}

std::vector<int> parse_id_list(const std::string& text, int limit) {
  auto fail = [&](const std::string& why) {
    throw UsageError("ID list '" + text + "' " + why +
                     "; expected IDs and ranges such as 0,2-4,7 (IDs below " +
                     std::to_string(limit) + ")");
  };
  if (text.empty()) fail("is empty");
  std::vector<int> ids;
  for (const std::string& item : split(text, ',')) {
    const auto dash = item.find('-');
    const std::string first = item.substr(0, dash);
    const std::string last = dash == std::string::npos ? first : item.substr(dash + 1);
    if (!is_unsigned_integer(first) || !is_unsigned_integer(last)) {
      fail("has '" + item + "', which is not an ID or a range");
    }
    const int lo = std::stoi(first);
    const int hi = std::stoi(last);
    if (lo > hi) fail("has the reversed range '" + item + "'");
    if (hi >= limit) fail("has ID " + std::to_string(hi) + ", out of range");
    for (int id = lo; id <= hi; ++id) ids.push_back(id);
  }
  if (text.back() == ',') fail("ends with ','");
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace hip_lessons
