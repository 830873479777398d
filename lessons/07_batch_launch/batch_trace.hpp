/// \file lessons/07_batch_launch/batch_trace.hpp
/// \brief Step 6 of lesson 07: the batch traced block by block. Individual launches, the same
/// launches replayed as a graph, and the persistent kernel, drawn on one timeline so that the
/// gaps between launches show, and a check that the persistent kernel's blocks took every
/// segment exactly once.
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "batch.hpp"
#include "hip_lessons/block_trace.hpp"
#include "hip_lessons/buffers.hpp"
#include "hip_lessons/report.hpp"
#include "hip_lessons/stats.hpp"
#include "hip_lessons/timeline.hpp"
#include "kernels.hpp"

namespace batch {

namespace hl = hip_lessons;

/// Most blocks traced per launch method: the tour's batch (1000 segments of 16 blocks) is
/// traced whole; a larger one over its first segments, so the trace stays a few megabytes.
constexpr std::size_t kMaxTracedBlocks = 16384;

/// Individual launches the timeline spans: few enough that one column (1/64 of their time)
/// is shorter than the gap between two launches, so the gaps show as `.`.
constexpr unsigned int kTimelineLaunches = 16;

/// The persistent kernel's note of which block took each segment (SegmentOwners), read back.
class SegmentOwnerRecord {
 public:
  /// Owners poisoned (0xFFFFFFFF: no block), claims zero: a segment no block took shows.
  explicit SegmentOwnerRecord(unsigned int segments) : owner_(segments), claims_(segments) {
    owner_.poison();
    claims_.upload(std::vector<unsigned int>(segments, 0u));
  }
  SegmentOwners pointers() { return {owner_.data(), claims_.data()}; }

  // The rule: a queue of `count` items drained by `grid` blocks hands every item to exactly
  // one block. Names the first segment taken 0 or 2+ times (a lost or duplicated item).
  bool check(hl::Report& report, unsigned int grid) const {
    const std::vector<unsigned int> owner = owner_.download(), claims = claims_.download();
    const std::string name = hl::format(
        "persistent kernel: every segment taken by exactly one block ({} segments, grid {})",
        owner.size(), grid);
    std::set<unsigned int> blocks;
    for (std::size_t k = 0; k < owner.size(); ++k) {
      if (claims[k] != 1 || owner[k] >= grid) {
        const std::string by =
            owner[k] < grid ? hl::format("last by block {}", owner[k]) : "by no block";
        return report.check(name, false,
                            hl::format("segment {} taken {} time(s), {}", k, claims[k], by));
      }
      blocks.insert(owner[k]);
    }
    return report.check(name, true,
                        hl::format("each of {} segments taken once; {} of the {} blocks took work",
                                   owner.size(), blocks.size(), grid));
  }

 private:
  hl::DeviceBuffer<unsigned int> owner_, claims_;
};

/// Every block of \p schedule as one busy interval of a timeline row labelled \p label.
inline hl::TimelineRow busy_row(const std::string& label, const hl::Schedule& schedule) {
  hl::TimelineRow row{label, {}};
  for (const hl::TracedBlock& b : schedule.blocks()) row.busy.push_back({b.start_us, b.end_us});
  return row;
}

/// The median time from one kernel's last block to the next kernel's first block.
inline std::optional<double> median_gap_us(const hl::Schedule& schedule) {
  std::vector<double> gaps;
  const hl::Interval* previous = nullptr;
  for (const auto& [launch, span] : schedule.launch_spans()) {
    if (previous != nullptr) gaps.push_back(span.start - previous->end);
    previous = &span;
  }
  if (gaps.empty()) return std::nullopt;
  return hl::summarize(std::move(gaps)).median;
}

/// Step 6: runs \p b (its first segments, up to kMaxTracedBlocks blocks, for the launches and
/// the graph; all of it for the persistent kernel) traced by three methods, each on a poisoned
/// output and checked; draws the first kTimelineLaunches launches' time for all three, lists
/// the gaps, checks the persistent kernel's segment owners and keeps the schedules for --trace.
inline void trace_methods(hl::Report& report, Batch& b, const Geometry& geometry,
                          hipStream_t stream) {
  const unsigned int per_segment = blocks_for(b.n, geometry.block);
  const auto traced = static_cast<unsigned int>(
      std::clamp<std::size_t>(kMaxTracedBlocks / per_segment, 1, b.count));
  const std::vector<Segment> segments(b.segments.begin(), b.segments.begin() + traced);
  const std::string shape = hl::format("{} of {} x {}", traced, b.count, b.n);
  const std::size_t blocks = static_cast<std::size_t>(traced) * per_segment;

  hl::BlockTraceRecorder launched(blocks);  // one slice per launch
  b.c.poison();
  launch_individually(segments, geometry.block, stream, &launched);
  const hl::Schedule launches = launched.schedule();
  check_segments(report, "traced individual launches, " + shape, b, b.expected, traced);

  // Captured launches keep the arguments they were captured with: one slice per graph node.
  hl::BlockTraceRecorder replayed(blocks);
  const Graph graph = Graph::capture(
      stream, [&] { launch_individually(segments, geometry.block, stream, &replayed); });
  b.c.poison();
  graph.launch(stream);
  const hl::Schedule replay = replayed.schedule();
  check_segments(report, "traced graph replay, " + shape, b, b.expected, traced);

  hl::BlockTraceRecorder resident(geometry.persistent_grid);
  SegmentOwnerRecord owners(b.count);
  b.c.poison();
  launch_persistent(
      b.table.data(), b.count, b.counter.data(), geometry.persistent_grid, geometry.block, stream,
      resident.reserve("add_segments_persistent", geometry.persistent_grid, 0), owners.pointers());
  const hl::Schedule persistent = resident.schedule();
  check_segments(report, hl::format("traced persistent kernel, {} x {}", b.count, b.n), b,
                 b.expected);
  owners.check(report, geometry.persistent_grid);

  report.trace("individual launches", launches);
  report.trace("graph replay", replay);
  report.trace("persistent kernel", persistent);
  const unsigned int shown = std::min(kTimelineLaunches, traced);
  report.timeline(
      hl::format("The time of the first {} individual launches, each method from its first "
                 "block:\nlaunches leave gaps (.), graph nodes follow closer, the persistent "
                 "kernel has none",
                 shown),
      {busy_row("launches", launches), busy_row("graph replay", replay),
       busy_row("persistent", persistent)},
      launches.launch_spans().at(static_cast<int>(shown) - 1).end, hl::TimelineStyle::kBusy);
  hl::ResultTable t("trace_gaps", hl::format("Gaps between kernels, traced ({})", shape),
                    {{"method"}, {"kernels"}, {"median gap", "us", 2}, {"span", "us", 1}});
  t.row({"individual launches", traced, median_gap_us(launches), launches.span_us()});
  t.row({"graph replay", traced, median_gap_us(replay), replay.span_us()});
  t.row({"persistent kernel", 1, median_gap_us(persistent), persistent.span_us()});
  report.table(t);
}

}  // namespace batch
