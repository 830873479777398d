/// \file streams.h
/// \brief Streams of the hip_on_cuda layer.
///
/// hipStream_t is cudaStream_t, so streams made here work in triple-chevron launches
/// and CUDA libraries. The one real translation is hipStreamAddCallback: HIP's callback
/// receives a hipError_t, CUDA's a cudaError_t, so the layer registers a small
/// trampoline that translates the status and then calls the HIP callback.
#ifndef HIP_ON_CUDA_STREAMS_H
#define HIP_ON_CUDA_STREAMS_H

#include "hip/hip_on_cuda/errors.h"

static_assert(hipStreamDefault == cudaStreamDefault &&
                  hipStreamNonBlocking == cudaStreamNonBlocking,
              "hipStream* and cudaStream* flags must agree");

namespace hip_on_cuda {
namespace detail {

struct StreamCallback {
  hipStreamCallback_t callback;
  void* user_data;
};

inline void CUDART_CB stream_callback_trampoline(cudaStream_t stream, cudaError_t status,
                                                 void* data) {
  const StreamCallback call = *static_cast<StreamCallback*>(data);
  delete static_cast<StreamCallback*>(data);
  call.callback(stream, hipCUDAErrorTohipError(status), call.user_data);
}

}  // namespace detail
}  // namespace hip_on_cuda

inline hipError_t hipStreamCreate(hipStream_t* stream) {
  return hip_on_cuda::detail::map(cudaStreamCreate(stream));
}

/// `flags`: hipStreamDefault (synchronises with the null stream) or hipStreamNonBlocking.
inline hipError_t hipStreamCreateWithFlags(hipStream_t* stream, unsigned int flags) {
  return hip_on_cuda::detail::map(cudaStreamCreateWithFlags(stream, flags));
}

/// Lower numbers are higher priority; see hipDeviceGetStreamPriorityRange.
inline hipError_t hipStreamCreateWithPriority(hipStream_t* stream, unsigned int flags,
                                              int priority) {
  return hip_on_cuda::detail::map(cudaStreamCreateWithPriority(stream, flags, priority));
}

inline hipError_t hipStreamGetPriority(hipStream_t stream, int* priority) {
  return hip_on_cuda::detail::map(cudaStreamGetPriority(stream, priority));
}

inline hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int* flags) {
  return hip_on_cuda::detail::map(cudaStreamGetFlags(stream, flags));
}

#if CUDART_VERSION >= 12080
/// The device a stream belongs to (cudaStreamGetDevice exists from CUDA 12.8).
inline hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t* device) {
  return hip_on_cuda::detail::map(cudaStreamGetDevice(stream, device));
}
#endif

inline hipError_t hipStreamDestroy(hipStream_t stream) {
  return hip_on_cuda::detail::map(cudaStreamDestroy(stream));
}

/// hipSuccess when all work in the stream is done, hipErrorNotReady otherwise.
inline hipError_t hipStreamQuery(hipStream_t stream) {
  return hip_on_cuda::detail::map(cudaStreamQuery(stream));
}

inline hipError_t hipStreamSynchronize(hipStream_t stream) {
  return hip_on_cuda::detail::map(cudaStreamSynchronize(stream));
}

/// Makes later work in `stream` wait for `event`; `flags` must be 0.
inline hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags = 0) {
  return hip_on_cuda::detail::map(cudaStreamWaitEvent(stream, event, flags));
}

/// Calls `callback(stream, status, userData)` on a host thread once earlier work in
/// `stream` is done. `flags` must be 0. The callback must not call HIP.
inline hipError_t hipStreamAddCallback(hipStream_t stream, hipStreamCallback_t callback,
                                       void* userData, unsigned int flags) {
  if (callback == nullptr) return hipErrorInvalidValue;
  auto* call = new hip_on_cuda::detail::StreamCallback{callback, userData};
  const cudaError_t e =
      cudaStreamAddCallback(stream, hip_on_cuda::detail::stream_callback_trampoline, call, flags);
  if (e != cudaSuccess) delete call;  // never registered, so the trampoline will not free it
  return hip_on_cuda::detail::map(e);
}

/// Enqueues a host function; unlike hipStreamAddCallback it can be graph-captured.
inline hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void* userData) {
  return hip_on_cuda::detail::map(cudaLaunchHostFunc(stream, fn, userData));
}

#endif  // HIP_ON_CUDA_STREAMS_H
