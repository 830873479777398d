/// \file occupancy.h
/// \brief Occupancy queries of the hip_on_cuda layer.
///
/// hipOccupancyMaxPotentialBlockSize is HIP's C function (kernel as `const void*`),
/// which CUDA only has as a C++ template in cuda_runtime.h. The layer implements the
/// same search as CUDA's template on top of the C occupancy call, so it also works from
/// a host-only translation unit: try block sizes from the limit down in warp steps,
/// keep the one with the most resident threads per multiprocessor.
#ifndef HIP_ON_CUDA_OCCUPANCY_H
#define HIP_ON_CUDA_OCCUPANCY_H

#include "hip/hip_on_cuda/errors.h"

static_assert(hipOccupancyDefault == cudaOccupancyDefault &&
                  hipOccupancyDisableCachingOverride == cudaOccupancyDisableCachingOverride,
              "hipOccupancy* and cudaOccupancy* flags must agree");

/// Resident blocks of `f` per multiprocessor at `blockSize` threads and
/// `dynSharedMemPerBlk` bytes of dynamic shared memory. Multiply by the number of
/// multiprocessors for a full-device grid.
inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* f,
                                                               int blockSize,
                                                               size_t dynSharedMemPerBlk) {
  return hip_on_cuda::detail::map(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, f, blockSize, dynSharedMemPerBlk));
}

inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* numBlocks, const void* f, int blockSize, size_t dynSharedMemPerBlk,
    unsigned int flags = hipOccupancyDefault) {
  return hip_on_cuda::detail::map(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
      numBlocks, f, blockSize, dynSharedMemPerBlk, flags));
}

namespace hip_on_cuda {
namespace detail {

inline hipError_t max_potential_block_size(int* gridSize, int* blockSize, const void* f,
                                           size_t dynSharedMemPerBlk, int blockSizeLimit,
                                           unsigned int flags) {
  if (gridSize == nullptr || blockSize == nullptr || f == nullptr) return hipErrorInvalidValue;
  int device = 0;
  int max_threads_per_sm = 0;
  int warp_size = 0;
  int device_max_block = 0;
  int sm_count = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&warp_size, cudaDevAttrWarpSize, device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&device_max_block, cudaDevAttrMaxThreadsPerBlock, device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  cudaFuncAttributes attr{};
  if (e == cudaSuccess) e = cudaFuncGetAttributes(&attr, f);
  if (e != cudaSuccess) return map(e);

  int limit = blockSizeLimit;
  if (limit <= 0 || limit > device_max_block) limit = device_max_block;
  if (limit > attr.maxThreadsPerBlock) limit = attr.maxThreadsPerBlock;

  int best_block = 0;
  int best_blocks_per_sm = 0;
  int best_threads = 0;
  const int start = ((limit + warp_size - 1) / warp_size) * warp_size;
  for (int candidate = start; candidate > 0; candidate -= warp_size) {
    const int block = candidate > limit ? limit : candidate;
    int blocks_per_sm = 0;
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks_per_sm, f, block,
                                                               dynSharedMemPerBlk, flags);
    if (e != cudaSuccess) return map(e);
    const int threads = block * blocks_per_sm;
    if (threads > best_threads) {
      best_threads = threads;
      best_block = block;
      best_blocks_per_sm = blocks_per_sm;
    }
    if (best_threads == max_threads_per_sm) break;  // cannot do better than a full SM
  }
  *blockSize = best_block;
  *gridSize = best_blocks_per_sm * sm_count;  // smallest grid that reaches that occupancy
  return hipSuccess;
}

}  // namespace detail
}  // namespace hip_on_cuda

/// Block size that maximises occupancy of `f`, and the smallest grid that fills the
/// device at that block size. `blockSizeLimit` 0 means no limit.
inline hipError_t hipOccupancyMaxPotentialBlockSize(int* gridSize, int* blockSize, const void* f,
                                                    size_t dynSharedMemPerBlk, int blockSizeLimit) {
  return hip_on_cuda::detail::max_potential_block_size(gridSize, blockSize, f, dynSharedMemPerBlk,
                                                       blockSizeLimit, hipOccupancyDefault);
}

template <typename T>
inline hipError_t hipOccupancyMaxPotentialBlockSize(int* gridSize, int* blockSize, T f,
                                                    size_t dynSharedMemPerBlk = 0,
                                                    int blockSizeLimit = 0) {
  return hip_on_cuda::detail::max_potential_block_size(
      gridSize, blockSize, reinterpret_cast<const void*>(f), dynSharedMemPerBlk, blockSizeLimit,
      hipOccupancyDefault);
}

template <typename T>
inline hipError_t hipOccupancyMaxPotentialBlockSizeWithFlags(int* gridSize, int* blockSize, T f,
                                                             size_t dynSharedMemPerBlk = 0,
                                                             int blockSizeLimit = 0,
                                                             unsigned int flags = 0) {
  return hip_on_cuda::detail::max_potential_block_size(gridSize, blockSize,
                                                       reinterpret_cast<const void*>(f),
                                                       dynSharedMemPerBlk, blockSizeLimit, flags);
}

template <class T>
inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, T f, int blockSize,
                                                               size_t dynSharedMemPerBlk) {
  return hipOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, reinterpret_cast<const void*>(f),
                                                      blockSize, dynSharedMemPerBlk);
}

template <class T>
inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, T f,
                                                                        int blockSize,
                                                                        size_t dynSharedMemPerBlk,
                                                                        unsigned int flags) {
  return hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
      numBlocks, reinterpret_cast<const void*>(f), blockSize, dynSharedMemPerBlk, flags);
}

#endif  // HIP_ON_CUDA_OCCUPANCY_H
