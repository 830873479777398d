/// \file trace_file.hpp
/// \brief The traced runs of one lesson run, written together for --trace FILE.
///
/// Every traced run (traced_run.hpp) is kept here under its name ("1 stream", "8 streams");
/// run_lesson() writes them all at the end as one file in the Chrome Trace Event Format, which
/// ui.perfetto.dev and chrome://tracing open, by the same rules as --json (never through a
/// link or over a non-regular file; a failed write is an error).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "hip_lessons/schedule.hpp"

namespace hip_lessons {

/// Named schedules of one lesson run, in the order they were traced.
class TraceFile {
 public:
  /// Keeps \p schedule under the name \p run (the Perfetto process names start with it).
  void keep(std::string run, Schedule schedule) {
    runs_.emplace_back(std::move(run), std::move(schedule));
  }
  const std::vector<std::pair<std::string, Schedule>>& runs() const { return runs_; }
  /// Writes every kept run to \p path (chrome_trace_json(); "-" is standard output). Throws
  /// std::runtime_error naming the path and the reason when the write fails.
  void write(const std::string& path) const;

 private:
  std::vector<std::pair<std::string, Schedule>> runs_;
};

}  // namespace hip_lessons
