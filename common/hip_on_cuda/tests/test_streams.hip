// HIP API test: streams.
//
// Host part: stream flag values. GPU part: flags and priorities read back, queries
// see unfinished work (hipErrorNotReady), work in one stream runs in order, an event
// wait orders two streams, callbacks and host functions run after earlier work, and
// the per-thread and null streams work.
#include <atomic>

#include "check.h"

static_assert(hipStreamDefault == 0 && hipStreamNonBlocking == 1, "hipStream* flags");

namespace {

/// Busy-waits `cycles` device clock ticks, then writes `value` to `*flag` (if given).
__global__ void spin_then_set(long long cycles, int* flag, int value) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
  if (flag != nullptr && hipThreadIdx_x == 0 && hipBlockIdx_x == 0) *flag = value;
}

__global__ void copy_value(int* dst, const int* src) { *dst = *src; }

__global__ void increment(int* counter) { *counter += 1; }

struct CallbackRecord {
  std::atomic<int> calls{0};
  std::atomic<int> status{-1};
};

void stream_callback(hipStream_t, hipError_t status, void* user) {
  auto* record = static_cast<CallbackRecord*>(user);
  record->status = static_cast<int>(status);
  record->calls += 1;
}

#if HIP_VERSION_MAJOR >= 6
void host_function(void* user) { static_cast<CallbackRecord*>(user)->calls += 1; }
#endif

/// Device clock ticks in `ms` milliseconds (clock64 counts at clockInstructionRate kHz).
long long ticks(const hipDeviceProp_t& prop, double ms) {
  return static_cast<long long>(ms * static_cast<double>(prop.clockInstructionRate));
}

}  // namespace

