/// \file device_clock.hpp
/// \brief The device's constant-rate clock: reading it, and its ticks per microsecond.
///
/// Spinning for a set time and tracing when blocks ran both need a device clock that ticks at
/// a constant rate; the SM/CU cycle counter (clock64) follows the boost frequency. HIP's
/// wall_clock64() is that clock:
///   - AMD: s_memrealtime; its rate is the device attribute hipDeviceAttributeWallClockRate,
///     in kHz, in HIP versions that have it (HIP 5.2's header does not).
///   - NVIDIA (the HIP-on-CUDA layer): %globaltimer, which counts nanoseconds (10^6 kHz).
/// The host works out ticks per microsecond once (spin_ticks_per_microsecond()) and converts;
/// the device only reads the clock.
#pragma once

#include <hip/hip_runtime.h>

#include <chrono>
#include <optional>
#include <thread>
#include <utility>

#include "hip_lessons/buffers.hpp"
#include "hip_lessons/errors.hpp"
#include "hip_lessons/hip_check.hpp"

namespace hip_lessons {

/// Reads wall_clock64() (see the file comment). Returns a negative value on an AMD device
/// without such a clock.
__device__ inline long long constant_rate_clock() {
#if defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_DEVICE_COMPILE__)
  return -1;  // the host pass of hip-clang: some HIP versions declare wall_clock64() device-only
#else
  return wall_clock64();
#endif
}

/// Stores one reading of constant_rate_clock() (for spin_ticks_per_microsecond()).
template <int Unused = 0>
__global__ void read_constant_rate_clock(long long* reading) {
  *reading = constant_rate_clock();
}

namespace detail {

// Whether hipDeviceAttributeWallClockRate exists (see the file comment), found at compile time
// rather than by guessing the HIP version that introduced it.
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

/// Ticks of constant_rate_clock() per microsecond on the current device: the wall clock rate
/// attribute (kHz) / 1000 where the installed HIP has it and reports a rate; else measured
/// against the host's steady clock. Throws SkipError when the clock does not advance (no
/// constant-rate clock here).
inline double spin_ticks_per_microsecond() {
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
  // Two readings about 20 ms apart: accurate to well under 1%, because the few microseconds of
  // launch latency in each reading are small against 20 ms.
  DeviceBuffer<long long> reading(1);
  const auto read = [&] {
    hipLaunchKernelGGL(read_constant_rate_clock<>, dim3(1), dim3(1), 0, nullptr, reading.data());
    HIP_CHECK_LAUNCH();
    HIP_CHECK(hipDeviceSynchronize());
    const auto when = std::chrono::steady_clock::now();
    return std::make_pair(reading.download()[0], when);
  };
  read();  // loads the module, so the timed pair below is warm
  const auto [first, first_at] = read();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto [second, second_at] = read();
  const double microseconds =
      std::chrono::duration<double, std::micro>(second_at - first_at).count();
  if (first < 0 || second <= first || microseconds <= 0.0) {
    throw SkipError(
        "this GPU has no constant-rate device clock (wall_clock64() / %globaltimer "
        "did not advance), which the fixed-duration spin kernels need");
  }
  return static_cast<double>(second - first) / microseconds;
}

}  // namespace hip_lessons
