/// \file versions.h
/// \brief Runtime and driver versions of the hip_on_cuda layer.
///
/// As in HIP's own NVIDIA path, hipRuntimeGetVersion reports the CUDA runtime version
/// (e.g. 13000) and hipDriverGetVersion the CUDA driver version (0 without a driver).
/// The HIP API level this layer models is HIP_VERSION in hip/hip_version.h.
#ifndef HIP_ON_CUDA_VERSIONS_H
#define HIP_ON_CUDA_VERSIONS_H

#include "hip/hip_on_cuda/errors.h"

inline hipError_t hipRuntimeGetVersion(int* runtimeVersion) {
  return hip_on_cuda::detail::map(cudaRuntimeGetVersion(runtimeVersion));
}

inline hipError_t hipDriverGetVersion(int* driverVersion) {
  return hip_on_cuda::detail::map(cudaDriverGetVersion(driverVersion));
}

#endif  // HIP_ON_CUDA_VERSIONS_H
