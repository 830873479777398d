#include "hip_lessons/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace hip_lessons {

Stats summarize(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("summarize: no samples");
  if (std::any_of(samples.begin(), samples.end(), [](double s) { return std::isnan(s); })) {
    throw std::invalid_argument("summarize: a sample is NaN");
  }
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  Stats stats;
  stats.count = n;
  stats.min = samples.front();
  stats.max = samples.back();
  stats.median = (n % 2 == 1) ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  stats.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
  return stats;
}

double terabytes_per_second(double bytes, double milliseconds) {
  if (milliseconds <= 0.0) throw std::invalid_argument("terabytes_per_second: time <= 0");
  return bytes / (milliseconds * 1e-3) / 1e12;
}

}  // namespace hip_lessons
