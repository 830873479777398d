/// \file profile_agreement.hpp
/// \brief Whether a block trace and a vendor profiler agree on what ran when.
///
/// Profilers disagree about concurrency, so a measuring tool that claims kernels ran side by
/// side should be checked against the vendor's. A traced run (schedule.hpp) knows, per launch,
/// when its first block started and its last block ended on the device clock; a profiler
/// capture (profiled_kernels.hpp) knows, per kernel, when the GPU started and finished it on a
/// host clock. compare_run() pairs the two and says whether they agree:
///   - the same launches: each traced launch is one profiler kernel with the same number of
///     blocks, none paired twice;
///   - each traced launch lies inside its kernel's interval, once the two clocks are aligned:
///     the profiler starts a kernel before its first block and ends it after its last one;
///   - the same peak concurrency (the most launches running at one moment, counting overlaps
///     longer than AgreementTolerance::concurrency_us), up to the kernels' ramp and completion
///     (AgreementTolerance::ramp_us);
///   - the same makespan (first start to last end), within a tolerance.
///
/// Aligning the clocks. CUPTI records a kernel's start and end on the GPU and converts them to
/// its host clock by linear interpolation (cupti_activity.h, CUDA 13.0: the documentation of
/// cuptiActivityRegisterTimestampCallback); the recorder makes that clock steady_clock. The
/// block trace reads %globaltimer, the GPU's nanosecond timer. Within one run the two differ by
/// a constant offset, so no absolute relation is assumed: each pair (launch i, kernel k) allows
/// the offsets d with start_k <= first_block_i + d and last_block_i + d <= end_k, and the run
/// agrees when one d fits every pair. The offset reported is the middle of the range that fits
/// them all (or, when none does, the offset that leaves the worst launch the least outside).
///
/// Pairing. From each candidate kernel for the run's first launch (one with as many blocks),
/// the later launches are paired greedily in issue order (the profiler's correlation ids grow
/// with each launch call), each with a kernel that keeps the range of fitting offsets
/// non-empty within the match window. The candidate that pairs the most launches, then leaves
/// them least outside, wins; between equally good ones (a run repeated untraced before or after
/// the traced one), when the profiler's clock is steady_clock, one that ended before the
/// schedule was read (host_read_ns; within the match window) and of those the one that ended
/// closest to it, else the latest. When the first launch pairs with no
/// kernel, or the best pairing misses some launches, the second and third launches anchor too
/// (the earlier launches are then paired in reverse issue order).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hip_lessons/schedule.hpp"
#include "profiled_kernels.hpp"

namespace hip_lessons {

class Report;

/// How far the two may differ, and why (all derived from what the two clocks can resolve).
struct AgreementTolerance {
  /// How far a traced launch may seem to start before or end after its profiler kernel. The
  /// profiler starts a kernel before its first block and ends it after its last, so a launch
  /// seen outside is an error of the clocks, and they resolve: %globaltimer in 32 ns steps (an
  /// H200); a block-trace time converted to microseconds as a double, which at %globaltimer's
  /// size there (about 1.8e18 ns: lesson 03's durations came in 0.25 us steps, 20.25 and 354.0
  /// us) resolves 0.25 us, so each end lies within 0.125 us of its reading; CUPTI's whole
  /// nanoseconds. The worst launch's distance outside is half the spread of the offsets the
  /// pairs allow; those errors widen that spread by at most 2 x 0.125 + 2 x 0.032 = 0.31 us, so
  /// a launch inside its kernel seems at most 0.16 us outside. 0.5 us bounds that with room for
  /// CUPTI's interpolation between the clocks.
  double outside_us = 0.5;
  /// Makespans may differ by this much plus makespan_fraction of the traced makespan: the
  /// profiler's makespan adds the launch ramp before the first block and the completion after
  /// the last block (0.75 us in total for lesson 03's 16 kernels on an H200, 354.0 vs 354.75
  /// us), and 2 us is more than twice that; the fraction absorbs a slope between the clocks in
  /// long runs (1% = 10 000 ppm, far above any clock's drift).
  double makespan_us = 2.0;
  double makespan_fraction = 0.01;
  /// Two launches count as running at once (the peak) when they overlap by more than this, in
  /// the trace and in the profiler alike. On an H200, CUPTI put a graph's next kernel up to
  /// 0.385 us before the end of the one before it on the same stream (10 of about 90 000
  /// kernels in two lesson 07 runs), where the blocks show no overlap: a kernel's interval
  /// includes its launch ramp and completion. 1 us is 2.6 times that.
  double concurrency_us = 1.0;
  /// A profiler kernel is longer than its traced launch by its lead and lag, so two kernels
  /// overlap by that much more than their launches. Where an overlap lies near concurrency_us
  /// (lesson 05's breadth-first chains start about 6-12 us apart, so the first and last ones
  /// running at once may overlap by any fraction of a microsecond), the two peaks can then
  /// differ by one without any disagreement: an H200 run counted 15 in the trace and 16 in
  /// CUPTI, from seven launch pairs overlapping by 0.48-0.80 us in the trace and 1.09-1.44 us in
  /// CUPTI. The trace's peak must lie between CUPTI's peak counting overlaps longer than
  /// concurrency_us and its peak counting those longer than concurrency_us + ramp_us. Where
  /// kernels ran side by side on an H200, a run's largest lead plus largest lag was 0.70-1.26 us,
  /// and 2.21 us in lesson 08's two streams (a lead of 1.77 us); 3 us covers them.
  double ramp_us = 3.0;
  /// Pairing only: a launch more than this outside every candidate kernel is not paired
  /// (counted missing). Wider than outside_us, so a launch a little outside its kernel is
  /// paired and reported as outside rather than as missing.
  double match_window_us = 5.0;

