/// \file lessons/05_queue_env/chain_traces.hpp
/// \brief Step 2's chains seen block by block: how the one-queue child sends its block traces
/// to the parent (trace lines beside its "@result" line), and the rule the
/// parent checks them against (the README's "The rule the traces check"): with one hardware
/// queue, chains of n >= 2 kernels issued depth-first run at most two kernels at once and span
/// at least (chains x (n - 1) + 1) kernel times; issued breadth-first, at least min(chains, 3)
/// kernels run at once. On AMD, in the HIP releases read, every kernel packet carries the AQL
/// barrier bit, so breadth-first also runs at most two at once (from the source, not run).
/// Host code only (unit-tested in test_chain_traces.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
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

/// The prefixes of a child's trace lines: one "@clock" line per run, then an "@block" line per
/// block.
inline constexpr const char* kClockPrefix = "@clock ";
inline constexpr const char* kBlockPrefix = "@block ";

/// A run's trace lines. "@clock <run> <device clock at time 0, ns> <host_read_ns>" keeps the
/// run on the device clock in the parent, where a profiler's records of the child's kernels can
/// be set beside it (expect-profiler-agreement.sh); "@block <run> <launch> <stream> <block>
/// <unit> <start_us> <end_us> <kernel>" per block.
inline std::vector<std::string> trace_lines(const std::string& run, const hl::Schedule& schedule) {
  std::vector<std::string> lines = {hl::format("{}{} {} {}", kClockPrefix, run,
                                               schedule.device_clock_origin_ns().value_or(-1),
                                               schedule.host_read_ns())};
  for (const hl::TracedBlock& b : schedule.blocks()) {
    std::string kernel = b.kernel.empty() ? "-" : b.kernel;  // one word: ' ' is sent as '_'
    std::replace(kernel.begin(), kernel.end(), ' ', '_');
    lines.push_back(hl::format("{}{} {} {} {} {} {:.3} {:.3} {}", kBlockPrefix, run, b.launch,
                               b.stream, b.block, b.unit, b.start_us, b.end_us, kernel));
  }
  return lines;
}

/// The schedules in the trace lines of \p output, by run name (other lines are ignored); a run
/// without its "@clock" line (or with -1 there) has no known device-clock origin. Throws
/// std::runtime_error quoting the first malformed trace line.
inline std::map<std::string, hl::Schedule> parse_block_lines(const std::string& output) {
  std::map<std::string, std::vector<hl::TracedBlock>> blocks;
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> clocks;  // origin, host read
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    const bool clock = line.rfind(kClockPrefix, 0) == 0;
    if (!clock && line.rfind(kBlockPrefix, 0) != 0) continue;
    std::istringstream fields(line.substr(std::strlen(kBlockPrefix)));  // both 7 characters
    std::string run, rest;
    hl::TracedBlock b;
    std::int64_t origin = 0, read = 0;
    const bool read_all =
        clock ? static_cast<bool>(fields >> run >> origin >> read)
              : static_cast<bool>(fields >> run >> b.launch >> b.stream >> b.block >> b.unit >>
                                  b.start_us >> b.end_us >> b.kernel);
    if (!read_all || fields >> rest || b.end_us < b.start_us) {
      throw std::runtime_error("malformed trace line from a child: " + line);
    }
    if (clock) {
      clocks[run] = {origin, read};
      continue;
    }
    std::replace(b.kernel.begin(), b.kernel.end(), '_', ' ');
    blocks[run].push_back(b);
  }
  std::map<std::string, hl::Schedule> schedules;
  for (auto& [run, list] : blocks) {
    const auto clock = clocks.find(run);
    schedules.emplace(
        run, clock == clocks.end() || clock->second.first < 0
                 ? hl::Schedule(std::move(list))
                 : hl::Schedule(std::move(list), clock->second.first, clock->second.second));
  }
  return schedules;
}

/// Step 2: the one-queue \p child's depth-first and breadth-first traces, kept in \p traces
/// ("<setting>, depth-first", ...), drawn one row per chain (the first 16) on one time axis and
/// checked against the rule above: \p chains chains of \p chain kernels of \p kernel_us each.
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
  const auto at_most_two = [&](const std::string& name, const hl::Schedule& run) {
    const auto crowd = run.first_overlap_above(2);
    step.check(name, !crowd,
               crowd ? "ran at once: " + hl::describe(*crowd)
                     : hl::format("peak {} at once", run.peak_concurrent_launches()));
  };
  if (chain >= 2) {
    at_most_two(
        "one queue, depth-first: at most 2 kernels at once (previous chain's last, "
        "next chain's first)",
        depth);
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
    at_most_two("one queue, breadth-first: at most 2 kernels at once (barrier bit; from source)",
                breadth);
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
