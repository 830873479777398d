#include "hip_lessons/errors.hpp"

#include <utility>

namespace hip_lessons {

HipError::HipError(std::string call, std::string file, int line, std::string error_name,
                   std::string error_text, int code)
    : std::runtime_error(call + " failed at " + file + ":" + std::to_string(line) + ": " +
                         error_name + " (" + error_text + ")"),
      call_(std::move(call)),
      error_name_(std::move(error_name)),
      code_(code) {}

}  // namespace hip_lessons
