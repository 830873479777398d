/// \file lessons/06_cu_masking/cu_partition.hpp
/// \brief Lesson 06's host-only rules of a compute-unit partition (test_cu_partition.cpp): CU
/// masks, what one mask bit is, partition plans, what a partition's block trace must show.
#pragma once

#include <algorithm>
#include <array>
#include <bitset>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hip_lessons/environment.hpp"
#include "hip_lessons/errors.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/platform.hpp"
#include "hip_lessons/schedule.hpp"
#include "hip_lessons/step_result.hpp"

namespace cu_masking {
namespace hl = hip_lessons;

/// The most compute units a mask may name: 64 words of 32 bits. (MI300X has 304 CUs.)
inline constexpr int kMaxMaskUnits = 2048;

/// A set of compute units, or of mask bits, as hipExtStreamCreateWithCUMask takes it: 32-bit
/// words, bit (i % 32) of word i / 32 standing for unit i.
struct CuMask {
  std::array<std::uint32_t, kMaxMaskUnits / 32> words{};
  bool has(int unit) const { return (words[unit / 32] >> (unit % 32)) & 1u; }
  void set(int unit) { words[unit / 32] |= 1u << (unit % 32); }
  int count() const {
    std::size_t n = 0;
    for (const std::uint32_t word : words) n += std::bitset<32>(word).count();
    return static_cast<int>(n);
  }
  /// The ID-list spelling: "0-7,16-23" ("none" for an empty set).
  std::string ids() const {
    std::string text;
    for (int u = 0; u < kMaxMaskUnits; ++u) {
      if (!has(u)) continue;
      int end = u;
      while (end + 1 < kMaxMaskUnits && has(end + 1)) ++end;
      text += hl::format(text.empty() ? "{}" : ",{}", u) + (end > u ? hl::format("-{}", end) : "");
      u = end;
    }
    return text.empty() ? "none" : text;
  }
  friend bool operator==(const CuMask& a, const CuMask& b) { return a.words == b.words; }
};

/// The units first, first + 1, ..., first + count - 1.
inline CuMask cu_mask_range(int first, int count) {
  CuMask mask;
  for (int unit = first; unit < first + count; ++unit) mask.set(unit);
  return mask;
}

/// Parses a CU list ("0-7,16-23", as HSA_CU_MASK) or a hex mask ("0xff00", as
/// ROC_GLOBAL_CU_MASK); UsageError naming \p option and the text for anything else.
inline CuMask parse_cu_mask(const std::string& option, const std::string& text) {
  const std::string forms = "; use a CU list such as 0-7,16-23 or a hex mask such as 0xff00";
  if (text.empty()) throw hl::UsageError(option + " is empty" + forms);
  CuMask mask;
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    std::string digits = text.substr(2);
    if (digits.empty() || digits.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
      throw hl::UsageError(hl::format("{} '{}' is not a hex mask{}", option, text, forms));
    }
    digits.erase(0, digits.find_first_not_of('0'));  // leading zeros name no unit
    if (digits.size() > kMaxMaskUnits / 4) {
      throw hl::UsageError(hl::format("{} '{}' names units beyond {}, more than any GPU has",
                                      option, text, kMaxMaskUnits - 1));
    }
    for (std::size_t i = 0; i < digits.size(); ++i) {  // digit i from the end: units 4i to 4i + 3
      const auto value = std::stoul(digits.substr(digits.size() - 1 - i, 1), nullptr, 16);
      mask.words[i / 8] |= static_cast<std::uint32_t>(value << 4 * (i % 8));
    }
  } else {
    try {
      for (const int unit : hl::parse_id_list(text, kMaxMaskUnits)) mask.set(unit);
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

/// GPU_ENABLE_WGP_MODE (\p value; nullptr when unset) as HIP \p hip_version parses a bool flag:
/// unset is on; set, only "true" or what atoi() reads as non-zero is on ("TRUE", "yes", "0x1"
/// are off), and "" is off from ROCm 5.5 (HIP_VERSION 50500000, ROCclr 38aa1bd4) and on before.
inline bool hip_counts_wgps(const char* value, int hip_version) {
  if (value == nullptr || (*value == '\0' && hip_version < 50500000)) return true;
  return std::strcmp(value, "true") == 0 || std::atoi(value) != 0;
}

/// How the bits of hipExtStreamCreateWithCUMask's mask map to the units HIP reports
/// (multiProcessorCount, which counts WGPs on gfx10+ while HIP is in WGP mode).
struct MaskLayout {
  int bits_per_unit = 1;    ///< mask bits per reported unit (2: the bits are CUs, units WGPs)
  int bit_granularity = 1;  ///< bits come in groups of this many (2: both CUs of a WGP)
  std::string rule;         ///< the rule in words, for the rules table
  /// Partition sizes, in reported units, are multiples of this.
  int unit_granularity() const { return std::max(1, bit_granularity / bits_per_unit); }
};

/// The layout on \p gcn_arch_name ("gfx90a:sramecc+:xnack-") under HIP \p hip_version
/// (HIP_VERSION), HIP counting WGPs (\p wgp_mode) or CUs. On gfx10+ (RDNA) CUs pair up into
/// workgroup processors (WGPs): ROCr refuses a mask with one CU of a WGP; from 5.7, in WGP
/// mode, HIP sets both.
inline MaskLayout cu_mask_layout(const std::string& gcn_arch_name, int hip_version, bool wgp_mode) {
  const bool gfx10_or_later = gcn_arch_name.rfind("gfx1", 0) == 0 && gcn_arch_name.size() >= 7 &&
                              gcn_arch_name.find_first_not_of("0123456789abcdefABCDEF", 4) >= 7;
  if (!gfx10_or_later) return {1, 1, "one bit per CU"};
  if (!wgp_mode) return {1, 2, "one bit per CU, both CUs of a WGP or neither"};
  if (hip_version >= 50700000) return {1, 1, "one bit per WGP (HIP >= 5.7 sets both its CUs)"};
  return {2, 2, "one bit per CU, two per reported unit (a WGP) (HIP < 5.7)"};
}

/// Why hipExtStreamGetCUMask's answer may not be the mask the stream's queue got (the README's
/// "Process-wide masks"), or nothing.
inline std::optional<std::string> readback_caveat(const MaskLayout& layout, bool global_cu_mask,
                                                  bool hsa_cu_mask) {
  if (global_cu_mask) {
    return "ROC_GLOBAL_CU_MASK is set: hipExtStreamGetCUMask may return the buffer unchanged";
  }
  if (hsa_cu_mask) return "HSA_CU_MASK narrows queues in ROCr, below HIP";
  if (layout.bits_per_unit > 1) return "this HIP cuts the read-back to multiProcessorCount bits";
  return std::nullopt;
}

/// Why \p mask cannot limit a stream on a device whose mask has \p bits bits, enabled in
/// groups of \p granularity (1, or 2 for the CU pairs of a WGP); nothing when it can.
inline std::optional<std::string> cu_mask_problem(const CuMask& mask, int bits, int granularity) {
  if (mask.count() == 0) return "the mask selects no compute unit";
  for (int bit = kMaxMaskUnits - 1; bit >= bits; --bit) {  // the highest first
    if (mask.has(bit)) {
      return hl::format("the mask sets bit {}, but this device's mask has {} bits (0..{})", bit,
                        bits, bits - 1);
    }
  }
  for (int bit = 0; bit < kMaxMaskUnits; ++bit) {  // the lowest group first
    const int first = bit - bit % granularity;
    if (mask.has(bit) != mask.has(first)) {
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

inline int round_up_to(int value, int granularity) {
  return (value + granularity - 1) / granularity * granularity;
}

/// What a request for \p requested units becomes (NVIDIA's documented rule, to plan ahead).
inline int expected_grant(const PartitionRules& rules, int requested) {
  return std::max(rules.min_units, round_up_to(requested, rules.granularity));
}

/// \p groups disjoint masks of \p each bits (rounded up to \p granularity) from bit 0, then the
/// rest of \p bits in whole groups (maybe empty). Throws UsageError when the groups do not fit.
inline std::vector<CuMask> plan_cu_masks(int bits, int groups, int each, int granularity) {
  const int rounded = round_up_to(each, granularity);
  if (groups < 1 || each < 1 || static_cast<long long>(groups) * rounded > bits) {
    throw hl::UsageError(hl::format(
        "{} partition(s) of {} compute units{} do not fit on this device, which has {}", groups,
        each, rounded == each ? "" : hl::format(" ({} in groups of {})", rounded, granularity),
        bits));
  }
  std::vector<CuMask> plan;
  for (int g = 0; g < groups; ++g) plan.push_back(cu_mask_range(g * rounded, rounded));
  plan.push_back(
      cu_mask_range(groups * rounded, (bits - groups * rounded) / granularity * granularity));
  return plan;
}

// What a partition's block trace must show. Green contexts do not say which SMs they got, and
// several AMD CUs can share a __smid(), so the rules count ids: a partition of k units ran on at
// most k; two disjoint ones side by side shared none (NVIDIA only, where %smid is the SM).

/// "fma_chains block 12 (launch 3) on unit 40, 10.2-15.3 us".
inline std::string block_text(const hl::TracedBlock& b) {
  return hl::format("{} block {} (launch {}) on unit {}, {:.1}-{:.1} us", b.kernel, b.block,
                    b.launch, b.unit, b.start_us, b.end_us);
}
/// Records the first rule for the partition \p name of \p granted units on trace \p stream,
/// naming the first block (in time) on a unit beyond its first \p granted distinct ones.
inline void check_units(hl::StepResult& step, const hl::Schedule& schedule, int stream,
                        const std::string& name, int granted) {
  std::set<unsigned> seen;
  std::string past;
  for (const hl::TracedBlock& b : schedule.blocks()) {  // sorted by start time
    if (b.stream == stream && seen.insert(b.unit).second && int(seen.size()) == granted + 1) {
      past = "; first past the grant: " + block_text(b);
    }
  }
  step.check(hl::format("{}: blocks ran on at most its {} granted units", name, granted),
             past.empty(), hl::format("{} distinct ids{}", seen.size(), past));
}
/// Records the second rule for trace streams 0 and 1, naming the first block (in time) of one
/// on a unit the other used too; a skip where ids are not unique (AMD: it cannot be told).
inline void check_disjoint(hl::StepResult& step, const hl::Schedule& schedule,
                           const std::string& pair,
                           bool unique_ids = hl::build_platform() != hl::Platform::kAmd) {
  const std::string name = pair + " ran on disjoint units";
  if (!unique_ids) {
    step.skip(name, "several CUs can share a __smid() value, so it cannot tell");
    return;
  }
  std::set<unsigned> used[2];
  const std::vector<hl::TracedBlock>& blocks = schedule.blocks();  // sorted by start time
  for (const hl::TracedBlock& b : blocks) {
    if (b.stream == 0 || b.stream == 1) used[b.stream].insert(b.unit);
  }
  const auto shared = std::find_if(blocks.begin(), blocks.end(), [&](const hl::TracedBlock& b) {
    return (b.stream == 0 || b.stream == 1) && used[1 - b.stream].count(b.unit) != 0;
  });
  step.check(name, shared == blocks.end(),
             shared == blocks.end() ? "" : "first block on a shared unit: " + block_text(*shared));
}

}  // namespace cu_masking
