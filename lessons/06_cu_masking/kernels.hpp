/// \file lessons/06_cu_masking/kernels.hpp
/// \brief The compute-bound kernel of lesson 06, its host reference, and how it is launched.
///
/// Shared by the lesson driver (main.hip) and its benchmarks (bench.hip). The kernel does
/// almost no memory traffic: each thread reads one float, runs four independent chains of
/// fused multiply-adds, and writes one float. Its time is set by how many compute units
/// run it, which is what partitioning changes.
#pragma once

#include <hip/hip_runtime.h>

#include <cmath>
#include <cstddef>
#include <vector>

#include "hip_lessons/block_trace.hpp"

namespace cu_masking {

/// Threads per block; a multiple of both warp (32) and wavefront (32 or 64) sizes.
constexpr unsigned int kBlock = 256;
/// x <- x * kScale + kOffset converges to kOffset / (1 - kScale) = 0.5, so the chains stay
/// far from overflow and from denormals for any input in [-1, 1].
constexpr float kScale = 0.999f;
constexpr float kOffset = 0.0005f;

//! [fma_chains]
/// out[i] = the sum of four chains of `iterations` steps x <- fma(x, kScale, kOffset)
/// started at in[i] + 0, 0.25, 0.5, 0.75. Four independent chains keep the FMA units busy.
/// A traced launch (non-empty \p trace) records each block's unit (__smid()) and its start
/// and end; every thread must reach timer.stop(), so the bounds check guards the work only.
__global__ void fma_chains(const float* in, float* out, std::size_t n, int iterations,
                           hip_lessons::BlockTrace trace) {
  hip_lessons::BlockTimer timer(trace);
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    float x0 = in[i];
    float x1 = x0 + 0.25f;
    float x2 = x0 + 0.5f;
    float x3 = x0 + 0.75f;
#pragma unroll 8
    for (int k = 0; k < iterations; ++k) {
      x0 = fmaf(x0, kScale, kOffset);
      x1 = fmaf(x1, kScale, kOffset);
      x2 = fmaf(x2, kScale, kOffset);
      x3 = fmaf(x3, kScale, kOffset);
    }
    out[i] = (x0 + x1) + (x2 + x3);
  }
  timer.stop();
}
//! [fma_chains]

/// The host reference of one element: the same operations in the same order. std::fma is
/// the correctly rounded fused multiply-add, like fmaf on both GPUs.
inline float fma_chains_reference(float in, int iterations) {
  float x0 = in;
  float x1 = x0 + 0.25f;
  float x2 = x0 + 0.5f;
  float x3 = x0 + 0.75f;
  for (int k = 0; k < iterations; ++k) {
    x0 = std::fma(x0, kScale, kOffset);
    x1 = std::fma(x1, kScale, kOffset);
    x2 = std::fma(x2, kScale, kOffset);
    x3 = std::fma(x3, kScale, kOffset);
  }
  return (x0 + x1) + (x2 + x3);
}

/// Blocks needed for one thread per element.
inline unsigned int blocks_for(std::size_t n) {
  return static_cast<unsigned int>((n + kBlock - 1) / kBlock);
}

/// Launches fma_chains over n elements on \p stream, which may be a partitioned stream:
/// nothing in the launch itself says where it runs. Timed launches pass no \p trace.
inline void launch(const float* in, float* out, std::size_t n, int iterations, hipStream_t stream,
                   hip_lessons::BlockTrace trace = {}) {
  hipLaunchKernelGGL(fma_chains, dim3(blocks_for(n)), dim3(kBlock), 0, stream, in, out, n,
                     iterations, trace);
}

}  // namespace cu_masking
