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

/// A HIP event, destroyed with its owner. Move-only.
class GpuEvent {
 public:
  explicit GpuEvent(unsigned int flags = hipEventDefault) {
    HIP_CHECK(hipEventCreateWithFlags(&event_, flags));
  }
  ~GpuEvent() {
    if (event_ != nullptr) (void)hipEventDestroy(event_);
  }
  GpuEvent(GpuEvent&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  GpuEvent& operator=(GpuEvent&&) = delete;
  GpuEvent(const GpuEvent&) = delete;
  GpuEvent& operator=(const GpuEvent&) = delete;

  hipEvent_t get() const noexcept { return event_; }
  void record(hipStream_t stream = nullptr) { HIP_CHECK(hipEventRecord(event_, stream)); }
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

/// A stream created and destroyed with its owner (non-blocking by default, so it never
/// synchronizes implicitly with the legacy default stream). Move-only.
class GpuStream {
 public:
  explicit GpuStream(unsigned int flags = hipStreamNonBlocking) {
    HIP_CHECK(hipStreamCreateWithFlags(&stream_, flags));
  }
  GpuStream(unsigned int flags, int priority) {
    HIP_CHECK(hipStreamCreateWithPriority(&stream_, flags, priority));
  }
  ~GpuStream() {
    if (stream_ != nullptr) (void)hipStreamDestroy(stream_);
  }
  GpuStream(GpuStream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  GpuStream& operator=(GpuStream&&) = delete;
  GpuStream(const GpuStream&) = delete;
  GpuStream& operator=(const GpuStream&) = delete;

  hipStream_t get() const noexcept { return stream_; }
  operator hipStream_t() const noexcept { return stream_; }  // NOLINT: reads like a stream
  void synchronize() { HIP_CHECK(hipStreamSynchronize(stream_)); }

 private:
  hipStream_t stream_ = nullptr;
};

}  // namespace hip_lessons
