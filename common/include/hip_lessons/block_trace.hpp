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
/// the timed run and the traced one. The host side (traced_run.hpp) reserves a slice of one
/// device buffer per launch, then reads everything back as a Schedule.
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

#include "hip_lessons/device_clock.hpp"

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

}  // namespace hip_lessons
