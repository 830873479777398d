/// \file platform.hpp
/// \brief The two platforms a lesson can be built for, and which one this build is.
///
/// Host-only: the static library learns the platform from CMake, so plain C++ code (unit
/// tests, the occupancy calculator) and HIP code agree on it.
#pragma once

namespace hip_lessons {

/// The two platforms a lesson can be built for.
enum class Platform { kAmd, kNvidia };

/// The platform this build of the project targets.
Platform build_platform();

/// "AMD" or "NVIDIA".
inline const char* platform_name(Platform platform) {
  return platform == Platform::kAmd ? "AMD" : "NVIDIA";
}

}  // namespace hip_lessons
