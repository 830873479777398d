#include "hip_lessons/amd_cu_masks.hpp"

#include <algorithm>
#include <bitset>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "hip_lessons/environment.hpp"
#include "hip_lessons/errors.hpp"
#include "hip_lessons/format.hpp"

namespace hip_lessons {

namespace {

bool gfx10_or_later(const std::string& arch) {
  return arch.rfind("gfx1", 0) == 0 && arch.size() >= 7;  // gfx1030, gfx1100, gfx1201
}

// CUs per XCD of the multi-XCC CDNA parts, by arch: MI300X, MI300A and MI325X (gfx940-942:
// 8, 6 and 8 XCDs of 38 active CUs: 304, 228, 304); MI350X and MI355X (gfx950: 8 of 32).
std::optional<int> cus_per_xcd(const std::string& arch) {
  if (arch == "gfx940" || arch == "gfx941" || arch == "gfx942") return 38;
  if (arch == "gfx950") return 32;
  return std::nullopt;
}

}  // namespace

int CuMask::count() const {
  std::size_t n = 0;
  for (const std::uint32_t word : words) n += std::bitset<32>(word).count();
  return static_cast<int>(n);
}

std::string CuMask::ids() const {
  std::string text;
  for (int b = 0; b < kMaxMaskBits; ++b) {
    if (!has(b)) continue;
    int end = b;
    while (end + 1 < kMaxMaskBits && has(end + 1)) ++end;
    if (!text.empty()) text += ",";
    text += end > b ? format("{}-{}", b, end) : format("{}", b);
    b = end;
  }
  return text.empty() ? "none" : text;
}

CuMask cu_mask_range(int first, int count) {
  CuMask mask;
  for (int b = first; b < first + count; ++b) mask.set(b);
  return mask;
}

CuMask parse_cu_list(const std::string& option, const std::string& text) {
  CuMask mask;
  try {
    for (const int id : parse_id_list(text, kMaxMaskBits)) mask.set(id);
  } catch (const UsageError& error) {
    throw UsageError(format("{} '{}' is not a CU list: {}", option, text, error.what()));
  }
  return mask;  // parse_id_list() refuses an empty list, so at least one bit is set
}

bool hip_counts_wgps(const char* value, int hip_version) {
  if (value == nullptr || (*value == '\0' && hip_version < 50500000)) return true;
  return std::strcmp(value, "true") == 0 || std::atoi(value) != 0;
}

std::optional<int> amd_xcc_count(const std::string& arch, int physical_units,
                                 std::optional<int> attribute) {
  if (attribute && *attribute > 0) return attribute;
  const std::optional<int> per_xcd = cus_per_xcd(arch);
  if (!per_xcd) return 1;
  if (physical_units <= 0 || physical_units % *per_xcd != 0) return std::nullopt;
  return physical_units / *per_xcd;
}

std::optional<CuMask> hip_global_cu_mask(const std::string& text, int physical_units,
                                         bool wgp_mode) {
  std::string digits = text;
  if (digits.rfind("0x", 0) == 0 || digits.rfind("0X", 0) == 0) digits = digits.substr(2);
  // HIP reads as many hex digits from the end as the device's CUs fill (a WGP is two CUs),
  // in chunks of 8 that become the mask's 32-bit words, the lowest first.
  const int digits_read = (wgp_mode ? 2 * physical_units : physical_units) / 4;
  const int length = static_cast<int>(digits.size());
  CuMask mask;
  int end = length, available = 0;
  for (int i = 0; i < std::min(length, digits_read); i += 8) {
    // HIP's last chunk is digits_read - 8 long whenever fewer than 8 digits are left: its own
    // quirk. std::stoul then throws out_of_range inside HIP for a long enough mask, which HIP
    // does not catch (the process ends at start-up); this model gives nothing there.
    const int chunk = i + 8 <= digits_read ? 8 : digits_read - 8;
    if (chunk <= 0) return std::nullopt;  // under 32 CUs HIP's substr() throws out_of_range
    std::string piece = digits.substr(std::max(0, end - chunk), std::min(chunk, end));
    end -= chunk;
    piece = piece.substr(0, piece.find_first_not_of("0123456789abcdefABCDEF"));  // stoul stops
    if (piece.empty()) return std::nullopt;  // std::stoul reads no number: HIP drops the mask
    const std::size_t significant =
        piece.size() - std::min(piece.size(), piece.find_first_not_of('0'));
    if (significant > 16) return std::nullopt;  // std::stoul's out_of_range
    mask.words[i / 8] = static_cast<std::uint32_t>(std::stoul(piece, nullptr, 16));
    available += static_cast<int>(std::bitset<32>(mask.words[i / 8]).count());
  }
  if (available == 0 || available >= digits_read * 4) return std::nullopt;
  return mask;
}

int MaskLayout::partition_step() const {
  return std::lcm(std::max(1, bit_granularity / bits_per_unit), xccs);
}

MaskLayout mask_layout(const AmdMaskDevice& device) {
  if (!device.xccs) {
    throw SkipError(format(
        "cannot tell how many XCCs this {} with {} CUs has, and a CU mask must give every XCC "
        "CUs of its own (HIP 7.0 and later report it as hipDeviceAttributeNumberOfXccs)",
        device.arch, device.physical_units));
  }
  if (!device.hsa_unknown.empty()) throw SkipError(device.hsa_unknown);
  MaskLayout layout;
  layout.xccs = *device.xccs;
  layout.unit = "CU";
  layout.rule = "one bit per CU";
  if (gfx10_or_later(device.arch) && device.wgp_mode && device.hip_version >= 50700000) {
    layout.cus_per_bit = 2;
    layout.unit = "WGP";
    layout.rule = "one bit per WGP (HIP >= 5.7 sets both of its CUs)";
  } else if (gfx10_or_later(device.arch) && device.wgp_mode) {
    layout.bits_per_unit = layout.bit_granularity = 2;
    layout.unit = "WGP";
    layout.rule = "one bit per CU, two per unit (a WGP, which HIP < 5.7 counts)";
  } else if (gfx10_or_later(device.arch)) {
    layout.bit_granularity = 2;
    layout.rule = "one bit per CU, both CUs of a WGP or neither";
  }
  if (layout.xccs > 1) layout.rule += format("; bit b on XCC b mod {}", layout.xccs);
  layout.bits = device.physical_units * layout.bits_per_unit;
  if (device.global_mask) {  // HIP gives every queue of the process this mask
    const std::string global = "ROC_GLOBAL_CU_MASK (" + device.global_mask->ids() + ")";
    for (int bit = 0; bit < layout.bits; bit += layout.bit_granularity) {
      if (device.global_mask->has(bit) !=
          device.global_mask->has(bit + layout.bit_granularity - 1)) {
        throw UsageError(
            format("{} sets one CU of the WGP of bits {}-{}; ROCr refuses such a "
                   "mask for every queue; set both CUs of each WGP or neither",
                   global, bit, bit + 1));
      }
    }
    for (int xcc = 0; xcc < layout.xccs; ++xcc) {
      bool any = false;
      for (int bit = xcc; bit < layout.bits && !any; bit += layout.xccs) {
        any = device.global_mask->has(bit);
      }
      if (!any) {
        throw UsageError(format(
            "{} gives XCC {} no CU (bit b belongs to XCC b mod {}): every queue of the process "
            "would hang on that XCC's workgroups; give each XCC at least one CU",
            global, xcc, layout.xccs));
      }
    }
  }
  return layout;
}

std::optional<std::string> cu_mask_problem(const AmdMaskDevice& device, const CuMask& mask) {
  const MaskLayout layout = mask_layout(device);
  if (mask.count() == 0) return std::string("the mask selects no compute unit");
  for (int bit = kMaxMaskBits - 1; bit >= layout.bits; --bit) {  // the highest first
    if (mask.has(bit)) {
      return format("the mask sets bit {}, but this device's mask has {} bits (0..{})", bit,
                    layout.bits, layout.bits - 1);
    }
  }
  if (device.global_mask) {
    for (int bit = 0; bit < layout.bits; ++bit) {
      if (mask.has(bit) && !device.global_mask->has(bit)) {
        return format(
            "bit {} is outside ROC_GLOBAL_CU_MASK ({}): HIP gives a queue only the bits of both "
            "masks, or the global mask alone when they share none",
            bit, device.global_mask->ids());
      }
    }
  }
  if (device.hsa_cu_mask) {
    for (int bit = 0; bit < layout.bits; ++bit) {
      for (int c = 0; c < layout.cus_per_bit && mask.has(bit); ++c) {
        if (!device.hsa_cu_mask->has(bit * layout.cus_per_bit + c)) {
          return format(
              "bit {} reaches CU {}, outside HSA_CU_MASK ({}): ROCr cuts the queue's mask down "
              "and reports it reduced, and HIP then fails the queue",
              bit, bit * layout.cus_per_bit + c, device.hsa_cu_mask->ids());
        }
      }
    }
  }
  const int group = layout.bit_granularity;
  for (int bit = 0; bit < layout.bits; ++bit) {
    const int first = bit - bit % group;
    if (mask.has(bit) != mask.has(first)) {
      return format(
          "the mask sets only part of bits {}-{}: here a bit is a CU, and the two CUs of a WGP "
          "are enabled together (ROCr refuses one without the other)",
          first, first + group - 1);
    }
  }
  for (int xcc = 0; xcc < layout.xccs; ++xcc) {
    bool any = false;
    for (int bit = xcc; bit < layout.bits && !any; bit += layout.xccs) any = mask.has(bit);
    if (!any) {
      return format(
          "the mask gives XCC {} no CU (bit b belongs to XCC b mod {}); that XCC still takes one "
          "workgroup in {} of every dispatch, and those would never run: the queue would hang",
          xcc, layout.xccs, layout.xccs);
    }
  }
  return std::nullopt;
}

std::vector<CuMask> plan_partitions(const AmdMaskDevice& device, const std::vector<int>& units_each,
                                    bool rest) {
  const MaskLayout layout = mask_layout(device);
  const int step = layout.partition_step();
  // Whole groups of bits, by XCC, in order: the partitions take from the front of each list.
  std::vector<std::vector<int>> free_groups(layout.xccs);
  for (int first = 0; first < layout.bits; first += layout.bit_granularity) {
    bool usable = true;
    for (int b = first; b < first + layout.bit_granularity; ++b) {
      usable = usable && (!device.global_mask || device.global_mask->has(b));
      for (int c = 0; c < layout.cus_per_bit && device.hsa_cu_mask; ++c) {
        usable = usable && device.hsa_cu_mask->has(b * layout.cus_per_bit + c);
      }
    }
    if (usable) free_groups[first % layout.xccs].push_back(first);
  }
  int available = 0;
  for (const auto& groups : free_groups) available += static_cast<int>(groups.size());
  available = available * layout.bit_granularity / layout.bits_per_unit;
  const std::string where =
      device.global_mask || device.hsa_cu_mask
          ? format(" ({} leaves {})", device.global_mask ? "ROC_GLOBAL_CU_MASK" : "HSA_CU_MASK",
                   available)
          : "";
  std::vector<CuMask> plan;
  std::vector<std::size_t> taken(layout.xccs, 0);
  for (const int units : units_each) {
    if (units < 1 || units % step != 0) {
      const int nearest = std::max(step, (units + step / 2) / step * step);
      std::string why = format(
          "each of the {} XCCs takes one workgroup in {} of every dispatch, "
          "so each needs as many {}s of the partition",
          layout.xccs, layout.xccs, layout.unit);
      if (layout.xccs == 1) why = "a WGP's two CUs are enabled together";
      throw UsageError(format(
          "a partition of {} {}s cannot be made on this {}{}: partitions must be multiples of {} "
          "{}s ({}); the nearest valid size is {}",
          units, layout.unit, device.arch,
          layout.xccs > 1 ? format(" with {} XCCs", layout.xccs) : "", step, layout.unit, why,
          nearest));
    }
    const std::size_t per_xcc =
        static_cast<std::size_t>(units * layout.bits_per_unit / layout.bit_granularity) /
        layout.xccs;
    CuMask mask;
    for (int xcc = 0; xcc < layout.xccs; ++xcc) {
      if (taken[xcc] + per_xcc > free_groups[xcc].size()) {
        throw UsageError(format("{} partition(s) of {} {}s do not fit in this device's {} {}s{}",
                                units_each.size(), units, layout.unit, available, layout.unit,
                                where));
      }
      for (std::size_t g = taken[xcc]; g < taken[xcc] + per_xcc; ++g) {
        for (int b = 0; b < layout.bit_granularity; ++b) mask.set(free_groups[xcc][g] + b);
      }
      taken[xcc] += per_xcc;
    }
    plan.push_back(mask);
  }
  if (rest) {
    CuMask left;
    for (int xcc = 0; xcc < layout.xccs; ++xcc) {
      for (std::size_t g = taken[xcc]; g < free_groups[xcc].size(); ++g) {
        for (int b = 0; b < layout.bit_granularity; ++b) left.set(free_groups[xcc][g] + b);
      }
    }
    plan.push_back(left);
  }
  return plan;
}

int available_units(const AmdMaskDevice& device) {
  return units_of(device, plan_partitions(device, {}, /*rest=*/true).at(0));
}

int grid_units(const std::optional<AmdMaskDevice>& amd, int reported) {
  return amd ? available_units(*amd) : reported;
}

int units_of(const AmdMaskDevice& device, const CuMask& mask) {
  return mask.count() / mask_layout(device).bits_per_unit;
}

CuMask cu_ids_of(const AmdMaskDevice& device, const CuMask& mask) {
  const int per_bit = mask_layout(device).cus_per_bit;
  CuMask ids;
  for (int bit = 0; bit * per_bit < kMaxMaskBits; ++bit) {
    if (!mask.has(bit)) continue;
    for (int c = 0; c < per_bit; ++c) ids.set(bit * per_bit + c);
  }
  return ids;
}

std::optional<int> rocr_gpu_index(int hip_index, const char* hip_visible,
                                  const char* cuda_visible) {
  const char* list = hip_visible != nullptr && *hip_visible != '\0' ? hip_visible : cuda_visible;
  if (list == nullptr) return hip_index;
  std::vector<int> order;
  for (const char* p = list; *p != '\0';) {
    if (std::strncmp(p, "GPU-", 4) == 0) return std::nullopt;  // a UUID: ROCr's index unknown
    char* end = nullptr;
    const long index = std::strtol(p, &end, 10);
    if (end == p || index < 0) break;  // the first invalid index ends the list
    order.push_back(static_cast<int>(index));
    p = *end == ',' ? end + 1 : end;
    if (*end != ',') break;
  }
  if (hip_index < 0 || hip_index >= static_cast<int>(order.size())) return std::nullopt;
  return order[hip_index];
}

std::optional<CuMask> hsa_cu_mask_for(const std::string& value, int rocr_gpu) {
  if (const auto problem = check_environment_value("HSA_CU_MASK", value, Platform::kAmd)) {
    throw SkipError("HSA_CU_MASK " + *problem +
                    ": the CUs this process's queues get are not "
                    "known here");
  }
  std::string text;
  for (const unsigned char c : value) {
    if (!std::isspace(c)) text += static_cast<char>(std::toupper(c));
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(';', start), text.size());
    const std::string set = text.substr(start, end - start);
    start = end + 1;
    const std::size_t colon = set.find(':');
    if (set.empty() || colon == std::string::npos) continue;
    const std::vector<int> gpus = parse_id_list(set.substr(0, colon), 1 << 16);
    if (std::find(gpus.begin(), gpus.end(), rocr_gpu) == gpus.end()) continue;
    const std::string cus = set.substr(colon + 1);
    CuMask mask;
    if (cus.size() > 1 && cus[1] == 'X') {  // 0x...: bit i of the number is CU i
      const std::string digits = cus.substr(2);
      for (int d = 0; d < static_cast<int>(digits.size()) && 4 * d < kMaxMaskBits; ++d) {
        const int nibble = std::stoi(digits.substr(digits.size() - 1 - d, 1), nullptr, 16);
        for (int b = 0; b < 4; ++b) {
          if ((nibble >> b) & 1) mask.set(4 * d + b);
        }
      }
    } else {
      for (const int id : parse_id_list(cus, kMaxMaskBits)) mask.set(id);
    }
    return mask;
  }
  return std::nullopt;
}

