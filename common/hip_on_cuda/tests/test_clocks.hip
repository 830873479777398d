// HIP API test: the device clock and placement functions a block trace needs.
//
// A plain HIP program: wall_clock64() advances at hipDeviceAttributeWallClockRate (checked
// against the host clock over a kernel that waits about 20 ms), and __smid() names a compute
// unit: on NVIDIA a dense index below the SM count; on AMD a hardware id, so only its
// consistency within one block is checked there.
#include <chrono>
#include <thread>

#include "check.h"

// HIP 5.2's amd_device_functions.h declares wall_clock64() only in the device pass
// (inside #ifdef __HIP_DEVICE_COMPILE__), so hip-clang's host pass of a kernel that calls it
// fails there; later HIP releases declare it for both passes. The host pass never runs it.
__device__ inline long long read_wall_clock() {
#if defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_DEVICE_COMPILE__)
  return -1;
#else
  return wall_clock64();
#endif
}

__global__ void read_clock_and_unit(long long* clock, unsigned* unit, unsigned* same_unit) {
  const long long start = read_wall_clock();
  const unsigned id = __smid();
  __syncthreads();
  if (threadIdx.x == 0) {
    clock[blockIdx.x] = start;
    unit[blockIdx.x] = id;
  }
  __syncthreads();
  if (__smid() != unit[blockIdx.x]) same_unit[blockIdx.x] = 0;  // a block never migrates
}

// HIP 5.2's header has no hipDeviceAttributeWallClockRate; find out at compile time. The
// answer is an int: -1 is no enumerator, and clang 19 refuses it as a constant of the enum.
template <class A>
constexpr auto wall_clock_rate(int) -> decltype(A::hipDeviceAttributeWallClockRate, int()) {
  return static_cast<int>(A::hipDeviceAttributeWallClockRate);
}
template <class A>
constexpr int wall_clock_rate(long) {
  return -1;
}

int main() {
  const int no_gpu = hip_api_test::require_gpu();
  if (no_gpu >= 0) return no_gpu;

  constexpr int rate_attribute = wall_clock_rate<hipDeviceAttribute_t>(0);
  if (rate_attribute < 0) {
    std::printf("skipped: this HIP has no hipDeviceAttributeWallClockRate\n");
    return hip_api_test::kExitSkip;
  }
  int rate_khz = 0;
  CHECK_HIP(hipDeviceGetAttribute(&rate_khz, static_cast<hipDeviceAttribute_t>(rate_attribute), 0),
            "hipDeviceGetAttribute(hipDeviceAttributeWallClockRate)");
  CHECK(rate_khz > 0, hip_api_test::fmt("wall clock rate %d kHz > 0", rate_khz));
  int units = 0;
  CHECK_HIP(hipDeviceGetAttribute(&units, hipDeviceAttributeMultiprocessorCount, 0),
            "hipDeviceGetAttribute(hipDeviceAttributeMultiprocessorCount)");

  const int blocks = 4 * units;
  long long* clock = nullptr;
  unsigned* unit = nullptr;
  unsigned* same_unit = nullptr;
  CHECK_HIP(hipMalloc(&clock, blocks * sizeof(long long)), "hipMalloc clocks");
  CHECK_HIP(hipMalloc(&unit, blocks * sizeof(unsigned)), "hipMalloc units");
  CHECK_HIP(hipMalloc(&same_unit, blocks * sizeof(unsigned)), "hipMalloc flags");
  CHECK_HIP(hipMemset(same_unit, 1, blocks * sizeof(unsigned)), "hipMemset flags");

  // Two readings 20 ms apart on the host clock: the device clock must agree within 10%.
  long long first = 0;
  long long second = 0;
  hipLaunchKernelGGL(read_clock_and_unit, dim3(1), dim3(64), 0, nullptr, clock, unit, same_unit);
  CHECK_HIP(hipDeviceSynchronize(), "first reading");
  CHECK_HIP(hipMemcpy(&first, clock, sizeof first, hipMemcpyDeviceToHost), "copy first");
  const auto host_start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  hipLaunchKernelGGL(read_clock_and_unit, dim3(blocks), dim3(64), 0, nullptr, clock, unit,
                     same_unit);
  CHECK_HIP(hipDeviceSynchronize(), "second reading");
  const double host_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start)
          .count();
  CHECK_HIP(hipMemcpy(&second, clock, sizeof second, hipMemcpyDeviceToHost), "copy second");
  const double device_ms = static_cast<double>(second - first) / rate_khz;
  CHECK(device_ms > 0.9 * 20.0 && device_ms < 1.1 * host_ms + 5.0,
        hip_api_test::fmt("wall_clock64 advanced %.2f ms over %.2f host ms (>= 20 ms slept)",
                          device_ms, host_ms));

  unsigned host_unit[4096] = {};
  unsigned host_same[4096] = {};
  const int shown = blocks < 4096 ? blocks : 4096;
  CHECK_HIP(hipMemcpy(host_unit, unit, shown * sizeof(unsigned), hipMemcpyDeviceToHost),
            "copy units");
  CHECK_HIP(hipMemcpy(host_same, same_unit, shown * sizeof(unsigned), hipMemcpyDeviceToHost),
            "copy flags");
  int migrated = 0;
  unsigned largest = 0;
  for (int b = 0; b < shown; ++b) {
    migrated += host_same[b] == 0;
    largest = host_unit[b] > largest ? host_unit[b] : largest;
  }
  CHECK(migrated == 0, hip_api_test::fmt("__smid() is the same for every thread of a block "
                                         "(%d of %d blocks differ)",
                                         migrated, shown));
#if defined(__HIP_PLATFORM_NVIDIA__)
  CHECK(largest < static_cast<unsigned>(units),
        hip_api_test::fmt("__smid() %u < SM count %d", largest, units));
#endif
  CHECK_HIP(hipFree(clock), "hipFree");
  CHECK_HIP(hipFree(unit), "hipFree");
  CHECK_HIP(hipFree(same_unit), "hipFree");
  return hip_api_test::finish();
}
