// The block trace against a profiler, on made-up runs: runs that agree, and runs that must
// fail (a missing launch, a launch outside its kernel, a wrong peak, a makespan too long);
// the pairing's choice between a run and an untraced copy of it; the --trace file with the
// profiler's slices (valid Chrome Trace Event JSON, aligned) read back and checked; the
// recorder's hand-over through a loaded library.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hip_lessons/errors.hpp"
#include "hip_lessons/report.hpp"
#include "hip_lessons/schedule.hpp"
#include "hip_lessons/trace_file.hpp"
#include "profile_agreement.hpp"
#include "profiled_kernels.hpp"

namespace hl = hip_lessons;

namespace {

// A %globaltimer-sized device clock and a steady_clock-sized profiler clock: the offset between
// them is about -1.76e18 ns, as it would be on a GPU.
constexpr std::int64_t kDeviceOrigin = 1764000000000000000;
constexpr std::int64_t kOffset = 5000000000000 - kDeviceOrigin;  // profiler minus device
constexpr std::int64_t kRamp = 300;                              // kernel start before 1st block
constexpr std::int64_t kTail = 450;                              // kernel end after last block

struct Launch {
  int stream;
  std::int64_t start_ns;  // from the run's first block
  std::int64_t end_ns;
};

hl::ClockedRun run_of(const std::string& name, const std::vector<Launch>& launches) {
  hl::ClockedRun run;
  run.name = name;
  run.device_clock_known = true;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    run.launches.push_back({static_cast<int>(i), "kernel " + std::to_string(i), launches[i].stream,
                            1, kDeviceOrigin + launches[i].start_ns,
                            kDeviceOrigin + launches[i].end_ns});
  }
  run.host_read_ns = run.launches.back().end_ns + kOffset + 80000;
  return run;
}

// The profiler's record of \p run: each launch inside its kernel (kRamp before, kTail after),
// correlation ids from \p first_correlation, \p shift_ns later (an untraced copy of the run).
std::vector<hl::ProfiledKernel> kernels_of(const hl::ClockedRun& run,
                                           std::uint32_t first_correlation,
                                           std::int64_t shift_ns = 0) {
  std::vector<hl::ProfiledKernel> kernels;
  for (const hl::ClockedLaunch& l : run.launches) {
    hl::ProfiledKernel k;
    k.name = "small_kernel(unsigned int const*, unsigned int*, hip_lessons::BlockTrace)";
    k.start_ns = l.start_ns + kOffset - kRamp + shift_ns;
    k.end_ns = l.end_ns + kOffset + kTail + shift_ns;
    k.stream = 13 + static_cast<std::uint32_t>(l.stream);
    k.correlation = first_correlation + static_cast<std::uint32_t>(l.launch);
    k.grid = {1, 1, 1};
    k.block = {64, 1, 1};
    kernels.push_back(k);
  }
  return kernels;
}

hl::ProfilerCapture capture_of(std::vector<hl::ProfiledKernel> kernels) {
  hl::ProfilerCapture c;
  c.tool = "CUPTI 13.0 (API 130001)";
  c.host_clock = hl::kSteadyHostClock;
  c.status = "ok";
  c.realtime_minus_host_clock_ns = kDeviceOrigin - 5000000000000 + 1234;
  c.kernels = std::move(kernels);
  return c;
}

// Four 20 us kernels one after another on one stream, 1 us apart.
std::vector<Launch> serial() {
  std::vector<Launch> launches;
  for (int i = 0; i < 4; ++i) launches.push_back({0, i * 21000, i * 21000 + 20000});
  return launches;
}

std::vector<bool> verdicts(const hl::RunAgreement& a) {
  std::vector<bool> passed;
  for (const hl::AgreementCheck& c : hl::agreement_checks(a)) passed.push_back(c.passed);
  return passed;
}

std::string failures(const hl::RunAgreement& a) {
  std::string text;
  for (const hl::AgreementCheck& c : hl::agreement_checks(a)) {
    if (!c.passed) text += c.name + ": " + c.detail + "\n";
  }
  return text;
}

}  // namespace

