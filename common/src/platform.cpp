#include "hip_lessons/platform.hpp"

namespace hip_lessons {

Platform build_platform() {
#if HIP_LESSONS_BUILT_FOR_AMD
  return Platform::kAmd;
#else
  return Platform::kNvidia;
#endif
}

const char* platform_name(Platform platform) {
  return platform == Platform::kAmd ? "AMD" : "NVIDIA";
}

}  // namespace hip_lessons
