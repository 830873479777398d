// Lesson 04, first look: size a grid-stride launch from occupancy.
//
// A grid-stride kernel is correct for any grid, so the grid is a choice. For a kernel that
// streams through memory, a good one is "as many blocks as the GPU can hold at once":
// hipOccupancyMaxActiveBlocksPerMultiprocessor says how many blocks of this kernel fit on ONE
// compute unit (CU; SM on NVIDIA), so the grid is that number times the CU count. The article
// this project corrects divided N by it instead, as if it counted blocks for the whole device.
// The full lesson (main.hip) adds what sets that number, checks it with its own calculator,
// sweeps other grids against it and traces the blocks each CU held.
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "hip_lessons/minimal_hip_check.hpp"

//! [kernel]
// STREAM triad y = x + 0.5 * c. Each thread starts at its global index and steps by the number
// of threads in the whole grid, so any grid covers every element.
__global__ void triad(const float* x, const float* c, float* y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride)
    y[i] = fmaf(0.5f, c[i], x[i]);
}
//! [kernel]

int main() {
  HIP_SKIP_WITHOUT_GPU();
  const std::size_t n = (std::size_t{1} << 24) + 3;  // not a multiple of anything: the loop's end
  const std::size_t bytes = n * sizeof(float);

  //! [size_grid]
  int device = 0, cus = 0, threads_per_cu = 0;
  HIP_CHECK(hipGetDevice(&device));
  HIP_CHECK(hipDeviceGetAttribute(&cus, hipDeviceAttributeMultiprocessorCount, device));
  HIP_CHECK(hipDeviceGetAttribute(&threads_per_cu, hipDeviceAttributeMaxThreadsPerMultiProcessor,
                                  device));
  const int block = 256;
  int blocks_per_cu = 0;  // blocks of 256 threads of this kernel that fit on one CU at once
  HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_cu, triad, block, 0));
  if (blocks_per_cu < 1) {
    std::printf("FAIL: hipOccupancyMaxActiveBlocksPerMultiprocessor says %d blocks fit\n",
                blocks_per_cu);
    return 1;
  }
  const unsigned int grid = static_cast<unsigned int>(blocks_per_cu * cus);  // per CU x CUs
  // The article's formula, for comparison only: ceil(n / (block x blocks_per_cu)).
  const std::size_t per_round = static_cast<std::size_t>(block) * blocks_per_cu;
  const std::size_t article = (n + per_round - 1) / per_round;
  //! [size_grid]

  // Random inputs, so that a kernel that writes the wrong element cannot pass by luck.
  std::vector<float> x(n), c(n), y(n);
  std::mt19937 generator(42);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = uniform(generator);
    c[i] = uniform(generator);
  }
  float *d_x = nullptr, *d_c = nullptr, *d_y = nullptr;
  HIP_CHECK(hipMalloc(&d_x, bytes));
  HIP_CHECK(hipMalloc(&d_c, bytes));
  HIP_CHECK(hipMalloc(&d_y, bytes));
  HIP_CHECK(hipMemcpy(d_x, x.data(), bytes, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(d_c, c.data(), bytes, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemset(d_y, 0xff, bytes));  // poison: every byte 0xff is a NaN float

  hipLaunchKernelGGL(triad, dim3(grid), dim3(block), 0, 0, d_x, d_c, d_y, n);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(y.data(), d_y, bytes, hipMemcpyDeviceToHost));  // waits for the kernel

  // Every element, bit for bit: fmaf rounds once on the host and on the device alike.
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float expected = std::fmaf(0.5f, c[i], x[i]);
    if (std::memcmp(&y[i], &expected, sizeof expected) != 0) {
      if (wrong == 0) std::printf("y[%zu] = %g, expected %g\n", i, y[i], expected);
      ++wrong;
    }
  }
  HIP_CHECK(hipFree(d_x));
  HIP_CHECK(hipFree(d_c));
  HIP_CHECK(hipFree(d_y));
  std::printf(
      "triad of %zu floats: %d blocks per CU x %d CUs = grid %u x block %d (occupancy %.0f%%; "
      "the article's formula gave grid %zu): %s (%zu wrong)\n",
      n, blocks_per_cu, cus, grid, block, 100.0 * blocks_per_cu * block / threads_per_cu, article,
      wrong == 0 ? "ok" : "FAIL", wrong);
  return wrong == 0 ? 0 : 1;
}
