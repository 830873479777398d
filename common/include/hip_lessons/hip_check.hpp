/// \file hip_check.hpp
/// \brief HIP_CHECK and HIP_CHECK_LAUNCH: turn a failed HIP call into a HipError.
///
/// Kernel launches return nothing, so a bad launch configuration only shows up in
/// hipGetLastError(); HIP_CHECK_LAUNCH() reads it right after the launch so the error
/// names the launch instead of some later, unrelated call.
#pragma once

#include <hip/hip_runtime.h>

#include "hip_lessons/errors.hpp"

namespace hip_lessons {

/// Throws HipError when \p result is not hipSuccess. Use through HIP_CHECK.
inline void check_hip(hipError_t result, const char* call, const char* file, int line) {
  if (result != hipSuccess) {
    throw HipError(call, file, line, hipGetErrorName(result), hipGetErrorString(result));
  }
}

}  // namespace hip_lessons

/// Checks the hipError_t of a HIP call; on failure throws hip_lessons::HipError with the
/// call text, file and line.
#define HIP_CHECK(call) ::hip_lessons::check_hip((call), #call, __FILE__, __LINE__)

/// Checks that the kernel launch just issued was accepted (grid/block limits, resources).
#define HIP_CHECK_LAUNCH() \
  ::hip_lessons::check_hip(hipGetLastError(), "kernel launch", __FILE__, __LINE__)
