/// \file environment.hpp
/// \brief The environment variables that change how HIP work is scheduled, and their checks.
///
/// These variables are read once, when the runtime starts, so a typo silently does nothing
/// (or hides every GPU). Lesson 01 prints each with what it does and whether its value is
/// valid; later lessons warn by the same rules. Where a rule changed between releases, the
/// checks take the runtime version when the caller knows it (lesson 01 asks
/// hipRuntimeGetVersion), else say what each release does; docs/runtime_behaviour.tsv lists
/// every such knob by version.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hip_lessons/platform.hpp"

namespace hip_lessons {

/// A runtime release as major.minor: HIP on AMD, the CUDA runtime on NVIDIA. Releases are
/// compared by major.minor only: HIP's third part is a build number (HIP 5.2.3 reports
/// 5.2.21153), kept in \p build where known, since a few rules split a release by builds.
struct RuntimeVersion {
  int major = 0;
  int minor = 0;
  std::optional<int> build{};  ///< HIP_VERSION % 100000 (AMD), when read from the runtime
};

/// Orders versions: 5.4 < 5.5 < 7.2 < 7.11 < 10.0.
inline bool operator<(RuntimeVersion a, RuntimeVersion b) {
  return a.major != b.major ? a.major < b.major : a.minor < b.minor;
}

/// Decodes what hipRuntimeGetVersion writes on a \p platform build: on AMD HIP_VERSION,
/// major * 10^7 + minor * 10^5 + build (50221153 is 5.2); on NVIDIA the CUDA runtime's
/// major * 1000 + minor * 10 (13000 is 13.0).
RuntimeVersion runtime_version_from(int encoded, Platform platform);

/// "HIP 5.2" or "CUDA 13.0".
std::string runtime_name(RuntimeVersion version, Platform platform);

/// What the project knows about one scheduling-related environment variable.
struct EnvironmentVariable {
  std::string name;
  std::string platform;       ///< "AMD", "NVIDIA" or "both": whose runtime or tools read it
  std::string meaning;        ///< what it changes, in one line
  std::string default_value;  ///< what applies when it is unset
  bool read_at_run_time;      ///< false for the build-time variables (HIP_PLATFORM, paths)
  std::string counterpart;    ///< the other platform's variable for the same job, if any

  /// Whether the runtime of a \p build for that platform reads this variable.
  bool applies_to(Platform build) const;

  /// For a run-time variable that the runtime of a \p build for that platform does not read,
  /// what that means, e.g. "only the AMD runtime reads it; this NVIDIA build ignores it
  /// (CUDA_DEVICE_MAX_CONNECTIONS does that here)"; empty otherwise.
  std::string ignored_by(Platform build) const;
};

/// The variable that sets how many hardware queues (AMD: GPU_MAX_HW_QUEUES) or connections
/// (NVIDIA: CUDA_DEVICE_MAX_CONNECTIONS) a process's streams are spread over.
struct HardwareQueueVariable {
  const char* name;         ///< the variable of this platform
  int default_count;        ///< what applies when it is unset
  const char* counterpart;  ///< the other platform's variable for the same job
};

/// The hardware-queue variable of a \p platform build.
HardwareQueueVariable hardware_queue_variable(Platform platform = build_platform());

/// How many hardware queues (connections) this process's streams can use at once: the
/// variable's value when it is set and valid (check_environment_value()), else its default.
int hardware_queue_count(Platform platform = build_platform());

/// Whether HIP's start-up throws on ROC_GLOBAL_CU_MASK=\p value on a GPU of \p cus compute
/// units (CUs, WGP mode or not), ending the process. HIP reads cus / 4 hex digits; under 8
/// (4 to 31 CUs) its chunk length cus / 4 - 8 is negative, substr() gets a start past the
/// string and throws std::out_of_range, and only std::invalid_argument is caught
/// (ROCm/clr rocm-6.2.2 rocclr/device/rocm/rocdevice.cpp:3401-3413). Any value with a digit
/// after the optional 0x does it; an empty one is not read.
bool global_cu_mask_ends_hip(const std::string& value, int cus);

/// The variables lesson 01 reports, in the order it prints them.
const std::vector<EnvironmentVariable>& scheduling_variables();

/// Checks \p value for variable \p name as the runtime of a \p platform build reads it, in
/// release \p runtime when known (else the problem says what each release does). Returns
/// nothing when valid (unknown names always are), else the problem in one sentence: what is
/// wrong and what the runtime makes of it. The rules are the runtime's own, not stricter ones;
/// each is written, with the source read, beside its check in environment.cpp.
std::optional<std::string> check_environment_value(
    const std::string& name, const std::string& value, Platform platform = build_platform(),
    std::optional<RuntimeVersion> runtime = std::nullopt);

/// One line for every run-time scheduling variable set in this process's environment that is
/// malformed or ignored by a \p platform build (in release \p runtime when known), e.g.
/// "GPU_MAX_HW_QUEUES='abc': 'abc' is not an integer; HIP reads it with atoi() as 0: ...".
/// run_lesson() prints these before a lesson starts, without the release: it has no HIP
/// runtime to ask.
std::vector<std::string> environment_warnings(Platform platform = build_platform(),
                                              std::optional<RuntimeVersion> runtime = std::nullopt);

/// "NAME='value'" for each device-selection variable (HIP_, ROCR_, CUDA_VISIBLE_DEVICES) that
/// is set and read by a \p platform build: the first suspects when the runtime finds no GPU.
std::vector<std::string> device_selection_settings(Platform platform = build_platform());

/// Parses an ID list such as "0,2-4,7" (the syntax of ROCm's CU and GPU lists) into sorted,
/// unique IDs. Stricter than ROCr, for command-line options: throws UsageError naming the text
/// on a syntax error, a reversed range, or an ID >= limit, and merges repeated IDs (which ROCr
/// rejects in HSA_CU_MASK).
std::vector<int> parse_id_list(const std::string& text, int limit);

}  // namespace hip_lessons
