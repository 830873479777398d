/// \file cli.hpp
/// \brief The command line every lesson shares, built on CLI11.
///
/// Every lesson takes the same flags (--size, --repeat, --seed, --device, --json, --check,
/// --speed-check) plus its own. All arguments are checked before any GPU work, so a bad
/// argument gives the same message and exit code 2 on every machine, with or without a GPU.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hip_lessons/options.hpp"
#include "hip_lessons/speed_check.hpp"

namespace hip_lessons {

/// Parses a count such as "4096", "64K", "16M", "1G" (binary multiples) or "2^28".
/// Throws UsageError naming \p option, the text and the allowed range when the text is not
/// such a count, overflows, or lies outside [min, max]; a \p size_like option's message also
/// lists the accepted forms.
std::int64_t parse_count(const std::string& option, const std::string& text, std::int64_t min,
                         std::int64_t max, bool size_like = false);

/// A lesson's command line: the common flags plus the lesson's own.
class LessonCli {
 public:
  /// \p default_size and \p max_size bound --size for this lesson.
  LessonCli(std::string program, std::string description, std::int64_t default_size,
            std::int64_t max_size = std::int64_t{1} << 36);
  ~LessonCli();
  LessonCli(const LessonCli&) = delete;
  LessonCli& operator=(const LessonCli&) = delete;

  /// An integer option with a range; accepts the same forms as --size.
  void add_count(const std::string& flag, std::int64_t& value, const std::string& help,
                 std::int64_t min, std::int64_t max);
  /// A string option restricted to \p choices.
  void add_choice(const std::string& flag, std::string& value, const std::string& help,
                  std::vector<std::string> choices);
  /// A free-text option (a mask, a list). \p validate throws UsageError when the text is
  /// malformed.
  void add_text(const std::string& flag, std::string& value, const std::string& help,
                std::function<void(const std::string&)> validate);
  /// A switch without value.
  void add_flag(const std::string& flag, bool& value, const std::string& help);
  /// --trace FILE: the lesson records block traces and writes them by the same file rules as
  /// --json.
  void add_trace_output();
  /// --block: threads per block, 1..1024 (every GPU's limit or more); with
  /// BlockRule::kWholeWarps also a multiple of 32, which every GPU's warp size divides. The
  /// device's own limits are checked later by checked_block_size().
  void add_block_size(std::int64_t& value, BlockRule rule = BlockRule::kAnySize);
  /// Declares a speed check: adds its flag (a number in [0, 1000000], default: the declared
  /// threshold) and returns the check, whose threshold holds the flag's value after parse().
  /// The reference stays valid as long as this LessonCli.
  const SpeedCheck& add_speed_check(SpeedCheck check);
  /// For a lesson with nothing to repeat: --repeat leaves --help and is refused (exit 2) with
  /// \p why, rather than taken and ignored.
  void refuse_repeat(const std::string& why);
  /// For a lesson whose --size counts something other than elements: \p meaning replaces
  /// "Problem size in elements" in --help (the range and the accepted forms follow it).
  void describe_size(const std::string& meaning);

  /// Parses and validates every option given (an empty value too), and that --json and
  /// --trace can be written. Returns -1 to go on, 0 after --help, 2 after an error (the
  /// message, starting with "error: ", is already printed on stderr).
  int parse(int argc, const char* const* argv);

  const CommonOptions& options() const;
  const std::string& program() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hip_lessons
