/// \file timing.hpp
/// \brief Event timing with warm-up and repeats, giving the median.
///
/// GPU work is asynchronous, so host clocks around a launch measure the launch, not the
/// kernel. Events recorded into the stream bracket the device work itself. Warm-up runs
/// keep module loading and first-touch costs out of the numbers.
#pragma once

#include <hip/hip_runtime.h>

#include <chrono>
#include <optional>
#include <utility>
#include <vector>

#include "hip_lessons/cli.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/stats.hpp"
#include "hip_lessons/streams.hpp"

namespace hip_lessons {

/// How many untimed warm-up runs and timed repeats a measurement makes.
struct TimingPlan {
  int warmup = 3;
  int repeats = 20;
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

/// How a lesson runs each workload in its mode: timed in the tour and under --speed-check
/// (warm-up, then the median of --repeat event-timed repeats), once and waited for under
/// --check, which measures nothing. The lesson's steps are the same code in every mode: what
/// they measure is an empty optional under --check, and a table shows it as "-".
class RunOrTime {
 public:
  explicit RunOrTime(const CommonOptions& options) {
    if (options.timed()) plan_ = TimingPlan{3, options.repeat};
  }
  explicit RunOrTime(std::optional<TimingPlan> plan) : plan_(plan) {}

  /// Whether this run measures time.
  bool timed() const { return plan_.has_value(); }
  /// The timing plan of a timed run (warm-up and repeats).
  const std::optional<TimingPlan>& plan() const { return plan_; }

  /// Runs \p enqueue_work (which enqueues onto \p stream) and returns the median milliseconds
  /// by events on \p stream; under --check runs it once, waits for \p stream and returns
  /// nothing.
  template <class Work>
  std::optional<double> on_stream(hipStream_t stream, Work&& enqueue_work) const {
    if (plan_) return time_on_stream(stream, *plan_, enqueue_work).median;
    enqueue_work();
    HIP_CHECK(hipStreamSynchronize(stream));
    return std::nullopt;
  }

  /// Runs \p work_and_wait (which itself waits for the GPU: work spread over several
  /// streams, or launch and synchronize costs included) and returns the median milliseconds
  /// by the host clock; under --check runs it once and returns nothing.
  template <class Work>
  std::optional<double> wall(Work&& work_and_wait) const {
    if (!plan_) {
      work_and_wait();
      return std::nullopt;
    }
    for (int i = 0; i < plan_->warmup; ++i) work_and_wait();
    std::vector<double> samples;
    for (int i = 0; i < plan_->repeats; ++i) {
      const auto begin = std::chrono::steady_clock::now();
      work_and_wait();
      samples.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin)
              .count());
    }
    return summarize(std::move(samples)).median;
  }

 private:
  std::optional<TimingPlan> plan_;
};

}  // namespace hip_lessons
