/// \file lesson.hpp
/// \brief run_lesson(): parse, run the lesson body, map the outcome to an exit code.
///
/// Keeps every lesson's main() about its concept: argument errors, skips, HIP errors and
/// the JSON report are handled here the same way for all lessons.
#pragma once

#include <functional>

#include "hip_lessons/cli.hpp"
#include "hip_lessons/report.hpp"

namespace hip_lessons {

/// Whether run_lesson() warns about malformed or ignored scheduling variables before the body
/// runs. Lesson 01 turns it off because diagnosing the environment is its whole job.
enum class EnvironmentWarnings { kPrint, kLeaveToLesson };

/// Parses the command line (exit 2 on bad input, before any GPU work), checks that --json
/// can be written, prints a "warning:" line for every malformed or ignored scheduling variable
/// (and records them as the report fact environment_warnings), runs \p body and returns the
/// exit code: 0 when every check passed, 1 when a check or a HIP call failed, 2 for a
/// UsageError, 77 for a SkipError.
int run_lesson(LessonCli& cli, int argc, char** argv, const std::function<void(Report&)>& body,
               EnvironmentWarnings warnings = EnvironmentWarnings::kPrint);

}  // namespace hip_lessons
