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

/// Translates a CUresult (cuda.h numbering) to a HIP error. HIP numbers its errors as
/// the driver does, so a code HIP also has maps to itself; this is the set of HIP's own
/// NVIDIA path (hipCUResultTohipError) plus the driver codes that the runtime mapping
/// (errors.h) also folds: device-side exceptions are hipErrorLaunchFailure, a stub or
/// mismatched driver hipErrorInsufficientDriver. Anything else is hipErrorUnknown.
inline hipError_t map_driver_result(int result) {
  switch (result) {
    case 0:    // CUDA_SUCCESS
    case 1:    // CUDA_ERROR_INVALID_VALUE
    case 2:    // CUDA_ERROR_OUT_OF_MEMORY
    case 3:    // CUDA_ERROR_NOT_INITIALIZED
    case 4:    // CUDA_ERROR_DEINITIALIZED
    case 5:    // CUDA_ERROR_PROFILER_DISABLED
    case 6:    // CUDA_ERROR_PROFILER_NOT_INITIALIZED
    case 7:    // CUDA_ERROR_PROFILER_ALREADY_STARTED
    case 8:    // CUDA_ERROR_PROFILER_ALREADY_STOPPED
    case 100:  // CUDA_ERROR_NO_DEVICE
    case 101:  // CUDA_ERROR_INVALID_DEVICE
    case 200:  // CUDA_ERROR_INVALID_IMAGE
    case 201:  // CUDA_ERROR_INVALID_CONTEXT
    case 202:  // CUDA_ERROR_CONTEXT_ALREADY_CURRENT
    case 205:  // CUDA_ERROR_MAP_FAILED
    case 206:  // CUDA_ERROR_UNMAP_FAILED
    case 207:  // CUDA_ERROR_ARRAY_IS_MAPPED
    case 208:  // CUDA_ERROR_ALREADY_MAPPED
    case 209:  // CUDA_ERROR_NO_BINARY_FOR_GPU
    case 210:  // CUDA_ERROR_ALREADY_ACQUIRED
    case 211:  // CUDA_ERROR_NOT_MAPPED
    case 212:  // CUDA_ERROR_NOT_MAPPED_AS_ARRAY
    case 213:  // CUDA_ERROR_NOT_MAPPED_AS_POINTER
    case 214:  // CUDA_ERROR_ECC_UNCORRECTABLE
    case 215:  // CUDA_ERROR_UNSUPPORTED_LIMIT
    case 216:  // CUDA_ERROR_CONTEXT_ALREADY_IN_USE
    case 217:  // CUDA_ERROR_PEER_ACCESS_UNSUPPORTED
    case 218:  // CUDA_ERROR_INVALID_PTX -> hipErrorInvalidKernelFile
    case 219:  // CUDA_ERROR_INVALID_GRAPHICS_CONTEXT
    case 300:  // CUDA_ERROR_INVALID_SOURCE
    case 301:  // CUDA_ERROR_FILE_NOT_FOUND
    case 302:  // CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND
    case 303:  // CUDA_ERROR_SHARED_OBJECT_INIT_FAILED
    case 304:  // CUDA_ERROR_OPERATING_SYSTEM
    case 400:  // CUDA_ERROR_INVALID_HANDLE
    case 401:  // CUDA_ERROR_ILLEGAL_STATE
    case 500:  // CUDA_ERROR_NOT_FOUND
    case 600:  // CUDA_ERROR_NOT_READY
    case 700:  // CUDA_ERROR_ILLEGAL_ADDRESS
    case 701:  // CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
    case 702:  // CUDA_ERROR_LAUNCH_TIMEOUT
    case 704:  // CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED
    case 705:  // CUDA_ERROR_PEER_ACCESS_NOT_ENABLED
    case 708:  // CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE -> hipErrorSetOnActiveProcess
    case 709:  // CUDA_ERROR_CONTEXT_IS_DESTROYED
    case 710:  // CUDA_ERROR_ASSERT
    case 712:  // CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
    case 713:  // CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED
    case 719:  // CUDA_ERROR_LAUNCH_FAILED
    case 720:  // CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
    case 801:  // CUDA_ERROR_NOT_SUPPORTED
    case 900:  // CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
    case 901:  // CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
    case 902:  // CUDA_ERROR_STREAM_CAPTURE_MERGE
    case 903:  // CUDA_ERROR_STREAM_CAPTURE_UNMATCHED
    case 904:  // CUDA_ERROR_STREAM_CAPTURE_UNJOINED
    case 905:  // CUDA_ERROR_STREAM_CAPTURE_ISOLATION
    case 906:  // CUDA_ERROR_STREAM_CAPTURE_IMPLICIT
    case 907:  // CUDA_ERROR_CAPTURED_EVENT
    case 908:  // CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD
    case 910:  // CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE
      return static_cast<hipError_t>(result);
    case 34:   // CUDA_ERROR_STUB_LIBRARY
    case 803:  // CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
      return hipErrorInsufficientDriver;
    case 714:  // CUDA_ERROR_HARDWARE_STACK_ERROR
    case 715:  // CUDA_ERROR_ILLEGAL_INSTRUCTION
    case 716:  // CUDA_ERROR_MISALIGNED_ADDRESS
    case 717:  // CUDA_ERROR_INVALID_ADDRESS_SPACE
    case 718:  // CUDA_ERROR_INVALID_PC
      return hipErrorLaunchFailure;
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
