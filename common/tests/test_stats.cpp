#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "hip_lessons/stats.hpp"

using hip_lessons::median;

TEST(Stats, OddCountMedianIsMiddleSample) { EXPECT_DOUBLE_EQ(median({5.0, 1.0, 3.0}), 3.0); }

TEST(Stats, EvenCountMedianIsMeanOfMiddlePair) {
  EXPECT_DOUBLE_EQ(median({4.0, 1.0, 2.0, 100.0}), 3.0);
}

TEST(Stats, OneOutlierDoesNotMoveTheMedian) {
  EXPECT_DOUBLE_EQ(median({1.0, 50.0, 1.0, 1.0, 1.0}), 1.0);
}

TEST(Stats, RejectsEmptyAndNaN) {
  EXPECT_THROW(median({}), std::invalid_argument);
  EXPECT_THROW(median({1.0, std::nan("")}), std::invalid_argument);
}
