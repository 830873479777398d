/// \file driver_api.hpp
/// \brief CUDA driver functions that HIP has no name for (green contexts), on NVIDIA builds.
///
/// Green contexts, the NVIDIA way to run a stream on some SMs only, exist only in the CUDA
/// driver API. Nothing here links libcuda (the CPU machines that build the project have none),
/// so the CUDA runtime hands each function out by name at a driver ABI
/// (cudaGetDriverEntryPointByVersion): green contexts need 12.4, their streams 12.5.
///
///     HIP_LESSONS_DRIVER_FUNCTION(cuGreenCtxCreate, 12040);   // a local cuGreenCtxCreate
///     CU_CHECK(cuGreenCtxCreate(&green, desc, device, CU_GREEN_CTX_DEFAULT_STREAM));
///
/// A function the driver lacks, and CUDA_ERROR_NOT_SUPPORTED (green contexts refused on this
/// GPU or set-up, e.g. under MPS or vGPU), are skips; any other error is a HipError.
#pragma once

#if !defined(__HIP_PLATFORM_AMD__)
#include <cudaTypedefs.h>  // cuda.h, and the PFN_ types of the driver entry points
#include <hip/hip_runtime.h>

#include "hip_lessons/errors.hpp"
#include "hip_lessons/format.hpp"

namespace hip_lessons {

/// Driver function \p name at the CUDA 12.5 ABI. Throws SkipError when the driver has none.
template <class Fn>
Fn driver_function(const char* name) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t e =
      cudaGetDriverEntryPointByVersion(name, &address, 12050, cudaEnableDefault, &found);
  if (e != cudaSuccess || found != cudaDriverEntryPointSuccess) {
    throw SkipError(
        format("the CUDA driver has no {} at the CUDA 12.5 ABI ({}): green contexts "
               "need a 12.5 driver",
               name, cudaGetErrorName(e)));
  }
  return reinterpret_cast<Fn>(address);
}

/// Throws for a failed driver call (see the file comment). Use through CU_CHECK.
inline void check_cu(CUresult result, const char* call, const char* file, int line) {
  if (result == CUDA_SUCCESS) return;
  const char* name = "CUDA_ERROR_UNKNOWN";
  (void)driver_function<PFN_cuGetErrorName_v6000>("cuGetErrorName")(result, &name);
  if (result == CUDA_ERROR_NOT_SUPPORTED) {
    throw SkipError(format("{} reported {}: green contexts are not available on this GPU or set-up",
                           call, name));
  }
  throw HipError(call, file, line, name, "CUDA driver call failed");
}

}  // namespace hip_lessons

/// A local `name` that calls the driver function of that name (type PFN_name_vVERSION of
/// cudaTypedefs.h), so the calls after it read as the driver API does.
#define HIP_LESSONS_DRIVER_FUNCTION(name, version) \
  const auto name = ::hip_lessons::driver_function<PFN_##name##_v##version>(#name)
/// Checks the CUresult of a driver call; see check_cu().
#define CU_CHECK(call) ::hip_lessons::check_cu((call), #call, __FILE__, __LINE__)

#endif  // !__HIP_PLATFORM_AMD__
