/// \file streams.hpp
/// \brief Streams and events owned by RAII objects: created with their owner, destroyed with it.
///
/// A lesson that returns early (a failed check, a HIP error thrown by HIP_CHECK) still
/// releases every stream and event it created, so the next lesson or test starts clean.
#pragma once

#include <hip/hip_runtime.h>

#include <utility>

#include "hip_lessons/hip_check.hpp"

namespace hip_lessons {

/// A HIP event, destroyed with its owner.
class GpuEvent {
 public:
  GpuEvent() { HIP_CHECK(hipEventCreateWithFlags(&event_, hipEventDefault)); }
  ~GpuEvent() { (void)hipEventDestroy(event_); }
  GpuEvent(const GpuEvent&) = delete;
  GpuEvent& operator=(const GpuEvent&) = delete;

  void record(hipStream_t stream) { HIP_CHECK(hipEventRecord(event_, stream)); }
  void synchronize() { HIP_CHECK(hipEventSynchronize(event_)); }
  /// Milliseconds from \p start to this event; both must have completed.
  float milliseconds_since(const GpuEvent& start) const {
    float ms = 0.0f;
    HIP_CHECK(hipEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

 private:
  hipEvent_t event_ = nullptr;
};

/// A non-blocking stream (it never synchronizes implicitly with the legacy default stream),
/// created and destroyed with its owner. Move-only.
class GpuStream {
 public:
  GpuStream() { HIP_CHECK(hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking)); }
  ~GpuStream() {
    if (stream_ != nullptr) (void)hipStreamDestroy(stream_);
  }
  GpuStream(GpuStream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  GpuStream& operator=(GpuStream&&) = delete;
  GpuStream(const GpuStream&) = delete;
  GpuStream& operator=(const GpuStream&) = delete;

  operator hipStream_t() const noexcept { return stream_; }  // NOLINT: reads like a stream

 private:
  hipStream_t stream_ = nullptr;
};

}  // namespace hip_lessons
