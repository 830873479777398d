/// \file schedule.hpp
/// \brief What a traced run did: every block's unit and time, what overlapped, and the trace.
///
/// A block trace (block_trace.hpp) gives, for each block of each traced launch, the compute
/// unit (SM) it ran on and when it started and ended by the device's constant-rate clock. A
/// Schedule holds those records in microseconds from the first block's start and answers the
/// questions the lessons check: how long the whole run took, how many launches ran at once,
/// how many blocks one unit held at once, which units a launch used. trace_file.hpp writes
/// schedules in the Chrome Trace Event Format, which Perfetto (ui.perfetto.dev) opens.
///
/// A schedule remembers where its time 0 lies on the device clock and when the host read its
/// records, so that a vendor profiler's record of the same kernels can be laid beside it
/// (common/profiler/profile_agreement.hpp).
#pragma once

#include <cstdint>
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
  unsigned unit = 0;    ///< hardware_unit_id(): the SM on NVIDIA, a CU or WGP id on AMD
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
  unsigned blocks = 0;
};

/// The largest number of \p intervals that are open at one moment (an interval ending exactly
/// when another starts does not overlap it).
int max_overlap(std::vector<Interval> intervals);

/// A traced run, its records shifted so that the earliest start is 0.
class Schedule {
 public:
  Schedule() = default;
  /// \p blocks with their times in microseconds of the device clock as read; the earliest
  /// start becomes 0 and is kept as the device-clock origin. Blocks whose earliest start is
  /// already 0 (a schedule rebuilt from another schedule's blocks, as a lesson that traces in a
  /// child process does) have no known origin. Notes the host clock as the moment the records
  /// were read (host_read_ns()).
  explicit Schedule(std::vector<TracedBlock> blocks);
  /// \p blocks with times in microseconds from the device-clock reading \p origin_ns
  /// (nanoseconds), which a recorder that subtracts in whole clock ticks knows exactly. A
  /// schedule sent from a child process passes the child's \p host_read_ns on.
  Schedule(std::vector<TracedBlock> blocks, std::int64_t origin_ns,
           std::optional<std::int64_t> host_read_ns = std::nullopt);

  const std::vector<TracedBlock>& blocks() const { return blocks_; }
  /// From the first block's start to the last block's end.
  double span_us() const;
  /// Each launch, by launch number.
  std::map<int, TracedLaunch> launches() const;
  /// The most launches running at one moment.
  int peak_concurrent_launches() const;
  /// The launches running at the first moment when more than \p limit ran at once, in start
  /// order; nothing when at most \p limit ever did. Names the offenders of an "at most"
  /// check (one stream: limit 1).
  std::optional<std::vector<TracedLaunch>> first_overlap_above(int limit) const;
  /// For each unit, the most blocks it ran at one moment.
  std::map<unsigned, int> peak_blocks_per_unit() const;
  /// The units that ran at least one block.
  std::set<unsigned> units() const;
  /// The device-clock reading of time 0, in nanoseconds (NVIDIA: %globaltimer; AMD:
  /// s_memrealtime converted at its rate); nothing when the blocks were already relative.
  std::optional<std::int64_t> device_clock_origin_ns() const { return origin_ns_; }
  /// std::chrono::steady_clock, in nanoseconds, when the schedule was made: just after its
  /// records were read back, so after every traced kernel had finished.
  std::int64_t host_read_ns() const { return host_read_ns_; }

 private:
  std::vector<TracedBlock> blocks_;
  std::optional<std::int64_t> origin_ns_;
  std::int64_t host_read_ns_ = 0;
};

/// "<kernel> #<launch> on stream <s> at <start>-<end> us" for each launch, joined by "; ".
std::string describe(const std::vector<TracedLaunch>& launches);

}  // namespace hip_lessons
