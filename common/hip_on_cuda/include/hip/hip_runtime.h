/// \file hip_runtime.h
/// \brief HIP runtime API plus kernel-side names on CUDA 12 and 13 (hip_on_cuda layer).
///
/// The header a `.hip` file includes. It brings the host API (hip_runtime_api.h), the
/// CUDA language support (cuda_runtime.h: __global__, dim3, built-in indices, warpSize,
/// triple-chevron launch) and HIP's kernel-side spellings (hip/hip_on_cuda/kernel.h).
/// Compile `.hip` files as CUDA: `nvcc -x cu -I common/hip_on_cuda/include`.
///
/// The include guard is HIP's own, so the system HIP header is never mixed in.
#ifndef HIP_INCLUDE_HIP_HIP_RUNTIME_H
#define HIP_INCLUDE_HIP_HIP_RUNTIME_H

// HIP's hip_runtime.h makes these available on both platforms; portable code relies
// on it.
#include <assert.h>
#include <hip/hip_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hip/hip_on_cuda/kernel.h"

#endif  // HIP_INCLUDE_HIP_HIP_RUNTIME_H
