// HIP API test: events.
//
// Host part: event flag values. GPU part: an event recorded behind a long kernel is
// not ready until the kernel is done; elapsed time is positive and grows with the
// work measured; timing-disabled events refuse hipEventElapsedTime with
// hipErrorInvalidHandle; blocking-sync events synchronise.
#include "check.h"

static_assert(hipEventDefault == 0 && hipEventBlockingSync == 1 && hipEventDisableTiming == 2 &&
                  hipEventInterprocess == 4,
              "hipEvent* flags");

namespace {

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

long long ticks(const hipDeviceProp_t& prop, double ms) {
  return static_cast<long long>(ms * static_cast<double>(prop.clockInstructionRate));
}

/// Event-timed duration of a `ms` millisecond spin kernel in `stream`.
float time_spin(const hipDeviceProp_t& prop, hipStream_t stream, double ms) {
  hipEvent_t start = nullptr;
  hipEvent_t stop = nullptr;
  float elapsed = -1.0f;
  CHECK_HIP(hipEventCreate(&start), "hipEventCreate(start)");
  CHECK_HIP(hipEventCreate(&stop), "hipEventCreate(stop)");
  CHECK_HIP(hipEventRecord(start, stream), "hipEventRecord(start)");
  hipLaunchKernelGGL(spin, dim3(1), dim3(1), 0, stream, ticks(prop, ms));
  CHECK_HIP(hipEventRecord(stop, stream), "hipEventRecord(stop)");
  CHECK_HIP(hipEventSynchronize(stop), "hipEventSynchronize(stop)");
  CHECK_HIP(hipEventElapsedTime(&elapsed, start, stop), "hipEventElapsedTime");
  CHECK_HIP(hipEventDestroy(start), "hipEventDestroy(start)");
  CHECK_HIP(hipEventDestroy(stop), "hipEventDestroy(stop)");
  return elapsed;
}

}  // namespace

int main() {
  const int no_gpu = hip_api_test::require_gpu();
  if (no_gpu >= 0) return no_gpu;
  CHECK_HIP(hipSetDevice(0), "hipSetDevice(0)");
  hipDeviceProp_t prop;
  CHECK_HIP(hipGetDeviceProperties(&prop, 0), "hipGetDeviceProperties");
  hipStream_t stream = nullptr;
  CHECK_HIP(hipStreamCreate(&stream), "hipStreamCreate");

  // Warm-up (first launch pays for module loading).
  hipLaunchKernelGGL(spin, dim3(1), dim3(1), 0, stream, 0LL);
  CHECK_HIP(hipStreamSynchronize(stream), "warm-up kernel");

  // Not ready while the recorded work is still running.
  hipEvent_t done = nullptr;
  CHECK_HIP(hipEventCreate(&done), "hipEventCreate");
  CHECK_HIP(hipEventQuery(done), "a never-recorded event counts as done");
  hipLaunchKernelGGL(spin, dim3(1), dim3(1), 0, stream, ticks(prop, 200.0));
  CHECK_HIP(hipEventRecord(done, stream), "hipEventRecord behind a 200 ms kernel");
  CHECK_ERROR(hipEventQuery(done), hipErrorNotReady,
              "hipEventQuery is NotReady while the kernel runs");
  CHECK_HIP(hipEventSynchronize(done), "hipEventSynchronize");
  CHECK_HIP(hipEventQuery(done), "hipEventQuery after synchronize is hipSuccess");
  CHECK_HIP(hipEventDestroy(done), "hipEventDestroy");

  // Elapsed time: positive, at least about the spin time, and longer work takes longer.
  const float short_ms = time_spin(prop, stream, 10.0);
  const float long_ms = time_spin(prop, stream, 40.0);
  CHECK(short_ms > 0.0f, hip_api_test::fmt("elapsed time %.3f ms > 0", short_ms));
  CHECK(short_ms >= 5.0f && short_ms < 10000.0f,
        hip_api_test::fmt("10 ms spin measures %.3f ms (>= 5 ms)", short_ms));
  CHECK(long_ms > 2.0f * short_ms,
        hip_api_test::fmt("40 ms spin (%.3f ms) > 2 x 10 ms spin (%.3f ms)", long_ms, short_ms));

  // Timing-disabled events cannot be timed.
  hipEvent_t a = nullptr;
  hipEvent_t b = nullptr;
  CHECK_HIP(hipEventCreateWithFlags(&a, hipEventDisableTiming),
            "hipEventCreateWithFlags(DisableTiming)");
  CHECK_HIP(hipEventCreateWithFlags(&b, hipEventDisableTiming),
            "hipEventCreateWithFlags(DisableTiming)");
  CHECK_HIP(hipEventRecord(a, stream), "hipEventRecord(a)");
  CHECK_HIP(hipEventRecord(b, stream), "hipEventRecord(b)");
  CHECK_HIP(hipEventSynchronize(b), "hipEventSynchronize(b)");
  float ms = 0.0f;
  CHECK_ERROR(hipEventElapsedTime(&ms, a, b), hipErrorInvalidHandle,
              "hipEventElapsedTime on timing-disabled events is InvalidHandle");
  hip_api_test::ignore(hipGetLastError());
  CHECK_HIP(hipEventDestroy(a), "hipEventDestroy(a)");
  CHECK_HIP(hipEventDestroy(b), "hipEventDestroy(b)");

  // Blocking-sync event: the waiting thread sleeps, the result is the same.
  hipEvent_t blocking = nullptr;
  CHECK_HIP(hipEventCreateWithFlags(&blocking, hipEventBlockingSync),
            "hipEventCreateWithFlags(BlockingSync)");
  hipLaunchKernelGGL(spin, dim3(1), dim3(1), 0, stream, ticks(prop, 20.0));
  CHECK_HIP(hipEventRecord(blocking, stream), "hipEventRecord(blocking)");
  CHECK_HIP(hipEventSynchronize(blocking), "hipEventSynchronize(blocking)");
  CHECK_HIP(hipEventQuery(blocking), "blocking-sync event is done after synchronize");
  CHECK_HIP(hipEventDestroy(blocking), "hipEventDestroy(blocking)");

  // Default-stream record.
  hipEvent_t on_null = nullptr;
  CHECK_HIP(hipEventCreate(&on_null), "hipEventCreate");
  CHECK_HIP(hipEventRecord(on_null), "hipEventRecord on the null stream (default argument)");
  CHECK_HIP(hipEventSynchronize(on_null), "hipEventSynchronize");
  CHECK_HIP(hipEventDestroy(on_null), "hipEventDestroy");

  CHECK_HIP(hipStreamDestroy(stream), "hipStreamDestroy");
  CHECK_HIP(hipGetLastError(), "no error left behind");
  return hip_api_test::finish();
}
