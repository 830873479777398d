#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "hip_lessons/validation.hpp"

using hip_lessons::fill_uniform;
using hip_lessons::first_mismatch;
using hip_lessons::Tolerance;

TEST(Validation, SameSeedSameNumbersDifferentSeedDifferent) {
  std::vector<float> a(1000), b(1000), c(1000);
  fill_uniform(a, 42);
  fill_uniform(b, 42);
  fill_uniform(c, 43);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(Validation, FillStaysInRangeAndIsNotConstant) {
  std::vector<float> v(10000);
  fill_uniform(v, 7, -2.0f, 3.0f);
  float lo = v[0], hi = v[0];
  for (float x : v) {
    EXPECT_GE(x, -2.0f);
    EXPECT_LT(x, 3.0f);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  EXPECT_LT(lo, -1.5f);
  EXPECT_GT(hi, 2.5f);
}

// The sequence is this project's own (SplitMix64, top 24 bits): a seed printed by one machine
// reproduces the inputs on another, whatever its standard library.
TEST(Validation, FillIsTheSameSequenceEverywhere) {
  std::vector<float> v(3);
  fill_uniform(v, 0, 0.0f, 1.0f);
  // splitmix64 of seed 0: 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F.
  EXPECT_EQ(v[0], static_cast<float>(0xE220A8397B1DCDAFull >> 40) * 0x1p-24f);
  EXPECT_EQ(v[1], static_cast<float>(0x6E789E6AA1B965F4ull >> 40) * 0x1p-24f);
  EXPECT_EQ(v[2], static_cast<float>(0x06C45D188009454Full >> 40) * 0x1p-24f);
}

TEST(Validation, RandomWordsAreTheUpperHalvesOfTheSameSequence) {
  std::vector<std::uint32_t> w(3);
  hip_lessons::fill_random_words(w, 0);
  EXPECT_EQ(w[0], 0xE220A839u);
  EXPECT_EQ(w[1], 0x6E789E6Au);
  EXPECT_EQ(w[2], 0x06C45D18u);
  std::vector<std::uint32_t> other(3);
  hip_lessons::fill_random_words(other, 1);
  EXPECT_NE(w, other);
}

TEST(Validation, FillNeverReturnsTheUpperBound) {
  // [1, 1 + 2^-23) holds one float: every value must be 1, although lo + span * u rounds up.
  const float hi = std::nextafter(1.0f, 2.0f);
  std::vector<float> v(100000);
  fill_uniform(v, 3, 1.0f, hi);
  for (float x : v) ASSERT_EQ(x, 1.0f);
}

TEST(Validation, EqualVectorsHaveNoMismatch) {
  std::vector<float> a{1.0f, 2.0f, 3.0f};
  EXPECT_FALSE(first_mismatch(a, a).has_value());
  EXPECT_EQ(hip_lessons::describe(first_mismatch(a, a), 3), "3 elements match");
}

TEST(Validation, ReportsFirstMismatchAndCount) {
  std::vector<float> expected{1, 2, 3, 4, 5};
  std::vector<float> actual{1, 2, 9, 4, 7};
  const auto m = first_mismatch(expected, actual);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->index, 2u);
  EXPECT_DOUBLE_EQ(m->expected, 3.0);
  EXPECT_DOUBLE_EQ(m->actual, 9.0);
  EXPECT_EQ(m->mismatches, 2u);
  EXPECT_EQ(hip_lessons::describe(m, 5), "element 2 of 5: expected 3, got 9 (2 elements differ)");
  const auto one = first_mismatch(expected, std::vector<float>{1, 2, 3, 4, 6});
  EXPECT_EQ(hip_lessons::describe(one, 5), "element 4 of 5: expected 5, got 6 (1 element differs)");
}

TEST(Validation, PoisonedNaNNeverMatches) {
  std::vector<float> expected{0.0f, 1.0f};
  std::vector<float> actual(2);
  std::memset(actual.data(), 0xFF, sizeof(float) * actual.size());  // what poison() writes
  ASSERT_TRUE(std::isnan(actual[0]));
  const auto m = first_mismatch(expected, actual, Tolerance{1e30, 1e30});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->mismatches, 2u);
  // NaN on the expected side does not pass either.
  std::vector<float> nan_expected{std::numeric_limits<float>::quiet_NaN()};
  std::vector<float> nan_actual{std::numeric_limits<float>::quiet_NaN()};
  EXPECT_TRUE(first_mismatch(nan_expected, nan_actual).has_value());
}

TEST(Validation, ToleranceIsAbsolutePlusRelative) {
  std::vector<double> expected{100.0};
  EXPECT_FALSE(first_mismatch(expected, std::vector<double>{100.5}, Tolerance{0.0, 0.01}));
  EXPECT_TRUE(first_mismatch(expected, std::vector<double>{102.0}, Tolerance{0.0, 0.01}));
  EXPECT_FALSE(first_mismatch(expected, std::vector<double>{102.0}, Tolerance{1.0, 0.01}));
}

TEST(Validation, SizeDifferenceIsAMismatch) {
  EXPECT_TRUE(first_mismatch(std::vector<int>{1, 2}, std::vector<int>{1}).has_value());
}
