/// \file minimal_hip_check.hpp
/// \brief HIP_CHECK and HIP_SKIP_WITHOUT_GPU for the lessons' `minimal.hip` programs.
///
/// A lesson's minimal program is plain HIP, as rocm-examples writes one: no harness, no
/// exceptions, nothing to learn before reading it. These two macros are all it shares: a failed
/// call prints what failed and where and ends the program with exit 1, and a machine without a
/// GPU ends it with exit 77 (a skip for CTest, never a pass). The full lessons use
/// hip_check.hpp instead, whose HIP_CHECK throws so that one place maps errors to exit codes.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>

/// Checks the hipError_t of a HIP call; on failure prints the call, file, line and HIP's error
/// name and exits 1.
#define HIP_CHECK(call)                                                                       \
  do {                                                                                        \
    const hipError_t hip_check_status_ = (call);                                              \
    if (hip_check_status_ != hipSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,          \
                   hipGetErrorName(hip_check_status_), hipGetErrorString(hip_check_status_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

/// Exits 77 with the reason when the runtime sees no GPU (no device, no driver).
#define HIP_SKIP_WITHOUT_GPU()                                                                 \
  do {                                                                                         \
    int hip_device_count_ = 0;                                                                 \
    const hipError_t hip_count_status_ = hipGetDeviceCount(&hip_device_count_);                \
    if (hip_count_status_ != hipSuccess || hip_device_count_ == 0) {                           \
      std::printf(                                                                             \
          "skipped: no GPU (hipGetDeviceCount: %s)\n",                                         \
          hip_count_status_ != hipSuccess ? hipGetErrorName(hip_count_status_) : "0 devices"); \
      std::exit(77);                                                                           \
    }                                                                                          \
  } while (0)
