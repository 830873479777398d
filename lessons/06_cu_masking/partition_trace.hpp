/// \file lessons/06_cu_masking/partition_trace.hpp
/// \brief Reading lesson 06's block traces: did each partition's blocks stay within its units?
///
/// Every traced launch of lesson 06 runs on a numbered stream (BlockTraceRecorder::reserve), one
/// per partition. The rules checked here, per stream:
///   - its blocks ran on at most `granted` distinct units (a partition of k units cannot use
///     k + 1 of them);
///   - two disjoint partitions side by side used disjoint units (NVIDIA only: %smid is the SM
///     index there; AMD's __smid() is a hardware id that some GPUs give to several CUs, so a
///     shared id proves nothing and a count of ids is a lower bound, which keeps the first rule
///     sound).
/// Green contexts expose how many SMs they got, not which, so "ran on a unit of its partition"
/// can only be checked through these counts. Host-only; unit tested in test_cu_partition.cpp.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hip_lessons/format.hpp"
#include "hip_lessons/schedule.hpp"
#include "hip_lessons/timeline.hpp"

namespace cu_masking {
namespace hl = hip_lessons;

/// The distinct units the blocks launched on \p stream ran on.
inline std::set<unsigned> units_of_stream(const hl::Schedule& schedule, int stream) {
  std::set<unsigned> units;
  for (const hl::TracedBlock& b : schedule.blocks()) {
    if (b.stream == stream) units.insert(b.unit);
  }
  return units;
}

/// The first block (in time) launched on \p stream that ran on a unit beyond the first
/// \p granted distinct ones, that is, the block that shows the partition used too many.
inline std::optional<hl::TracedBlock> first_block_past_units(const hl::Schedule& schedule,
                                                             int stream, int granted) {
  std::set<unsigned> seen;
  for (const hl::TracedBlock& b : schedule.blocks()) {  // sorted by start time
    if (b.stream != stream) continue;
    seen.insert(b.unit);
    if (static_cast<int>(seen.size()) > granted) return b;
  }
  return std::nullopt;
}

/// The first block (in time) launched on \p stream_a or \p stream_b that ran on a unit that
/// blocks of the other stream ran on too.
inline std::optional<hl::TracedBlock> first_block_on_shared_unit(const hl::Schedule& schedule,
                                                                 int stream_a, int stream_b) {
  const std::set<unsigned> a = units_of_stream(schedule, stream_a);
  const std::set<unsigned> b = units_of_stream(schedule, stream_b);
  for (const hl::TracedBlock& block : schedule.blocks()) {
    if ((block.stream == stream_a && b.count(block.unit) != 0) ||
        (block.stream == stream_b && a.count(block.unit) != 0)) {
      return block;
    }
  }
  return std::nullopt;
}

/// "fma_chains block 12 (launch 3) on unit 40, 10.2-15.3 us".
inline std::string block_text(const hl::TracedBlock& b) {
  return hl::format("{} block {} (launch {}) on unit {}, {:.1}-{:.1} us", b.kernel, b.block,
                    b.launch, b.unit, b.start_us, b.end_us);
}

/// One timeline row per unit that blocks of \p stream ran on (at most \p limit, by unit id),
/// labelled "<prefix> <unit>", each block an interval.
inline std::vector<hl::TimelineRow> unit_rows_of_stream(const hl::Schedule& schedule, int stream,
                                                        const std::string& prefix,
                                                        std::size_t limit) {
  std::map<unsigned, hl::TimelineRow> rows;
  for (const hl::TracedBlock& b : schedule.blocks()) {
    if (b.stream != stream) continue;
    hl::TimelineRow& row = rows[b.unit];
    if (row.label.empty()) row.label = hl::format("{} {}", prefix, b.unit);
    row.busy.push_back({b.start_us, b.end_us});
  }
  std::vector<hl::TimelineRow> out;
  for (auto& [unit, row] : rows) {
    if (out.size() == limit) break;
    out.push_back(std::move(row));
  }
  return out;
}

/// One timeline row per stream of \p labels (stream number -> label), busy while any of its
/// blocks ran.
inline std::vector<hl::TimelineRow> stream_rows(const hl::Schedule& schedule,
                                                const std::map<int, std::string>& labels) {
  std::vector<hl::TimelineRow> rows;
  for (const auto& [stream, label] : labels) {
    hl::TimelineRow row{label, {}};
    for (const hl::TracedBlock& b : schedule.blocks()) {
      if (b.stream == stream) row.busy.push_back({b.start_us, b.end_us});
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace cu_masking
