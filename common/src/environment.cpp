#include "hip_lessons/environment.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <sstream>

#include "hip_lessons/errors.hpp"

namespace hip_lessons {

namespace {

bool is_unsigned_integer(const std::string& text) {
  return !text.empty() && text.size() <= 9 &&
         std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool has_hex_prefix(const std::string& text) {
  return text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
}

bool is_hex_mask(const std::string& text) {
  return has_hex_prefix(text) && std::all_of(text.begin() + 2, text.end(),
                                             [](unsigned char c) { return std::isxdigit(c); });
}

// ROC_GLOBAL_CU_MASK as HIP reads it (ROCm/clr rocclr/device/rocm/rocdevice.cpp,
// Device::getGlobalCUMask): an optional 0x, then hex digits, 8 at a time through
// std::stoul(..., 16). A mask HIP cannot read, one that enables no CU, and one that enables
// every CU are all dropped: the queues then run on every CU.
std::optional<std::string> check_global_cu_mask(const std::string& value) {
  const std::string digits = has_hex_prefix(value) ? value.substr(2) : value;
  const bool hex = !digits.empty() && std::all_of(digits.begin(), digits.end(),
                                                  [](unsigned char c) { return std::isxdigit(c); });
  if (!hex) {
    return "'" + value + "' is not a hex mask such as 0xff or ff; HIP may misread it, and " +
           "uses every CU when it cannot read it at all";
  }
  if (digits.find_first_not_of('0') == std::string::npos) {
    return "'" + value + "' enables no CU at all; HIP ignores an empty mask and uses every CU";
  }
  return std::nullopt;
}

std::optional<std::string> check_integer_range(const std::string& value, int min, int max) {
  if (!is_unsigned_integer(value) || std::stoi(value) < min || std::stoi(value) > max) {
    return "'" + value + "' is not an integer in " + std::to_string(min) + ".." +
           std::to_string(max);
  }
  return std::nullopt;
}

// What C's atoi() makes of \p text, as HIP's flag parser reads every integer flag
// (ROCm/clr rocclr/utils/flags.cpp, Flag::setValue): leading blanks and one sign, then the
// leading digits; anything else stops it, so "abc" is 0 and "8abc" is 8. Returns nothing when
// the digits overflow an int, where atoi's result is undefined.
std::optional<long long> atoi_reading(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  long long value = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    value = value * 10 + (text[i] - '0');
    if (value > 2147483648LL) return std::nullopt;
  }
  if (negative) value = -value;
  if (value > 2147483647LL) return std::nullopt;
  return value;
}

// GPU_MAX_HW_QUEUES is a uint flag of HIP (ROCm/clr rocclr/utils/flags.hpp, default 4) read
// with atoi(). HIP sets no upper bound; a positive integer is taken as it is. The rest is
// warned about with what HIP makes of it.
std::optional<std::string> check_hw_queues(const std::string& value) {
  const bool plain = is_unsigned_integer(value);
  const auto read = atoi_reading(value);
  if (plain && read && *read > 0) return std::nullopt;
  const std::string what =
      plain ? "'" + value + "' is not a positive integer" : "'" + value + "' is not an integer";
  if (!read) return what + "; it overflows atoi(), so what HIP reads is undefined";
  if (*read < 0) {
    return what + "; HIP reads it with atoi() into an unsigned flag as " +
           std::to_string(static_cast<unsigned int>(*read)) +
           ", so the queue pool has no practical limit";
  }
  if (*read == 0) {
    return what + "; HIP reads it with atoi() as 0: current HIP then shares one hardware " +
           "queue per priority level among all streams (as with 1); older HIP creates no " +
           "queue at all";
  }
  return what + "; HIP reads it with atoi() as " + std::to_string(*read);
}

std::optional<std::string> check_visible_devices(const std::string& name, const std::string& value,
                                                 Platform platform) {
  if (value.empty()) {
    // CUDA documents an empty list as "no GPU visible". HIP on AMD reads an empty
    // HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES as its default (every GPU).
    if (platform == Platform::kNvidia && name == "CUDA_VISIBLE_DEVICES") {
      return std::string("is set but empty, which hides every GPU from CUDA; unset it");
    }
    // ROCr filters by ROCR_VISIBLE_DEVICES whenever it is set (core/util/flag.h,
    // os::IsEnvVarSet), so an empty list exposes no GPU.
    if (name == "ROCR_VISIBLE_DEVICES") {
      return std::string("is set but empty, which exposes no GPU to ROCr; unset it");
    }
    return std::nullopt;
  }
  std::stringstream items(value);
  std::string item;
  while (std::getline(items, item, ',')) {
    const bool uuid = item.rfind("GPU-", 0) == 0 && item.size() > 4;
    if (!uuid && !is_unsigned_integer(item)) {
      return "item '" + item + "' is neither a device index nor a GPU-<uuid>";
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_cu_sets(const std::string& value) {
  // CU_Set [; CU_Set]*, CU_Set = GPU_list : (0xHEX | ID_list)
  std::stringstream sets(value);
  std::string set;
  bool any = false;
  while (std::getline(sets, set, ';')) {
    set.erase(std::remove(set.begin(), set.end(), ' '), set.end());
    const auto colon = set.find(':');
    if (colon == std::string::npos) return "set '" + set + "' has no ':' (form GPUs:CUs)";
    try {
      parse_id_list(set.substr(0, colon), 1 << 16);
      const std::string cus = set.substr(colon + 1);
      if (!is_hex_mask(cus)) parse_id_list(cus, 1 << 16);
    } catch (const UsageError& error) {
      return std::string(error.what());
    }
    any = true;
  }
  if (!any) return std::string("is empty; the form is GPUs:CUs, e.g. 0:0-15");
  return std::nullopt;
}

}  // namespace

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

bool EnvironmentVariable::applies_to(Platform platform) const {
  return this->platform == "both" || this->platform == platform_name(platform);
}

std::string EnvironmentVariable::ignored_by(Platform platform) const {
  if (!read_at_run_time || applies_to(platform)) return "";
  return "only the " + this->platform + " runtime reads it; this " + platform_name(platform) +
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
       "devices the CUDA driver exposes (HIP on AMD honours it too)", "all", true, ""},
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
                                                   const std::string& value, Platform platform) {
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
    return check_visible_devices(name, value, platform);
  }
  if (name == "GPU_MAX_HW_QUEUES") return check_hw_queues(value);
  // ROCr compares these with "0" and "1" only (ROCm/ROCR-Runtime core/util/flag.h).
  if (name == "HSA_ENABLE_SDMA") {
    if (value == "0" || value == "1") return std::nullopt;
    return "'" + value + "' is not 0 or 1; ROCr treats it as unset (its per-GPU default)";
  }
  if (name == "HSA_ENABLE_INTERRUPT") {
    if (value == "0" || value == "1") return std::nullopt;
    return "'" + value + "' is not 0 or 1; ROCr treats anything but 0 as 1 (interrupts on)";
  }
  if (name == "ROC_GLOBAL_CU_MASK") return check_global_cu_mask(value);
  if (name == "HSA_CU_MASK") return check_cu_sets(value);
  if (name == "CUDA_DEVICE_MAX_CONNECTIONS") return check_integer_range(value, 1, 32);
  return std::nullopt;
}

std::vector<std::string> environment_warnings(Platform platform) {
  std::vector<std::string> warnings;
  for (const EnvironmentVariable& variable : scheduling_variables()) {
    const char* raw = std::getenv(variable.name.c_str());
    if (raw == nullptr || !variable.read_at_run_time) continue;
    const std::string setting = variable.name + "='" + raw + "'";
    const auto problem = check_environment_value(variable.name, raw, platform);
    const std::string ignored = variable.ignored_by(platform);
    if (problem) {
      warnings.push_back(setting + ": " + *problem + (ignored.empty() ? "" : "; " + ignored));
    } else if (!ignored.empty()) {
      warnings.push_back(setting + ": " + ignored);
    }
  }
  return warnings;
}

std::vector<std::string> device_selection_settings(Platform platform) {
  const std::set<std::string> device_lists = {"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                                              "CUDA_VISIBLE_DEVICES"};
  std::vector<std::string> settings;
  for (const EnvironmentVariable& variable : scheduling_variables()) {
    const char* value = std::getenv(variable.name.c_str());
    if (value != nullptr && device_lists.count(variable.name) && variable.applies_to(platform)) {
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
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
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
  if (!text.empty() && text.back() == ',') fail("ends with ','");
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace hip_lessons
