/// \file errors.h
/// \brief Error handling of the hip_on_cuda layer: cudaError_t -> hipError_t mapping,
/// hipGetErrorName / hipGetErrorString, hipGetLastError / hipPeekAtLastError.
///
/// Every wrapper in the layer returns `hipCUDAErrorTohipError(cudaXxx(...))`, so the
/// CUDA runtime's per-thread last error and its sticky errors are the HIP ones:
/// hipGetLastError is cudaGetLastError translated, nothing is tracked twice.
#ifndef HIP_ON_CUDA_ERRORS_H
#define HIP_ON_CUDA_ERRORS_H

#include "hip/hip_on_cuda/types.h"

/// Translates a CUDA runtime error to the HIP error with the same meaning. The table
/// is the one of HIP's own NVIDIA path, plus a few CUDA-only codes that have an
/// obvious HIP counterpart (stub driver -> hipErrorInsufficientDriver, device-side
/// exceptions -> hipErrorLaunchFailure, texture arguments -> hipErrorInvalidValue).
/// Anything else becomes hipErrorUnknown.
inline hipError_t hipCUDAErrorTohipError(cudaError_t cuda_error) {
  switch (cuda_error) {
    case cudaSuccess:
      return hipSuccess;
    case cudaErrorInvalidValue:
    // Texture and channel-descriptor arguments CUDA refuses with codes of their own; HIP
    // has none and reports bad texture arguments as hipErrorInvalidValue.
    case cudaErrorInvalidTexture:
    case cudaErrorInvalidTextureBinding:
    case cudaErrorInvalidChannelDescriptor:
    case cudaErrorInvalidFilterSetting:
    case cudaErrorInvalidNormSetting:
      return hipErrorInvalidValue;
    case cudaErrorMemoryAllocation:
      return hipErrorOutOfMemory;
    case cudaErrorInitializationError:
      return hipErrorNotInitialized;
    case cudaErrorCudartUnloading:
      return hipErrorDeinitialized;
    case cudaErrorProfilerDisabled:
      return hipErrorProfilerDisabled;
    case cudaErrorProfilerNotInitialized:
      return hipErrorProfilerNotInitialized;
    case cudaErrorProfilerAlreadyStarted:
      return hipErrorProfilerAlreadyStarted;
    case cudaErrorProfilerAlreadyStopped:
      return hipErrorProfilerAlreadyStopped;
    case cudaErrorInvalidConfiguration:
      return hipErrorInvalidConfiguration;
    case cudaErrorInvalidPitchValue:
      return hipErrorInvalidPitchValue;
    case cudaErrorInvalidSymbol:
      return hipErrorInvalidSymbol;
    case cudaErrorInvalidDevicePointer:
      return hipErrorInvalidDevicePointer;
    case cudaErrorInvalidMemcpyDirection:
      return hipErrorInvalidMemcpyDirection;
    // A stub libcuda or a driver that is too old: for a HIP program, no usable driver.
    case cudaErrorStubLibrary:
    case cudaErrorInsufficientDriver:
    case cudaErrorCallRequiresNewerDriver:
      return hipErrorInsufficientDriver;
    case cudaErrorMissingConfiguration:
      return hipErrorMissingConfiguration;
    case cudaErrorPriorLaunchFailure:
      return hipErrorPriorLaunchFailure;
    case cudaErrorInvalidDeviceFunction:
      return hipErrorInvalidDeviceFunction;
    case cudaErrorNoDevice:
      return hipErrorNoDevice;
    case cudaErrorInvalidDevice:
      return hipErrorInvalidDevice;
    case cudaErrorInvalidKernelImage:
      return hipErrorInvalidImage;
    case cudaErrorDeviceUninitialized:
      return hipErrorInvalidContext;
    case cudaErrorMapBufferObjectFailed:
      return hipErrorMapFailed;
    case cudaErrorUnmapBufferObjectFailed:
      return hipErrorUnmapFailed;
    case cudaErrorArrayIsMapped:
      return hipErrorArrayIsMapped;
    case cudaErrorAlreadyMapped:
      return hipErrorAlreadyMapped;
    case cudaErrorNoKernelImageForDevice:
      return hipErrorNoBinaryForGpu;
    case cudaErrorAlreadyAcquired:
      return hipErrorAlreadyAcquired;
    case cudaErrorNotMapped:
      return hipErrorNotMapped;
    case cudaErrorNotMappedAsArray:
      return hipErrorNotMappedAsArray;
    case cudaErrorNotMappedAsPointer:
      return hipErrorNotMappedAsPointer;
    case cudaErrorECCUncorrectable:
      return hipErrorECCNotCorrectable;
    case cudaErrorUnsupportedLimit:
      return hipErrorUnsupportedLimit;
    case cudaErrorDeviceAlreadyInUse:
      return hipErrorContextAlreadyInUse;
    case cudaErrorPeerAccessUnsupported:
      return hipErrorPeerAccessUnsupported;
    case cudaErrorInvalidPtx:
      return hipErrorInvalidKernelFile;
    case cudaErrorInvalidGraphicsContext:
      return hipErrorInvalidGraphicsContext;
    case cudaErrorInvalidSource:
      return hipErrorInvalidSource;
    case cudaErrorFileNotFound:
      return hipErrorFileNotFound;
    case cudaErrorSharedObjectSymbolNotFound:
      return hipErrorSharedObjectSymbolNotFound;
    case cudaErrorSharedObjectInitFailed:
      return hipErrorSharedObjectInitFailed;
    case cudaErrorOperatingSystem:
      return hipErrorOperatingSystem;
    case cudaErrorInvalidResourceHandle:
      return hipErrorInvalidHandle;
    case cudaErrorIllegalState:
      return hipErrorIllegalState;
    case cudaErrorSymbolNotFound:
      return hipErrorNotFound;
    case cudaErrorNotReady:
      return hipErrorNotReady;
    case cudaErrorIllegalAddress:
      return hipErrorIllegalAddress;
    case cudaErrorLaunchOutOfResources:
      return hipErrorLaunchOutOfResources;
    case cudaErrorLaunchTimeout:
      return hipErrorLaunchTimeOut;
    case cudaErrorPeerAccessAlreadyEnabled:
      return hipErrorPeerAccessAlreadyEnabled;
    case cudaErrorPeerAccessNotEnabled:
      return hipErrorPeerAccessNotEnabled;
    case cudaErrorSetOnActiveProcess:
      return hipErrorSetOnActiveProcess;
    case cudaErrorContextIsDestroyed:
      return hipErrorContextIsDestroyed;
    case cudaErrorAssert:
      return hipErrorAssert;
    case cudaErrorHostMemoryAlreadyRegistered:
      return hipErrorHostMemoryAlreadyRegistered;
    case cudaErrorHostMemoryNotRegistered:
      return hipErrorHostMemoryNotRegistered;
    // Device-side exceptions that HIP has no finer code for: the kernel failed.
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
      return hipErrorLaunchFailure;
    case cudaErrorCooperativeLaunchTooLarge:
      return hipErrorCooperativeLaunchTooLarge;
    case cudaErrorNotSupported:
      return hipErrorNotSupported;
    case cudaErrorStreamCaptureUnsupported:
      return hipErrorStreamCaptureUnsupported;
    case cudaErrorStreamCaptureInvalidated:
      return hipErrorStreamCaptureInvalidated;
    case cudaErrorStreamCaptureMerge:
      return hipErrorStreamCaptureMerge;
    case cudaErrorStreamCaptureUnmatched:
      return hipErrorStreamCaptureUnmatched;
    case cudaErrorStreamCaptureUnjoined:
      return hipErrorStreamCaptureUnjoined;
    case cudaErrorStreamCaptureIsolation:
      return hipErrorStreamCaptureIsolation;
    case cudaErrorStreamCaptureImplicit:
      return hipErrorStreamCaptureImplicit;
    case cudaErrorCapturedEvent:
      return hipErrorCapturedEvent;
    case cudaErrorStreamCaptureWrongThread:
      return hipErrorStreamCaptureWrongThread;
    case cudaErrorGraphExecUpdateFailure:
      return hipErrorGraphExecUpdateFailure;
    default:
      return hipErrorUnknown;
  }
}

