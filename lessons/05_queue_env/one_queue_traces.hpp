/// \file lessons/05_queue_env/one_queue_traces.hpp
/// \brief What step 2 makes of the one-queue child's traces: their timelines, and the rule they
/// are checked against (the README's "The rule the traces check"; on AMD breadth-first too runs
/// at most two at once: the barrier bit, from source). Host code only (unit-tested in
/// test_one_queue_traces.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hip_lessons/format.hpp"
#include "hip_lessons/platform.hpp"
#include "hip_lessons/schedule.hpp"
#include "hip_lessons/step_result.hpp"
#include "hip_lessons/timeline.hpp"

namespace queue_env {

namespace hl = hip_lessons;

/// The \p depth-first and \p breadth-first runs of \p chains chains through one queue
/// (\p setting), one row per chain (the first 16), on one time axis.
inline std::vector<hl::Figure> one_queue_timelines(const std::string& setting,
                                                   const hl::Schedule& depth,
                                                   const hl::Schedule& breadth,
                                                   std::int64_t chains) {
  std::map<int, std::string> rows;
  for (int c = 0; c < std::min<std::int64_t>(chains, 16); ++c) rows[c] = hl::format("chain {}", c);
  const double span = std::max(depth.span_us(), breadth.span_us());
  return {hl::timeline(setting + ", depth-first: each chain waits for the one before it",
                       hl::rows_by_stream(depth, rows), span),
          hl::timeline(setting + ", breadth-first: the chains run side by side",
                       hl::rows_by_stream(breadth, rows), span)};
}

/// Why AMD's breadth-first bound (at most two kernels at once through one queue) cannot be
/// judged, or nothing: HIP's DEBUG_CLR_AQL_BARRIER_OPT (\p value; nullptr when unset), read as
/// HIP reads a bool flag ("true" or what atoi() reads as non-zero), on. With it, on a hardware
/// queue that several streams share, the first packet of each stream's turn goes without the
/// barrier bit (ROCm/rocm-systems PR 9895, merged 2026-08-08; off by default, as its tests say:
/// "With the flag OFF the first kernel of each oversubscribed stream carries a head barrier",
/// projects/hip-tests hipPerfSharedQueueAnyOrderOverlap), so breadth-first chains may start
/// together.
inline std::optional<std::string> amd_barrier_caveat(const char* value) {
  if (value == nullptr || !(std::strcmp(value, "true") == 0 || std::atoi(value) != 0)) {
    return std::nullopt;
  }
  return hl::format(
      "DEBUG_CLR_AQL_BARRIER_OPT={} lets each stream's first kernel on a shared queue go without "
      "the barrier bit (rocm-systems PR 9895), so breadth-first chains may run at once",
      value);
}

/// The rule for \p chains chains of \p chain kernels of \p kernel_us each, traced issued
/// depth-first (\p depth) and breadth-first (\p breadth) through one queue on \p platform.
inline std::vector<hl::Verdict> one_queue_rule(
    const hl::Schedule& depth, const hl::Schedule& breadth, std::int64_t chains, std::int64_t chain,
    double kernel_us, hl::Platform platform = hl::build_platform(),
    const char* barrier_opt = std::getenv("DEBUG_CLR_AQL_BARRIER_OPT")) {
  const auto at_most_two = [](const hl::Schedule& run, const char* order, const char* why) {
    const auto crowd = run.first_overlap_above(2);
    return hl::Verdict{hl::format("one queue, {}: at most 2 kernels at once ({})", order, why),
                       !crowd,
                       crowd ? "ran at once: " + hl::describe(*crowd)
                             : hl::format("peak {} at once", run.peak_concurrent_launches())};
  };
  std::vector<hl::Verdict> verdicts;
  if (chain >= 2) {
    verdicts.push_back(
        at_most_two(depth, "depth-first", "previous chain's last, next chain's first"));
    const double bound = static_cast<double>(chains * (chain - 1) + 1) * kernel_us;
    verdicts.push_back({hl::format("one queue, depth-first: span >= (chains x (chain - 1) + 1) x "
                                   "--kernel-us = {:.0} us",
                                   bound),
                        depth.span_us() >= bound - 1.0,  // 1 us for the clock's rounding
                        hl::format("span {:.1} us", depth.span_us())});
  } else {
    verdicts.push_back({"one queue, depth-first rule", std::nullopt,
                        "chains of one kernel are independent: it needs >= 2"});
  }
  if (platform == hl::Platform::kAmd) {  // the barrier bit: one kernel at a time, either order
    if (const auto caveat = amd_barrier_caveat(barrier_opt)) {
      verdicts.push_back({"one queue, breadth-first: at most 2 kernels at once (barrier bit)",
                          std::nullopt, *caveat});
    } else {
      verdicts.push_back(at_most_two(breadth, "breadth-first", "barrier bit; from source"));
    }
    return verdicts;
  }
  const int need = static_cast<int>(std::min<std::int64_t>(chains, 3));
  const int peak = breadth.peak_concurrent_launches();
  verdicts.push_back({hl::format("one queue, breadth-first: at least min(chains, 3) = {} kernels "
                                 "at once (depth-first: at most 2)",
                                 need),
                      peak >= need,
                      hl::format("peak {} at once, span {:.1} us", peak, breadth.span_us()), true});
  return verdicts;
}

}  // namespace queue_env
