// Lesson 08, first look: a short kernel's latency on a GPU that a long-running job fills, with
// and without stream priority.
//
// Two tenants share the GPU. The aggressor fills every slot of every compute unit with blocks
// that run for 2 ms. The victim launches one small block that runs for 20 us, and times it
// with two events on its own stream. It does so three times: alone, then beside the aggressor
// on a normal-priority stream, then beside it on a stream of the greatest priority. A priority
// only decides which waiting block gets the next free slot: it never stops a running block.
// The full lesson (main.hip) adds partitions, two processes and MPS, and traces where and when
// each block ran.
#include <hip/hip_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include "hip_lessons/minimal_hip_check.hpp"

//! [kernels]
// Busy-waits for `cycles` of the compute unit's clock (clock64 counts core cycles).
__device__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// The aggressor: every block only occupies its slot for `cycles`.
__global__ void aggressor(long long cycles) { spin(cycles); }

// The victim: one block that works for `cycles`, then computes a result that the host checks.
__global__ void victim(const std::uint32_t* in, std::uint32_t* out, int n, long long cycles) {
  spin(cycles);
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = in[i] * 2654435761u + 12345u;
}
//! [kernels]

int main() {
  HIP_SKIP_WITHOUT_GPU();
  int sms = 0, khz = 0, per_sm = 0, least = 0, greatest = 0;
  HIP_CHECK(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, 0));
  HIP_CHECK(hipDeviceGetAttribute(&khz, hipDeviceAttributeClockRate, 0));  // the peak clock
  const long long cycles_per_us = khz / 1000;
  // As many 256-thread aggressor blocks as the GPU holds at once: no free slot is left.
  HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, aggressor, 256, 0));
  const int n = 1024;
  std::vector<std::uint32_t> in(n), out(n);
  std::mt19937 generator(8);
  for (std::uint32_t& x : in) x = generator();
  std::uint32_t *d_in = nullptr, *d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_in, n * sizeof(std::uint32_t)));
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(std::uint32_t)));
  HIP_CHECK(hipMemcpy(d_in, in.data(), n * sizeof(std::uint32_t), hipMemcpyHostToDevice));

  //! [streams]
  // A lower number is a higher priority: `greatest` is the smallest number of the range.
  HIP_CHECK(hipDeviceGetStreamPriorityRange(&least, &greatest));
  hipStream_t aggressor_stream = nullptr, normal = nullptr, high = nullptr;
  HIP_CHECK(hipStreamCreateWithFlags(&aggressor_stream, hipStreamNonBlocking));
  HIP_CHECK(hipStreamCreateWithFlags(&normal, hipStreamNonBlocking));  // the default priority
  HIP_CHECK(hipStreamCreateWithPriority(&high, hipStreamNonBlocking, greatest));
  //! [streams]
  hipEvent_t start = nullptr, stop = nullptr;
  HIP_CHECK(hipEventCreate(&start));
  HIP_CHECK(hipEventCreate(&stop));

  // One victim launch on `stream`, with or without the aggressor: its latency in us.
  std::size_t wrong = 0;
  const auto victim_latency_us = [&](hipStream_t stream, bool with_aggressor) {
    HIP_CHECK(hipMemset(d_out, 0xff, n * sizeof(std::uint32_t)));  // poison: a miss shows
    //! [victim_beside_aggressor]
    if (with_aggressor) {  // two full waves queued; let the first take every slot
      for (int k = 0; k < 2; ++k) {
        hipLaunchKernelGGL(aggressor, dim3(sms * per_sm), dim3(256), 0, aggressor_stream,
                           2000 * cycles_per_us);
      }
      HIP_CHECK(hipGetLastError());
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    HIP_CHECK(hipEventRecord(start, stream));
    hipLaunchKernelGGL(victim, dim3(1), dim3(256), 0, stream, d_in, d_out, n, 20 * cycles_per_us);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipEventRecord(stop, stream));
    HIP_CHECK(hipEventSynchronize(stop));
    float ms = 0;
    HIP_CHECK(hipEventElapsedTime(&ms, start, stop));  // launch to completion, on the GPU
    //! [victim_beside_aggressor]
    HIP_CHECK(hipDeviceSynchronize());  // the aggressor too
    HIP_CHECK(hipMemcpy(out.data(), d_out, n * sizeof(std::uint32_t), hipMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) wrong += out[i] != in[i] * 2654435761u + 12345u;
    return 1000.0 * ms;
  };
  const double alone = victim_latency_us(normal, false);
  const double beside_normal = victim_latency_us(normal, true);
  const double beside_high = victim_latency_us(high, true);

  HIP_CHECK(hipEventDestroy(start));
  HIP_CHECK(hipEventDestroy(stop));
  for (hipStream_t s : {aggressor_stream, normal, high}) HIP_CHECK(hipStreamDestroy(s));
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  std::printf(
      "victim latency: alone %.1f us; beside %d aggressor blocks: %.1f us at normal priority, "
      "%.1f us at the greatest (%d): %s (%zu wrong)\n",
      alone, sms * per_sm, beside_normal, beside_high, greatest, wrong == 0 ? "ok" : "FAIL", wrong);
  return wrong == 0 ? 0 : 1;
}
