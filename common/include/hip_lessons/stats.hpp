/// \file stats.hpp
/// \brief The median of repeated timings.
///
/// Speed checks compare medians: one slow repeat (a clock ramp, a page fault) moves the
/// mean but not the median.
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace hip_lessons {

/// What a set of samples is summarized by, in the samples' unit (milliseconds for timings).
struct Stats {
  double median = 0.0;
};

/// Summarizes \p samples; throws std::invalid_argument when it is empty or has a NaN.
/// The median of an even count is the mean of the two middle samples.
inline Stats summarize(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("summarize: no samples");
  if (std::any_of(samples.begin(), samples.end(), [](double s) { return std::isnan(s); })) {
    throw std::invalid_argument("summarize: a sample is NaN");
  }
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  return {n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2])};
}

}  // namespace hip_lessons
