/// \file events.h
/// \brief Events of the hip_on_cuda layer.
///
/// hipEvent_t is cudaEvent_t and the creation flags have CUDA's values, so this family
/// is a direct mapping. hipEventReleaseToDevice / hipEventReleaseToSystem (AMD memory
/// scopes) are 0 here, as in HIP's own NVIDIA path.
#ifndef HIP_ON_CUDA_EVENTS_H
#define HIP_ON_CUDA_EVENTS_H

#include "hip/hip_on_cuda/errors.h"

static_assert(hipEventDefault == cudaEventDefault &&
                  hipEventBlockingSync == cudaEventBlockingSync &&
                  hipEventDisableTiming == cudaEventDisableTiming &&
                  hipEventInterprocess == cudaEventInterprocess,
              "hipEvent* and cudaEvent* flags must agree");

inline hipError_t hipEventCreate(hipEvent_t* event) {
  return hip_on_cuda::detail::map(cudaEventCreate(event));
}

/// `flags`: hipEventDefault, hipEventBlockingSync (waiting thread sleeps instead of
/// spinning), hipEventDisableTiming, hipEventInterprocess (with DisableTiming).
inline hipError_t hipEventCreateWithFlags(hipEvent_t* event, unsigned flags) {
  return hip_on_cuda::detail::map(cudaEventCreateWithFlags(event, flags));
}

inline hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream = nullptr) {
  return hip_on_cuda::detail::map(cudaEventRecord(event, stream));
}

/// hipSuccess when the recorded work is done, hipErrorNotReady otherwise.
inline hipError_t hipEventQuery(hipEvent_t event) {
  return hip_on_cuda::detail::map(cudaEventQuery(event));
}

inline hipError_t hipEventSynchronize(hipEvent_t event) {
  return hip_on_cuda::detail::map(cudaEventSynchronize(event));
}

/// Milliseconds between two completed events (about 0.5 us resolution on NVIDIA).
inline hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
  return hip_on_cuda::detail::map(cudaEventElapsedTime(ms, start, stop));
}

inline hipError_t hipEventDestroy(hipEvent_t event) {
  return hip_on_cuda::detail::map(cudaEventDestroy(event));
}

#endif  // HIP_ON_CUDA_EVENTS_H
