#include "hip_lessons/lesson.hpp"

#include <iostream>
#include <new>

#include "hip_lessons/environment.hpp"
#include "hip_lessons/errors.hpp"
#include "hip_lessons/format.hpp"
#include "output_file.hpp"

namespace hip_lessons {

int run_lesson(LessonCli& cli, int argc, char** argv, const std::function<void(Lesson&)>& body,
               EnvironmentWarnings warnings) {
  const int parsed = cli.parse(argc, argv);
  if (parsed >= 0) return parsed;
  const CommonOptions& options = cli.options();
  try {
    if (!options.json_path.empty()) check_output_path("--json", options.json_path);
    if (!options.trace_path.empty()) check_output_path("--trace", options.trace_path);
    if (options.json_path == "-" && options.trace_path == "-") {
      throw UsageError(
          "--json - and --trace - would both write to standard output; give one a file");
    }
  } catch (const UsageError& error) {
    std::cerr << "error: " << error.what() << '\n';
    return kExitUsage;
  }

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
    // The runtime reads these variables once and never complains, so say it here: a typo
    // would otherwise silently change (or not change) what the lesson measures.
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
  if (!options.trace_path.empty() && code != kExitUsage) {
    try {
      traces.write(options.trace_path);
    } catch (const std::exception& error) {
      std::cerr << "error: --trace: " << error.what() << '\n';
      code = kExitFail;
    }
  }
  if (!options.json_path.empty()) {
    try {
      report.write_json(options.json_path, code);
    } catch (const std::exception& error) {
      std::cerr << "error: --json: " << error.what() << '\n';
      code = kExitFail;  // also after a skip: the user asked for a file and did not get it
    }
  }
  return code;
}

}  // namespace hip_lessons
