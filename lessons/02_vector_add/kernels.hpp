/// \file lessons/02_vector_add/kernels.hpp
/// \brief The vectorAdd kernels of lesson 02 and how each is launched.
///
/// Shared by the lesson driver (main.hip) and its benchmarks (bench.hip), so both time
/// exactly the same launches.
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>

namespace vector_add {

/// The three ways lesson 02 adds two vectors.
enum class Variant { kOneElementPerThread, kGridStride, kFloat4 };

inline const char* name(Variant variant) {
  constexpr const char* kNames[] = {"one element per thread", "grid-stride loop",
                                    "float4 (16-byte loads)"};
  return kNames[static_cast<int>(variant)];
}

//! [one_element_per_thread]
// One thread per element; the guard matters because the grid is rounded up to whole blocks.
__global__ void add_one_element_per_thread(const float* a, const float* b, float* c,
                                           std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
//! [one_element_per_thread]

//! [grid_stride]
// A fixed grid walks the whole array: the grid is sized to the device, not to n.
__global__ void add_grid_stride(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    c[i] = a[i] + b[i];
  }
}
//! [grid_stride]

//! [float4]
// Each thread moves 16 bytes per load, so fewer, wider memory transactions carry the same
// data. hipMalloc returns 256-byte aligned pointers, so the float4 view is aligned; the
// n % 4 leftover elements (the tail) are added one by one by the first threads.
__global__ void add_float4(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t vectors = n / 4;
  if (i < vectors) {
    const float4 x = reinterpret_cast<const float4*>(a)[i];
    const float4 y = reinterpret_cast<const float4*>(b)[i];
    reinterpret_cast<float4*>(c)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  const std::size_t tail = n - vectors * 4;
  if (i < tail) c[vectors * 4 + i] = a[vectors * 4 + i] + b[vectors * 4 + i];
}
//! [float4]

/// Blocks needed to give each of \p items its own thread: ceil(items / block).
inline unsigned int blocks_for(std::size_t items, unsigned int block) {
  return static_cast<unsigned int>((items + block - 1) / block);
}

/// The fixed grid of the grid-stride variant: as many blocks of \p block threads as can be
/// resident on the whole device at once (threads per CU / block, times the CU count).
inline unsigned int grid_stride_blocks(int compute_units, int max_threads_per_cu,
                                       unsigned int block) {
  const int per_cu = max_threads_per_cu / static_cast<int>(block);
  return static_cast<unsigned int>(compute_units * (per_cu > 1 ? per_cu : 1));
}

/// Launches \p variant on \p stream. \p grid_stride_blocks is the fixed grid of the
/// grid-stride variant (lesson 04 shows how to derive it from occupancy).
inline void launch(Variant variant, const float* a, const float* b, float* c, std::size_t n,
                   unsigned int block, unsigned int grid_stride_blocks, hipStream_t stream) {
  switch (variant) {
    case Variant::kOneElementPerThread:
      //! [correct_launch]
      // grid first, then block: ceil(n / 256) blocks of 256 threads.
      hipLaunchKernelGGL(add_one_element_per_thread, dim3(blocks_for(n, block)), dim3(block), 0,
                         stream, a, b, c, n);
      //! [correct_launch]
      break;
    case Variant::kGridStride:
      hipLaunchKernelGGL(add_grid_stride, dim3(grid_stride_blocks), dim3(block), 0, stream, a, b, c,
                         n);
      break;
    case Variant::kFloat4: {
      // Enough threads for the float4 part and for the (at most 3) tail elements.
      const std::size_t threads = n / 4 > 3 ? n / 4 : 3;
      hipLaunchKernelGGL(add_float4, dim3(blocks_for(threads, block)), dim3(block), 0, stream, a, b,
                         c, n);
      break;
    }
  }
}

}  // namespace vector_add
