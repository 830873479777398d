// Checks a lesson's --trace file against a profiler's record of the same kernels:
//
//     hip_lessons_profiler_check TRACE.json
//         the profiler records the trace carries (written under the CUPTI recorder:
//         ctest/expect-profiler-agreement.sh)
//     hip_lessons_profiler_check TRACE.json --rocprofv3-csv kernel_trace.csv
//         a rocprofv3 kernel trace of the same run (AMD; docs/pages/profilers.md)
//
// For every traced run: the same launches, each inside its profiler kernel once the clocks are
// aligned, the same peak concurrency, and makespans within the tolerance
// (profile_agreement.hpp), with every pair's lead and lag printed. Exit 0 when all agree,
// 1 when a check fails or a file is unreadable or there are no profiler records, 2 for bad
// usage, 77 when nothing could be compared (the reason is printed).
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include "hip_lessons/cli.hpp"
#include "hip_lessons/errors.hpp"
#include "hip_lessons/report.hpp"
#include "profile_agreement.hpp"
#include "profiled_kernels.hpp"

namespace hl = hip_lessons;

namespace {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream file(path);
  if (!file) return std::nullopt;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

int usage(const std::string& problem) {
  std::cerr << "error: " << problem << "\n"
            << "usage: hip_lessons_profiler_check TRACE.json [--rocprofv3-csv kernel_trace.csv]\n"
               "  TRACE.json: a lesson's --trace file, written with the profiler recorder loaded\n"
               "  (ctest/expect-profiler-agreement.sh), or beside a rocprofv3 kernel trace\n";
  return hl::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  std::string trace_path;
  std::string csv_path;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--rocprofv3-csv") {
      if (i + 1 >= argc) return usage("--rocprofv3-csv needs a file");
      csv_path = argv[++i];
    } else if (arg.rfind("-", 0) == 0 || !trace_path.empty()) {
      return usage("unexpected argument '" + arg + "'");
    } else {
      trace_path = arg;
    }
  }
  if (trace_path.empty()) return usage("give the --trace file");
  const std::optional<std::string> trace = read_file(trace_path);
  if (!trace) {
    std::cerr << "error: cannot read " << trace_path << '\n';
    return hl::kExitFail;
  }
  hl::Report report("profiler agreement", std::cout, hl::Mode::kTour);  // tables and notes shown
  std::cout << "Block trace against the profiler: " << trace_path << '\n';
  try {
    std::optional<hl::ProfilerCapture> csv;
    if (!csv_path.empty()) {
      const std::optional<std::string> text = read_file(csv_path);
      if (!text) {
        std::cerr << "error: cannot read " << csv_path << '\n';
        return hl::kExitFail;
      }
      csv = hl::profiler_capture_from_rocprofv3_csv(*text);
    }
    const int code = hl::report_profiler_agreement(*trace, report, {}, csv ? &*csv : nullptr);
    if (code == hl::kExitFail) std::cout << report.failures() << " check(s) failed\n";
    return code;
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << '\n';
    return hl::kExitFail;
  }
}
