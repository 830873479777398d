#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "hip_lessons/stats.hpp"

using hip_lessons::summarize;

TEST(Stats, OddCountMedianIsMiddleSample) {
  const auto s = summarize({5.0, 1.0, 3.0});
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.median, 3.0);
  EXPECT_DOUBLE_EQ(s.max, 5.0);
  EXPECT_DOUBLE_EQ(s.mean, 3.0);
  EXPECT_EQ(s.count, 3u);
}

TEST(Stats, EvenCountMedianIsMeanOfMiddlePair) {
  const auto s = summarize({4.0, 1.0, 2.0, 100.0});
  EXPECT_DOUBLE_EQ(s.median, 3.0);
  EXPECT_DOUBLE_EQ(s.mean, 26.75);
}

TEST(Stats, OneOutlierMovesMeanNotMedian) {
  const auto s = summarize({1.0, 1.0, 1.0, 1.0, 50.0});
  EXPECT_DOUBLE_EQ(s.median, 1.0);
  EXPECT_GT(s.mean, 10.0);
}

TEST(Stats, RejectsEmptyAndNaN) {
  EXPECT_THROW(summarize({}), std::invalid_argument);
  EXPECT_THROW(summarize({1.0, std::nan("")}), std::invalid_argument);
}

TEST(Stats, TerabytesPerSecond) {
  // 3 GB in 1 ms is 3 TB/s.
  EXPECT_DOUBLE_EQ(hip_lessons::terabytes_per_second(3e9, 1.0), 3.0);
  EXPECT_THROW(hip_lessons::terabytes_per_second(1.0, 0.0), std::invalid_argument);
}
