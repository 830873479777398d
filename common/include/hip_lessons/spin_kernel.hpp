/// \file spin_kernel.hpp
/// \brief Fixed-duration kernels: spin on a constant-rate device clock for a set time.
///
/// Scheduling lessons need kernels whose duration is known in advance: then the ideal
/// time of any arrangement (k kernels on s streams, a chain of n kernels) can be worked
/// out, and what the measurement adds is scheduling cost. Spinning on the SM/CU cycle
/// counter (clock64) is not good enough, because that clock follows the boost frequency;
/// the kernels spin on the constant-rate clock of device_clock.hpp instead, and can record a
/// block trace (block_trace.hpp) of where and when each block ran.
///
/// The kernels are function templates with an unused parameter so that this header can
/// be included in several translation units of one program without defining a kernel
/// twice; launch them as spin_kernel<>.
#pragma once

#include <hip/hip_runtime.h>

#include "hip_lessons/block_trace.hpp"
#include "hip_lessons/device_clock.hpp"

namespace hip_lessons {

/// Spins the calling thread until \p ticks of constant_rate_clock() have passed and
/// returns the ticks that did pass (at least \p ticks). Returns 0 at once when the device
/// has no constant-rate clock, so a kernel never hangs; the host calibration reports that.
__device__ inline long long spin_for_ticks(long long ticks) {
  const long long start = constant_rate_clock();
  if (start < 0) return 0;
  long long now = start;
  while (now - start < ticks) now = constant_rate_clock();
  return now - start;
}

/// Every thread spins for \p microseconds (converted with \p ticks_per_microsecond, see
/// spin_ticks_per_microsecond()). When \p elapsed_ticks is not null, thread 0 of block 0
/// stores the ticks it spun, so a caller can check that the kernel really ran that long.
/// A non-empty \p trace records each block's unit, start and end.
template <int Unused = 0>
__global__ void spin_kernel(double microseconds, double ticks_per_microsecond,
                            long long* elapsed_ticks, BlockTrace trace) {
  BlockTimer timer(trace);
  const auto ticks = static_cast<long long>(microseconds * ticks_per_microsecond);
  const long long spun = spin_for_ticks(ticks);
  if (elapsed_ticks != nullptr && blockIdx.x == 0 && threadIdx.x == 0) *elapsed_ticks = spun;
  timer.stop();
}

}  // namespace hip_lessons
