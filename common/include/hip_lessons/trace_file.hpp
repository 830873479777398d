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

struct ProfilerCapture;

/// The Chrome Trace Event Format for named runs: a JSON object whose "traceEvents" holds,
/// for each run, a process "<run>: streams" with a track per stream and one slice per launch
/// (args: launch number and blocks), and a process "<run>: compute units" with a track per
/// unit and one slice per block ("<kernel> block <n>"). Times ("ts", "dur") are microseconds
/// from the run's time 0.
///
/// With a \p profiler capture, each run whose launches it recorded gets a third process,
/// "<run>: profiler (<tool>)": a track per profiler stream and a slice per kernel, moved onto
/// the run's time axis by the offset that fits the run's launches (compare_run()), so one
/// Perfetto view shows both, aligned. A run's time 0 then moves back to the earliest slice of
/// the three, so no time is negative.
///
/// "otherData" keeps what the slices cannot: "hip_lessons_runs", one entry per run
/// ({"run", "streams_pid", "device_clock_at_ts0_ns" (null when unknown), "host_read_ns"}),
/// and with a capture "hip_lessons_profiler", the capture itself
/// (common/profiler/profiled_kernels.hpp), from which read_profiled_trace() compares the two anew.
std::string chrome_trace_json(const std::vector<std::pair<std::string, Schedule>>& runs,
                              const ProfilerCapture* profiler);
/// chrome_trace_json() with the records of the profiler recorder loaded into this process, if
/// there is one (profiler_capture_in_this_process()): what --trace writes.
std::string chrome_trace_json(const std::vector<std::pair<std::string, Schedule>>& runs);

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
