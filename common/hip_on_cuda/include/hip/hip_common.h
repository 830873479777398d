/// \file hip_common.h
/// \brief Platform macros of the hip_on_cuda layer.
///
/// HIP's own `hip_common.h` picks the platform from the compiler. This layer exists
/// only for NVIDIA, so it always selects `__HIP_PLATFORM_NVIDIA__` (and the older
/// `__HIP_PLATFORM_NVCC__` that pre-5.0 code tests) and refuses an AMD selection.
/// `HIP_LESSONS_HIP_ON_CUDA` tells project code that this layer, not the system
/// HIP, is in use. Same include guard as HIP's file, so only one of the two is used.
#ifndef HIP_INCLUDE_HIP_HIP_COMMON_H
#define HIP_INCLUDE_HIP_HIP_COMMON_H

#if defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__)
#error "hip_on_cuda is the HIP API for NVIDIA GPUs; __HIP_PLATFORM_AMD__ must not be defined"
#endif

#ifndef __HIP_PLATFORM_NVIDIA__
#define __HIP_PLATFORM_NVIDIA__ 1
#endif
#ifndef __HIP_PLATFORM_NVCC__
#define __HIP_PLATFORM_NVCC__ 1
#endif

/// Set when the project's HIP-on-CUDA layer provides the HIP API.
#define HIP_LESSONS_HIP_ON_CUDA 1

// HIP defines __HIPCC__ when a HIP-aware compiler compiles the file; for nvcc that is
// __CUDACC__. __HIP_DEVICE_COMPILE__ marks the device pass, as __CUDA_ARCH__ does.
#if defined(__CUDACC__) && !defined(__HIPCC__)
#define __HIPCC__ 1
#endif
#if defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#define __HIP_DEVICE_COMPILE__ 1
#endif

#if defined(__GNUC__)
#define HIP_PUBLIC_API __attribute__((visibility("default")))
#else
#define HIP_PUBLIC_API
#endif

#endif  // HIP_INCLUDE_HIP_HIP_COMMON_H
