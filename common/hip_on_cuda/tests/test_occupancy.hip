// HIP API test: occupancy queries.
//
// GPU part: resident blocks per multiprocessor are positive and fit the SM's thread and
// shared-memory limits; more dynamic shared memory never raises occupancy;
// hipOccupancyMaxPotentialBlockSize returns a warp multiple that no other warp-multiple
// block size beats, honours blockSizeLimit and __launch_bounds__, and its grid fills the
// device; the template and const void* forms agree.
#include "check.h"

namespace {

constexpr int kBigSharedWords = 10 * 1024;  // 40 KiB of static shared memory
constexpr int kBoundedThreads = 128;

__global__ void simple(float* out, int n) {
  const int i = static_cast<int>(hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x);
  if (i < n) out[i] = static_cast<float>(i) * 0.5f;
}

__global__ void shared_heavy(int* out) {
  __shared__ int buffer[kBigSharedWords];
  for (int k = static_cast<int>(hipThreadIdx_x); k < kBigSharedWords;
       k += static_cast<int>(hipBlockDim_x)) {
    buffer[k] = k;
  }
  __syncthreads();
  out[hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x] =
      buffer[(hipThreadIdx_x * 13) % kBigSharedWords];
}

__global__ __launch_bounds__(kBoundedThreads) void bounded(float* out) {
  out[hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x] = 1.0f;
}

int active_blocks(const void* kernel, int block, size_t dynamic_shared) {
  int blocks = -1;
  const hipError_t e =
      hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, dynamic_shared);
  if (e != hipSuccess) {
    hip_api_test::record(false, hip_api_test::fmt("occupancy query at block %d", block),
                         hip_api_test::describe(e));
    return -1;
  }
  return blocks;
}

}  // namespace

int main() {
  const int no_gpu = hip_api_test::require_gpu();
  if (no_gpu >= 0) return no_gpu;
  CHECK_HIP(hipSetDevice(0), "hipSetDevice(0)");
  hipDeviceProp_t prop;
  CHECK_HIP(hipGetDeviceProperties(&prop, 0), "hipGetDeviceProperties");
  const int warp = prop.warpSize;
  const void* simple_ptr = reinterpret_cast<const void*>(&simple);

  // Resident blocks at 256 threads.
  int per_sm = 0;
  CHECK_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, simple, 256, 0),
            "hipOccupancyMaxActiveBlocksPerMultiprocessor (kernel template form)");
  CHECK(per_sm > 0, hip_api_test::fmt("%d blocks of 256 per SM/CU > 0", per_sm));
  CHECK(per_sm * 256 <= prop.maxThreadsPerMultiProcessor,
        hip_api_test::fmt("%d x 256 threads fit the %d-thread SM/CU", per_sm,
                          prop.maxThreadsPerMultiProcessor));
  CHECK_EQ(active_blocks(simple_ptr, 256, 0), per_sm, "const void* form agrees");
  int with_flags = -1;
  CHECK_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&with_flags, simple_ptr, 256, 0,
                                                                  hipOccupancyDefault),
            "hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
  CHECK_EQ(with_flags, per_sm, "WithFlags(hipOccupancyDefault) agrees");

  // Shared memory limits residency; more dynamic shared memory never helps.
  const int heavy = active_blocks(reinterpret_cast<const void*>(&shared_heavy), 256, 0);
  CHECK(heavy > 0 && static_cast<size_t>(heavy) * kBigSharedWords * sizeof(int) <=
                         prop.maxSharedMemoryPerMultiProcessor,
        hip_api_test::fmt("%d blocks with 40 KiB shared each fit %zu bytes per SM/CU", heavy,
                          prop.maxSharedMemoryPerMultiProcessor));
  const int with_dynamic = active_blocks(simple_ptr, 256, 32 * 1024);
  CHECK(with_dynamic >= 0 && with_dynamic <= per_sm,
        hip_api_test::fmt("32 KiB dynamic shared: %d <= %d blocks", with_dynamic, per_sm));

  // Best block size.
  int grid = 0;
  int block = 0;
  CHECK_HIP(hipOccupancyMaxPotentialBlockSize(&grid, &block, simple, 0, 0),
            "hipOccupancyMaxPotentialBlockSize (kernel template form)");
  std::printf("max potential block size %d, grid %d (%d SMs/CUs, warp %d)\n", block, grid,
              prop.multiProcessorCount, warp);
  CHECK(block > 0 && block <= prop.maxThreadsPerBlock,
        hip_api_test::fmt("block size %d in range", block));
  CHECK(block % warp == 0,
        hip_api_test::fmt("block size %d is a multiple of warpSize %d", block, warp));
  CHECK(grid > 0 && grid % prop.multiProcessorCount == 0,
        hip_api_test::fmt("grid %d is a positive multiple of the SM/CU count %d", grid,
                          prop.multiProcessorCount));
  const int best_threads = active_blocks(simple_ptr, block, 0) * block;
  int beaten_by = 0;
  for (int b = warp; b <= prop.maxThreadsPerBlock; b += warp) {
    if (active_blocks(simple_ptr, b, 0) * b > best_threads) beaten_by = b;
  }
  CHECK(beaten_by == 0,
        hip_api_test::fmt("no warp-multiple block size beats %d resident threads per SM/CU%s",
                          best_threads,
                          beaten_by ? hip_api_test::fmt(" (%d does)", beaten_by).c_str() : ""));
  int grid2 = 0;
  int block2 = 0;
  CHECK_HIP(hipOccupancyMaxPotentialBlockSize(&grid2, &block2, simple_ptr, 0, 0),
            "hipOccupancyMaxPotentialBlockSize (const void* form)");
  CHECK(grid2 == grid && block2 == block, "const void* form agrees with the template form");

  CHECK_HIP(hipOccupancyMaxPotentialBlockSize(&grid2, &block2, simple, 0, 64),
            "with blockSizeLimit 64");
  CHECK(block2 > 0 && block2 <= 64,
        hip_api_test::fmt("blockSizeLimit 64 is honoured (%d)", block2));
  CHECK_HIP(hipOccupancyMaxPotentialBlockSize(&grid2, &block2, bounded, 0, 0),
            "for a __launch_bounds__ kernel");
  CHECK(block2 > 0 && block2 <= kBoundedThreads,
        hip_api_test::fmt("__launch_bounds__(%d) is honoured (%d)", kBoundedThreads, block2));

  // The suggested configuration launches.
  float* out = nullptr;
  const int n = grid * block;
  CHECK_HIP(hipMalloc(&out, n * sizeof(float)), "hipMalloc");
  hipLaunchKernelGGL(simple, dim3(grid), dim3(block), 0, nullptr, out, n);
  CHECK_HIP(hipGetLastError(), "launch with the suggested grid and block");
  CHECK_HIP(hipDeviceSynchronize(), "hipDeviceSynchronize");
  float last = 0.0f;
  CHECK_HIP(hipMemcpy(&last, out + n - 1, sizeof(float), hipMemcpyDeviceToHost), "copy back");
  CHECK(last == static_cast<float>(n - 1) * 0.5f, "last element written");
  CHECK_HIP(hipFree(out), "hipFree");
  CHECK_HIP(hipGetLastError(), "no error left behind");
  return hip_api_test::finish();
}