/// The CUDA error with the same meaning as a HIP error, or cudaErrorUnknown when CUDA
/// has none. Used for error strings; the layer never feeds this back into CUDA.
inline cudaError_t hipErrorToCudaError(hipError_t hip_error) {
  switch (hip_error) {
    case hipSuccess:
      return cudaSuccess;
    case hipErrorInvalidValue:
      return cudaErrorInvalidValue;
    case hipErrorOutOfMemory:
      return cudaErrorMemoryAllocation;
    case hipErrorNotInitialized:
      return cudaErrorInitializationError;
    case hipErrorDeinitialized:
      return cudaErrorCudartUnloading;
    case hipErrorProfilerDisabled:
      return cudaErrorProfilerDisabled;
    case hipErrorProfilerNotInitialized:
      return cudaErrorProfilerNotInitialized;
    case hipErrorProfilerAlreadyStarted:
      return cudaErrorProfilerAlreadyStarted;
    case hipErrorProfilerAlreadyStopped:
      return cudaErrorProfilerAlreadyStopped;
    case hipErrorInvalidConfiguration:
      return cudaErrorInvalidConfiguration;
    case hipErrorInvalidPitchValue:
      return cudaErrorInvalidPitchValue;
    case hipErrorInvalidSymbol:
      return cudaErrorInvalidSymbol;
    case hipErrorInvalidDevicePointer:
      return cudaErrorInvalidDevicePointer;
    case hipErrorInvalidMemcpyDirection:
      return cudaErrorInvalidMemcpyDirection;
    case hipErrorInsufficientDriver:
      return cudaErrorInsufficientDriver;
    case hipErrorMissingConfiguration:
      return cudaErrorMissingConfiguration;
    case hipErrorPriorLaunchFailure:
      return cudaErrorPriorLaunchFailure;
    case hipErrorInvalidDeviceFunction:
      return cudaErrorInvalidDeviceFunction;
    case hipErrorNoDevice:
      return cudaErrorNoDevice;
    case hipErrorInvalidDevice:
      return cudaErrorInvalidDevice;
    case hipErrorInvalidImage:
      return cudaErrorInvalidKernelImage;
    case hipErrorInvalidContext:
      return cudaErrorDeviceUninitialized;
    case hipErrorMapFailed:
      return cudaErrorMapBufferObjectFailed;
    case hipErrorUnmapFailed:
      return cudaErrorUnmapBufferObjectFailed;
    case hipErrorArrayIsMapped:
      return cudaErrorArrayIsMapped;
    case hipErrorAlreadyMapped:
      return cudaErrorAlreadyMapped;
    case hipErrorNoBinaryForGpu:
      return cudaErrorNoKernelImageForDevice;
    case hipErrorAlreadyAcquired:
      return cudaErrorAlreadyAcquired;
    case hipErrorNotMapped:
      return cudaErrorNotMapped;
    case hipErrorNotMappedAsArray:
      return cudaErrorNotMappedAsArray;
    case hipErrorNotMappedAsPointer:
      return cudaErrorNotMappedAsPointer;
    case hipErrorECCNotCorrectable:
      return cudaErrorECCUncorrectable;
    case hipErrorUnsupportedLimit:
      return cudaErrorUnsupportedLimit;
    case hipErrorContextAlreadyInUse:
      return cudaErrorDeviceAlreadyInUse;
    case hipErrorPeerAccessUnsupported:
      return cudaErrorPeerAccessUnsupported;
    case hipErrorInvalidKernelFile:
      return cudaErrorInvalidPtx;
    case hipErrorInvalidGraphicsContext:
      return cudaErrorInvalidGraphicsContext;
    case hipErrorInvalidSource:
      return cudaErrorInvalidSource;
    case hipErrorFileNotFound:
      return cudaErrorFileNotFound;
    case hipErrorSharedObjectSymbolNotFound:
      return cudaErrorSharedObjectSymbolNotFound;
    case hipErrorSharedObjectInitFailed:
      return cudaErrorSharedObjectInitFailed;
    case hipErrorOperatingSystem:
      return cudaErrorOperatingSystem;
    case hipErrorInvalidHandle:
      return cudaErrorInvalidResourceHandle;
    case hipErrorIllegalState:
      return cudaErrorIllegalState;
    case hipErrorNotFound:
      return cudaErrorSymbolNotFound;
    case hipErrorNotReady:
      return cudaErrorNotReady;
    case hipErrorIllegalAddress:
      return cudaErrorIllegalAddress;
    case hipErrorLaunchOutOfResources:
      return cudaErrorLaunchOutOfResources;
    case hipErrorLaunchTimeOut:
      return cudaErrorLaunchTimeout;
    case hipErrorPeerAccessAlreadyEnabled:
      return cudaErrorPeerAccessAlreadyEnabled;
    case hipErrorPeerAccessNotEnabled:
      return cudaErrorPeerAccessNotEnabled;
    case hipErrorSetOnActiveProcess:
      return cudaErrorSetOnActiveProcess;
    case hipErrorContextIsDestroyed:
      return cudaErrorContextIsDestroyed;
    case hipErrorAssert:
      return cudaErrorAssert;
    case hipErrorHostMemoryAlreadyRegistered:
      return cudaErrorHostMemoryAlreadyRegistered;
    case hipErrorHostMemoryNotRegistered:
      return cudaErrorHostMemoryNotRegistered;
    case hipErrorLaunchFailure:
      return cudaErrorLaunchFailure;
    case hipErrorCooperativeLaunchTooLarge:
      return cudaErrorCooperativeLaunchTooLarge;
    case hipErrorNotSupported:
      return cudaErrorNotSupported;
    case hipErrorStreamCaptureUnsupported:
      return cudaErrorStreamCaptureUnsupported;
    case hipErrorStreamCaptureInvalidated:
      return cudaErrorStreamCaptureInvalidated;
    case hipErrorStreamCaptureMerge:
      return cudaErrorStreamCaptureMerge;
    case hipErrorStreamCaptureUnmatched:
      return cudaErrorStreamCaptureUnmatched;
    case hipErrorStreamCaptureUnjoined:
      return cudaErrorStreamCaptureUnjoined;
    case hipErrorStreamCaptureIsolation:
      return cudaErrorStreamCaptureIsolation;
    case hipErrorStreamCaptureImplicit:
      return cudaErrorStreamCaptureImplicit;
    case hipErrorCapturedEvent:
      return cudaErrorCapturedEvent;
    case hipErrorStreamCaptureWrongThread:
      return cudaErrorStreamCaptureWrongThread;
    case hipErrorGraphExecUpdateFailure:
      return cudaErrorGraphExecUpdateFailure;
    default:
      return cudaErrorUnknown;
  }
}

