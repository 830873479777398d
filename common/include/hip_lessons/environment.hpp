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

#include "hip_lessons/platform.hpp"

namespace hip_lessons {

/// What the project knows about one scheduling-related environment variable.
struct EnvironmentVariable {
  std::string name;
  std::string platform;       ///< "AMD", "NVIDIA" or "both": whose runtime or tools read it
  std::string meaning;        ///< what it changes, in one line
  std::string default_value;  ///< what applies when it is unset
  bool read_at_run_time;      ///< false for the build-time variables (HIP_PLATFORM, paths)
  std::string counterpart;    ///< the other platform's variable for the same job, if any

  /// Whether the runtime of a \p platform build reads this variable.
  bool applies_to(Platform platform) const;

  /// For a run-time variable that a \p platform build's runtime does not read, what that
  /// means, e.g. "only the AMD runtime reads it; this NVIDIA build ignores it
  /// (CUDA_DEVICE_MAX_CONNECTIONS does that here)"; empty otherwise.
  std::string ignored_by(Platform platform) const;
};

/// The variable that sets how many hardware queues (AMD: GPU_MAX_HW_QUEUES) or connections
/// (NVIDIA: CUDA_DEVICE_MAX_CONNECTIONS) a process's streams are spread over.
struct HardwareQueueVariable {
  const char* name;         ///< the variable of this platform
  int default_count;        ///< what applies when it is unset (AMD 4, NVIDIA 8)
  const char* counterpart;  ///< the other platform's variable for the same job
};

/// The hardware-queue variable of a \p platform build.
HardwareQueueVariable hardware_queue_variable(Platform platform = build_platform());

/// How many hardware queues (connections) this process's streams can use at once: the
/// variable's value when it is set and valid (check_environment_value()), else its default.
int hardware_queue_count(Platform platform = build_platform());

/// The variables lesson 01 reports, in the order it prints them.
const std::vector<EnvironmentVariable>& scheduling_variables();

/// Checks \p value for variable \p name as the runtime of a \p platform build reads it.
/// Returns nothing when valid, else the problem in one sentence: what is wrong and what the
/// runtime makes of it (the rules are the runtime's, not stricter ones): GPU_MAX_HW_QUEUES is
/// read with atoi() ("abc" is 0, "8x" is 8) and has no upper bound; ROC_GLOBAL_CU_MASK is hex
/// with or without 0x, and HIP drops a mask that enables no CU; HSA_CU_MASK takes 0x0 and
/// repeated IDs; HSA_ENABLE_SDMA and HSA_ENABLE_INTERRUPT know only 0 and 1. Unknown names
/// are always valid.
std::optional<std::string> check_environment_value(const std::string& name,
                                                   const std::string& value,
                                                   Platform platform = build_platform());

/// One line for every run-time scheduling variable that is set in this process's environment
/// and is either malformed or ignored by a \p platform build, e.g.
/// "GPU_MAX_HW_QUEUES='abc': 'abc' is not an integer; HIP reads it with atoi() as 0: ...".
/// Empty when all is well.
/// run_lesson() prints these as warnings before a lesson starts.
std::vector<std::string> environment_warnings(Platform platform = build_platform());

/// "NAME='value'" for each device-selection variable (HIP_, ROCR_, CUDA_VISIBLE_DEVICES) that
/// is set and read by a \p platform build: the first suspects when the runtime finds no GPU.
std::vector<std::string> device_selection_settings(Platform platform = build_platform());

/// Parses an ID list such as "0,2-4,7" (ROCm's CU and GPU lists) into sorted, unique IDs.
/// Throws UsageError naming the text on a syntax error, a reversed range, or an ID >= limit.
std::vector<int> parse_id_list(const std::string& text, int limit);

}  // namespace hip_lessons
