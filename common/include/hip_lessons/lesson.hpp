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

/// Parses the command line (exit 2 on bad input, before any GPU work), checks that --json
/// can be written, runs \p body and returns the exit code: 0 when every check passed,
/// 1 when a check or a HIP call failed, 2 for a UsageError, 77 for a SkipError.
int run_lesson(LessonCli& cli, int argc, char** argv,
               const std::function<void(Report&)>& body);

}  // namespace hip_lessons
