/// \file timing.hpp
/// \brief Event timing with warm-up and repeats, giving the median.
///
/// GPU work is asynchronous, so host clocks around a launch measure the launch, not the
/// kernel. Events recorded into the stream bracket the device work itself. Warm-up runs
/// keep module loading and first-touch costs out of the numbers.
#pragma once

#include <hip/hip_runtime.h>

#include <array>
#include <chrono>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/options.hpp"
#include "hip_lessons/stats.hpp"
#include "hip_lessons/streams.hpp"

namespace hip_lessons {

/// How many untimed warm-up runs and timed repeats a measurement makes; no repeats: untimed.
struct TimingPlan {
  int warmup = 0;
  int repeats = 0;
};

/// Times \p enqueue_work, which must enqueue its work onto \p stream, with events recorded
/// in that stream around each repeat. Returns the median milliseconds per repeat.
template <class Work>
double time_on_stream(hipStream_t stream, const TimingPlan& plan, Work&& enqueue_work) {
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
  return median(std::move(samples));
}

/// How a lesson runs each workload in its mode: timed in the tour and under --speed-check
/// (warm-up, then the median of --repeat event-timed repeats), once and waited for under
/// --check, which measures nothing. The lesson's steps are the same code in every mode: what
/// they measure is an empty optional under --check, and a table shows it as "-".
class RunOrTime {
 public:
  explicit RunOrTime(const CommonOptions& options)
      : plan_{3, options.timed() ? options.repeat : 0} {}
  /// Times by \p plan; RunOrTime() runs once, untimed (as a traced run is).
  explicit RunOrTime(TimingPlan plan = {}) : plan_(plan) {}

  /// Whether this run measures time.
  bool timed() const { return plan_.repeats > 0; }

  /// Runs \p enqueue_work (which enqueues onto \p stream) and returns the median milliseconds
  /// by events on \p stream; under --check runs it once, waits for \p stream and returns
  /// nothing.
  template <class Work>
  std::optional<double> on_stream(hipStream_t stream, Work&& enqueue_work) const {
    if (timed()) return time_on_stream(stream, plan_, enqueue_work);
    enqueue_work();
    HIP_CHECK(hipStreamSynchronize(stream));
    return std::nullopt;
  }

  /// Runs \p round, which times its own parts (each stream's events, say) and returns their
  /// milliseconds as a std::array, and returns each part's median; under --check runs it once
  /// and returns nothing.
  template <class Round>
  auto medians(Round&& round) const {
    constexpr std::size_t kParts = std::tuple_size_v<decltype(round())>;
    std::array<std::optional<double>, kParts> result{};
    if (!timed()) {
      round();
      return result;
    }
    std::array<std::vector<double>, kParts> samples;
    for (int r = 0; r < plan_.warmup + plan_.repeats; ++r) {
      const auto ms = round();
      if (r < plan_.warmup) continue;  // warm-ups are run, not kept
      for (std::size_t i = 0; i < kParts; ++i) samples[i].push_back(ms[i]);
    }
    for (std::size_t i = 0; i < kParts; ++i) result[i] = median(std::move(samples[i]));
    return result;
  }

  /// Runs \p work_and_wait (which itself waits for the GPU: work spread over several
  /// streams, or launch and synchronize costs included) and returns the median milliseconds
  /// by the host clock; under --check runs it once and returns nothing.
  template <class Work>
  std::optional<double> wall(Work&& work_and_wait) const {
    return medians([&] {
      const auto begin = std::chrono::steady_clock::now();
      work_and_wait();
      const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - begin;
      return std::array{ms.count()};
    })[0];
  }

 private:
  TimingPlan plan_;
};

}  // namespace hip_lessons
