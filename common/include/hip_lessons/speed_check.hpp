/// \file speed_check.hpp
/// \brief A speed check declared once: what ratio, which bound, which flag, which threshold.
///
/// A lesson declares each timing ratio it checks with the threshold its build was configured
/// with (the CMake cache variable HIP_LESSONS_<NAME>, passed to the compiler as a macro of the
/// same name). LessonCli turns the declaration into a command-line flag whose default is that
/// number, and Report::step() reports the measured ratio against it: a check under
/// --speed-check, a "the speed test needs ..." line in the tour. So `--help`, ctest and the
/// printed requirement always show the same number.
#pragma once

#include <string>

namespace hip_lessons {

/// Which side of the threshold a ratio must stay on.
enum class Bound { kAtLeast, kAtMost };

/// One declared speed check.
struct SpeedCheck {
  std::string name;  ///< what the ratio compares: "best variant / device-to-device copy"
  std::string flag;  ///< its command-line flag: "--min-copy-ratio"
  Bound bound = Bound::kAtLeast;
  double threshold = 0.0;  ///< the build's default, replaced by the flag's value when given

  bool passes(double ratio) const {
    return bound == Bound::kAtLeast ? ratio >= threshold : ratio <= threshold;
  }
};

/// A ratio that must reach \p threshold.
inline SpeedCheck at_least(std::string name, std::string flag, double threshold) {
  return {std::move(name), std::move(flag), Bound::kAtLeast, threshold};
}
/// A ratio that must stay at or under \p threshold.
inline SpeedCheck at_most(std::string name, std::string flag, double threshold) {
  return {std::move(name), std::move(flag), Bound::kAtMost, threshold};
}

}  // namespace hip_lessons
