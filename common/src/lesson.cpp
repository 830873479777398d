#include "hip_lessons/lesson.hpp"

#include <iostream>
#include <new>

#include "hip_lessons/environment.hpp"
#include "hip_lessons/errors.hpp"
#include "hip_lessons/format.hpp"

namespace hip_lessons {

int run_lesson(LessonCli& cli, int argc, char** argv, const std::function<void(Lesson&)>& body,
               EnvironmentWarnings warnings) {
  const int parsed = cli.parse(argc, argv);
  if (parsed >= 0) return parsed;
  const CommonOptions& options = cli.options();
  // With --json - the JSON owns standard output, so the human report goes to standard error
  // and `lesson --json - | jq` works.
  std::ostream& human =
      options.json_path == "-" || options.trace_path == "-" ? std::cerr : std::cout;
  Report report(cli.program(), human, options.mode);
  TraceFile traces;
  Lesson lesson{options, report, traces};
  report.fact("seed", options.seed);
  human << cli.program() << "  (seed " << options.seed << ")\n";
  if (warnings == EnvironmentWarnings::kPrint) {
    // A typo would otherwise silently change (or not change) what the lesson measures.
    std::string joined;
    for (const std::string& warning : environment_warnings()) {
      human << "warning: " << warning << '\n';
      joined += (joined.empty() ? "" : "; ") + warning;
    }
    if (!joined.empty()) {
      human << "warning: lesson01_env_check explains each variable\n";
      report.fact("environment_warnings", joined);
    }
  }

  int code = kExitPass;
  try {
    body(lesson);
    code = report.failures() == 0 ? kExitPass : kExitFail;
    if (report.summary().empty() && options.mode == Mode::kCheck) {
      report.summary(code == kExitPass ? "every check passed"
                                       : format("{} check(s) failed", report.failures()));
    }
  } catch (const UsageError& error) {
    std::cerr << "error: " << error.what() << '\n';
    return kExitUsage;  // bad input writes no report
  } catch (const SkipError& error) {
    human << "skipped: " << error.what() << '\n';
    report.summary(std::string("skipped: ") + error.what());
    code = kExitSkip;
  } catch (const HipError& error) {
    std::cerr << "error: HIP call " << error.what() << '\n';
    report.summary(std::string("HIP error: ") + error.error_name());
    code = kExitFail;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of host memory\n";
    code = kExitFail;
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << '\n';
    code = kExitFail;
  }

  if (!report.summary().empty() && code != kExitSkip) {
    report.note("\nsummary: " + report.summary());  // wrapped within 100 columns
  }
  if (code == kExitFail && report.failures() > 0) {
    human << report.failures() << " check(s) failed\n";
  }
  // A file that cannot be written fails the run, also after a skip: the user asked for it.
  const auto write = [&](const char* flag, const std::string& path, const auto& write_file) {
    try {
      if (!path.empty()) write_file();
    } catch (const std::exception& error) {
      std::cerr << "error: " << flag << ": " << error.what() << '\n';
      code = kExitFail;
    }
  };
  write("--trace", options.trace_path, [&] { traces.write(options.trace_path); });
  write("--json", options.json_path, [&] { report.write_json(options.json_path, code); });
  return code;
}

}  // namespace hip_lessons
