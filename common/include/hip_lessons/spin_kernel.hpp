/// \file spin_kernel.hpp
/// \brief Fixed-duration kernels: spin on a constant-rate device clock for a set time.
///
/// Scheduling lessons need kernels whose duration is known in advance: then the ideal
/// time of any arrangement (k kernels on s streams, a chain of n kernels) can be worked
/// out, and what the measurement adds is scheduling cost. Spinning on the SM/CU cycle
/// counter (clock64) is not good enough, because that clock follows the boost frequency.
/// Both vendors have a clock that ticks at a constant rate instead:
///   - AMD: wall_clock64() (s_memrealtime); its rate is the device attribute
///     hipDeviceAttributeWallClockRate, in kHz, in HIP versions that have it.
///   - NVIDIA: the %globaltimer register, which counts nanoseconds.
/// The host works out ticks per microsecond once (spin_ticks_per_microsecond()) and
/// passes it to the kernels; the device only compares clock readings.
///
/// The kernels are function templates with an unused parameter so that this header can
/// be included in several translation units of one program without defining a kernel
/// twice; launch them as spin_kernel<> (or through launch_spin_kernel()).
#pragma once

#include <hip/hip_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

#include "hip_lessons/errors.hpp"
#include "hip_lessons/hip_check.hpp"

namespace hip_lessons {

/// Reads the device's constant-rate clock (AMD: wall_clock64(); NVIDIA: %globaltimer in
/// nanoseconds). Returns a negative value on an AMD device without such a clock.
__device__ inline long long constant_rate_clock() {
#if defined(__HIP_PLATFORM_AMD__) && defined(__HIP_DEVICE_COMPILE__)
  return wall_clock64();
#elif defined(__HIP_PLATFORM_AMD__)
  return -1;  // the host pass of hip-clang: some HIP versions declare wall_clock64() device-only
#else
  unsigned long long nanoseconds = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(nanoseconds));
  return static_cast<long long>(nanoseconds);
#endif
}

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
template <int Unused = 0>
__global__ void spin_kernel(double microseconds, double ticks_per_microsecond,
                            long long* elapsed_ticks) {
  const auto ticks = static_cast<long long>(microseconds * ticks_per_microsecond);
  const long long spun = spin_for_ticks(ticks);
  if (elapsed_ticks != nullptr && blockIdx.x == 0 && threadIdx.x == 0) *elapsed_ticks = spun;
}

/// Stores one reading of constant_rate_clock() (used by the host calibration).
template <int Unused = 0>
__global__ void read_constant_rate_clock(long long* reading) {
  *reading = constant_rate_clock();
}

/// Launches spin_kernel on \p stream: \p grid blocks of \p block threads, each spinning
/// for \p microseconds. Checks that the launch was accepted.
inline void launch_spin_kernel(double microseconds, double ticks_per_microsecond, dim3 grid,
                               dim3 block, hipStream_t stream,
                               long long* elapsed_ticks = nullptr) {
  hipLaunchKernelGGL(spin_kernel<>, grid, block, 0, stream, microseconds, ticks_per_microsecond,
                     elapsed_ticks);
  HIP_CHECK_LAUNCH();
}

namespace detail {

// hipDeviceAttributeWallClockRate is not in every HIP (HIP 5.2's header lacks it). These
// overloads find out at compile time whether the enumerator exists, without guessing the
// HIP version that introduced it.
template <class Attribute>
constexpr auto wall_clock_rate_attribute(int)
    -> decltype(Attribute::hipDeviceAttributeWallClockRate, std::optional<Attribute>()) {
  return Attribute::hipDeviceAttributeWallClockRate;
}
template <class Attribute>
constexpr std::optional<Attribute> wall_clock_rate_attribute(long) {
  return std::nullopt;
}

}  // namespace detail

/// Measures the rate of constant_rate_clock() on the current device against the host's
/// steady clock: two readings about 20 ms apart. Accurate to well under 1%, because the
/// few microseconds of launch latency in each reading are small against 20 ms.
/// Throws SkipError when the clock does not advance (no constant-rate clock here).
inline double calibrate_ticks_per_microsecond() {
  long long* reading = nullptr;
  HIP_CHECK(hipMalloc(reinterpret_cast<void**>(&reading), sizeof(long long)));
  auto read_once = [&](long long& ticks, std::chrono::steady_clock::time_point& when) {
    hipLaunchKernelGGL(read_constant_rate_clock<>, dim3(1), dim3(1), 0, nullptr, reading);
    HIP_CHECK_LAUNCH();
    HIP_CHECK(hipDeviceSynchronize());
    when = std::chrono::steady_clock::now();
    HIP_CHECK(hipMemcpy(&ticks, reading, sizeof ticks, hipMemcpyDeviceToHost));
  };
  long long first = 0;
  long long second = 0;
  std::chrono::steady_clock::time_point first_at;
  std::chrono::steady_clock::time_point second_at;
  try {
    read_once(first, first_at);  // also loads the module, so the timed pair below is warm
    read_once(first, first_at);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    read_once(second, second_at);
  } catch (...) {
    (void)hipFree(reading);
    throw;
  }
  HIP_CHECK(hipFree(reading));
  const double microseconds =
      std::chrono::duration<double, std::micro>(second_at - first_at).count();
  if (first < 0 || second <= first || microseconds <= 0.0) {
    throw SkipError("this GPU has no constant-rate device clock (wall_clock64() / %globaltimer "
                    "did not advance), which the fixed-duration spin kernels need");
  }
  return static_cast<double>(second - first) / microseconds;
}

/// Ticks of constant_rate_clock() per microsecond on the current device.
///   - NVIDIA: 1000 (%globaltimer counts nanoseconds).
///   - AMD: hipDeviceAttributeWallClockRate / 1000 (the attribute is in kHz) where the
///     installed HIP has the attribute and reports a rate; else calibrate_ticks_per_microsecond().
inline double spin_ticks_per_microsecond() {
#if defined(__HIP_PLATFORM_AMD__)
  constexpr auto attribute = detail::wall_clock_rate_attribute<hipDeviceAttribute_t>(0);
  if constexpr (attribute.has_value()) {
    int device = 0;
    HIP_CHECK(hipGetDevice(&device));
    int rate_khz = 0;
    if (hipDeviceGetAttribute(&rate_khz, *attribute, device) == hipSuccess && rate_khz > 0) {
      return rate_khz / 1000.0;
    }
    (void)hipGetLastError();  // a refused attribute must not look like a later launch error
  }
  return calibrate_ticks_per_microsecond();
#else
  return 1000.0;
#endif
}

}  // namespace hip_lessons
