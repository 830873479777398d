/// \file validation.hpp
/// \brief Seeded random inputs and element-by-element comparison with a host reference.
///
/// Results are checked on random data (zeros hide unwritten outputs and wrong indexing),
/// after the output was poisoned, and every element is compared; the first mismatch is
/// reported with its index so a wrong tail or a wrong stride is visible at once.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace hip_lessons {

/// A seed drawn from std::random_device, for runs that did not ask for one (--seed).
std::uint64_t random_seed();

/// Fills \p values with uniform random numbers in [lo, hi) (24 random bits each) from
/// SplitMix64 seeded with \p seed. The sequence is defined here, not by the standard library,
/// so a seed gives the same numbers with every compiler and on every machine; about a
/// nanosecond per value, so inputs of 2^28 elements take a fraction of a second.
void fill_uniform(std::vector<float>& values, std::uint64_t seed, float lo = -1.0f,
                  float hi = 1.0f);

/// Fills \p words with random 32-bit words from the same SplitMix64 sequence (the upper 32
/// bits of each value), so integer inputs too are the same for a seed everywhere.
void fill_random_words(std::vector<std::uint32_t>& words, std::uint64_t seed);

/// Allowed difference: |actual - expected| <= absolute + relative * |expected|.
struct Tolerance {
  double absolute = 0.0;
  double relative = 0.0;
};

/// Where and how an output differs from the reference.
struct Mismatch {
  std::size_t index = 0;
  double expected = 0.0;
  double actual = 0.0;
  std::size_t mismatches = 0;  ///< how many elements differ in total
};

/// Compares every element; NaN never matches (a poisoned, unwritten output is a NaN).
/// Returns the first mismatch, or nothing when all elements agree.
template <class T>
std::optional<Mismatch> first_mismatch(const T* expected, const T* actual, std::size_t count,
                                       Tolerance tolerance = {}) {
  static_assert(std::is_arithmetic_v<T>, "first_mismatch compares numbers");
  std::optional<Mismatch> first;
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const double e = static_cast<double>(expected[i]);
    const double a = static_cast<double>(actual[i]);
    const bool close = std::fabs(a - e) <= tolerance.absolute + tolerance.relative * std::fabs(e);
    if (!close) {  // also true when either side is NaN
      if (!first) first = Mismatch{i, e, a, 0};
      ++mismatches;
    }
  }
  if (first) first->mismatches = mismatches;
  return first;
}

/// Vector convenience overload; a size difference is reported as a mismatch at the end.
template <class T>
std::optional<Mismatch> first_mismatch(const std::vector<T>& expected, const std::vector<T>& actual,
                                       Tolerance tolerance = {}) {
  if (expected.size() != actual.size()) {
    return Mismatch{std::min(expected.size(), actual.size()), static_cast<double>(expected.size()),
                    static_cast<double>(actual.size()), 1};
  }
  return first_mismatch(expected.data(), actual.data(), expected.size(), tolerance);
}

/// One line describing a comparison of \p count elements: "1000 elements match", or its first
/// mismatch: "element 257 of 1000: expected 0.5, got nan (3 elements differ)".
std::string describe(const std::optional<Mismatch>& mismatch, std::size_t count);

}  // namespace hip_lessons