TEST(ProfileAgreementTest, ASerialRunAgreesAndTheOffsetIsFound) {
  const hl::ClockedRun run = run_of("1 stream", serial());
  std::vector<hl::ProfiledKernel> kernels = kernels_of(run, 10);
  hl::ProfiledKernel gate = kernels.front();  // an untraced kernel that held the stream
  gate.name = "spin";
  gate.start_ns -= 5000000;
  gate.end_ns = kernels.front().start_ns - 2000;
  gate.correlation = 9;
  kernels.push_back(gate);
  const hl::RunAgreement a = hl::compare_run(run, capture_of(kernels));
  EXPECT_EQ(failures(a), "");
  ASSERT_EQ(a.pairs.size(), 4u);
  EXPECT_TRUE(a.missing.empty());
  // The middle of the offsets every pair allows: kernels start 300 ns early, end 450 ns late.
  ASSERT_TRUE(a.offset_ns.has_value());
  EXPECT_EQ(*a.offset_ns, kOffset + (kTail - kRamp) / 2);
  EXPECT_DOUBLE_EQ(a.pairs[2].lead_ns, 375.0);
  EXPECT_DOUBLE_EQ(a.pairs[2].lag_ns, 375.0);
  EXPECT_EQ(a.pairs[3].kernel.correlation, 13u);
  EXPECT_EQ(a.trace_peak, 1);
  EXPECT_EQ(a.profiler_peak, 1);
  EXPECT_DOUBLE_EQ(a.trace_makespan_ns, 83000.0);
  EXPECT_DOUBLE_EQ(a.profiler_makespan_ns, 83750.0);
  EXPECT_TRUE(a.others.empty());
  ASSERT_TRUE(a.host_read_after_ns.has_value());
  EXPECT_DOUBLE_EQ(*a.host_read_after_ns, 80000.0 - kTail);
}

TEST(ProfileAgreementTest, EightStreamsAtOnceAgreeOnThePeak) {
  std::vector<Launch> launches;
  for (int s = 0; s < 8; ++s) launches.push_back({s, s * 150, s * 150 + 100000});
  const hl::ClockedRun run = run_of("8 streams", launches);
  const hl::RunAgreement a = hl::compare_run(run, capture_of(kernels_of(run, 100)));
  EXPECT_EQ(failures(a), "");
  EXPECT_EQ(a.trace_peak, 8);
  EXPECT_EQ(a.profiler_peak, 8);
  for (const hl::LaunchPair& p : a.pairs) {  // issue order pairs launch s with stream 13 + s
    EXPECT_EQ(p.kernel.stream, 13u + static_cast<std::uint32_t>(p.launch.stream));
  }
}

TEST(ProfileAgreementTest, PairsTheTracedRunNotItsUntracedCopy) {
  const hl::ClockedRun run = run_of("1 stream", serial());
  // The same kernels ran untraced 6 ms earlier (correlation 1..4), then traced (10..13).
  std::vector<hl::ProfiledKernel> kernels = kernels_of(run, 1, -6000000);
  for (const hl::ProfiledKernel& k : kernels_of(run, 10)) kernels.push_back(k);
  hl::RunAgreement a = hl::compare_run(run, capture_of(kernels));
  ASSERT_EQ(a.pairs.size(), 4u);
  EXPECT_EQ(a.pairs[0].kernel.correlation, 10u);
  EXPECT_EQ(*a.offset_ns, kOffset + 75);
  // Read 80 us after the copy instead: the copy is the run (the host's clock decides).
  hl::ClockedRun early = run;
  early.host_read_ns = *run.host_read_ns - 6000000;
  a = hl::compare_run(early, capture_of(kernels));
  EXPECT_EQ(a.pairs[0].kernel.correlation, 1u);
}

TEST(ProfileAgreementTest, AKernelThatEndedAfterTheScheduleWasReadIsNotTheRun) {
  // Lesson 04 on an H200: one 59 us launch of 1056 blocks, its schedule read 80 ms after it
  // (the host checked 16M elements first); another kernel of 1056 blocks, long enough to hold
  // the launch, ended 70 ms after that read. It is nearer the read, but cannot be the run.
  hl::ClockedRun run = run_of("triad", {{0, 0, 59000}});
  run.launches[0].blocks = 1056;
  std::vector<hl::ProfiledKernel> kernels = kernels_of(run, 1);
  kernels[0].grid = {1056, 1, 1};
  run.host_read_ns = kernels[0].end_ns + 80000000;
  hl::ProfiledKernel later = kernels[0];
  later.correlation = 9;
  later.start_ns = *run.host_read_ns + 69850000;
  later.end_ns = later.start_ns + 150000;
  kernels.push_back(later);
  const hl::RunAgreement a = hl::compare_run(run, capture_of(kernels));
  ASSERT_EQ(a.pairs.size(), 1u);
  EXPECT_EQ(a.pairs[0].kernel.correlation, 1u);
  EXPECT_EQ(failures(a), "");
}

