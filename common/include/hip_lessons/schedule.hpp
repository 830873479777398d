/// \file schedule.hpp
/// \brief What a traced run did: every block's unit and time, what overlapped, and the trace.
///
/// A block trace (block_trace.hpp) gives, for each block of each traced launch, the compute
/// unit (SM) it ran on and when it started and ended by the device's constant-rate clock. A
/// Schedule holds those records in microseconds from the first block's start and answers the
/// questions the lessons check: how long the whole run took, how many launches ran at once,
/// how many blocks one unit held at once, which units a launch used. It also writes the Chrome
/// Trace Event Format, which Perfetto (ui.perfetto.dev) and chrome://tracing open.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hip_lessons {

/// One block of one traced launch.
struct TracedBlock {
  std::string kernel;   ///< what the launch was ("spin 100 us", "triad")
  int launch = 0;       ///< which launch of the run it belongs to (0, 1, ...)
  int stream = 0;       ///< the stream it was launched on, as the lesson numbers them
  unsigned block = 0;   ///< blockIdx.x
  unsigned unit = 0;    ///< __smid(): the SM on NVIDIA, a hardware CU id on AMD
  double start_us = 0;  ///< microseconds from the run's first block start
  double end_us = 0;
};

/// A time interval in microseconds.
struct Interval {
  double start = 0;
  double end = 0;
};

/// One launch of a traced run: its number, kernel and stream, and when its blocks ran.
struct TracedLaunch {
  int launch = 0;
  std::string kernel;
  int stream = 0;
  Interval span;  ///< from its first block's start to its last block's end
};

/// The largest number of \p intervals that are open at one moment (an interval ending exactly
/// when another starts does not overlap it).
int max_overlap(std::vector<Interval> intervals);

/// A traced run, its records shifted so that the earliest start is 0.
class Schedule {
 public:
  Schedule() = default;
  explicit Schedule(std::vector<TracedBlock> blocks);

  const std::vector<TracedBlock>& blocks() const { return blocks_; }
  bool empty() const { return blocks_.empty(); }
  /// From the first block's start to the last block's end.
  double span_us() const;
  /// Each launch from its first block's start to its last block's end, by launch number.
  std::map<int, Interval> launch_spans() const;
  /// The most launches running at one moment.
  int peak_concurrent_launches() const;
  /// The launches running at the first moment when more than \p limit ran at once, in start
  /// order; nothing when at most \p limit ever did. Names the offenders of an "at most"
  /// check (one stream: limit 1).
  std::optional<std::vector<TracedLaunch>> first_overlap_above(int limit) const;
  /// For each unit, the most blocks it ran at one moment.
  std::map<unsigned, int> peak_blocks_per_unit() const;
  /// The units that ran at least one block of \p launch (every launch when omitted).
  std::set<unsigned> units(std::optional<int> launch = std::nullopt) const;

 private:
  std::vector<TracedBlock> blocks_;
};

/// "<kernel> #<launch> on stream <s> at <start>-<end> us" for each launch, joined by "; ".
std::string describe(const std::vector<TracedLaunch>& launches);

/// The Chrome Trace Event Format for named runs: a JSON object whose "traceEvents" holds,
/// for each run, a process "<run>: streams" with a track per stream and one slice per launch,
/// and a process "<run>: compute units" with a track per unit and one slice per block
/// ("<kernel> block <n>"). Times ("ts", "dur") are microseconds.
std::string chrome_trace_json(const std::vector<std::pair<std::string, Schedule>>& runs);

}  // namespace hip_lessons
