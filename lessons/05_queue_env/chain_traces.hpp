/// \file lessons/05_queue_env/chain_traces.hpp
/// \brief Step 2's chains seen block by block: how the one-queue child sends its block traces
/// to the parent (one "@block" line per block, beside its "@result" line), and what the parent
/// draws and checks with them. Host code only (unit-tested in test_chain_traces.cpp).
///
/// The rule checked, with one hardware queue (CUDA_DEVICE_MAX_CONNECTIONS=1 on NVIDIA): the
/// queue hands its commands to the GPU in issue order, and a kernel whose stream still runs
/// the kernel before it holds back every command behind it, including other streams' (a false
/// dependency). NVIDIA's simpleHyperQ sample states the consequence for pairs of kernels per
/// stream: without Hyper-Q (one queue) "a maximum of two kernels at a time" and a serial time
/// of (streams + 1) kernel times. For chains of n >= 2 kernels issued depth-first:
///   - a chain's first kernel is dispatched only after the previous chain's last kernel was
///     (it sits behind it in the queue), and its second only after the first has finished,
///     so at most two kernels run at any moment (the previous chain's last and its first);
///   - so each chain adds at least n - 1 kernel times to the one before it, and the run spans
///     at least (chains x (n - 1) + 1) x the kernel time (each kernel spins its full time).
/// Issued breadth-first, the first kernels of all chains are next to each other in the queue
/// and independent, so they run side by side: more than two at once (checked: at least
/// min(chains, 3)), which depth-first can never reach.
/// On AMD with GPU_MAX_HW_QUEUES=1 all streams share one AQL queue and every kernel dispatch
/// packet carries the barrier bit, so the queue runs one kernel at a time in either order: the
/// "at most two" rule holds in both orders (expected from the HIP source, not run).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hip_lessons/child_process.hpp"
#include "hip_lessons/environment.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/report.hpp"
#include "hip_lessons/schedule.hpp"
#include "hip_lessons/timeline.hpp"

namespace queue_env {

namespace hl = hip_lessons;

/// The prefix of a child's trace lines.
inline constexpr const char* kBlockPrefix = "@block ";

/// One trace line: "@block <run> <launch> <stream> <block> <unit> <start_us> <end_us> <kernel>",
/// spaces in the kernel's name written as '_' (parse_block_lines() turns them back).
inline std::string block_line(const std::string& run, const hl::TracedBlock& b) {
  std::string kernel = b.kernel.empty() ? "-" : b.kernel;
  std::replace(kernel.begin(), kernel.end(), ' ', '_');
  return hl::format("{}{} {} {} {} {} {:.3} {:.3} {}", kBlockPrefix, run, b.launch, b.stream,
                    b.block, b.unit, b.start_us, b.end_us, kernel);
}

/// The schedules in the trace lines of \p output, by run name (other lines are ignored).
/// Throws std::runtime_error quoting the first malformed trace line.
inline std::map<std::string, hl::Schedule> parse_block_lines(const std::string& output) {
  std::map<std::string, std::vector<hl::TracedBlock>> blocks;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(kBlockPrefix, 0) != 0) continue;
    std::istringstream fields(line.substr(std::strlen(kBlockPrefix)));
    std::string run, rest;
    hl::TracedBlock b;
    if (!(fields >> run >> b.launch >> b.stream >> b.block >> b.unit >> b.start_us >> b.end_us >>
          b.kernel) ||
        fields >> rest || b.end_us < b.start_us) {
      throw std::runtime_error("malformed trace line from a child: " + line);
    }
    std::replace(b.kernel.begin(), b.kernel.end(), '_', ' ');
    blocks[run].push_back(b);
  }
  std::map<std::string, hl::Schedule> schedules;
  for (auto& [run, list] : blocks) schedules.emplace(run, hl::Schedule(std::move(list)));
  return schedules;
}

/// One timeline row per chain (its stream), busy while any of its kernels ran; the first
/// \p limit chains.
inline std::vector<hl::TimelineRow> rows_by_chain(const hl::Schedule& schedule, int limit) {
  std::map<int, hl::TimelineRow> rows;
  for (const hl::TracedBlock& b : schedule.blocks()) {
    if (b.stream >= limit) continue;
    hl::TimelineRow& row = rows[b.stream];
    row.label = hl::format("chain {}", b.stream);
    row.busy.push_back({b.start_us, b.end_us});
  }
  std::vector<hl::TimelineRow> ordered;
  for (auto& [stream, row] : rows) ordered.push_back(std::move(row));
  return ordered;
}

/// The lower bound of the depth-first span with one queue (see the file comment), in us.
inline double depth_first_bound_us(std::int64_t chains, std::int64_t chain, double kernel_us) {
  return static_cast<double>(chains * (chain - 1) + 1) * kernel_us;
}