TEST(ProfileAgreementTest, PairsALongRunAmongManyCopiesOfIt) {
  // 256 short kernels (3 us, 1 us apart) traced once after 15 untraced copies of the same run,
  // beside a 5 ms kernel of the same grid: a lesson's worth of records (the pairing must stay
  // fast: ctest's 60 s timeout).
  std::vector<Launch> launches;
  for (int i = 0; i < 256; ++i) launches.push_back({0, i * 4000, i * 4000 + 3000});
  const hl::ClockedRun run = run_of("individual launches", launches);
  std::vector<hl::ProfiledKernel> kernels;
  for (int copy = 15; copy >= 1; --copy) {
    for (const hl::ProfiledKernel& k :
         kernels_of(run, static_cast<std::uint32_t>(1000 * (16 - copy)), -copy * 2000000)) {
      kernels.push_back(k);
    }
  }
  hl::ProfiledKernel gate = kernels.front();
  gate.start_ns -= 5000000;
  gate.end_ns = gate.start_ns + 5000000;
  kernels.push_back(gate);
  for (const hl::ProfiledKernel& k : kernels_of(run, 20000)) kernels.push_back(k);
  const hl::RunAgreement a = hl::compare_run(run, capture_of(kernels));
  EXPECT_EQ(failures(a), "");
  ASSERT_EQ(a.pairs.size(), 256u);
  EXPECT_EQ(a.pairs.front().kernel.correlation, 20000u);
  EXPECT_EQ(a.pairs.back().kernel.correlation, 20255u);
}

TEST(ProfileAgreementTest, AMissingLaunchFails) {
  const hl::ClockedRun run = run_of("1 stream", serial());
  std::vector<hl::ProfiledKernel> kernels = kernels_of(run, 10);
  kernels.erase(kernels.begin() + 2);
  const hl::RunAgreement a = hl::compare_run(run, capture_of(kernels));
  ASSERT_EQ(a.missing.size(), 1u);
  EXPECT_EQ(a.missing[0].launch, 2);
  EXPECT_EQ(verdicts(a), (std::vector<bool>{false, true, true, true}));
  EXPECT_NE(failures(a).find("no CUPTI kernel for: kernel 2 #2 on stream 0 (1 blocks)"),
            std::string::npos)
      << failures(a);
}

TEST(ProfileAgreementTest, AMissingFirstLaunchLeavesTheOthersPaired) {
  // Kernels of different lengths, so that only one offset fits (in a run of equal kernels one
  // apart, a missing first and a missing last kernel look the same).
  const hl::ClockedRun run =
      run_of("1 stream", {{0, 0, 20000}, {0, 21000, 51000}, {0, 52000, 62000}, {0, 63000, 103000}});
  std::vector<hl::ProfiledKernel> kernels = kernels_of(run, 10);
  kernels.erase(kernels.begin());
  const hl::RunAgreement a = hl::compare_run(run, capture_of(kernels));
  ASSERT_EQ(a.missing.size(), 1u);
  EXPECT_EQ(a.missing[0].launch, 0);
  ASSERT_EQ(a.pairs.size(), 3u);
  EXPECT_EQ(a.pairs[0].kernel.correlation, 11u);
  EXPECT_EQ(*a.offset_ns, kOffset + 75);
  EXPECT_EQ(verdicts(a), (std::vector<bool>{false, true, true, false}));
}

TEST(ProfileAgreementTest, AKernelWithOtherBlocksIsNotTheLaunch) {
  const hl::ClockedRun run = run_of("1 stream", serial());
  std::vector<hl::ProfiledKernel> kernels = kernels_of(run, 10);
  kernels[1].grid = {2, 1, 1};
  const hl::RunAgreement a = hl::compare_run(run, capture_of(kernels));
  ASSERT_EQ(a.missing.size(), 1u);
  EXPECT_EQ(a.missing[0].launch, 1);
  EXPECT_FALSE(verdicts(a)[0]);
}

TEST(ProfileAgreementTest, ALaunchOutsideItsKernelFails) {
  const hl::ClockedRun run = run_of("1 stream", serial());
  std::vector<hl::ProfiledKernel> kernels = kernels_of(run, 10);
  kernels[1].end_ns -= 2000 + kTail;  // ends 2 us before the launch's last block
  const hl::RunAgreement a = hl::compare_run(run, capture_of(kernels));
  EXPECT_TRUE(a.missing.empty());  // still paired: within the 5 us match window
  EXPECT_EQ(verdicts(a), (std::vector<bool>{true, false, true, true}));
  // Spread of the fitting offsets: starts allow >= -300, kernel 1's end <= -2000: 1700 ns.
  EXPECT_DOUBLE_EQ(a.outside_ns, 850.0);
  EXPECT_NE(failures(a).find("tightest end: kernel 1 #1, lag -0.850 us"), std::string::npos)
      << failures(a);
}

