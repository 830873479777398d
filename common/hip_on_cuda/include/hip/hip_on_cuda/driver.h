/// \file driver.h
/// \brief Access to CUDA driver API entry points without linking libcuda (internal).
///
/// A few HIP calls have no CUDA runtime counterpart (hipMemsetD16/D32 are cuMemsetD16/
/// D32). Linking libcuda directly would make every binary need the driver library at
/// load time, also on the CPU-only build machines; instead the entry point is fetched
/// at call time from the runtime (cudaGetDriverEntryPointByVersion, CUDA >= 12.5, or
/// cudaGetDriverEntryPoint before it). Driver results are translated to HIP errors
/// here; note that the CUDA runtime's last-error state does not see driver calls.
#ifndef HIP_ON_CUDA_DRIVER_H
#define HIP_ON_CUDA_DRIVER_H

#include "hip/hip_on_cuda/errors.h"

namespace hip_on_cuda {
namespace detail {

/// CUresult values the driver calls used here can return (cuda.h numbering).
inline hipError_t map_driver_result(int result) {
  switch (result) {
    case 0:
      return hipSuccess;
    case 1:
      return hipErrorInvalidValue;
    case 2:
      return hipErrorOutOfMemory;
    case 3:
      return hipErrorNotInitialized;
    case 4:
      return hipErrorDeinitialized;
    case 100:
      return hipErrorNoDevice;
    case 101:
      return hipErrorInvalidDevice;
    case 201:
      return hipErrorInvalidContext;
    case 400:
      return hipErrorInvalidHandle;
    case 700:
      return hipErrorIllegalAddress;
    case 719:
      return hipErrorLaunchFailure;
    case 801:
      return hipErrorNotSupported;
    case 900:
      return hipErrorStreamCaptureUnsupported;
    case 901:
      return hipErrorStreamCaptureInvalidated;
    default:
      return hipErrorUnknown;
  }
}

/// Looks up driver function `name` at the ABI of CUDA `abi` and stores it in `*fn`. The
/// default, 12.0, suits the calls of this layer; a function added later needs the release
/// that added it (12050 for cuGreenCtxStreamCreate), else the lookup fails with
/// hipErrorNotSupported. Before CUDA 12.5 the runtime's lookup takes no version.
template <typename Fn>
inline hipError_t driver_entry_point(const char* name, Fn* fn, unsigned int abi = 12000) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  const cudaError_t e =
      cudaGetDriverEntryPointByVersion(name, &address, abi, cudaEnableDefault, &status);
#else
  (void)abi;
  const cudaError_t e = cudaGetDriverEntryPoint(name, &address, cudaEnableDefault, &status);
#endif
  if (e != cudaSuccess) return map(e);
  if (status != cudaDriverEntryPointSuccess || address == nullptr) return hipErrorNotSupported;
  *fn = reinterpret_cast<Fn>(address);
  return hipSuccess;
}

/// Driver calls need the primary context current on this thread; the runtime makes it
/// current lazily, so touch it first (cudaSetDevice initialises the primary context).
inline hipError_t make_primary_context_current() {
  int device = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaSetDevice(device);
  return map(e);
}

}  // namespace detail
}  // namespace hip_on_cuda

#endif  // HIP_ON_CUDA_DRIVER_H
