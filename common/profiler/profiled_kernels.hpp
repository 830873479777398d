/// \file profiled_kernels.hpp
/// \brief What a vendor profiler recorded of a lesson's kernels, handed to the lesson itself.
///
/// The block traces (block_trace.hpp) are the project's own measuring tool. To check it
/// against the vendor's, a profiler recorder is loaded into the lesson's process and records
/// every kernel the GPU ran: when it started and ended, on which stream, with which grid and
/// block. On NVIDIA the recorder is common/profiler/cupti_recorder.cpp, a CUPTI activity
/// recorder that the CUDA driver loads from CUDA_INJECTION64_PATH; see ctest/
/// expect-profiler-agreement.sh for a run. When --trace is written, the lesson asks the loaded
/// recorder for its records (profiler_capture_in_this_process()), and the trace file carries
/// them beside the block traces (chrome_trace_json()).
///
/// The recorder hands its records over as JSON text from one C function, so the lesson needs
/// no profiler library at link time:
///
///     {"tool": "CUPTI 13.0 (API 130001)", "host_clock": "steady_clock", "status": "ok",
///      "realtime_minus_host_clock_ns": 1764000000000000000, "dropped_records": 0,
///      "incomplete_records": 0,
///      "kernels": [{"name": "spin(long long, ...)", "start_ns": 5012345678,
///                   "end_ns": 5012366000, "stream": 13, "device": 0, "context": 1,
///                   "correlation": 42, "grid": [1, 1, 1], "block": [64, 1, 1],
///                   "graph": 0, "process": 0}],
///      "processes": [{"pid": 4242, "status": "ok", "kernels": 1}]}
///
/// Times are nanoseconds of the host clock the recorder names in "host_clock": "steady_clock"
/// is std::chrono::steady_clock (CLOCK_MONOTONIC on Linux), the clock a Schedule notes when
/// its records were read (Schedule::host_read_ns()). "graph" is the CUDA graph a kernel ran
/// in (0: not in a graph).
///
/// Child processes. A lesson that measures in child processes of itself (05, 08) runs them
/// under the same recorder, since they inherit CUDA_INJECTION64_PATH. The recorder of the first
/// process names a folder for the others in HIP_LESSONS_PROFILER_CHILDREN (they inherit that
/// too); each child's recorder writes its records there as it exits, and the first process's
/// hand-over adds them (add_child_capture()). "process" is then the index of the process a
/// kernel ran in, in "processes" (0: the lesson's own; "processes" is absent for a capture of
/// one process). The host clock is the same in every process, so the kernels of a parent and
/// its children lie on one time axis.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hip_lessons {

/// One kernel as the profiler recorded it.
struct ProfiledKernel {
  std::string name;
  std::int64_t start_ns = 0;  ///< the profiler's host clock (ProfilerCapture::host_clock)
  std::int64_t end_ns = 0;
  std::uint32_t stream = 0;  ///< the profiler's stream id (not the lesson's stream number)
  std::uint32_t device = 0;
  std::uint32_t context = 0;
  std::uint32_t correlation = 0;  ///< the launch API call's id: increases in issue order
  std::array<std::uint32_t, 3> grid{1, 1, 1};
  std::array<std::uint32_t, 3> block{1, 1, 1};
  std::uint32_t graph = 0;    ///< the CUDA graph it ran in; 0 outside graphs
  std::uint32_t process = 0;  ///< index in ProfilerCapture::processes; 0: the lesson's own

  /// Blocks in the grid (gridX x gridY x gridZ).
  std::uint64_t blocks() const;
};

/// A process whose kernels a capture holds.
struct ProfiledProcess {
  std::int64_t pid = 0;
  std::string status;       ///< its recorder's status ("ok", or why it recorded nothing)
  std::size_t kernels = 0;  ///< how many of the capture's kernels ran in it
};

/// Everything a recorder handed over.
struct ProfilerCapture {
  std::string tool;        ///< "CUPTI 13.0 (API 130001)"
  std::string host_clock;  ///< which host clock the times are on (kSteadyHostClock)
  std::string status;      ///< "ok", or why the recorder records nothing
  /// CLOCK_REALTIME minus the host clock when the records were handed over: relates the
  /// profiler's times to the wall clock (and so the device clock to the wall clock).
  std::optional<std::int64_t> realtime_minus_host_clock_ns;
  std::uint64_t dropped_records = 0;     ///< records the profiler lost (its buffers were full)
  std::uint64_t incomplete_records = 0;  ///< kernel records without timestamps, left out
  std::vector<ProfiledKernel> kernels;
  /// The processes the kernels ran in, the lesson's own first; empty for one process.
  std::vector<ProfiledProcess> processes;

  bool ok() const { return status == "ok"; }
};

/// The C function a recorder exports: returns the JSON text above, valid until the next call.
inline constexpr const char* kProfilerHandoffSymbol = "hip_lessons_profiled_kernels_json";

/// The host_clock value of std::chrono::steady_clock.
inline constexpr const char* kSteadyHostClock = "steady_clock";

/// Reads the JSON text above. Throws std::runtime_error naming what is missing or malformed.
ProfilerCapture profiler_capture_from_json(const std::string& text);

/// The JSON text above for \p capture (what a recorder hands over; also the trace file's copy).
std::string profiler_capture_to_json(const ProfilerCapture& capture);

/// The environment variable naming the folder where child processes' recorders leave their
/// records (set by the first recorder of a process tree, inherited by its children).
inline constexpr const char* kProfilerChildrenVariable = "HIP_LESSONS_PROFILER_CHILDREN";

/// Adds the records of the child process \p pid to \p into (the lesson's own capture, pid
/// \p own_pid): its kernels, with their process index and with correlation ids moved above
/// every id already in \p into (each process counts from 1; moved, they keep their order and
/// stay distinct), and its dropped and incomplete records. A child whose recorder failed, or
/// whose records are on another host clock, adds no kernels; its status in \p into's
/// processes says why. \p into's own status stays its own.
void add_child_capture(ProfilerCapture& into, std::int64_t own_pid, const ProfilerCapture& child,
                       std::int64_t pid);

/// The kernels of a rocprofv3 kernel trace (`rocprofv3 --kernel-trace --output-format csv`:
/// kernel_trace.csv), for the same comparison on AMD. Columns are found by name: Start_Timestamp
/// and End_Timestamp (ns, CLOCK_BOOTTIME: ROCr's system clock), Correlation_Id, Kernel_Name,
/// Grid_Size_X/Y/Z in work-items and Workgroup_Size_X/Y/Z (so blocks = grid / workgroup, per
/// dimension, rounded up), Stream_Id (the HIP stream; Queue_Id, the HSA queue, where Stream_Id
/// is missing or 0). Throws std::runtime_error naming a missing column or a malformed row.
ProfilerCapture profiler_capture_from_rocprofv3_csv(const std::string& csv);

/// The records of the recorder loaded into this process, if there is one: the library named
/// by CUDA_INJECTION64_PATH, when the CUDA driver has loaded it and it exports
/// kProfilerHandoffSymbol. Nothing when no such recorder is loaded (any AMD run, any run
/// without the variable, another tool's injection library). Records the recorder hands over
/// in a form this build cannot read come back as a capture whose status says so.
std::optional<ProfilerCapture> profiler_capture_in_this_process();

}  // namespace hip_lessons