TEST(ProfileAgreementTest, ALaunchJustInsideTheTolerancePasses) {
  const hl::ClockedRun run = run_of("1 stream", serial());
  std::vector<hl::ProfiledKernel> kernels = kernels_of(run, 10);
  kernels[1].end_ns -= 600 + kTail;  // spread 300 ns: 150 ns outside, under 0.5 us
  const hl::RunAgreement a = hl::compare_run(run, capture_of(kernels));
  EXPECT_DOUBLE_EQ(a.outside_ns, 150.0);
  EXPECT_EQ(failures(a), "");
}

TEST(ProfileAgreementTest, KernelsThatOverlapWhereTheTraceDoesNotFailThePeak) {
  // Launches 0.2 us apart; the profiler starts the second kernel 6 us before the first ends:
  // an overlap of 6.55 us, beyond 1 us and the 3 us a ramp and completion may add.
  std::vector<Launch> launches;
  for (int i = 0; i < 4; ++i) launches.push_back({0, i * 20200, i * 20200 + 20000});
  const hl::ClockedRun run = run_of("1 stream", launches);
  std::vector<hl::ProfiledKernel> kernels = kernels_of(run, 10);
  kernels[1].start_ns -= 6000;
  const hl::RunAgreement a = hl::compare_run(run, capture_of(kernels));
  EXPECT_EQ(a.trace_peak, 1);
  EXPECT_EQ(a.profiler_peak, 2);
  EXPECT_EQ(a.profiler_peak_beyond_ramp, 2);
  EXPECT_EQ(verdicts(a), (std::vector<bool>{true, true, false, true}));
}

TEST(ProfileAgreementTest, AnOverlapNearTheThresholdMayCountInTheProfilerOnly) {
  // As on an H200 (lesson 05, breadth-first): two launches on two streams overlap by 0.8 us,
  // under the 1 us that counts; their kernels, 0.75 us longer each, by 1.55 us. The trace's
  // peak of 1 lies between the profiler's 2 (beyond 1 us) and 1 (beyond 1 + 3 us): agreed.
  const hl::ClockedRun run = run_of("2 streams", {{0, 0, 100000}, {1, 99200, 199200}});
  hl::RunAgreement a = hl::compare_run(run, capture_of(kernels_of(run, 10)));
  EXPECT_EQ(a.trace_peak, 1);
  EXPECT_EQ(a.profiler_peak, 2);
  EXPECT_EQ(a.profiler_peak_beyond_ramp, 1);
  EXPECT_EQ(failures(a), "");
  // Without the ramp's allowance the same run fails, as it did before the allowance.
  hl::AgreementTolerance no_ramp;
  no_ramp.ramp_us = 0.0;
  a = hl::compare_run(run, capture_of(kernels_of(run, 10)), no_ramp);
  EXPECT_EQ(hl::agreement_checks(a, no_ramp)[2].passed, false);
}

TEST(ProfileAgreementTest, ATraceThatClaimsMoreConcurrencyThanTheProfilerFailsThePeak) {
  // The trace has two launches overlap by 2 us; the profiler ends the first kernel before the
  // second starts. No ramp explains a trace peak above the profiler's.
  const hl::ClockedRun run = run_of("2 streams", {{0, 0, 100000}, {1, 98000, 198000}});
  std::vector<hl::ProfiledKernel> kernels = kernels_of(run, 10);
  kernels[0].end_ns = kernels[1].start_ns - 100;
  const hl::RunAgreement a = hl::compare_run(run, capture_of(kernels));
  EXPECT_EQ(a.trace_peak, 2);
  EXPECT_EQ(a.profiler_peak, 1);
  EXPECT_EQ(verdicts(a), (std::vector<bool>{true, false, false, true}));
}

TEST(ProfileAgreementTest, AKernelsRampAndCompletionAreNotConcurrency) {
  // A graph's kernels on an H200: blocks 0.2 us apart, so the profiler's kernels (300 ns ramp,
  // 450 ns tail) overlap by 0.55 us, as CUPTI showed (up to 0.385 us). Not concurrency; an
  // overlap of 1.5 us is.
  std::vector<Launch> launches;
  for (int i = 0; i < 4; ++i) launches.push_back({0, i * 20200, i * 20200 + 20000});
  const hl::ClockedRun run = run_of("graph replay", launches);
  hl::RunAgreement a = hl::compare_run(run, capture_of(kernels_of(run, 10)));
  EXPECT_EQ(a.profiler_peak, 1);
  EXPECT_EQ(failures(a), "");
  hl::AgreementTolerance strict;
  strict.concurrency_us = 0.5;
  a = hl::compare_run(run, capture_of(kernels_of(run, 10)), strict);
  EXPECT_EQ(a.profiler_peak, 2);
}

