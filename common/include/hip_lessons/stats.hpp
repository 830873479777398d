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

/// The median of \p samples, of an even count the mean of the two middle ones; throws
/// std::invalid_argument when there is none or one is NaN.
inline double median(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("median: no samples");
  if (std::any_of(samples.begin(), samples.end(), [](double s) { return std::isnan(s); })) {
    throw std::invalid_argument("median: a sample is NaN");
  }
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  return n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

}  // namespace hip_lessons
