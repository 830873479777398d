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
/// Clocks and units per platform (device_clock.hpp has the clock):
///   - NVIDIA: the clock is %globaltimer (nanoseconds, 32 ns steps seen on an H200); the unit
///     is __smid(), %smid, the SM index 0..count-1.
///   - AMD: the clock is s_memrealtime or the realtime message, at
///     hipDeviceAttributeWallClockRate kHz (read, not assumed). The unit is the project's own
///     hardware id, read per target from the registers amd_trace_reads.hpp names and packed high
///     to low: XCC.SE.SH.CU on gfx940-gfx950, SE.SH.CU on the other gfx9 (one id per CU across
///     the whole device), SE.SA.WGP on gfx10-gfx12 (one id per WGP; per CU when compiled with
///     -mcumode). HIP's __smid() is not used: what it reads depends on the HIP headers of the
///     build (HIP 5.2, Debian's: 2 SE bits and no XCC, and register 4 on gfx10 and later, so
///     several CUs share an id; docs/pages/amd_targets.md has the releases). The id is a label,
///     not an index: never a position in a CU mask.
/// Only 1-D grids are traced (the record is indexed by blockIdx.x).
#pragma once

#include <hip/hip_runtime.h>

#include <array>
#include <utility>

#include "hip_lessons/amd_trace_reads.hpp"
#include "hip_lessons/device_clock.hpp"

namespace hip_lessons {

#if defined(__HIP_DEVICE_COMPILE__) && defined(__AMDGCN__)
namespace amd {

/// One s_getreg_b32 (its operand must be a constant, hence the template).
template <unsigned Operand>
__device__ unsigned read_hardware_register() {
  return __builtin_amdgcn_s_getreg(Operand);
}

/// Reads every field of the compiled target's row and packs them (amd_trace_reads.hpp).
template <std::size_t... Field>
__device__ unsigned read_unit_id(std::index_sequence<Field...>) {
  constexpr TraceReads reads = *kCompiledTarget;
  return pack_unit_id(reads, {read_hardware_register<reads.fields[Field].getreg_operand()>()...});
}

}  // namespace amd
#endif

/// The unit the calling wave runs on: the SM on NVIDIA, the project's hardware id on AMD (see
/// the file comment).
__device__ inline unsigned hardware_unit_id() {
#if defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_DEVICE_COMPILE__)
  return 0;  // the host pass of hip-clang, which never runs device code
#elif defined(__HIP_PLATFORM_AMD__)
  return amd::read_unit_id(std::make_index_sequence<amd::kCompiledTarget->field_count>());
#else
  return __smid();
#endif
}

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
      trace_.records[blockIdx.x] =
          BlockRecord{start_, constant_rate_clock(), hardware_unit_id(), blockIdx.x};
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
