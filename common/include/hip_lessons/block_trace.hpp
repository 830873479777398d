/// \file block_trace.hpp
/// \brief Where and when each block ran: a per-block trace recorded by the kernel itself.
///
/// A traced kernel takes a BlockTrace argument and brackets its work with a BlockTimer:
///
///     __global__ void kernel(..., hl::BlockTrace trace) {
///       hl::BlockTimer timer(trace);
///       ... the block's work ...
///       timer.stop();  // every thread of the block must reach this line
///     }
///
/// Thread 0 of each block reads the device's constant-rate clock when the block starts and,
/// after a barrier, when all its threads are done, and stores both with the unit it ran on.
/// Untraced launches pass an empty BlockTrace: no barrier, no store, so the same kernel serves
/// the timed run and the traced one. The host side reserves a slice of one device buffer per
/// launch (BlockTraceRecorder::reserve()), then reads everything back as a Schedule.
///
/// Clocks and units per platform:
///   - NVIDIA: wall_clock64() is %globaltimer (nanoseconds, 32 ns steps seen on an H200);
///     __smid() is %smid, the SM index 0..count-1.
///   - AMD: wall_clock64() is s_memrealtime, at hipDeviceAttributeWallClockRate kHz (100 MHz on
///     CDNA, per HIP's documentation of the attribute; read, not assumed); __smid() is a
///     hardware id, not an index: on gfx9 (se_id << 4) | cu_id, on gfx940/941/942
///     (xcc_id << 6) | (se_id << 4) | cu_id, on gfx10/11 shader engine, shader array and WGP
///     bits (ROCm/clr hipamd/include/hip/amd_detail/amd_device_functions.h). Lessons use it as
///     a label and never as an index into a CU mask.
/// Only 1-D grids are traced (the record is indexed by blockIdx.x).
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device_clock.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/schedule.hpp"

namespace hip_lessons {

/// What one block stores: its start and end (constant-rate clock ticks) and its unit.
struct BlockRecord {
  long long start;
  long long end;
  unsigned unit;
  unsigned block;
};

/// The kernel argument of a traced launch: where its blocks write. Empty: not traced.
struct BlockTrace {
  BlockRecord* records = nullptr;
};

/// Brackets one block's work; see the file comment for the rules.
class BlockTimer {
 public:
  __device__ explicit BlockTimer(BlockTrace trace) : trace_(trace) {
    if (trace_.records != nullptr && first_thread()) start_ = constant_rate_clock();
  }
  /// Waits for every thread of the block, then thread 0 stores the record.
  __device__ void stop() {
    if (trace_.records == nullptr) return;
    __syncthreads();
    if (first_thread()) {
      trace_.records[blockIdx.x] = BlockRecord{start_, constant_rate_clock(), __smid(), blockIdx.x};
    }
  }

 private:
  __device__ static bool first_thread() {
    return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
  }
  BlockTrace trace_;
  long long start_ = 0;
};

/// Owns the device buffer of a traced run, hands each launch its slice, and reads the run back.
class BlockTraceRecorder {
 public:
  /// Room for \p max_blocks blocks over all launches of one run.
  explicit BlockTraceRecorder(std::size_t max_blocks) : records_(max_blocks) { records_.poison(); }

  /// The BlockTrace for the next launch: \p blocks blocks of \p kernel on \p stream (the
  /// lesson's own stream number, shown as the trace's track). Throws when the run is full.
  BlockTrace reserve(const std::string& kernel, unsigned blocks, int stream) {
    if (used_ + blocks > records_.size()) {
      throw std::length_error(
          format("block trace full: {} + {} blocks > {}", used_, blocks, records_.size()));
    }
    launches_.push_back({kernel, stream, used_, blocks});
    BlockTrace trace{records_.data() + used_};
    used_ += blocks;
    return trace;
  }

  /// Waits for the device, reads every reserved record and converts ticks to microseconds.
  /// Throws std::runtime_error naming the first block that left no record (a kernel that
  /// returned before BlockTimer::stop(), or a launch that never ran).
  Schedule schedule() {
    HIP_CHECK(hipDeviceSynchronize());
    const std::vector<BlockRecord> host = records_.download();
    const double ticks_per_us = spin_ticks_per_microsecond();
    std::vector<TracedBlock> blocks;
    for (std::size_t l = 0; l < launches_.size(); ++l) {
      const Launch& launch = launches_[l];
      for (unsigned b = 0; b < launch.blocks; ++b) {
        const BlockRecord& r = host[launch.first + b];
        if (r.block != b || r.end < r.start) {
          throw std::runtime_error(
              format("block {} of launch {} ({}) left no trace record", b, l, launch.kernel));
        }
        blocks.push_back({launch.kernel, static_cast<int>(l), launch.stream, b, r.unit,
                          static_cast<double>(r.start) / ticks_per_us,
                          static_cast<double>(r.end) / ticks_per_us});
      }
    }
    return Schedule(std::move(blocks));
  }

  /// Forgets every launch, so the buffer serves the next run.
  void reset() {
    HIP_CHECK(hipDeviceSynchronize());
    records_.poison();
    launches_.clear();
    used_ = 0;
  }

 private:
  struct Launch {
    std::string kernel;
    int stream;
    std::size_t first;
    unsigned blocks;
  };
  DeviceBuffer<BlockRecord> records_;
  std::vector<Launch> launches_;
  std::size_t used_ = 0;
};

}  // namespace hip_lessons
