/// \file device_clock.hpp
/// \brief The device's constant-rate clock: reading it, and its ticks per microsecond.
///
/// Spinning for a set time and tracing when blocks ran both need a device clock that ticks at
/// a constant rate; the SM/CU cycle counter (clock64) follows the boost frequency.
///   - AMD: the project reads the clock itself, with the instruction amd_trace_reads.hpp names for
///     the target being compiled: s_memrealtime on gfx9 and gfx10, s_sendmsg_rtn_b64 with
///     MSG_RTN_GET_REALTIME on gfx11 and gfx12 (which have no s_memrealtime). HIP's wall_clock64()
///     is not used: with Debian's HIP 5.2 headers it compiles to the constant -1 on gfx11/gfx12.
///     The rate is the device attribute hipDeviceAttributeWallClockRate, in kHz, in HIP
///     versions that have it (HIP 5.2's header does not; then it is measured).
///   - NVIDIA (the HIP-on-CUDA layer): wall_clock64() is %globaltimer, which counts nanoseconds
///     (10^6 kHz).
/// The host works out ticks per microsecond once (spin_ticks_per_microsecond()) and converts;
/// the device only reads the clock. The common.amd_trace_reads.* tests find the clock
/// instruction in every built AMD code object.
#pragma once

#include <hip/hip_runtime.h>

#include <chrono>
#include <optional>
#include <thread>
#include <utility>

#include "hip_lessons/amd_trace_reads.hpp"
#include "hip_lessons/buffers.hpp"
#include "hip_lessons/errors.hpp"
#include "hip_lessons/hip_check.hpp"

namespace hip_lessons {

// AMD device passes only (clang 19 defines __AMDGCN__ in the host pass of a HIP compile too).
#if defined(__HIP_DEVICE_COMPILE__) && defined(__AMDGCN__)
namespace amd {

// The target this device pass compiles for: clang names it in __amdgcn_processor__, and from
// clang 17 says in __AMDGCN_CUMODE__ whether it compiles in CU mode (with an older clang, code
// built with -mcumode gets one unit id per WGP).
#if !defined(__amdgcn_processor__)
#error "hip_lessons/device_clock.hpp needs a clang that defines __amdgcn_processor__"
#endif
#if defined(__AMDGCN_CUMODE__) && __AMDGCN_CUMODE__
inline constexpr bool kCompiledInCuMode = true;
#else
inline constexpr bool kCompiledInCuMode = false;
#endif
/// amd_trace_reads.hpp's row for the target being compiled (AMD device passes only).
inline constexpr std::optional<TraceReads> kCompiledTarget =
    trace_reads(__amdgcn_processor__, kCompiledInCuMode);
static_assert(kCompiledTarget.has_value(),
              "hip_lessons/amd_trace_reads.hpp has no clock or unit-id reads for the AMD "
              "target " __amdgcn_processor__ "; add its row, with the ISA source of each field");

/// The MSG_RTN_GET_REALTIME reply: the clock of gfx11 and later (emitted only there).
__device__ inline unsigned long long realtime_message() {
#if __has_builtin(__builtin_amdgcn_s_sendmsg_rtnl)
  return __builtin_amdgcn_s_sendmsg_rtnl(kRealtimeMessage);
#else
  // clang 15 knows gfx11 but not the builtin: the same instruction, and the wait for its reply
  // that the compiler would otherwise insert (gfx11 syntax; clangs that know gfx12 have the
  // builtin).
  unsigned long long ticks;
  asm volatile("s_sendmsg_rtn_b64 %0, sendmsg(MSG_RTN_GET_REALTIME)\n\ts_waitcnt lgkmcnt(0)"
               : "=s"(ticks));
  return ticks;
#endif
}

/// The constant-rate clock of the target being compiled (see the file comment).
__device__ inline long long realtime_clock() {
  if constexpr (kCompiledTarget->clock == ClockRead::kSMemRealtime) {
    return static_cast<long long>(__builtin_amdgcn_s_memrealtime());
  } else {
    return static_cast<long long>(realtime_message());
  }
}

}  // namespace amd
#endif

/// Reads the device's constant-rate clock (see the file comment). The -1 of hip-clang's host
/// pass is never run; callers still treat a negative reading as "no clock".
__device__ inline long long constant_rate_clock() {
#if defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_DEVICE_COMPILE__)
  return -1;  // the host pass of hip-clang, which never runs device code
#elif defined(__HIP_PLATFORM_AMD__)
  return amd::realtime_clock();
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
        "this GPU has no constant-rate device clock (s_memrealtime, the realtime message or "
        "%globaltimer did not advance), which the fixed-duration spin kernels need");
  }
  return static_cast<double>(second - first) / microseconds;
}

}  // namespace hip_lessons
