/// \file hip_version.h
/// \brief HIP version macros of the hip_on_cuda layer (HIP API on CUDA 12 and 13).
///
/// The layer models the HIP 6.0 runtime API: its enum values, error codes, and the
/// R0600 `hipDeviceProp_t`. So it reports HIP 6.0, the same as the real header would,
/// and code that tests `HIP_VERSION_MAJOR >= 6` gets what HIP 6.0 would give it.
/// `HIP_VERSION_PATCH` is 0 (a real ROCm build puts a build number there) and the
/// git hash and build name say which implementation this is, so a report can tell
/// this layer from a ROCm install. `HIP_ON_CUDA_VERSION` versions the layer itself.
///
/// The include guard is HIP's own, so whichever `hip_version.h` comes first wins.
#ifndef HIP_VERSION_H
#define HIP_VERSION_H

#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 0
#define HIP_VERSION_PATCH 0
#define HIP_VERSION_GITHASH "hip_on_cuda"
#define HIP_VERSION_BUILD_ID 0
#define HIP_VERSION_BUILD_NAME "HIP Scheduling Lessons hip_on_cuda layer"
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)

/// Version of the hip_on_cuda layer itself (major * 100 + minor).
#define HIP_ON_CUDA_VERSION_MAJOR 1
#define HIP_ON_CUDA_VERSION_MINOR 0
#define HIP_ON_CUDA_VERSION (HIP_ON_CUDA_VERSION_MAJOR * 100 + HIP_ON_CUDA_VERSION_MINOR)

#endif  // HIP_VERSION_H
