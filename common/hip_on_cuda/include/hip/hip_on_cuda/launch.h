/// \file launch.h
/// \brief Kernel launch and kernel attributes of the hip_on_cuda layer (host side).
///
/// hipLaunchKernel / hipLaunchCooperativeKernel take the kernel's host address as
/// `const void*`, as in HIP. hipFuncGetAttributes returns HIP's hipFuncAttributes (a
/// subset of cudaFuncAttributes, copied field by field). The hipLaunchKernelGGL macro
/// needs the CUDA compiler and lives in kernel.h (included by hip_runtime.h).
/// Multi-device cooperative launch is not provided: CUDA 13 removed it.
#ifndef HIP_ON_CUDA_LAUNCH_H
#define HIP_ON_CUDA_LAUNCH_H

#include "hip/hip_on_cuda/errors.h"

static_assert(hipFuncAttributeMaxDynamicSharedMemorySize ==
                      static_cast<int>(cudaFuncAttributeMaxDynamicSharedMemorySize) &&
                  hipFuncAttributePreferredSharedMemoryCarveout ==
                      static_cast<int>(cudaFuncAttributePreferredSharedMemoryCarveout),
              "hipFuncAttribute and cudaFuncAttribute must agree");

/// Launches `function_address` with the kernel arguments in `args` (one pointer per
/// parameter).
inline hipError_t hipLaunchKernel(const void* function_address, dim3 numBlocks, dim3 dimBlocks,
                                  void** args, size_t sharedMemBytes = 0,
                                  hipStream_t stream = nullptr) {
  return hip_on_cuda::detail::map(
      cudaLaunchKernel(function_address, numBlocks, dimBlocks, args, sharedMemBytes, stream));
}

/// Launch whose blocks may synchronise grid-wide; the grid must fit on the device at
/// once (see hipOccupancyMaxActiveBlocksPerMultiprocessor), else
/// hipErrorCooperativeLaunchTooLarge.
inline hipError_t hipLaunchCooperativeKernel(const void* f, dim3 gridDim, dim3 blockDimX,
                                             void** kernelParams, unsigned int sharedMemBytes,
                                             hipStream_t stream) {
  return hip_on_cuda::detail::map(
      cudaLaunchCooperativeKernel(f, gridDim, blockDimX, kernelParams, sharedMemBytes, stream));
}

template <class T>
inline hipError_t hipLaunchCooperativeKernel(T f, dim3 gridDim, dim3 blockDim, void** kernelParams,
                                             unsigned int sharedMemBytes, hipStream_t stream) {
  return hipLaunchCooperativeKernel(reinterpret_cast<const void*>(f), gridDim, blockDim,
                                    kernelParams, sharedMemBytes, stream);
}

inline hipError_t hipFuncGetAttributes(struct hipFuncAttributes* attr, const void* func) {
  if (attr == nullptr) return hipErrorInvalidValue;
  cudaFuncAttributes a{};
  const cudaError_t e = cudaFuncGetAttributes(&a, func);
  if (e != cudaSuccess) return hip_on_cuda::detail::map(e);
  attr->binaryVersion = a.binaryVersion;
  attr->cacheModeCA = a.cacheModeCA;
  attr->constSizeBytes = a.constSizeBytes;
  attr->localSizeBytes = a.localSizeBytes;
  attr->maxDynamicSharedSizeBytes = a.maxDynamicSharedSizeBytes;
  attr->maxThreadsPerBlock = a.maxThreadsPerBlock;
  attr->numRegs = a.numRegs;
  attr->preferredShmemCarveout = a.preferredShmemCarveout;
  attr->ptxVersion = a.ptxVersion;
  attr->sharedSizeBytes = a.sharedSizeBytes;
  return hipSuccess;
}

inline hipError_t hipFuncSetAttribute(const void* func, hipFuncAttribute attr, int value) {
  if (attr != hipFuncAttributeMaxDynamicSharedMemorySize &&
      attr != hipFuncAttributePreferredSharedMemoryCarveout) {
    return hipErrorInvalidValue;
  }
  return hip_on_cuda::detail::map(
      cudaFuncSetAttribute(func, static_cast<cudaFuncAttribute>(attr), value));
}

inline hipError_t hipFuncSetCacheConfig(const void* func, hipFuncCache_t config) {
  return hip_on_cuda::detail::map(cudaFuncSetCacheConfig(func, static_cast<cudaFuncCache>(config)));
}

/// Bank size is fixed at four bytes on every GPU CUDA 12 supports (the CUDA call is a
/// deprecated no-op), so this only validates `config`.
inline hipError_t hipFuncSetSharedMemConfig(const void* func, hipSharedMemConfig config) {
  if (func == nullptr) return hipErrorInvalidDeviceFunction;
  return (config >= hipSharedMemBankSizeDefault && config <= hipSharedMemBankSizeEightByte)
             ? hipSuccess
             : hipErrorInvalidValue;
}

#endif  // HIP_ON_CUDA_LAUNCH_H
