/// \file traced_run.hpp
/// \brief One traced run: the device buffer its blocks write, the schedule read back from it,
/// kept for --trace.
///
///     hl::TracedRun run(lesson.traces, "8 streams", kernels * blocks);
///     for (...) launch(..., run.reserve("kernel 3", blocks, stream_number));
///     HIP_CHECK(hipStreamSynchronize(stream));   // each stream the run used
///     const hl::Schedule schedule = run.finish();
///
/// Each launch gets its slice of the buffer (reserve()), which its kernel passes to a
/// BlockTimer (block_trace.hpp). finish() reads every record back, converts device-clock ticks
/// to microseconds, checks that every reserved block left a record, and keeps the schedule in
/// the lesson's TraceFile under the run's name, with the device-clock reading of its time 0.
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hip_lessons/block_trace.hpp"
#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device_clock.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/schedule.hpp"
#include "hip_lessons/trace_file.hpp"

namespace hip_lessons {

/// What a TracedRun does when its buffer is full.
enum class Overflow {
  kThrow,       ///< reserve() throws: a run that must be traced whole
  kKeepLatest,  ///< the buffer is a ring: the newest launches overwrite the oldest, whose
                ///< records finish() then leaves out (a tenant that runs until told to stop)
};

/// A traced run of one or more launches; see the file comment.
class TracedRun {
 public:
  /// Room for \p max_blocks blocks over every launch of the run; the schedule is kept in
  /// \p file as \p name.
  TracedRun(TraceFile& file, std::string name, std::size_t max_blocks,
            Overflow overflow = Overflow::kThrow)
      : file_(file), name_(std::move(name)), records_(max_blocks), overflow_(overflow) {
    records_.poison();  // a block that never stores its record is caught by finish()
  }

  /// The BlockTrace for the next launch: \p blocks blocks of \p kernel on \p stream (the
  /// lesson's own stream number, shown as the trace's track). Throws when the run is full
  /// (with Overflow::kThrow, or when one launch alone does not fit).
  BlockTrace reserve(const std::string& kernel, unsigned blocks, int stream) {
    if (used_ + blocks > records_.size() && overflow_ == Overflow::kKeepLatest &&
        blocks <= records_.size()) {
      used_ = 0;
    }
    if (used_ + blocks > records_.size()) {
      throw std::length_error(
          format("block trace full: {} + {} blocks > {}", used_, blocks, records_.size()));
    }
    const std::size_t from = used_;
    launches_.erase(std::remove_if(launches_.begin(), launches_.end(),
                                   [&](const Launch& l) {
                                     return l.first < from + blocks && from < l.first + l.blocks;
                                   }),
                    launches_.end());
    launches_.push_back({kernel, stream, used_, blocks});
    BlockTrace trace{records_.data() + used_};
    used_ += blocks;
    return trace;
  }

  /// Waits for the device (a lesson that launched on green-context streams synchronizes them
  /// first: hipDeviceSynchronize need not wait for those), reads every reserved record,
  /// converts ticks to microseconds and keeps the schedule. Throws std::runtime_error naming
  /// the first block that left no record (a kernel that returned before BlockTimer::stop(),
  /// or a launch that never ran).
  Schedule finish() {
    HIP_CHECK(hipDeviceSynchronize());
    const std::vector<BlockRecord> host = records_.download();
    const double ticks_per_us = spin_ticks_per_microsecond();
    long long first = std::numeric_limits<long long>::max();
    for (std::size_t l = 0; l < launches_.size(); ++l) {
      const Launch& launch = launches_[l];
      for (unsigned b = 0; b < launch.blocks; ++b) {
        const BlockRecord& r = host[launch.first + b];
        if (r.block != b || r.end < r.start) {
          throw std::runtime_error(
              format("block {} of launch {} ({}) left no trace record", b, l, launch.kernel));
        }
        first = std::min(first, r.start);
      }
    }
    // Ticks are subtracted as integers before they become microseconds: a double holding a
    // raw %globaltimer reading (about 1.8e18 ns) in microseconds resolves only 0.25 us.
    std::vector<TracedBlock> blocks;
    for (std::size_t l = 0; l < launches_.size(); ++l) {
      const Launch& launch = launches_[l];
      for (unsigned b = 0; b < launch.blocks; ++b) {
        const BlockRecord& r = host[launch.first + b];
        blocks.push_back({launch.kernel, static_cast<int>(l), launch.stream, b, r.unit,
                          static_cast<double>(r.start - first) / ticks_per_us,
                          static_cast<double>(r.end - first) / ticks_per_us});
      }
    }
    // The device-clock origin for a vendor profiler's view of the same kernels
    // (common/profiler/profile_agreement.hpp); long double keeps the nanoseconds of a 1.8e18
    // reading.
    Schedule schedule =
        blocks.empty() ? Schedule(std::move(blocks))
                       : Schedule(std::move(blocks),
                                  static_cast<std::int64_t>(std::llround(
                                      static_cast<long double>(first) * 1000.0L / ticks_per_us)));
    file_.keep(name_, schedule);
    return schedule;
  }

 private:
  struct Launch {
    std::string kernel;
    int stream;
    std::size_t first;
    unsigned blocks;
  };
  TraceFile& file_;
  std::string name_;
  DeviceBuffer<BlockRecord> records_;
  std::vector<Launch> launches_;
  Overflow overflow_;
  std::size_t used_ = 0;
};

}  // namespace hip_lessons
