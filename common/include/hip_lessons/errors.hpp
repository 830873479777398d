/// \file errors.hpp
/// \brief Exceptions that carry the project's exit-code convention.
///
/// Every lesson and test exits with 0 (pass), 1 (a check failed or a HIP call failed),
/// 2 (bad usage or bad input) or 77 (skipped: no usable GPU, or the feature does not exist
/// on this platform). Throwing one of these from a lesson body gives the right code, with
/// the message printed, after every RAII buffer on the way out has been released.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace hip_lessons {

/// Exit codes shared by every program of the project (CTest: SKIP_RETURN_CODE 77).
enum ExitCode : int {
  kExitPass = 0,
  kExitFail = 1,
  kExitUsage = 2,
  kExitSkip = 77,
};

/// Bad command-line argument or input; the message names the value and what is allowed.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The lesson cannot run here (no GPU, feature absent); the message says why. Exit 77.
class SkipError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A HIP runtime call failed: which call, where, and the HIP error name and text.
class HipError : public std::runtime_error {
 public:
  HipError(const std::string& call, const std::string& file, int line, std::string error_name,
           const std::string& error_text)
      : std::runtime_error(call + " failed at " + file + ":" + std::to_string(line) + ": " +
                           error_name + " (" + error_text + ")"),
        error_name_(std::move(error_name)) {}
  const std::string& error_name() const noexcept { return error_name_; }

 private:
  std::string error_name_;
};

}  // namespace hip_lessons
