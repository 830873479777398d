/// \file kernel.h
/// \brief Kernel-side HIP names of the hip_on_cuda layer (needs nvcc; included by
/// hip/hip_runtime.h).
///
/// CUDA already provides __global__, __shared__, __syncthreads, atomics, warpSize (a
/// device built-in in CUDA 12 and 13), __launch_bounds__ and the triple-chevron launch.
/// This header adds HIP's spellings: hipThreadIdx_x & co, HIP_DYNAMIC_SHARED,
/// hipLaunchKernelGGL, and the mask-less warp intrinsics. HIP's __shfl*, __any, __all
/// and __ballot act on the whole wavefront; on NVIDIA that is the full-warp mask.
/// Like on AMD, a mask-less intrinsic must be reached by every lane of the warp.
/// HIP's __ballot returns a 64-bit mask (AMD wavefronts can be 64 wide); here the upper
/// 32 bits are zero.
#ifndef HIP_ON_CUDA_KERNEL_H
#define HIP_ON_CUDA_KERNEL_H

#if !defined(__CUDACC__)
#error "hip/hip_runtime.h on the hip_on_cuda layer needs the CUDA compiler (nvcc -x cu)"
#endif

#include <cuda_runtime.h>
// These declare __shfl overloads for half types; they must be parsed before the
// function-like macros below exist.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// --- launch ----------------------------------------------------------------------------

/// Wraps a kernel name that contains commas (template arguments) for hipLaunchKernelGGL.
#define HIP_KERNEL_NAME(...) __VA_ARGS__

#define hipLaunchKernelGGLInternal(kernelName, numBlocks, numThreads, memPerBlock, streamId, ...) \
  do {                                                                                            \
    kernelName<<<(numBlocks), (numThreads), (memPerBlock), (streamId)>>>(__VA_ARGS__);            \
  } while (0)

/// hipLaunchKernelGGL(kernel, grid, block, dynamicSharedBytes, stream, args...): the
/// portable spelling of kernel<<<grid, block, dynamicSharedBytes, stream>>>(args...).
#define hipLaunchKernelGGL(kernelName, ...) hipLaunchKernelGGLInternal((kernelName), __VA_ARGS__)

// --- indices ---------------------------------------------------------------------------

#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z

// --- memory ----------------------------------------------------------------------------

/// Declares the kernel's dynamic shared memory (size given at launch).
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

/// Address of a __device__ / __constant__ variable for hipMemcpyToSymbol & co.
#define HIP_SYMBOL(X) &X

// --- warp (wavefront) intrinsics without masks -----------------------------------------

#define HIP_ON_CUDA_FULL_WARP_MASK 0xffffffffu
#define __shfl(...) __shfl_sync(HIP_ON_CUDA_FULL_WARP_MASK, __VA_ARGS__)
#define __shfl_up(...) __shfl_up_sync(HIP_ON_CUDA_FULL_WARP_MASK, __VA_ARGS__)
#define __shfl_down(...) __shfl_down_sync(HIP_ON_CUDA_FULL_WARP_MASK, __VA_ARGS__)
#define __shfl_xor(...) __shfl_xor_sync(HIP_ON_CUDA_FULL_WARP_MASK, __VA_ARGS__)
// Votes. CUDA still declares mask-less __any/__all/__ballot, but only for targets below
// compute_70, so they are macros here too. Caveat: libcu++ (CUB, Thrust, <cuda/std/...>)
// has a type named __any; include those headers before hip/hip_runtime.h, or define
// HIP_ON_CUDA_NO_VOTE_MACROS and use the *_sync forms.
#if !defined(HIP_ON_CUDA_NO_VOTE_MACROS)
#define __any(predicate) __any_sync(HIP_ON_CUDA_FULL_WARP_MASK, (predicate))
#define __all(predicate) __all_sync(HIP_ON_CUDA_FULL_WARP_MASK, (predicate))
#define __ballot(predicate) \
  (static_cast<unsigned long long>(__ballot_sync(HIP_ON_CUDA_FULL_WARP_MASK, (predicate))))
#endif

/// Lane index within the warp (HIP's __lane_id).
__device__ inline unsigned int __lane_id() {
  unsigned int lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

// --- clocks ----------------------------------------------------------------------------

#define __clock() clock()
#define __clock64() clock64()

/// HIP's constant-rate device clock. On NVIDIA it reads %globaltimer, which counts
/// nanoseconds (so hipDeviceAttributeWallClockRate is 10^6 kHz here); its value advances in
/// steps (32 ns seen on an H200), not every nanosecond.
__device__ inline long long int wall_clock64() {
  unsigned long long nanoseconds;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(nanoseconds));
  return static_cast<long long int>(nanoseconds);
}

/// The multiprocessor the calling thread runs on (HIP's __smid; PTX %smid, 0..SM count - 1
/// on current GPUs). On AMD the same function returns a hardware id of shader engine and
/// compute unit (and XCC on gfx94x), not a dense index.
__device__ inline unsigned __smid(void) {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// --- HIP's explicit-precision atomics --------------------------------------------------

/// HIP's unsafeAtomicAdd / safeAtomicAdd choose between fast and IEEE-exact float
/// atomics on AMD; NVIDIA's atomicAdd is both, so both map to it.
template <typename T>
__device__ inline T unsafeAtomicAdd(T* address, T value) {
  return atomicAdd(address, value);
}
template <typename T>
__device__ inline T safeAtomicAdd(T* address, T value) {
  return atomicAdd(address, value);
}

#endif  // HIP_ON_CUDA_KERNEL_H