int main() {
  const int no_gpu = hip_api_test::require_gpu();
  if (no_gpu >= 0) return no_gpu;
  CHECK_HIP(hipSetDevice(0), "hipSetDevice(0)");
  hipDeviceProp_t prop;
  CHECK_HIP(hipGetDeviceProperties(&prop, 0), "hipGetDeviceProperties");
  CHECK(prop.clockInstructionRate > 0,
        hip_api_test::fmt("clockInstructionRate %d kHz (spin kernels use it)",
                          prop.clockInstructionRate));

  int least = 0;
  int greatest = 0;
  CHECK_HIP(hipDeviceGetStreamPriorityRange(&least, &greatest), "hipDeviceGetStreamPriorityRange");

  hipStream_t plain = nullptr;
  hipStream_t non_blocking = nullptr;
  hipStream_t urgent = nullptr;
  CHECK_HIP(hipStreamCreate(&plain), "hipStreamCreate");
  CHECK_HIP(hipStreamCreateWithFlags(&non_blocking, hipStreamNonBlocking),
            "hipStreamCreateWithFlags(NonBlocking)");
  CHECK_HIP(hipStreamCreateWithPriority(&urgent, hipStreamNonBlocking, greatest),
            "hipStreamCreateWithPriority(greatest)");

  unsigned int flags = 99;
  CHECK_HIP(hipStreamGetFlags(plain, &flags), "hipStreamGetFlags(plain)");
  CHECK_EQ(flags, hipStreamDefault, "plain stream has hipStreamDefault");
  CHECK_HIP(hipStreamGetFlags(non_blocking, &flags), "hipStreamGetFlags(non-blocking)");
  CHECK_EQ(flags, hipStreamNonBlocking, "non-blocking stream has hipStreamNonBlocking");
  int priority = 12345;
  CHECK_HIP(hipStreamGetPriority(urgent, &priority), "hipStreamGetPriority(urgent)");
  CHECK_EQ(priority, greatest, "urgent stream has the greatest priority");
  CHECK_HIP(hipStreamGetPriority(plain, &priority), "hipStreamGetPriority(plain)");
  CHECK(priority >= greatest && priority <= least,
        hip_api_test::fmt("plain stream priority %d lies in [%d, %d]", priority, greatest, least));

  int* d = nullptr;  // d[0] flag, d[1] copy target, d[2] counter
  CHECK_HIP(hipMalloc(&d, 4 * sizeof(int)), "hipMalloc");
  CHECK_HIP(hipMemset(d, 0, 4 * sizeof(int)), "hipMemset");

  // Query: idle stream is done; a 200 ms kernel is not.
  CHECK_HIP(hipStreamQuery(plain), "hipStreamQuery on an idle stream is hipSuccess");
  hipLaunchKernelGGL(spin_then_set, dim3(1), dim3(1), 0, plain, ticks(prop, 200.0), d + 3, 1);
  CHECK_HIP(hipGetLastError(), "spin kernel launched");
  CHECK_ERROR(hipStreamQuery(plain), hipErrorNotReady,
              "hipStreamQuery while a kernel runs is NotReady");
  CHECK_HIP(hipStreamSynchronize(plain), "hipStreamSynchronize");
  CHECK_HIP(hipStreamQuery(plain), "hipStreamQuery after synchronize is hipSuccess");

  // In-order execution within one stream.
  const int launches = 100;
  for (int i = 0; i < launches; ++i)
    hipLaunchKernelGGL(increment, dim3(1), dim3(1), 0, plain, d + 2);
  int counter = 0;
  CHECK_HIP(hipMemcpyAsync(&counter, d + 2, sizeof(int), hipMemcpyDeviceToHost, plain),
            "copy counter");
  CHECK_HIP(hipStreamSynchronize(plain), "hipStreamSynchronize");
  CHECK_EQ(counter, launches, "100 increments in one stream all ran, in order");

  // Cross-stream order through an event: `urgent` reads the flag only after
  // `non_blocking` has set it at the end of a 50 ms kernel.
  hipEvent_t flag_set = nullptr;
  CHECK_HIP(hipEventCreateWithFlags(&flag_set, hipEventDisableTiming), "hipEventCreateWithFlags");
  hipLaunchKernelGGL(spin_then_set, dim3(1), dim3(1), 0, non_blocking, ticks(prop, 50.0), d, 7);
  CHECK_HIP(hipEventRecord(flag_set, non_blocking), "hipEventRecord");
  CHECK_HIP(hipStreamWaitEvent(urgent, flag_set, 0), "hipStreamWaitEvent");
  hipLaunchKernelGGL(copy_value, dim3(1), dim3(1), 0, urgent, d + 1, d);
  int copied = 0;
  CHECK_HIP(hipMemcpyAsync(&copied, d + 1, sizeof(int), hipMemcpyDeviceToHost, urgent),
            "copy result");
  CHECK_HIP(hipStreamSynchronize(urgent), "hipStreamSynchronize(urgent)");
  CHECK_EQ(copied, 7, "hipStreamWaitEvent ordered the reader after the writer");
  CHECK_HIP(hipEventDestroy(flag_set), "hipEventDestroy");

  // Callback and host function run after the stream's earlier work.
  CallbackRecord callback_record;
  hipLaunchKernelGGL(spin_then_set, dim3(1), dim3(1), 0, non_blocking, ticks(prop, 10.0), d, 9);
  CHECK_HIP(hipStreamAddCallback(non_blocking, stream_callback, &callback_record, 0),
            "hipStreamAddCallback");
  CHECK_HIP(hipStreamSynchronize(non_blocking), "hipStreamSynchronize(non-blocking)");
  CHECK_EQ(callback_record.calls.load(), 1, "stream callback ran once");
  CHECK_EQ(callback_record.status.load(), static_cast<int>(hipSuccess),
           "stream callback got hipSuccess");

#if HIP_VERSION_MAJOR >= 6  // HIP 5.2 declares hipLaunchHostFunc but its library lacks it
  CallbackRecord host_record;
  hipLaunchKernelGGL(spin_then_set, dim3(1), dim3(1), 0, non_blocking, ticks(prop, 10.0), d, 10);
  CHECK_HIP(hipLaunchHostFunc(non_blocking, host_function, &host_record), "hipLaunchHostFunc");
  CHECK_HIP(hipStreamSynchronize(non_blocking), "hipStreamSynchronize(non-blocking)");
  CHECK_EQ(host_record.calls.load(), 1, "host function ran once");
#endif

  // Per-thread and null streams.
  hipLaunchKernelGGL(spin_then_set, dim3(1), dim3(1), 0, hipStreamPerThread, 0LL, d, 42);
  CHECK_HIP(hipGetLastError(), "launch on hipStreamPerThread");
  CHECK_HIP(hipStreamSynchronize(hipStreamPerThread), "hipStreamSynchronize(hipStreamPerThread)");
  int value = 0;
  CHECK_HIP(hipMemcpy(&value, d, sizeof(int), hipMemcpyDeviceToHost), "copy back");
  CHECK_EQ(value, 42, "kernel on hipStreamPerThread ran");
  hipLaunchKernelGGL(spin_then_set, dim3(1), dim3(1), 0, nullptr, 0LL, d, 43);
  CHECK_HIP(hipStreamSynchronize(nullptr), "hipStreamSynchronize(null stream)");
  CHECK_HIP(hipMemcpy(&value, d, sizeof(int), hipMemcpyDeviceToHost), "copy back");
  CHECK_EQ(value, 43, "kernel on the null stream ran");

  CHECK_HIP(hipFree(d), "hipFree");
  CHECK_HIP(hipStreamDestroy(plain), "hipStreamDestroy(plain)");
  CHECK_HIP(hipStreamDestroy(non_blocking), "hipStreamDestroy(non-blocking)");
  CHECK_HIP(hipStreamDestroy(urgent), "hipStreamDestroy(urgent)");
  CHECK_HIP(hipGetLastError(), "no error left behind");
  return hip_api_test::finish();
}