AmdMaskDevice describe_amd_device(const std::string& gcn_arch, int hip_version, int physical_units,
                                  std::optional<int> xcc_attribute, int hip_index, EnvLookup env,
                                  const void* context) {
  AmdMaskDevice amd;
  amd.arch = gcn_arch.substr(0, gcn_arch.find(':'));
  amd.hip_version = hip_version;
  // HIP's WGP mode exists on gfx10+ only (ROCm/clr rocclr/device/rocm/rocsettings.cpp).
  amd.wgp_mode =
      gfx10_or_later(amd.arch) && hip_counts_wgps(env("GPU_ENABLE_WGP_MODE", context), hip_version);
  amd.physical_units = physical_units;
  amd.xccs = amd_xcc_count(amd.arch, physical_units,
                           hip_version >= 70000000 ? xcc_attribute : std::nullopt);
  if (const char* global = env("ROC_GLOBAL_CU_MASK", context)) {
    amd.global_mask = hip_global_cu_mask(global, physical_units, amd.wgp_mode);
  }
  amd.rocr_index = rocr_gpu_index(hip_index, env("HIP_VISIBLE_DEVICES", context),
                                  env("CUDA_VISIBLE_DEVICES", context));
  if (!amd.rocr_index) {
    amd.rocr_unknown =
        "HIP_VISIBLE_DEVICES or CUDA_VISIBLE_DEVICES names this GPU by UUID or does not list "
        "it, so ROCr's index of it (what HSA_CU_MASK counts) is not known";
  }
  if (const char* hsa = env("HSA_CU_MASK", context)) {
    if (!amd.rocr_index) {
      amd.hsa_unknown = "HSA_CU_MASK is set and " + amd.rocr_unknown;
    } else {
      try {
        amd.hsa_cu_mask = hsa_cu_mask_for(hsa, *amd.rocr_index);
      } catch (const SkipError& unknown) {
        amd.hsa_unknown = unknown.what();
      }
    }
  }
  return amd;
}

int default_partition_units(const AmdMaskDevice& device, int count, bool leave_rest, int at_least) {
  MaskLayout layout;
  try {
    layout = mask_layout(device);
  } catch (
      const std::runtime_error&) {  // an unknown shape (skip) or a global mask refused: said later
    return at_least;
  }
  const int step = layout.partition_step();
  const auto fits = [&](int k) {
    try {
      const std::vector<CuMask> plan =
          plan_partitions(device, std::vector<int>(count, k), leave_rest);
      return !leave_rest || plan.back().count() > 0;
    } catch (const UsageError&) {
      return false;
    }
  };
  const int first = (at_least + step - 1) / step * step;
  for (int k = first; k * count <= layout.bits; k += step) {
    if (fits(k)) return k;
  }
  for (int k = first - step; k >= step; k -= step) {
    if (fits(k)) return k;
  }
  return at_least;
}

std::string hsa_cu_mask_value(int gpu, const CuMask& cu_ids) {
  return format("{}:{}", gpu, cu_ids.ids());
}

}  // namespace hip_lessons
