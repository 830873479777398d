/// \file lessons/06_cu_masking/cu_partition.hpp
/// \brief Lesson 06's host-only rules of a compute-unit partition (test_cu_partition.cpp):
/// which partitions the lesson asks for, what the platform grants, when a read-back mask can be
/// trusted, and what a partition's block trace must show. The AMD mask rules themselves are
/// common (hip_lessons/amd_cu_masks.hpp): lesson 08 builds its masks with them too.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hip_lessons/amd_cu_masks.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/schedule.hpp"

namespace cu_masking {
namespace hl = hip_lessons;

/// What the platform allows a partition to look like on one device.
struct PartitionRules {
  int units = 0;          ///< compute units a partition can take them from
  int min_units = 1;      ///< the smallest partition
  int granularity = 1;    ///< partition sizes are multiples of this
  std::string mechanism;  ///< the API that enforces it
};

inline int round_up_to(int value, int granularity) {
  return (value + granularity - 1) / granularity * granularity;
}

/// What a request for \p requested units becomes (NVIDIA's documented rounding, to plan ahead;
/// on AMD a size that is not a multiple is refused instead, so this is the size itself).
inline int expected_grant(const PartitionRules& rules, int requested) {
  return std::max(rules.min_units, round_up_to(requested, rules.granularity));
}

/// AMD: the rules of \p amd's masks (hl::mask_layout()): whole WGPs, the same share of every
/// XCC, inside ROC_GLOBAL_CU_MASK, whose units are all a partition can take.
inline PartitionRules amd_partition_rules(const hl::AmdMaskDevice& amd) {
  const hl::MaskLayout layout = hl::mask_layout(amd);
  const int units = hl::available_units(amd);
  return {units, layout.partition_step(), layout.partition_step(),
          "hipExtStreamCreateWithCUMask: " + layout.rule};
}

/// --partition when it is not given (\p option 0): 8 units on NVIDIA (\p amd nothing); on AMD
/// the smallest size of at least 8 that two partitions side by side can take
/// (hl::default_partition_units(): on an MI300A in SPX, 6 XCCs, that is 12). Given, the option.
inline int partition_size(std::int64_t option, const std::optional<hl::AmdMaskDevice>& amd) {
  if (option > 0) return static_cast<int>(option);
  return amd ? hl::default_partition_units(*amd, 2, /*leave_rest=*/false) : 8;
}

/// The whole device's units N, against which step 2 judges a partition's speed (ideal time
/// ratio N/k): on AMD the units every queue can use (hl::available_units(): inside
/// ROC_GLOBAL_CU_MASK and HSA_CU_MASK), not multiProcessorCount, which under a global mask in
/// WGP mode counts half the WGPs the queues get; on NVIDIA \p reported (multiProcessorCount).
inline int whole_device_units(const std::optional<hl::AmdMaskDevice>& amd, int reported) {
  return amd ? hl::available_units(*amd) : reported;
}

/// The partitions lesson 06 asks for with --partition \p k, one request per stream maker call:
/// one each of k, 2k and 4k units (those the device holds; steps 1 and 2), then two of k side
/// by side (step 3). The lesson refuses a k whose two partitions do not fit.
inline std::vector<std::vector<int>> partition_requests(const PartitionRules& rules, int k) {
  std::vector<std::vector<int>> requests;
  for (const int size : {k, 2 * k, 4 * k}) {
    if (expected_grant(rules, size) <= rules.units) requests.push_back({size});
  }
  requests.push_back({k, k});
  return requests;
}

/// Why hipExtStreamGetCUMask's answer may not be the mask the stream's queue got (the README's
/// "Process-wide masks"), or nothing. \p bits_per_unit > 1 where HIP's bits are CUs but it
/// counts WGPs (HIP < 5.7 in WGP mode).
inline std::optional<std::string> readback_caveat(int bits_per_unit, bool global_cu_mask,
                                                  bool hsa_cu_mask) {
  if (global_cu_mask) {
    return "ROC_GLOBAL_CU_MASK is set: hipExtStreamGetCUMask may return the buffer unchanged";
  }
  if (hsa_cu_mask) return "HSA_CU_MASK narrows queues in ROCr, below HIP";
  if (bits_per_unit > 1) return "this HIP cuts the read-back to multiProcessorCount bits";
  return std::nullopt;
}

// What a partition's block trace must show. Green contexts do not say which SMs they got, so
// the rules count unit ids: a partition of k units ran on at most k; two disjoint ones side by
// side shared none.

/// "fma_chains block 12 (launch 3) on unit 40, 10.2-15.3 us".
inline std::string block_text(const hl::TracedBlock& b) {
  return hl::format("{} block {} (launch {}) on unit {}, {:.1}-{:.1} us", b.kernel, b.block,
                    b.launch, b.unit, b.start_us, b.end_us);
}

/// The unit ids trace stream \p stream ran on, and the first block (in time) on an id beyond
/// its first \p granted distinct ones (nothing: it stayed within its grant).
struct UnitsSeen {
  std::size_t distinct = 0;
  std::optional<std::string> first_past_grant;
};
inline UnitsSeen units_seen(const hl::Schedule& schedule, int stream, int granted) {
  std::set<unsigned> seen;
  UnitsSeen result;
  for (const hl::TracedBlock& b : schedule.blocks()) {  // sorted by start time
    if (b.stream == stream && seen.insert(b.unit).second && int(seen.size()) == granted + 1) {
      result.first_past_grant = block_text(b);
    }
  }
  result.distinct = seen.size();
  return result;
}

/// The first block (in time) of trace stream 0 or 1 on a unit the other stream used too.
inline std::optional<std::string> first_shared_unit(const hl::Schedule& schedule) {
  std::set<unsigned> used[2];
  const std::vector<hl::TracedBlock>& blocks = schedule.blocks();  // sorted by start time
  for (const hl::TracedBlock& b : blocks) {
    if (b.stream == 0 || b.stream == 1) used[b.stream].insert(b.unit);
  }
  for (const hl::TracedBlock& b : blocks) {
    if ((b.stream == 0 || b.stream == 1) && used[1 - b.stream].count(b.unit) != 0) {
      return block_text(b);
    }
  }
  return std::nullopt;
}

}  // namespace cu_masking
