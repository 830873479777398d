/// \file timing.hpp
/// \brief Event timing with warm-up and repeats, giving min/median/max.
///
/// GPU work is asynchronous, so host clocks around a launch measure the launch, not the
/// kernel. Events recorded into the stream bracket the device work itself. Warm-up runs
/// keep module loading and first-touch costs out of the numbers.
#pragma once

#include <hip/hip_runtime.h>

#include <chrono>
#include <utility>
#include <vector>

#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/stats.hpp"

namespace hip_lessons {

/// How many untimed warm-up runs and timed repeats a measurement makes.
struct TimingPlan {
  int warmup = 3;
  int repeats = 20;
};

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

/// Times \p enqueue_work, which must enqueue its work onto \p stream, with events recorded
/// in that stream around each repeat. Returns milliseconds per repeat.
template <class Work>
Stats time_on_stream(hipStream_t stream, const TimingPlan& plan, Work&& enqueue_work) {
  for (int i = 0; i < plan.warmup; ++i) enqueue_work();
  HIP_CHECK(hipStreamSynchronize(stream));
  GpuEvent start;
  GpuEvent stop;
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(plan.repeats));
  for (int i = 0; i < plan.repeats; ++i) {
    start.record(stream);
    enqueue_work();
    stop.record(stream);
    stop.synchronize();
    samples.push_back(stop.milliseconds_since(start));
  }
  return summarize(std::move(samples));
}

/// Times \p work_and_wait with the host clock; the callable must itself wait for the GPU
/// (for work spread over several streams, or to include launch and synchronize costs).
/// Returns milliseconds per repeat.
template <class Work>
Stats time_wall(const TimingPlan& plan, Work&& work_and_wait) {
  for (int i = 0; i < plan.warmup; ++i) work_and_wait();
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(plan.repeats));
  for (int i = 0; i < plan.repeats; ++i) {
    const auto begin = std::chrono::steady_clock::now();
    work_and_wait();
    const auto end = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::milli>(end - begin).count());
  }
  return summarize(std::move(samples));
}

}  // namespace hip_lessons