/// The enumerator name of a HIP error ("hipErrorInvalidValue"). Where HIP has a
/// deprecated alias the current name is returned. Unknown values: "hipErrorUnknown".
inline const char* hipGetErrorName(hipError_t hip_error) {
  switch (hip_error) {
#define HIP_ON_CUDA_ERROR_NAME(e) \
  case e:                         \
    return #e;
    HIP_ON_CUDA_ERROR_NAME(hipSuccess)
    HIP_ON_CUDA_ERROR_NAME(hipErrorInvalidValue)
    HIP_ON_CUDA_ERROR_NAME(hipErrorOutOfMemory)
    HIP_ON_CUDA_ERROR_NAME(hipErrorNotInitialized)
    HIP_ON_CUDA_ERROR_NAME(hipErrorDeinitialized)
    HIP_ON_CUDA_ERROR_NAME(hipErrorProfilerDisabled)
    HIP_ON_CUDA_ERROR_NAME(hipErrorProfilerNotInitialized)
    HIP_ON_CUDA_ERROR_NAME(hipErrorProfilerAlreadyStarted)
    HIP_ON_CUDA_ERROR_NAME(hipErrorProfilerAlreadyStopped)
    HIP_ON_CUDA_ERROR_NAME(hipErrorInvalidConfiguration)
    HIP_ON_CUDA_ERROR_NAME(hipErrorInvalidPitchValue)
    HIP_ON_CUDA_ERROR_NAME(hipErrorInvalidSymbol)
    HIP_ON_CUDA_ERROR_NAME(hipErrorInvalidDevicePointer)
    HIP_ON_CUDA_ERROR_NAME(hipErrorInvalidMemcpyDirection)
    HIP_ON_CUDA_ERROR_NAME(hipErrorInsufficientDriver)
    HIP_ON_CUDA_ERROR_NAME(hipErrorMissingConfiguration)
    HIP_ON_CUDA_ERROR_NAME(hipErrorPriorLaunchFailure)
    HIP_ON_CUDA_ERROR_NAME(hipErrorInvalidDeviceFunction)
    HIP_ON_CUDA_ERROR_NAME(hipErrorNoDevice)
    HIP_ON_CUDA_ERROR_NAME(hipErrorInvalidDevice)
    HIP_ON_CUDA_ERROR_NAME(hipErrorInvalidImage)
    HIP_ON_CUDA_ERROR_NAME(hipErrorInvalidContext)
    HIP_ON_CUDA_ERROR_NAME(hipErrorContextAlreadyCurrent)
    HIP_ON_CUDA_ERROR_NAME(hipErrorMapFailed)
    HIP_ON_CUDA_ERROR_NAME(hipErrorUnmapFailed)
    HIP_ON_CUDA_ERROR_NAME(hipErrorArrayIsMapped)
    HIP_ON_CUDA_ERROR_NAME(hipErrorAlreadyMapped)
    HIP_ON_CUDA_ERROR_NAME(hipErrorNoBinaryForGpu)
    HIP_ON_CUDA_ERROR_NAME(hipErrorAlreadyAcquired)
    HIP_ON_CUDA_ERROR_NAME(hipErrorNotMapped)
    HIP_ON_CUDA_ERROR_NAME(hipErrorNotMappedAsArray)
    HIP_ON_CUDA_ERROR_NAME(hipErrorNotMappedAsPointer)
    HIP_ON_CUDA_ERROR_NAME(hipErrorECCNotCorrectable)
    HIP_ON_CUDA_ERROR_NAME(hipErrorUnsupportedLimit)
    HIP_ON_CUDA_ERROR_NAME(hipErrorContextAlreadyInUse)
    HIP_ON_CUDA_ERROR_NAME(hipErrorPeerAccessUnsupported)
    HIP_ON_CUDA_ERROR_NAME(hipErrorInvalidKernelFile)
    HIP_ON_CUDA_ERROR_NAME(hipErrorInvalidGraphicsContext)
    HIP_ON_CUDA_ERROR_NAME(hipErrorInvalidSource)
    HIP_ON_CUDA_ERROR_NAME(hipErrorFileNotFound)
    HIP_ON_CUDA_ERROR_NAME(hipErrorSharedObjectSymbolNotFound)
    HIP_ON_CUDA_ERROR_NAME(hipErrorSharedObjectInitFailed)
    HIP_ON_CUDA_ERROR_NAME(hipErrorOperatingSystem)
    HIP_ON_CUDA_ERROR_NAME(hipErrorInvalidHandle)
    HIP_ON_CUDA_ERROR_NAME(hipErrorIllegalState)
    HIP_ON_CUDA_ERROR_NAME(hipErrorNotFound)
    HIP_ON_CUDA_ERROR_NAME(hipErrorNotReady)
    HIP_ON_CUDA_ERROR_NAME(hipErrorIllegalAddress)
    HIP_ON_CUDA_ERROR_NAME(hipErrorLaunchOutOfResources)
    HIP_ON_CUDA_ERROR_NAME(hipErrorLaunchTimeOut)
    HIP_ON_CUDA_ERROR_NAME(hipErrorPeerAccessAlreadyEnabled)
    HIP_ON_CUDA_ERROR_NAME(hipErrorPeerAccessNotEnabled)
    HIP_ON_CUDA_ERROR_NAME(hipErrorSetOnActiveProcess)
    HIP_ON_CUDA_ERROR_NAME(hipErrorContextIsDestroyed)
    HIP_ON_CUDA_ERROR_NAME(hipErrorAssert)
    HIP_ON_CUDA_ERROR_NAME(hipErrorHostMemoryAlreadyRegistered)
    HIP_ON_CUDA_ERROR_NAME(hipErrorHostMemoryNotRegistered)
    HIP_ON_CUDA_ERROR_NAME(hipErrorLaunchFailure)
    HIP_ON_CUDA_ERROR_NAME(hipErrorCooperativeLaunchTooLarge)
    HIP_ON_CUDA_ERROR_NAME(hipErrorNotSupported)
    HIP_ON_CUDA_ERROR_NAME(hipErrorStreamCaptureUnsupported)
    HIP_ON_CUDA_ERROR_NAME(hipErrorStreamCaptureInvalidated)
    HIP_ON_CUDA_ERROR_NAME(hipErrorStreamCaptureMerge)
    HIP_ON_CUDA_ERROR_NAME(hipErrorStreamCaptureUnmatched)
    HIP_ON_CUDA_ERROR_NAME(hipErrorStreamCaptureUnjoined)
    HIP_ON_CUDA_ERROR_NAME(hipErrorStreamCaptureIsolation)
    HIP_ON_CUDA_ERROR_NAME(hipErrorStreamCaptureImplicit)
    HIP_ON_CUDA_ERROR_NAME(hipErrorCapturedEvent)
    HIP_ON_CUDA_ERROR_NAME(hipErrorStreamCaptureWrongThread)
    HIP_ON_CUDA_ERROR_NAME(hipErrorGraphExecUpdateFailure)
    HIP_ON_CUDA_ERROR_NAME(hipErrorUnknown)
    HIP_ON_CUDA_ERROR_NAME(hipErrorRuntimeMemory)
    HIP_ON_CUDA_ERROR_NAME(hipErrorRuntimeOther)
    HIP_ON_CUDA_ERROR_NAME(hipErrorTbd)
#undef HIP_ON_CUDA_ERROR_NAME
    default:
      return "hipErrorUnknown";
  }
}

