/// \file lesson.hpp
/// \brief run_lesson(): parse, run the lesson body, map the outcome to an exit code.
///
/// Keeps every lesson's main() about its concept: argument errors, skips, HIP errors and
/// the JSON report are handled here the same way for all lessons.
#pragma once

#include <functional>

#include "hip_lessons/cli.hpp"
#include "hip_lessons/report.hpp"
#include "hip_lessons/trace_file.hpp"

namespace hip_lessons {

/// Whether run_lesson() warns about malformed or ignored scheduling variables before the body
/// runs. Lesson 01 turns it off because diagnosing the environment is its whole job.
enum class EnvironmentWarnings { kPrint, kLeaveToLesson };

/// What a lesson's body works with: its parsed options, the report its steps go to, and the
/// traced runs that --trace FILE writes when the body is done.
struct Lesson {
  const CommonOptions& options;
  Report& report;
  TraceFile& traces;
};

/// Parses the command line (exit 2 on bad input, before any GPU work), checks that --json
/// can be written, prints a "warning:" line for every malformed or ignored scheduling variable
/// (and records them as the report fact environment_warnings), runs \p body and returns the
/// exit code: 0 when every check passed, 1 when a check or a HIP call failed, 2 for a
/// UsageError, 77 for a SkipError. Then it writes --trace (every run kept in Lesson::traces)
/// and --json. A --check run that set no summary gets one that counts its checks.
int run_lesson(LessonCli& cli, int argc, char** argv, const std::function<void(Lesson&)>& body,
               EnvironmentWarnings warnings = EnvironmentWarnings::kPrint);

}  // namespace hip_lessons
