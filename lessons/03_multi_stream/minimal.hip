// Lesson 03, first look: two streams, two kernels, one event.
//
// A stream runs its own work in order; work on two streams has no order between it. Here a
// producer kernel on stream A writes an array and a consumer kernel on stream B reads it. An
// event recorded on A after the producer, and waited for on B before the consumer, makes the
// consumer start only once the producer is done. Without the wait, it would read the array
// while the producer is still writing it.
// The full lesson (main.hip) adds the measurements: how much work many streams run at once,
// copies that overlap kernels, and a block-by-block trace of the schedule.
#include <hip/hip_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "hip_lessons/minimal_hip_check.hpp"

//! [kernels]
// The producer is slow on purpose: each thread repeats x = a*x + c (mod 2^32) `rounds` times.
// It is still running when the consumer would start without the event.
__global__ void produce(const std::uint32_t* in, std::uint32_t* data, std::size_t n,
                        unsigned int rounds) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint32_t x = in[i];
  for (unsigned int r = 0; r < rounds; ++r) x = 1664525u * x + 1013904223u;
  data[i] = x;
}

// The consumer adds one to what the producer wrote.
__global__ void consume(const std::uint32_t* data, std::uint32_t* out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = data[i] + 1u;
}
//! [kernels]

int main() {
  HIP_SKIP_WITHOUT_GPU();
  // 256 blocks: few enough that the GPU has room for the consumer beside the producer.
  const std::size_t n = std::size_t{1} << 16;
  const unsigned int rounds = 1u << 18;
  const std::size_t bytes = n * sizeof(std::uint32_t);
  const dim3 block(256), grid(static_cast<unsigned>((n + 255) / 256));

  // Random input, so that a consumer that reads the wrong element cannot pass by luck.
  std::vector<std::uint32_t> in(n), out(n);
  std::mt19937 generator(42);
  for (std::uint32_t& x : in) x = generator();

  std::uint32_t *d_in = nullptr, *d_data = nullptr, *d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_in, bytes));
  HIP_CHECK(hipMalloc(&d_data, bytes));
  HIP_CHECK(hipMalloc(&d_out, bytes));

  //! [two_streams]
  // Non-blocking streams: they never wait for the legacy default stream (stream 0).
  hipStream_t a = nullptr, b = nullptr;
  HIP_CHECK(hipStreamCreateWithFlags(&a, hipStreamNonBlocking));
  HIP_CHECK(hipStreamCreateWithFlags(&b, hipStreamNonBlocking));
  hipEvent_t produced = nullptr;  // only orders work: no timestamp needed
  HIP_CHECK(hipEventCreateWithFlags(&produced, hipEventDisableTiming));

  // On stream A, in order: the input copy, the poison (every byte 0xFF, so an element nobody
  // wrote shows), the producer. Then the event marks the point after all of it.
  HIP_CHECK(hipMemcpyAsync(d_in, in.data(), bytes, hipMemcpyHostToDevice, a));
  HIP_CHECK(hipMemsetAsync(d_data, 0xFF, bytes, a));
  HIP_CHECK(hipMemsetAsync(d_out, 0xFF, bytes, a));
  hipLaunchKernelGGL(produce, grid, block, 0, a, d_in, d_data, n, rounds);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipEventRecord(produced, a));

  // On stream B: wait for the event (the GPU waits, the host goes on), then consume.
  HIP_CHECK(hipStreamWaitEvent(b, produced, 0));
  hipLaunchKernelGGL(consume, grid, block, 0, b, d_data, d_out, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpyAsync(out.data(), d_out, bytes, hipMemcpyDeviceToHost, b));
  HIP_CHECK(hipStreamSynchronize(b));  // the host waits here, once, for the result
  //! [two_streams]

  // The host's reference. `rounds` steps of x = a*x + c add up to one step x = A*x + C, with
  // A = a^rounds and C = c * (a^(rounds-1) + ... + a + 1): worked out once, then one step each.
  std::uint32_t A = 1, C = 0;
  for (unsigned int r = 0; r < rounds; ++r) {
    A = 1664525u * A;
    C = 1664525u * C + 1013904223u;
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t expected = A * in[i] + C + 1u;
    if (out[i] != expected) {
      if (wrong == 0) std::printf("out[%zu] = %u, expected %u\n", i, out[i], expected);
      ++wrong;
    }
  }
  HIP_CHECK(hipEventDestroy(produced));
  HIP_CHECK(hipStreamDestroy(a));
  HIP_CHECK(hipStreamDestroy(b));
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_data));
  HIP_CHECK(hipFree(d_out));
  std::printf("consumer on stream B, after an event on stream A, read %zu values: %s (%zu wrong)\n",
              n, wrong == 0 ? "ok" : "FAIL", wrong);
  return wrong == 0 ? 0 : 1;
}
