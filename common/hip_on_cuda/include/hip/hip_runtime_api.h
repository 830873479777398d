/// \file hip_runtime_api.h
/// \brief HIP runtime API (host side) on CUDA 12 and 13: the hip_on_cuda layer.
///
/// Debian's HIP NVIDIA headers do not compile against CUDA 13, and newer HIP releases
/// ship none, so the project brings this header-only HIP API for NVIDIA GPUs. It keeps
/// HIP 6.0's names, types, enum values and error codes and implements each call with
/// the CUDA runtime: a wrapper is one inline function returning the CUDA result mapped
/// by hipCUDAErrorTohipError, so hipGetLastError follows CUDA's last-error state.
///
/// Families (one header each under hip/hip_on_cuda/): errors, device, memory, streams,
/// events, launch, module, occupancy, graphs, textures, versions (cooperative groups:
/// hip/hip_cooperative_groups.h). Usable from host-only C++ translation units that link cudart;
/// kernels and hipLaunchKernelGGL need hip/hip_runtime.h. Not provided (see README): AMD-only
/// hipExt* calls, the context driver API (hipCtx*), texture references, surfaces, 3D and
/// mipmapped array calls, IPC, stream memory operations, multi-device cooperative launch.
///
/// The include guard is HIP's own, so the system HIP header is never mixed in.
#ifndef HIP_INCLUDE_HIP_HIP_RUNTIME_API_H
#define HIP_INCLUDE_HIP_HIP_RUNTIME_API_H

#include <hip/hip_common.h>
#include <hip/hip_version.h>

#include <cstring>

#include "hip/hip_on_cuda/device.h"
#include "hip/hip_on_cuda/errors.h"
#include "hip/hip_on_cuda/events.h"
#include "hip/hip_on_cuda/graphs.h"
#include "hip/hip_on_cuda/launch.h"
#include "hip/hip_on_cuda/memory.h"
#include "hip/hip_on_cuda/module.h"
#include "hip/hip_on_cuda/occupancy.h"
#include "hip/hip_on_cuda/streams.h"
#include "hip/hip_on_cuda/textures.h"
#include "hip/hip_on_cuda/types.h"
#include "hip/hip_on_cuda/versions.h"

/// HIP's legacy driver-style status names: an anonymous enum in HIP's own
/// hip_runtime_api.h (HIP 5.2 and 6.x), still tested by common sample helpers
/// (`if (e != HIP_SUCCESS)`). HIP numbers them 0, 1, 2, 3 by enumeration, so only the
/// first two equal their hipError_t namesakes: HIP_ERROR_NOT_INITIALIZED is 2 (not
/// hipErrorNotInitialized, 3) and HIP_ERROR_LAUNCH_OUT_OF_RESOURCES is 3 (not
/// hipErrorLaunchOutOfResources, 701). Kept as HIP has them.
enum {
  HIP_SUCCESS = 0,
  HIP_ERROR_INVALID_VALUE,
  HIP_ERROR_NOT_INITIALIZED,
  HIP_ERROR_LAUNCH_OUT_OF_RESOURCES
};

#endif  // HIP_INCLUDE_HIP_HIP_RUNTIME_API_H