TEST(ProfileAgreementTest, AMakespanBeyondTheToleranceFails) {
  const hl::ClockedRun run = run_of("1 stream", serial());
  std::vector<hl::ProfiledKernel> kernels = kernels_of(run, 10);
  kernels[0].start_ns -= 10000;  // a 10 us launch ramp before the first kernel
  const hl::RunAgreement a = hl::compare_run(run, capture_of(kernels));
  EXPECT_EQ(verdicts(a), (std::vector<bool>{true, true, true, false}));
  EXPECT_NE(failures(a).find("allowed 2.83 us"), std::string::npos) << failures(a);
}

TEST(ProfileAgreementTest, NoKernelsPairsNothing) {
  const hl::ClockedRun run = run_of("1 stream", serial());
  const hl::RunAgreement a = hl::compare_run(run, capture_of({}));
  EXPECT_EQ(a.missing.size(), 4u);
  EXPECT_FALSE(a.offset_ns.has_value());
  EXPECT_EQ(verdicts(a), (std::vector<bool>{false, false, false, false}));
}

TEST(ProfileAgreementTest, ScheduleKeepsItsDeviceClockOrigin) {
  const hl::Schedule absolute({{"k", 0, 0, 0, 1, 1000.5, 1020.0}, {"k", 1, 0, 0, 1, 1021, 1040}});
  ASSERT_TRUE(absolute.device_clock_origin_ns().has_value());
  EXPECT_EQ(*absolute.device_clock_origin_ns(), 1000500);
  const hl::Schedule relative({{"k", 0, 0, 0, 1, 0, 20.0}});
  EXPECT_FALSE(relative.device_clock_origin_ns().has_value());
  const hl::Schedule exact({{"k", 0, 0, 0, 1, 0.0, 20.0}}, kDeviceOrigin + 7);
  EXPECT_EQ(*exact.device_clock_origin_ns(), kDeviceOrigin + 7);
  const hl::ClockedRun clocked = hl::clocked_run("exact", exact);
  EXPECT_TRUE(clocked.device_clock_known);
  EXPECT_EQ(clocked.launches.at(0).start_ns, kDeviceOrigin + 7);
  EXPECT_EQ(clocked.launches.at(0).end_ns, kDeviceOrigin + 7 + 20000);
}

namespace {

// Lesson 03's shape: a serial run, traced exactly on the device clock.
hl::Schedule serial_schedule() {
  std::vector<hl::TracedBlock> blocks;
  for (int i = 0; i < 4; ++i) {
    blocks.push_back({"kernel " + std::to_string(i), i, 0, 0, 7, i * 21.0, i * 21.0 + 20.0});
  }
  return hl::Schedule(std::move(blocks), kDeviceOrigin);
}

hl::ProfilerCapture capture_for(const hl::Schedule& schedule) {
  return capture_of(kernels_of(hl::clocked_run("1 stream", schedule), 10));
}

int report(const std::string& json, std::string* text) {
  std::ostringstream out;
  hl::Report r("test", out, hl::Mode::kTour);
  const int code = hl::report_profiler_agreement(json, r);
  *text = out.str();
  return code;
}

}  // namespace

TEST(ProfiledTraceTest, TheTraceCarriesAlignedProfilerSlicesAndStaysValid) {
  const hl::Schedule schedule = serial_schedule();
  const hl::ProfilerCapture capture = capture_for(schedule);
  const nlohmann::json trace =
      nlohmann::json::parse(hl::chrome_trace_json({{"1 stream", schedule}}, &capture));
  std::map<int, std::string> processes;
  std::vector<nlohmann::json> launches;
  std::vector<nlohmann::json> profiled;
  for (const auto& e : trace.at("traceEvents")) {
    ASSERT_TRUE(e.is_object());
    for (const auto& [key, value] : e.items()) {
      // Perfetto's JSON reader takes no list as an event's own value (lists sit in "args").
      EXPECT_FALSE(value.is_array()) << key << " in " << e;
    }
    if (e.at("ph") == "M" && e.at("name") == "process_name") {
      processes[e.at("pid")] = e.at("args").at("name");
    }
    if (e.at("ph") != "X") continue;
    for (const char* key : {"name", "pid", "tid", "ts", "dur"}) ASSERT_TRUE(e.contains(key)) << e;
    EXPECT_TRUE(e.at("ts").is_number() && e.at("ts") >= 0) << e;
    EXPECT_TRUE(e.at("dur").is_number() && e.at("dur") >= 0) << e;
    if (e.at("cat") == "launch") launches.push_back(e);
    if (e.at("cat") == "profiler") profiled.push_back(e);
  }
  EXPECT_EQ(processes, (std::map<int, std::string>{{1, "1 stream: streams"},
                                                   {2, "1 stream: compute units"},
                                                   {3, "1 stream: profiler (CUPTI)"}}));
  ASSERT_EQ(launches.size(), 4u);
  ASSERT_EQ(profiled.size(), 4u);
  // Time 0 moved back to the first kernel's start, 0.375 us before its first block once the
  // clocks are aligned at the middle of the offsets that fit (kernels start 300 ns before
  // their first block and end 450 ns after their last: 375 ns on either side).
  EXPECT_NEAR(profiled[0].at("ts").get<double>(), 0.0, 1e-9);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(profiled[i].at("args").at("launch"), i);
    EXPECT_NEAR(launches[i].at("ts").get<double>() - profiled[i].at("ts").get<double>(), 0.375,
                1e-6);
    EXPECT_NEAR(profiled[i].at("dur").get<double>(), 20.75, 1e-6);
    EXPECT_EQ(profiled[i].at("tid"), 13);
  }
  const auto& runs = trace.at("otherData").at("hip_lessons_runs");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].at("device_clock_at_ts0_ns").get<std::int64_t>(), kDeviceOrigin - 375);
  EXPECT_EQ(trace.at("otherData").at("hip_lessons_profiler").at("kernels").size(), 4u);
}

