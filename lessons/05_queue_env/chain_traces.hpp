/// \file lessons/05_queue_env/chain_traces.hpp
/// \brief Step 2's chains block by block: how the one-queue child sends its traces to the
/// parent, and the rule the parent checks them against (the README's "The rule the traces
/// check"; on AMD breadth-first too runs at most two at once: the barrier bit, from source).
/// Host code only (unit-tested in test_chain_traces.cpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "hip_lessons/child_process.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/platform.hpp"
#include "hip_lessons/schedule.hpp"
#include "hip_lessons/step_result.hpp"
#include "hip_lessons/timeline.hpp"
#include "hip_lessons/trace_file.hpp"

namespace queue_env {

namespace hl = hip_lessons;

/// A traced run's lines from the child: "@clock <run> <device clock at time 0, ns>
/// <host_read_ns>", which keeps the run on the device clock in the parent (beside a profiler's
/// records of the child's kernels), then "@block <run> <launch> <stream> <block> <unit>
/// <start_us> <end_us> <kernel>" per block.
inline std::vector<std::string> trace_lines(const std::string& run, const hl::Schedule& schedule) {
  std::vector<std::string> lines = {hl::format("@clock {} {} {}", run,
                                               schedule.device_clock_origin_ns().value_or(0),
                                               schedule.host_read_ns())};
  for (const hl::TracedBlock& b : schedule.blocks()) {
    std::string kernel = b.kernel.empty() ? "-" : b.kernel;  // one word: ' ' is sent as '_'
    std::replace(kernel.begin(), kernel.end(), ' ', '_');
    lines.push_back(hl::format("@block {} {} {} {} {} {:.3} {:.3} {}", run, b.launch, b.stream,
                               b.block, b.unit, b.start_us, b.end_us, kernel));
  }
  return lines;
}

/// The schedules in the trace lines of \p output, by run name (other lines are ignored).
/// Throws std::runtime_error quoting the first malformed trace line, or naming a run whose
/// "@clock" line is missing.
inline std::map<std::string, hl::Schedule> parse_block_lines(const std::string& output) {
  std::map<std::string, std::vector<hl::TracedBlock>> blocks;
  std::map<std::string, std::array<std::int64_t, 2>> clocks;  // origin, host read
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string tag, run, rest;
    hl::TracedBlock b;
    std::array<std::int64_t, 2> clock{};
    if (!(fields >> tag) || (tag != "@clock" && tag != "@block")) continue;
    const bool read = tag == "@clock"
                          ? static_cast<bool>(fields >> run >> clock[0] >> clock[1])
                          : static_cast<bool>(fields >> run >> b.launch >> b.stream >> b.block >>
                                              b.unit >> b.start_us >> b.end_us >> b.kernel);
    if (!read || fields >> rest || b.end_us < b.start_us) {
      throw std::runtime_error("malformed trace line from a child: " + line);
    }
    std::replace(b.kernel.begin(), b.kernel.end(), '_', ' ');
    if (tag == "@clock") clocks[run] = clock;
    if (tag == "@block") blocks[run].push_back(b);
  }
  std::map<std::string, hl::Schedule> schedules;
  for (auto& [run, list] : blocks) {
    if (!clocks.count(run)) throw std::runtime_error("a child sent no @clock line for " + run);
    schedules.emplace(run, hl::Schedule(std::move(list), clocks[run][0], clocks[run][1]));
  }
  return schedules;
}

/// Step 2: the one-queue \p child's depth-first and breadth-first traces, kept in \p traces
/// ("<setting>, depth-first", ...), drawn one row per chain (the first 16) on one time axis and
/// checked against the README's rule: \p chains chains of \p chain kernels of \p kernel_us each.
inline hl::StepResult one_queue_block_by_block(const hl::ChildRun& child, hl::TraceFile& traces,
                                               const std::string& setting, std::int64_t chains,
                                               std::int64_t chain, double kernel_us,
                                               hl::Platform platform = hl::build_platform()) {
  hl::StepResult step("2. One hardware queue, block by block: " + setting);
  if (!child.succeeded()) return step.skip("block traces", "the one-queue child failed (step 1)");
  const auto runs = parse_block_lines(child.outcome.output);
  const auto depth_run = runs.find("depth-first"), breadth_run = runs.find("breadth-first");
  const bool both = depth_run != runs.end() && breadth_run != runs.end();
  if (!both) return step.check("the one-queue child sent both block traces", false, child.tail());
  const hl::Schedule &depth = depth_run->second, &breadth = breadth_run->second;
  traces.keep(setting + ", depth-first", depth);
  traces.keep(setting + ", breadth-first", breadth);
  std::map<int, std::string> rows;
  for (int c = 0; c < std::min<std::int64_t>(chains, 16); ++c) rows[c] = hl::format("chain {}", c);
  const double span = std::max(depth.span_us(), breadth.span_us());
  step.figure(hl::timeline(setting + ", depth-first: each chain waits for the one before it",
                           hl::rows_by_stream(depth, rows), span))
      .figure(hl::timeline(setting + ", breadth-first: the chains run side by side",
                           hl::rows_by_stream(breadth, rows), span));
  const auto at_most_two = [&](const hl::Schedule& run, const char* order, const char* why) {
    const auto crowd = run.first_overlap_above(2);
    step.check(hl::format("one queue, {}: at most 2 kernels at once ({})", order, why), !crowd,
               crowd ? "ran at once: " + hl::describe(*crowd)
                     : hl::format("peak {} at once", run.peak_concurrent_launches()));
  };
  if (chain >= 2) {
    at_most_two(depth, "depth-first", "previous chain's last, next chain's first");
    const double bound = static_cast<double>(chains * (chain - 1) + 1) * kernel_us;
    step.check(hl::format("one queue, depth-first: span >= (chains x (chain - 1) + 1) x "
                          "--kernel-us = {:.0} us",
                          bound),
               depth.span_us() >= bound - 1.0,  // 1 us for the clock's rounding
               hl::format("span {:.1} us", depth.span_us()));
  } else {
    step.skip("one queue, depth-first rule", "chains of one kernel are independent: it needs >= 2");
  }
  if (platform == hl::Platform::kAmd) {  // the barrier bit: one kernel at a time, either order
    at_most_two(breadth, "breadth-first", "barrier bit; from source");
    return step;
  }
  const int need = static_cast<int>(std::min<std::int64_t>(chains, 3));
  const int peak = breadth.peak_concurrent_launches();
  return step.schedule_check(
      hl::format("one queue, breadth-first: at least min(chains, 3) = {} kernels at once "
                 "(depth-first: at most 2)",
                 need),
      peak >= need, hl::format("peak {} at once, span {:.1} us", peak, breadth.span_us()));
}

}  // namespace queue_env