  /// The makespan difference allowed for a run whose traced makespan is \p trace_us.
  double makespan_allowed_us(double trace_us) const;
};

/// One traced launch on the device clock.
struct ClockedLaunch {
  int launch = 0;      ///< its number in the run (issue order)
  std::string kernel;  ///< the lesson's name for it
  int stream = 0;      ///< the lesson's stream number
  std::uint64_t blocks = 0;
  std::int64_t start_ns = 0;  ///< its first block's start, device clock
  std::int64_t end_ns = 0;    ///< its last block's end
};

/// A traced run's launches on the device clock, by launch number.
struct ClockedRun {
  std::string name;
  std::vector<ClockedLaunch> launches;
  /// Whether the device clock's origin is known; a run without it (a schedule rebuilt from
  /// relative times) can be drawn beside a profiler but not compared. A child process that
  /// sends its runs keeps their origin (lessons 05 and 08).
  bool device_clock_known = false;
  std::optional<std::int64_t> host_read_ns;  ///< steady_clock when its records were read
};

/// The launches of \p schedule on the device clock (its origin, 0 when unknown).
ClockedRun clocked_run(const std::string& name, const Schedule& schedule);

/// A traced launch and the profiler kernel paired with it.
struct LaunchPair {
  ClockedLaunch launch;
  ProfiledKernel kernel;
  double lead_ns = 0;  ///< first block start minus kernel start, at the run's offset
  double lag_ns = 0;   ///< kernel end minus last block end, at the run's offset
};

/// What compare_run() found for one run.
struct RunAgreement {
  std::string run;
  std::string tool;                       ///< the profiler's name ("CUPTI")
  std::vector<LaunchPair> pairs;          ///< by launch number
  std::vector<ClockedLaunch> missing;     ///< traced launches no kernel was paired with
  std::optional<std::int64_t> offset_ns;  ///< profiler clock minus device clock; none unpaired
  double outside_ns = 0;  ///< the most any paired launch lies outside its kernel at offset_ns
  int trace_peak = 0;     ///< most traced launches at one moment
  int profiler_peak = 0;  ///< most paired kernels at one moment
  /// The same, counting only overlaps longer than concurrency_us + ramp_us.
  int profiler_peak_beyond_ramp = 0;
  double trace_makespan_ns = 0;
  double profiler_makespan_ns = 0;
  /// Profiler kernels that started while the paired ones ran but pair with no traced launch
  /// (untraced work beside the run: the trace cannot see it).
  std::vector<ProfiledKernel> others;
  /// host_read_ns minus the last paired kernel's end, when both are on steady_clock.
  std::optional<double> host_read_after_ns;
};

/// Pairs \p run with \p capture's kernels and measures how they agree (see the file comment).
RunAgreement compare_run(const ClockedRun& run, const ProfilerCapture& capture,
                         const AgreementTolerance& tolerance = {});

/// One verdict on a run's agreement: its name, whether it holds, and the numbers behind it.
struct AgreementCheck {
  std::string name;
  bool passed = false;
  std::string detail;
};

/// The four checks of the file comment for \p agreement, in that order.
std::vector<AgreementCheck> agreement_checks(const RunAgreement& agreement,
                                             const AgreementTolerance& tolerance = {});

/// What a --trace file written with a profiler capture holds for the comparison.
struct ProfiledTrace {
  std::vector<ClockedRun> runs;  ///< every run, in the file's order
  std::optional<ProfilerCapture> profiler;
};

/// Reads a --trace file's text (chrome_trace_json()): each run's launches from its
/// "<run>: streams" slices, put back on the device clock, and the profiler capture. Throws
/// std::runtime_error naming what is missing or malformed.
ProfiledTrace read_profiled_trace(const std::string& json_text);

/// Compares every run of \p json_text (a --trace file) with a profiler capture, the trace's
/// own unless \p profiler is given (a rocprofv3 kernel trace, read with
/// profiler_capture_from_rocprofv3_csv()), and reports it through \p report: the tolerance,
/// per run a table of the pairs (each launch's lead and lag), the offset, and the four checks;
/// then how the clocks relate across runs. Returns the exit code: 0 all agree, 1 a check
/// failed or there are no profiler records, 77 when nothing can be compared here (no run on a
/// known device clock, or a recorder that recorded nothing, with the reason). Throws
/// std::runtime_error for an unreadable file.
int report_profiler_agreement(const std::string& json_text, Report& report,
                              const AgreementTolerance& tolerance = {},
                              const ProfilerCapture* profiler = nullptr);

}  // namespace hip_lessons