TEST(ProfiledTraceTest, ReadsTheRunsBackOnTheDeviceClock) {
  const hl::Schedule schedule = serial_schedule();
  const hl::ProfilerCapture capture = capture_for(schedule);
  const hl::ProfiledTrace trace =
      hl::read_profiled_trace(hl::chrome_trace_json({{"1 stream", schedule}}, &capture));
  ASSERT_EQ(trace.runs.size(), 1u);
  const hl::ClockedRun expected = hl::clocked_run("1 stream", schedule);
  ASSERT_EQ(trace.runs[0].launches.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(trace.runs[0].launches[i].start_ns, expected.launches[i].start_ns);
    EXPECT_EQ(trace.runs[0].launches[i].end_ns, expected.launches[i].end_ns);
    EXPECT_EQ(trace.runs[0].launches[i].blocks, 1u);
  }
  EXPECT_TRUE(trace.runs[0].device_clock_known);
  ASSERT_TRUE(trace.profiler.has_value());
  EXPECT_EQ(trace.profiler->kernels.size(), 4u);
}

TEST(ProfiledTraceTest, TheCheckPassesWhenTheyAgreeAndFailsWhenTheyDoNot) {
  const hl::Schedule schedule = serial_schedule();
  hl::ProfilerCapture capture = capture_for(schedule);
  std::string text;
  EXPECT_EQ(report(hl::chrome_trace_json({{"1 stream", schedule}}, &capture), &text), hl::kExitPass)
      << text;
  EXPECT_NE(text.find("check   ok    1 stream: every traced launch is one CUPTI kernel"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("lead us"), std::string::npos) << text;
  EXPECT_NE(text.find("-1.309 us (from the first run's offset"), std::string::npos) << text;

  capture.kernels.erase(capture.kernels.begin() + 1);
  EXPECT_EQ(report(hl::chrome_trace_json({{"1 stream", schedule}}, &capture), &text),
            hl::kExitFail);
  EXPECT_NE(text.find("check   FAIL  1 stream: every traced launch is one CUPTI kernel"),
            std::string::npos)
      << text;
}

TEST(ProfiledTraceTest, WithoutProfilerRecordsTheCheckFails) {
  std::string text;
  EXPECT_EQ(report(hl::chrome_trace_json({{"1 stream", serial_schedule()}}, nullptr), &text),
            hl::kExitFail);
  EXPECT_NE(text.find("CUDA_INJECTION64_PATH"), std::string::npos) << text;
}

TEST(ProfiledTraceTest, NothingToCompareIsASkipWithItsReason) {
  std::string text;
  // A run rebuilt from relative times: no device clock to align.
  const hl::Schedule relative({{"k", 0, 0, 0, 1, 0.0, 20.0}});
  hl::ProfilerCapture capture = capture_for(serial_schedule());
  EXPECT_EQ(report(hl::chrome_trace_json({{"child", relative}}, &capture), &text), hl::kExitSkip);
  EXPECT_NE(text.find("skipped: no traced run"), std::string::npos) << text;
  // A recorder that could not record (CUPTI refused).
  capture.status = "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL): CUPTI_ERROR_X";
  EXPECT_EQ(report(hl::chrome_trace_json({{"1 stream", serial_schedule()}}, &capture), &text),
            hl::kExitSkip);
  EXPECT_NE(text.find("cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)"),
            std::string::npos)
      << text;
  // No traced run at all.
  EXPECT_EQ(report(hl::chrome_trace_json({}, &capture), &text), hl::kExitSkip);
}

TEST(ProfiledKernelsTest, TheHandOverRoundTripsAndRefusesMalformedRecords) {
  const hl::ProfilerCapture capture = capture_for(serial_schedule());
  const hl::ProfilerCapture back =
      hl::profiler_capture_from_json(hl::profiler_capture_to_json(capture));
  EXPECT_EQ(back.tool, capture.tool);
  EXPECT_EQ(back.realtime_minus_host_clock_ns, capture.realtime_minus_host_clock_ns);
  ASSERT_EQ(back.kernels.size(), 4u);
  EXPECT_EQ(back.kernels[3].start_ns, capture.kernels[3].start_ns);
  EXPECT_EQ(back.kernels[3].block, (std::array<std::uint32_t, 3>{64, 1, 1}));
  EXPECT_THROW(hl::profiler_capture_from_json("not json"), std::runtime_error);
  EXPECT_THROW(hl::profiler_capture_from_json(R"({"tool": "x"})"), std::runtime_error);
  nlohmann::json broken = nlohmann::json::parse(hl::profiler_capture_to_json(capture));
  broken["kernels"][0]["grid"] = {1, 1};
  EXPECT_THROW(hl::profiler_capture_from_json(broken.dump()), std::runtime_error);
}

TEST(ProfiledKernelsTest, AChildProcessAddsItsKernelsAndTheMergedRunAgrees) {
  // A run whose launches 0-1 ran in the lesson's process and 2-3 in a child (lesson 08: the
  // victim and the aggressor): each process numbers its correlation ids from its own start.
  const hl::ClockedRun run = run_of("two processes", serial());
  std::vector<hl::ProfiledKernel> all = kernels_of(run, 1);
  hl::ProfilerCapture own = capture_of({all[0], all[1]});
  hl::ProfilerCapture child = capture_of({all[2], all[3]});
  child.kernels[0].correlation = 1;
  child.kernels[1].correlation = 2;
  child.dropped_records = 2;
  EXPECT_EQ(hl::compare_run(run, own).missing.size(), 2u);  // the child's half is missing

  hl::add_child_capture(own, 100, child, 101);
  ASSERT_EQ(own.processes.size(), 2u);
  EXPECT_EQ(own.processes[0].pid, 100);
  EXPECT_EQ(own.processes[0].kernels, 2u);
  EXPECT_EQ(own.processes[1].pid, 101);
  EXPECT_EQ(own.processes[1].status, "ok");
  ASSERT_EQ(own.kernels.size(), 4u);
  EXPECT_EQ(own.kernels[2].process, 1u);
  EXPECT_EQ(own.kernels[2].correlation, 3u);  // moved above the parent's ids, order kept
  EXPECT_EQ(own.kernels[3].correlation, 4u);
  EXPECT_EQ(own.dropped_records, 2u);
  const hl::RunAgreement merged = hl::compare_run(run, own);
  EXPECT_EQ(failures(merged), "");
  EXPECT_EQ(merged.pairs.size(), 4u);

  // The hand-over keeps the processes; a kernel of a process it does not list is refused.
  const hl::ProfilerCapture back =
      hl::profiler_capture_from_json(hl::profiler_capture_to_json(own));
  ASSERT_EQ(back.processes.size(), 2u);
  EXPECT_EQ(back.processes[1].pid, 101);
  EXPECT_EQ(back.kernels[3].process, 1u);
  nlohmann::json broken = nlohmann::json::parse(hl::profiler_capture_to_json(own));
  broken["kernels"][3]["process"] = 5;
  EXPECT_THROW(hl::profiler_capture_from_json(broken.dump()), std::runtime_error);

  // A child whose recorder failed, or whose records are on another clock, adds no kernels and
  // says why; the lesson's own status stays.
  hl::ProfilerCapture failed = child;
  failed.status = "cuptiActivityEnable: CUPTI_ERROR_NOT_INITIALIZED";
  hl::ProfilerCapture other_clock = child;
  other_clock.host_clock = "CUPTI's default (CLOCK_REALTIME)";
  hl::add_child_capture(own, 100, failed, 102);
  hl::add_child_capture(own, 100, other_clock, 103);
  EXPECT_EQ(own.kernels.size(), 4u);
  EXPECT_EQ(own.processes[2].status, failed.status);
  EXPECT_NE(own.processes[3].status.find("CLOCK_REALTIME"), std::string::npos);
  EXPECT_TRUE(own.ok());
}

TEST(ProfiledKernelsTest, ReadsARocprofv3KernelTrace) {
  // rocprofv3's CSV as its documentation shows it (rocprofiler-sdk using-rocprofv3.rst): grid
  // sizes in work-items, a kernel name with commas inside quotes.
  const std::string csv =
      "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","
      "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\","
      "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","
      "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\","
      "\"Grid_Size_Y\",\"Grid_Size_Z\"\r\n"
      "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,852831,1,10,\"void addition_kernel<float>(float*, "
      "float const*, float const*, int, int)\",1,1551874061244694,1551874061255734,0,0,8,0,16,"
      "64,1,1,1024,1024,1\r\n"
      "\"KERNEL_DISPATCH\",\"Agent 4\",2,0,852831,8,11,\"divide_kernel(float*, float const*, "
      "float const*, int, int)\",8,1551874061326294,1551874061335454,0,0,12,4,16,64,1,1,1000,"
      "1,1\r\n";
  const hl::ProfilerCapture c = hl::profiler_capture_from_rocprofv3_csv(csv);
  ASSERT_EQ(c.kernels.size(), 2u);
  EXPECT_EQ(c.kernels[0].name,
            "void addition_kernel<float>(float*, float const*, float const*, int, int)");
  EXPECT_EQ(c.kernels[0].start_ns, 1551874061244694);
  EXPECT_EQ(c.kernels[0].grid, (std::array<std::uint32_t, 3>{16, 1024, 1}));
  EXPECT_EQ(c.kernels[0].block, (std::array<std::uint32_t, 3>{64, 1, 1}));
  EXPECT_EQ(c.kernels[1].grid, (std::array<std::uint32_t, 3>{16, 1, 1}));  // 1000 / 64 rounded up
  EXPECT_EQ(c.kernels[1].stream, 2u);  // Stream_Id 0: its HSA queue instead
  EXPECT_EQ(c.kernels[1].correlation, 8u);
  EXPECT_THROW(hl::profiler_capture_from_rocprofv3_csv("\"Kind\",\"Queue_Id\"\n"),
               std::runtime_error);
  std::string broken = csv;
  broken.replace(broken.find("1551874061326294"), 16, "soon");
  EXPECT_THROW(hl::profiler_capture_from_rocprofv3_csv(broken), std::runtime_error);
}

TEST(ProfiledTraceTest, ARocprofv3TraceOfTheSameRunIsCheckedTheSameWay) {
  const hl::Schedule schedule = serial_schedule();
  const hl::ClockedRun run = hl::clocked_run("1 stream", schedule);
  std::string csv =
      "Kind,Queue_Id,Stream_Id,Kernel_Name,Correlation_Id,Start_Timestamp,End_Timestamp,"
      "Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z,Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n";
  for (const hl::ProfiledKernel& k : kernels_of(run, 40)) {
    csv += hl::format(
        "KERNEL_DISPATCH,3,7,\"small_kernel(unsigned int const*, unsigned int*)\","
        "{},{},{},64,1,1,64,1,1\n",
        k.correlation, k.start_ns, k.end_ns);
  }
  const hl::ProfilerCapture rocprof = hl::profiler_capture_from_rocprofv3_csv(csv);
  const std::string trace = hl::chrome_trace_json({{"1 stream", schedule}}, nullptr);
  std::ostringstream out;
  hl::Report r("test", out, hl::Mode::kTour);
  EXPECT_EQ(hl::report_profiler_agreement(trace, r, {}, &rocprof), hl::kExitPass) << out.str();
  EXPECT_NE(out.str().find("every traced launch is one rocprofv3 kernel"), std::string::npos)
      << out.str();
}

#ifdef HIP_LESSONS_FAKE_RECORDER
// The lesson's side of the hand-over: a library that the driver would have loaded (loaded
// here by hand), named by CUDA_INJECTION64_PATH, asked for its records by --trace's writer.
TEST(ProfiledKernelsTest, TheLessonFindsTheLoadedRecorder) {
  unsetenv("CUDA_INJECTION64_PATH");
  EXPECT_FALSE(hl::profiler_capture_in_this_process().has_value());
  setenv("CUDA_INJECTION64_PATH", HIP_LESSONS_FAKE_RECORDER, 1);
  // Named but not loaded: the lesson never loads a library itself.
  EXPECT_FALSE(hl::profiler_capture_in_this_process().has_value());
  void* library = dlopen(HIP_LESSONS_FAKE_RECORDER, RTLD_NOW);
  ASSERT_NE(library, nullptr) << dlerror();
  const std::optional<hl::ProfilerCapture> capture = hl::profiler_capture_in_this_process();
  ASSERT_TRUE(capture.has_value());
  EXPECT_EQ(capture->tool, "fake recorder");
  ASSERT_EQ(capture->kernels.size(), 1u);
  // What --trace writes now carries a profiler process beside the run.
  const hl::Schedule schedule({{"k", 0, 0, 0, 1, 1000.0, 1020.0}});
  const std::string json = hl::chrome_trace_json({{"run", schedule}});
  EXPECT_NE(json.find("\"run: profiler (fake)\""), std::string::npos) << json;
  unsetenv("CUDA_INJECTION64_PATH");
  dlclose(library);
}
#endif
