// Lesson 02, first look: add two vectors on the GPU with the correct launch.
//
// The whole idea in plain HIP: one thread per element, blocks of 256 threads, and as many
// blocks as it takes to cover every element (grid = ceil(n / 256)). hipLaunchKernelGGL takes
// the grid first and the block second; the article this project corrects swapped them, which
// asks for blocks of ceil(n / 256) threads and fails once that exceeds 1024.
// The full lesson (main.hip) adds two more kernels, times them against a same-run copy and
// shows the swapped launch failing.
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <random>
#include <vector>

#include "hip_lessons/minimal_hip_check.hpp"

//! [kernel]
// One thread per element. The grid is rounded up to whole blocks, so the last block can have
// threads past the end: the guard keeps them from writing there.
__global__ void vector_add(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
//! [kernel]

int main() {
  HIP_SKIP_WITHOUT_GPU();
  // Not a multiple of the block size, so the guard in the kernel matters.
  const std::size_t n = (std::size_t{1} << 20) + 3;
  const std::size_t bytes = n * sizeof(float);

  // Random inputs, so that a kernel that writes the wrong element cannot pass by luck.
  std::vector<float> a(n), b(n), c(n);
  std::mt19937 generator(42);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = uniform(generator);
    b[i] = uniform(generator);
  }

  //! [copy_in]
  // Device memory for the three arrays; the inputs are copied in from the host.
  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  HIP_CHECK(hipMalloc(&d_a, bytes));
  HIP_CHECK(hipMalloc(&d_b, bytes));
  HIP_CHECK(hipMalloc(&d_c, bytes));
  HIP_CHECK(hipMemcpy(d_a, a.data(), bytes, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(d_b, b.data(), bytes, hipMemcpyHostToDevice));
  // Poison the output (every byte 0xff is a NaN float): an element the kernel misses shows.
  HIP_CHECK(hipMemset(d_c, 0xff, bytes));
  //! [copy_in]

  //! [launch]
  const dim3 block(256);                                    // threads per block
  const dim3 grid(static_cast<unsigned>((n + 255) / 256));  // blocks: ceil(n / 256)
  // The grid, the block, no extra shared memory (0 bytes), the default stream (0), the arguments.
  hipLaunchKernelGGL(vector_add, grid, block, 0, 0, d_a, d_b, d_c, n);
  HIP_CHECK(hipGetLastError());  // a bad launch configuration is reported here
  //! [launch]

  //! [check]
  HIP_CHECK(hipMemcpy(c.data(), d_c, bytes, hipMemcpyDeviceToHost));  // waits for the kernel
  // Every element against the host's sum. A NaN fails the test, so a missed element shows.
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(std::fabs(c[i] - (a[i] + b[i])) <= 1e-6f)) {
      if (wrong == 0) std::printf("c[%zu] = %g, expected %g\n", i, c[i], a[i] + b[i]);
      ++wrong;
    }
  }
  //! [check]
  HIP_CHECK(hipFree(d_a));
  HIP_CHECK(hipFree(d_b));
  HIP_CHECK(hipFree(d_c));
  std::printf("vector_add of %zu floats, grid %u x block %u: %s (%zu wrong)\n", n, grid.x, block.x,
              wrong == 0 ? "ok" : "FAIL", wrong);
  return wrong == 0 ? 0 : 1;
}
