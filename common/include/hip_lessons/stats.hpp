/// \file stats.hpp
/// \brief Summary statistics of repeated timings (min, median, max, mean).
///
/// Speed checks compare medians: one slow repeat (a clock ramp, a page fault) moves the
/// mean but not the median.
#pragma once

#include <cstddef>
#include <vector>

namespace hip_lessons {

/// Statistics of a set of samples, in the samples' unit (milliseconds for timings).
struct Stats {
  double min = 0.0;
  double median = 0.0;
  double max = 0.0;
  double mean = 0.0;
  std::size_t count = 0;
};

/// Summarizes \p samples; throws std::invalid_argument when it is empty or has a NaN.
/// The median of an even count is the mean of the two middle samples.
Stats summarize(std::vector<double> samples);

/// Bytes moved per millisecond expressed as terabytes (1e12 bytes) per second.
double terabytes_per_second(double bytes, double milliseconds);

}  // namespace hip_lessons
