#include "hip_lessons/lesson.hpp"

#include <unistd.h>

#include <iostream>
#include <new>

#include "hip_lessons/environment.hpp"
#include "hip_lessons/errors.hpp"

namespace hip_lessons {

namespace {

// Refuses a --json path that cannot be written, before any GPU work: the directory must
// exist and be writable, and an existing file must be writable.
void require_writable(const std::string& path) {
  if (path.empty()) return;
  const auto slash = path.find_last_of('/');
  const std::string directory = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  if (::access(directory.c_str(), W_OK) != 0) {
    throw UsageError("--json '" + path + "' cannot be written: directory '" + directory +
                     "' does not exist or is not writable");
  }
  if (::access(path.c_str(), F_OK) == 0 && ::access(path.c_str(), W_OK) != 0) {
    throw UsageError("--json '" + path + "' cannot be written: the file is read-only");
  }
}

}  // namespace

int run_lesson(LessonCli& cli, int argc, char** argv, const std::function<void(Report&)>& body,
               EnvironmentWarnings warnings) {
  const int parsed = cli.parse(argc, argv);
  if (parsed >= 0) return parsed;
  const CommonOptions& options = cli.options();
  try {
    require_writable(options.json_path);
  } catch (const UsageError& error) {
    std::cerr << "error: " << error.what() << '\n';
    return kExitUsage;
  }

  Report report(cli.program(), std::cout, options.mode);
  report.fact("seed", options.seed);
  std::cout << cli.program() << "  (seed " << options.seed << ")\n";
  if (warnings == EnvironmentWarnings::kPrint) {
    // The runtime reads these variables once and never complains, so say it here: a typo
    // would otherwise silently change (or not change) what the lesson measures.
    std::string joined;
    for (const std::string& warning : environment_warnings()) {
      std::cout << "warning: " << warning << '\n';
      joined += (joined.empty() ? "" : "; ") + warning;
    }
    if (!joined.empty()) {
      std::cout << "warning: lesson01_env_check explains each variable\n";
      report.fact("environment_warnings", joined);
    }
  }

  int code = kExitPass;
  try {
    body(report);
    code = report.failures() == 0 ? kExitPass : kExitFail;
  } catch (const UsageError& error) {
    std::cerr << "error: " << error.what() << '\n';
    return kExitUsage;  // bad input writes no report
  } catch (const SkipError& error) {
    std::cout << "skipped: " << error.what() << '\n';
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

  if (!report.summary().empty() && code != kExitSkip) std::cout << "\nsummary: " << report.summary() << '\n';
  if (code == kExitFail && report.failures() > 0) {
    std::cout << report.failures() << " check(s) failed\n";
  }
  if (!options.json_path.empty()) {
    try {
      report.write_json(options.json_path, code);
    } catch (const std::exception& error) {
      std::cerr << "error: " << error.what() << '\n';
      if (code == kExitPass) code = kExitFail;
    }
  }
  return code;
}

}  // namespace hip_lessons
