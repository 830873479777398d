/// \file lessons/04_occupancy/residency_trace.hpp
/// \brief Step 10 of lesson 04: the occupancy-sized launches traced block by block. It shows
/// how many blocks each CU held over time (the residency waves), checks the most one CU held
/// at once against hipOccupancyMaxActiveBlocksPerMultiprocessor, and measures what the tracing
/// itself costs.
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "hip_lessons/block_trace.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/report.hpp"
#include "hip_lessons/timeline.hpp"
#include "occupancy_calculator.hpp"
#include "problems.hpp"

namespace occupancy {

namespace hl = hip_lessons;

/// Elements of the traced triad, at least (the tour traces --size when it is larger). 2^24
/// elements move 201 MB: about 55 us on an H200 at 3.6 TB/s, so every block of the occupancy
/// grid stays resident for tens of microseconds, long against the few microseconds the device
/// takes to place a grid's blocks, and the blocks of one wave are seen together.
constexpr std::size_t kTracedTriadElements = std::size_t{1} << 24;

/// Units drawn in each timeline (the --trace file holds every unit).
constexpr std::size_t kTimelineUnits = 12;

/// What a trace says about residency: the most blocks one unit held at once (over all units),
/// how many units held exactly the prediction, and the first unit (by id) that did not, on the
/// side of the failure (above the prediction when the maximum is above it).
struct Residency {
  int measured = 0;
  int units = 0;
  int reached = 0;
  std::optional<std::pair<unsigned, int>> first_differing;  // unit, the most it held
};

inline Residency measure_residency(const hl::Schedule& schedule, int predicted) {
  Residency r;
  const std::map<unsigned, int> peaks = schedule.peak_blocks_per_unit();
  for (const auto& [unit, peak] : peaks) r.measured = std::max(r.measured, peak);
  for (const auto& [unit, peak] : peaks) {
    ++r.units;
    if (peak == predicted) ++r.reached;
    const bool wrong_side = r.measured > predicted ? peak > predicted : peak < predicted;
    if (wrong_side && !r.first_differing) r.first_differing = std::pair(unit, peak);
  }
  return r;
}

// The rule: a grid of at least the API's blocks per CU x CUs, whose blocks stay long, puts
// exactly the predicted number of blocks on some CU at once. Fewer: the trace never saw the
// device full. More: the prediction was wrong. A trace only ever sees less than the truth
// (a block's record starts after it became resident and ends before it leaves).
inline void check_residency(hl::Report& report, const hl::Schedule& schedule,
                            const std::string& run, int predicted, const Limits& limits) {
  const std::string cu = hl::kComputeUnitName;
  const std::string name = hl::format(
      "most blocks resident on one {} at once = hipOccupancyMaxActiveBlocksPerMultiprocessor, {}",
      cu, run);
  if (limits.arch.rfind("gfx1", 0) == 0) {  // RDNA: the traced unit is not the API's CU
    const std::string why =
        "on RDNA in WGP mode __smid() names a WGP (two CUs), not the CU the API counts";
    report.note(hl::format("check   skip  {}: {}", name, why));
    report.fact("skipped: " + name, why);
    return;
  }
  const Residency r = measure_residency(schedule, predicted);
  std::string detail = hl::format("predicted {}, measured {} (held by {} of {} {}s)", predicted,
                                  r.measured, r.reached, r.units, cu);
  if (r.measured != predicted && r.first_differing) {
    const auto [unit, most] = *r.first_differing;
    for (const hl::TracedBlock& b : schedule.blocks()) {  // in start order: its first block
      if (b.unit != unit) continue;
      detail += hl::format(
          "; first {} that differs: unit {} held at most {} (its first block: "
          "{} block {}, {:.1}-{:.1} us)",
          cu, unit, most, b.kernel, b.block, b.start_us, b.end_us);
      break;
    }
  }
  report.concurrency_check(name, r.measured == predicted, detail);
}

/// Step 10: the triad at its occupancy grid and at twice it (two waves), and the FMA chain at
/// its occupancy grid, each traced in every mode: its output checked, its timeline drawn (the
/// first kTimelineUnits units, the number of blocks each held over time), its residency
/// checked and its schedule kept for --trace. With a \p plan (tour, --speed-check) the traced
/// launches are timed too, and the traced triad against the same launch untraced is the
/// declared speed check \p overhead.
inline void see_residency(hl::Report& report, const Limits& limits, unsigned int block,
                          const hl::CommonOptions& options,
                          const std::optional<hl::TimingPlan>& plan, hipStream_t stream,
                          const hl::SpeedCheck& overhead) {
  const std::size_t n = std::max(
      kTracedTriadElements,
      options.mode == hl::Mode::kCheck ? std::size_t{0} : static_cast<std::size_t>(options.size));
  hl::require_device_memory(3 * (n + kComputeElements) * sizeof(float),
                            hl::format("the traced triad of {} elements", n));
  Problem triad(n, options.seed + 20, plan, stream);
  Problem chain(kComputeElements, options.seed + 30, plan, stream);
  const std::string cu = hl::kComputeUnitName;
  struct Traced {
    Problem& problem;
    Kernel kernel;
    int waves;  // the grid in occupancy grids
  };
  for (const Traced& t : {Traced{triad, Kernel::kTriad, 1}, Traced{triad, Kernel::kTriad, 2},
                          Traced{chain, Kernel::kFmaChain, 1}}) {
    const int predicted = max_active_blocks(t.kernel, static_cast<int>(block));
    if (predicted < 1) {
      report.note(
          hl::format("{}: no block of {} fits on a {}; not traced", name(t.kernel), block, cu));
      continue;
    }
    const auto grid = static_cast<unsigned int>(predicted * t.waves * limits.compute_units);
    hl::BlockTraceRecorder recorder(grid);
    const std::optional<double> traced_ms = t.problem.run(
        report, t.kernel, grid, block, 0, 0, recorder.reserve(name(t.kernel), grid, 0));
    const hl::Schedule schedule = recorder.schedule();
    const std::string run = hl::format("{}, {} x occupancy grid", name(t.kernel), t.waves);
    report.trace(run, schedule);
    report.timeline(
        hl::format("Blocks resident per {} over time: {}, grid {} = {} wave(s) of {} "
                   "per {} (first {} {}s)",
                   cu, name(t.kernel), grid, t.waves, predicted, cu, kTimelineUnits, cu),
        hl::rows_by_unit(schedule, kTimelineUnits), schedule.span_us(), hl::TimelineStyle::kCount);
    check_residency(report, schedule, hl::format("{} (grid {} x block {})", run, grid, block),
                    predicted, limits);
    if (t.kernel == Kernel::kTriad && t.waves == 1 && traced_ms) {
      // Tracing is cheap: the same launch untraced, same plan and stream, medians compared.
      const std::optional<double> untraced_ms = t.problem.run(report, t.kernel, grid, block);
      report.speed(overhead, *traced_ms / *untraced_ms);
    }
  }
}

}  // namespace occupancy