/// The first chain (stream > 0) whose first kernel started before the previous chain's last
/// kernel did, as "chain <s> started at <t> us, before chain <s-1>'s last kernel at <u> us";
/// empty when none did. Names the offender when the depth-first span is too short.
inline std::string first_chain_started_early(const hl::Schedule& schedule) {
  const auto spans = schedule.launch_spans();
  std::map<int, std::pair<int, double>> first, last;  // stream -> (launch, start): issue order
  for (const hl::TracedBlock& b : schedule.blocks()) {
    const std::pair<int, double> here{b.launch, spans.at(b.launch).start};
    const auto f = first.try_emplace(b.stream, here).first;
    if (here.first < f->second.first) f->second = here;
    const auto l = last.try_emplace(b.stream, here).first;
    if (here.first > l->second.first) l->second = here;
  }
  for (const auto& [stream, launch_start] : first) {
    const auto previous = last.find(stream - 1);
    if (previous != last.end() && launch_start.second < previous->second.second) {
      return hl::format("chain {} started at {:.1} us, before chain {}'s last kernel at {:.1} us",
                        stream, launch_start.second, stream - 1, previous->second.second);
    }
  }
  return "";
}

/// Step 2's one-queue child seen block by block: its depth-first and breadth-first traced runs
/// (\p child's trace lines), drawn one row per chain on one time axis, kept for --trace and
/// checked against the rule of the file comment. \p variable is the queue variable set to 1;
/// \p chains chains of \p chain kernels of \p kernel_us each.
inline void show_one_queue(hl::Report& report, const hl::ChildRun& child,
                           const std::string& variable, std::int64_t chains, std::int64_t chain,
                           double kernel_us) {
  if (!child.succeeded()) return;  // already a failed check of step 2
  const auto runs = parse_block_lines(child.outcome.output);
  const auto depth = runs.find("depth-first");
  const auto breadth = runs.find("breadth-first");
  const bool both = depth != runs.end() && breadth != runs.end();
  if (!report.check(hl::format("the {}=1 child sent both block traces", variable), both,
                    both ? "" : child.tail())) {
    return;
  }
  const hl::Schedule& d = depth->second;
  const hl::Schedule& b = breadth->second;
  report.trace(variable + "=1, depth-first", d);
  report.trace(variable + "=1, breadth-first", b);
  const double span = std::max(d.span_us(), b.span_us());  // one time axis for both
  const int shown = 16;
  report.timeline(hl::format("{}=1, depth-first: each chain waits for the one before it{}",
                             variable, chains > shown ? " (first 16 chains)" : ""),
                  rows_by_chain(d, shown), span);
  report.timeline(hl::format("{}=1, breadth-first: the chains run side by side", variable),
                  rows_by_chain(b, shown), span);

  if (chain >= 2) {
    const auto crowd = d.first_overlap_above(2);
    report.check(
        "one queue, depth-first: at most 2 kernels at once (previous chain's last, "
        "next chain's first)",
        !crowd,
        crowd ? "ran at once: " + hl::describe(*crowd)
              : hl::format("peak {} at once", d.peak_concurrent_launches()));
    const double bound = depth_first_bound_us(chains, chain, kernel_us);
    const std::string early = first_chain_started_early(d);
    report.check(hl::format("one queue, depth-first: span >= (chains x (chain - 1) + 1) x "
                            "--kernel-us = {:.0} us",
                            bound),
                 d.span_us() >= bound - 1.0,  // 1 us for the clock's rounding
                 hl::format("span {:.1} us{}", d.span_us(), early.empty() ? "" : "; " + early));
  } else {
    report.note("  (chains of one kernel are independent: the depth-first rule needs >= 2)");
  }
  if (hl::build_platform() == hl::Platform::kAmd) {  // the barrier bit: expected 1 at a time
    const auto crowd = b.first_overlap_above(2);
    report.check("one queue, breadth-first: at most 2 kernels at once (barrier bit; from source)",
                 !crowd,
                 crowd ? "ran at once: " + hl::describe(*crowd)
                       : hl::format("peak {} at once", b.peak_concurrent_launches()));
  } else {
    const int need = static_cast<int>(std::min<std::int64_t>(chains, 3));
    const int peak = b.peak_concurrent_launches();
    report.concurrency_check(
        hl::format("one queue, breadth-first: at least min(chains, 3) = {} kernels at "
                   "once (depth-first: at most 2)",
                   need),
        peak >= need, hl::format("peak {} at once, span {:.1} us", peak, b.span_us()));
  }
}

}  // namespace queue_env
