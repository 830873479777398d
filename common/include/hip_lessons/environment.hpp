/// \file environment.hpp
/// \brief The environment variables that change how HIP work is scheduled, and their checks.
///
/// These variables are read once, when the runtime starts, so a typo silently does nothing
/// (or hides every GPU). Lesson 01 prints each with what it does and whether its value is
/// valid; later lessons use the same rules.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace hip_lessons {

/// What the project knows about one scheduling-related environment variable.
struct EnvironmentVariable {
  std::string name;
  std::string platform;      ///< "AMD", "NVIDIA" or "both"
  std::string meaning;       ///< what it changes, in one line
  std::string default_value; ///< what applies when it is unset
};

/// The variables lesson 01 reports, in the order it prints them.
const std::vector<EnvironmentVariable>& scheduling_variables();

/// Checks \p value for variable \p name. Returns nothing when valid, else the problem in one
/// sentence (what is wrong and what is allowed). Unknown names are always valid.
std::optional<std::string> check_environment_value(const std::string& name,
                                                   const std::string& value);

/// Parses an ID list such as "0,2-4,7" (ROCm's CU and GPU lists) into sorted, unique IDs.
/// Throws UsageError naming the text on a syntax error, a reversed range, or an ID >= limit.
std::vector<int> parse_id_list(const std::string& text, int limit);

}  // namespace hip_lessons
