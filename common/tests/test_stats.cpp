#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "hip_lessons/stats.hpp"

using hip_lessons::summarize;

TEST(Stats, OddCountMedianIsMiddleSample) {
  EXPECT_DOUBLE_EQ(summarize({5.0, 1.0, 3.0}).median, 3.0);
}

TEST(Stats, EvenCountMedianIsMeanOfMiddlePair) {
  EXPECT_DOUBLE_EQ(summarize({4.0, 1.0, 2.0, 100.0}).median, 3.0);
}

TEST(Stats, OneOutlierDoesNotMoveTheMedian) {
  EXPECT_DOUBLE_EQ(summarize({1.0, 50.0, 1.0, 1.0, 1.0}).median, 1.0);
}

TEST(Stats, RejectsEmptyAndNaN) {
  EXPECT_THROW(summarize({}), std::invalid_argument);
  EXPECT_THROW(summarize({1.0, std::nan("")}), std::invalid_argument);
}
