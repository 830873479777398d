// Lesson 06, first look: a stream whose kernels may use only part of the GPU.
//
// On AMD, hipExtStreamCreateWithCUMask makes a stream from a CU mask: one bit per compute unit,
// and the stream's kernels run only on the units whose bits are set. Here the mask holds the
// first half of the units. Nothing in the launch itself says where the kernel runs: the stream
// does. CU masks are AMD-only. On NVIDIA this program uses a plain stream and says so; the full
// lesson makes the NVIDIA partition from the CUDA driver's green contexts.
// The full lesson (main.hip) adds partitions of k, 2k and 4k units, times the kernel on each,
// records on which unit every block ran, and runs two partitions side by side.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "hip_lessons/minimal_hip_check.hpp"

// Compute-bound: each element takes `steps` fused multiply-adds and touches memory twice.
__global__ void fma_chain(const float* in, float* out, int n, int steps) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  for (int k = 0; k < steps; ++k) x = fmaf(x, 0.999f, 0.0005f);
  out[i] = x;
}

int main() {
  HIP_SKIP_WITHOUT_GPU();
  int units = 0;  // compute units (AMD) or SMs (NVIDIA)
  HIP_CHECK(hipDeviceGetAttribute(&units, hipDeviceAttributeMultiprocessorCount, 0));

  //! [restricted_stream]
  hipStream_t stream = nullptr;
#if defined(__HIP_PLATFORM_AMD__)
  // One bit per unit as multiProcessorCount counts them; bit i is bit i % 32 of word i / 32.
  // The first half of the bits, an even number of them, fits the mask rules of every AMD GPU
  // (the README's "What one mask bit is").
  const int granted = std::max(2, units / 2 / 2 * 2);
  std::vector<std::uint32_t> mask((units + 31) / 32, 0u);
  for (int bit = 0; bit < granted; ++bit) mask[bit / 32] |= 1u << (bit % 32);
  HIP_CHECK(
      hipExtStreamCreateWithCUMask(&stream, static_cast<std::uint32_t>(mask.size()), mask.data()));
  std::printf("stream limited by a CU mask to the first %d of %d units\n", granted, units);
#else
  // CU masks are AMD-only. The full lesson partitions NVIDIA SMs with green contexts.
  HIP_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  std::printf(
      "CU masks are AMD-only: a plain stream on all %d SMs here "
      "(the lesson uses green contexts on NVIDIA)\n",
      units);
#endif
  //! [restricted_stream]

  // Small enough for the host check to take about a second.
  const int n = (1 << 16) + 3, steps = 1024;
  std::vector<float> in(n), out(n);
  std::mt19937 generator(6);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float& x : in) x = uniform(generator);
  float *d_in = nullptr, *d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_in, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(float)));
  HIP_CHECK(hipMemcpy(d_in, in.data(), n * sizeof(float), hipMemcpyHostToDevice));
  // Poison the output on the stream itself (0xff bytes are NaN): a missed element shows.
  HIP_CHECK(hipMemsetAsync(d_out, 0xff, n * sizeof(float), stream));

  //! [launch]
  hipLaunchKernelGGL(fma_chain, dim3((n + 255) / 256), dim3(256), 0, stream, d_in, d_out, n, steps);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipStreamSynchronize(stream));
  //! [launch]
  HIP_CHECK(hipMemcpy(out.data(), d_out, n * sizeof(float), hipMemcpyDeviceToHost));

  // The host does the same steps; std::fma rounds exactly as fmaf does on the GPU.
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    float x = in[i];
    for (int k = 0; k < steps; ++k) x = std::fma(x, 0.999f, 0.0005f);
    if (!(std::fabs(out[i] - x) <= 1e-6f)) {
      if (wrong == 0) std::printf("out[%d] = %g, expected %g\n", i, out[i], x);
      ++wrong;
    }
  }
  HIP_CHECK(hipStreamDestroy(stream));
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  std::printf("fma_chain of %d floats on the stream: %s (%d wrong)\n", n,
              wrong == 0 ? "ok" : "FAIL", wrong);
  return wrong == 0 ? 0 : 1;
}