/// A readable description of a HIP error. Codes that CUDA also has use CUDA's text
/// (so "invalid argument", "out of memory", ...); the rest have their own.
inline const char* hipGetErrorString(hipError_t hip_error) {
  switch (hip_error) {
    case hipErrorContextAlreadyCurrent:
      return "context is already current";
    case hipErrorRuntimeMemory:
      return "HSA runtime memory error (AMD only)";
    case hipErrorRuntimeOther:
      return "HSA runtime error (AMD only)";
    case hipErrorTbd:
      return "unspecified error (hipErrorTbd)";
    default:
      break;
  }
  const cudaError_t cuda_error = hipErrorToCudaError(hip_error);
  if (cuda_error == cudaErrorUnknown && hip_error != hipErrorUnknown) return "unknown error code";
  return cudaGetErrorString(cuda_error);
}

/// Returns and clears the calling thread's last error (cudaGetLastError).
inline hipError_t hipGetLastError(void) { return hipCUDAErrorTohipError(cudaGetLastError()); }

/// Returns the calling thread's last error without clearing it (cudaPeekAtLastError).
inline hipError_t hipPeekAtLastError(void) { return hipCUDAErrorTohipError(cudaPeekAtLastError()); }

namespace hip_on_cuda {
namespace detail {

/// Short form used by every wrapper.
inline hipError_t map(cudaError_t e) { return hipCUDAErrorTohipError(e); }

}  // namespace detail
}  // namespace hip_on_cuda

#endif  // HIP_ON_CUDA_ERRORS_H
