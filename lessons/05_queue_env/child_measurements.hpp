/// \file lessons/05_queue_env/child_measurements.hpp
/// \brief Lesson 05's child processes: the measurement each one runs, and how the parent
/// starts them and reads their one machine-readable "@result key=value ..." line.
///
/// The parent (main.hip) starts this binary again with --measure queues | wait | copy | aql
/// and one variable changed in the child's environment. Each measurement checks its own
/// results and says so in the "correct" key; the parent reads nothing else.
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "chain_traces.hpp"
#include "hip_lessons/block_trace.hpp"
#include "hip_lessons/buffers.hpp"
#include "hip_lessons/child_process.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/environment.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/spin_kernel.hpp"
#include "hip_lessons/timing.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"

namespace queue_env {

namespace hl = hip_lessons;

/// Which measurement a variable belongs to, and on which platform it exists.
struct Variable {
  const char* name;
  const char* platform;  ///< "AMD" or "NVIDIA"
  const char* measure;   ///< the --measure run that shows its effect
  const char* meaning;
};

inline const std::vector<Variable>& variables() {
  static const std::vector<Variable> all = {
      {"GPU_MAX_HW_QUEUES", "AMD", "queues",
       "hardware queues HIP creates per device (default 4); more streams share them"},
      {"CUDA_DEVICE_MAX_CONNECTIONS", "NVIDIA", "queues",
       "hardware connections per device (default 8, at most 32); more streams share them"},
      {"HSA_ENABLE_INTERRUPT", "AMD", "wait",
       "1 (default): a sleeping waiter is woken by an interrupt; 0: ROCr polls"},
      {"HSA_ENABLE_SDMA", "AMD", "copy",
       "unset (default): ROCr's choice per GPU; 1: SDMA copy engines; 0: blit kernels on the CUs"},
      {"ROC_AQL_QUEUE_SIZE", "AMD", "aql", "packets per HIP AQL queue (64 bytes each)"},
  };
  return all;
}

// The platform's hardware-queue variable (GPU_MAX_HW_QUEUES / CUDA_DEVICE_MAX_CONNECTIONS).
inline const hl::HardwareQueueVariable kQueues = hl::hardware_queue_variable();
inline const char* const kPlatform = hl::platform_name(hl::build_platform());

/// Everything a child needs to know; the parent passes it on with the common options.
struct Settings {
  std::string measure = "none";
  std::string policy = "all";
  std::string variable = "auto";
  std::int64_t streams = 16, chain = 4, kernel_us = 100, wait_us = 5000;
  bool trace_chains = false;  ///< --measure queues: also trace both orders, print "@block" lines
};

/// Resolves --variable for a --measure run. "auto" means the measurement's own variable on
/// this platform (none for "wait"). A variable of another measurement is a usage error; a
/// variable that does not exist on this platform is "not applicable here" (exit 77), said
/// before any GPU work, so it is never silently measured as if it had an effect.
inline std::optional<Variable> resolve_variable(const std::string& measure,
                                                const std::string& chosen) {
  std::string name = chosen;
  if (name == "auto") {
    if (measure == "queues") name = kQueues.name;
    if (measure == "copy") name = "HSA_ENABLE_SDMA";
    if (measure == "aql") name = "ROC_AQL_QUEUE_SIZE";
    if (name == "auto") return std::nullopt;
  }
  const auto found = std::find_if(variables().begin(), variables().end(),
                                  [&](const Variable& v) { return name == v.name; });
  if (found == variables().end()) throw hl::UsageError("unknown variable " + name);
  if (measure != found->measure) {
    throw hl::UsageError(hl::format("--variable {} belongs to --measure {}, not --measure {}", name,
                                    found->measure, measure));
  }
  if (std::string(found->platform) != kPlatform) {
    throw hl::SkipError(hl::format(
        "not applicable here: {} is read by the {} runtime only; this binary runs on {}{}", name,
        found->platform, kPlatform,
        measure == "queues" ? std::string(", whose counterpart is ") + kQueues.name : ""));
  }
  return *found;
}

/// The value of \p name in this process's environment, or "default".
inline std::string setting_of(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "default" : std::string(value);
}

/// \p text as one value of the @result line: a space becomes '_', nothing becomes "-".
inline std::string token(std::string text) {
  std::replace(text.begin(), text.end(), ' ', '_');
  return text.empty() ? "-" : text;
}

/// Prints the one machine-readable line of a measuring child: "@result key=value ...",
/// flushed at once, so it reaches the parent even when the runtime crashes on the way out.
inline void print_result(hl::Report& report, const std::string& pairs) {
  report.line(hl::kResultPrefix + pairs);  // never wrapped: the parent parses it
  std::fflush(stdout);
}

inline double elapsed_ms(std::chrono::steady_clock::time_point from,
                         std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

// --- Hardware queues and false serialization ------------------------------------------------

struct ChainTiming {
  double median_ms = 0.0;
  bool correct = false;
};

// Runs every chain `warmup + repeats` times in the given order, resetting the words before
// each run, timing launch-to-completion with the host clock, and checking every run. With a
// `recorder`, one run without warm-up, every launch traced.
inline ChainTiming time_chains(hl::Report& report, IssueOrder order,
                               const std::vector<hipStream_t>& streams, unsigned int steps,
                               long long ticks, const std::vector<std::uint32_t>& initial,
                               hl::DeviceBuffer<std::uint32_t>& words, int repeats,
                               const std::string& label,
                               hl::BlockTraceRecorder* recorder = nullptr) {
  const std::vector<std::uint32_t> start(initial.begin(),
                                         initial.begin() + static_cast<long>(streams.size()));
  std::vector<std::uint32_t> expected(start.size());
  for (std::size_t s = 0; s < start.size(); ++s) expected[s] = chain_reference(start[s], steps);
  std::vector<double> samples;
  std::optional<hl::Mismatch> wrong;
  const int warmup = recorder ? 0 : 2;
  for (int run = 0; run < warmup + repeats; ++run) {
    HIP_CHECK(hipMemcpy(words.data(), start.data(), start.size() * sizeof(std::uint32_t),
                        hipMemcpyHostToDevice));
    HIP_CHECK(hipDeviceSynchronize());
    const auto before = std::chrono::steady_clock::now();
    issue_chains(order, streams, steps, ticks, words.data(), recorder);
    HIP_CHECK(hipDeviceSynchronize());
    const auto after = std::chrono::steady_clock::now();
    std::vector<std::uint32_t> got(streams.size());
    HIP_CHECK(hipMemcpy(got.data(), words.data(), got.size() * sizeof(std::uint32_t),
                        hipMemcpyDeviceToHost));
    if (!wrong) wrong = hl::first_mismatch(expected, got);
    if (run >= warmup) samples.push_back(elapsed_ms(before, after));
  }
  return {hl::summarize(samples).median,
          report.check_match(label + ", every run", wrong, expected.size())};
}

inline void measure_queues(hl::Report& report, const Settings& s, const hl::CommonOptions& options,
                           const Variable& variable) {
  const auto ticks = static_cast<long long>(s.kernel_us * hl::spin_ticks_per_microsecond());
  const auto steps = static_cast<unsigned int>(s.chain);

  std::vector<hl::GpuStream> owned(static_cast<std::size_t>(s.streams));  // non-blocking
  std::vector<hipStream_t> streams;
  for (const hl::GpuStream& stream : owned) streams.push_back(stream.get());
  std::mt19937_64 generator(options.seed);
  std::vector<std::uint32_t> initial(streams.size());
  for (auto& w : initial) w = static_cast<std::uint32_t>(generator());
  hl::DeviceBuffer<std::uint32_t> words(streams.size());

  const std::string chains = hl::format("{} chains of {}", s.streams, s.chain);
  const ChainTiming depth = time_chains(report, IssueOrder::kDepthFirst, streams, steps, ticks,
                                        initial, words, options.repeat, chains + ", depth-first");
  const ChainTiming breadth =
      time_chains(report, IssueOrder::kBreadthFirst, streams, steps, ticks, initial, words,
                  options.repeat, chains + ", breadth-first");
  const std::vector<hipStream_t> one(streams.begin(), streams.begin() + 1);
  const ChainTiming single =
      time_chains(report, IssueOrder::kBreadthFirst, one, steps, ticks, initial, words,
                  options.repeat, hl::format("1 chain of {}", s.chain));
  const double ideal_ms = static_cast<double>(s.chain * s.kernel_us) / 1000.0;
  const std::string setting = setting_of(variable.name);
  bool traced_correct = true;
  // Step 2's timelines: one more run of each order, traced, sent to the parent line by line.
  for (const IssueOrder order : {IssueOrder::kDepthFirst, IssueOrder::kBreadthFirst}) {
    if (!s.trace_chains) break;
    const std::string name = order == IssueOrder::kDepthFirst ? "depth-first" : "breadth-first";
    hl::BlockTraceRecorder recorder(streams.size() * steps);
    traced_correct = time_chains(report, order, streams, steps, ticks, initial, words, 1,
                                 chains + ", " + name + ", traced", &recorder)
                         .correct &&
                     traced_correct;
    const hl::Schedule schedule = recorder.schedule();
    for (const hl::TracedBlock& b : schedule.blocks()) report.line(block_line(name, b));
  }

  hl::ResultTable table("chains",
                        hl::format("{} {}: {} x {} us kernels (ideal {:.3} ms)", variable.name,
                                   setting, chains, s.kernel_us, ideal_ms),
                        {{"issue order"}, {"median", "ms", 3}, {"x ideal"}});
  table.row({"depth-first", depth.median_ms, depth.median_ms / ideal_ms});
  table.row({"breadth-first", breadth.median_ms, breadth.median_ms / ideal_ms});
  table.row({"one chain alone", single.median_ms, single.median_ms / ideal_ms});
  report.table(table);
  const bool correct = depth.correct && breadth.correct && single.correct && traced_correct;
  print_result(report, hl::format("experiment=queues variable={} setting={} depth_first_ms={:.4} "
                                  "breadth_first_ms={:.4} single_chain_ms={:.4} ideal_ms={:.4} "
                                  "correct={}",
                                  variable.name, token(setting), depth.median_ms, breadth.median_ms,
                                  single.median_ms, ideal_ms, correct ? 1 : 0));
  report.summary(hl::format("{} {}: depth-first {:.2} ms, breadth-first {:.2} ms", variable.name,
                            setting, depth.median_ms, breadth.median_ms));
}

// --- The waiting policy -----------------------------------------------------------------------

inline void measure_waiting_policy(hl::Report& report, const Settings& s,
                                   const hl::CommonOptions& options,
                                   const std::optional<Variable>& variable) {
  const auto found = std::find_if(policies().begin(), policies().end(),
                                  [&](const Policy& p) { return s.policy == p.name; });
  if (found == policies().end()) {
    throw hl::UsageError("--measure wait needs one --policy: spin, yield, blocking-sync or auto");
  }
  const Policy& policy = *found;

  //! [set_device_flags]
  // The waiting policy belongs to the device's context and is meant to be chosen before
  // the context exists. hipGetDeviceCount does not create one; hipSetDevice may (CUDA 12
  // initializes the primary context there, and then overwrites its flags in
  // hipSetDeviceFlags), and the first stream, allocation or launch certainly does. So: check
  // the device exists (hipGetDeviceCount only), select it, set the flags, and only then do
  // anything else.
  hl::require_device_index(options.device);
  if (options.device != 0) HIP_CHECK(hipSetDevice(options.device));
  HIP_CHECK(hipSetDeviceFlags(policy.flag));
  //! [set_device_flags]
  const hl::Device device = hl::open_device(options.device);
  report.facts(device.facts());
  unsigned int flags = 0;
  HIP_CHECK(hipGetDeviceFlags(&flags));
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%x", flags);
  const std::string flags_hex = hex;

  const double ticks_per_us = hl::spin_ticks_per_microsecond();
  const auto wait_us = static_cast<double>(s.wait_us);
  hl::GpuStream stream;
  hl::DeviceBuffer<long long> elapsed(1);
  const double round_trip_kernel_us = 10.0;
  for (int i = 0; i < 20; ++i) round_trip_us(round_trip_kernel_us, ticks_per_us, stream);
  measure_wait(1000.0, ticks_per_us, stream, elapsed.data());  // warm-up

  std::vector<double> cpu_per_wall, wall_ms;
  bool full_time = true;
  const auto wanted_ticks = static_cast<long long>(wait_us * ticks_per_us);
  for (int i = 0; i < 7; ++i) {
    const WaitCost cost = measure_wait(wait_us, ticks_per_us, stream, elapsed.data());
    cpu_per_wall.push_back(cost.cpu_ms / cost.wall_ms);
    wall_ms.push_back(cost.wall_ms);
    full_time = full_time && cost.ticks >= wanted_ticks;
  }
  report.check(
      hl::format("every waited-for kernel ran its full {:.1} ms (its own clock)", wait_us / 1000.0),
      full_time);
  std::vector<double> round_trips;
  const int trips = std::max(100, 10 * options.repeat);
  for (int i = 0; i < trips; ++i) {
    round_trips.push_back(round_trip_us(round_trip_kernel_us, ticks_per_us, stream));
  }
  const double ratio = hl::summarize(cpu_per_wall).median;
  const double wall = hl::summarize(wall_ms).median;
  const double trip = hl::summarize(round_trips).median;
  const std::string setting =
      variable ? std::string(variable->name) + "=" + setting_of(variable->name) : "-";

  hl::ResultTable table(
      "wait",
      hl::format("Waiting for a {:.1} ms kernel, and the round trip of a {:.0} us kernel "
                 "({} trips, median)",
                 wait_us / 1000.0, round_trip_kernel_us, trips),
      {{"policy"},
       {"device flags"},
       {"CPU / wall while waiting"},
       {"wait", "ms"},
       {"round trip", "us", 1}});
  table.row({policy.name, flags_hex, ratio, wall, trip});
  report.table(table);
  print_result(
      report,
      hl::format("experiment=wait policy={} setting={} flags={} cpu_per_wall={:.4} "
                 "wait_ms={:.3} round_trip_us={:.2} correct={}",
                 policy.name, token(setting), flags_hex, ratio, wall, trip, full_time ? 1 : 0));
  report.summary(hl::format("{}: CPU/wall {:.2}, round trip {:.1} us", policy.name, ratio, trip));
}

// --- AMD only: copy engines and queue size ----------------------------------------------------

inline void measure_copy(hl::Report& report, const hl::CommonOptions& options,
                         const Variable& variable) {
  const auto n = static_cast<std::size_t>(options.size);
  const std::size_t bytes = n * sizeof(float);
  hl::require_device_memory(bytes, hl::format("--size {}", n));
  std::vector<float> input(n);
  hl::fill_uniform(input, options.seed);
  hl::PinnedBuffer<float> host_in(n), host_out(n);
  std::copy(input.begin(), input.end(), host_in.data());
  std::fill(host_out.data(), host_out.data() + n, std::nanf(""));  // poisoned
  hl::DeviceBuffer<float> device_buffer(n);
  hl::GpuStream stream;
  const hl::TimingPlan plan{2, std::min(options.repeat, 10)};
  const hl::Stats h2d = hl::time_on_stream(stream, plan, [&] {
    HIP_CHECK(
        hipMemcpyAsync(device_buffer.data(), host_in.data(), bytes, hipMemcpyHostToDevice, stream));
  });
  const hl::Stats d2h = hl::time_on_stream(stream, plan, [&] {
    HIP_CHECK(hipMemcpyAsync(host_out.data(), device_buffer.data(), bytes, hipMemcpyDeviceToHost,
                             stream));
  });
  const bool correct = report.check_match("data copied in and out unchanged",
                                          hl::first_mismatch(input.data(), host_out.data(), n), n);
  const double h2d_gbps = bytes / (h2d.median * 1e6);
  const double d2h_gbps = bytes / (d2h.median * 1e6);
  const std::string setting = setting_of(variable.name);
  hl::ResultTable table(
      "copy", hl::format("Pinned copies of {:bytes}", static_cast<double>(bytes)),
      {{"HSA_ENABLE_SDMA"}, {"host-to-device", "GB/s", 1}, {"device-to-host", "GB/s", 1}});
  table.row({setting, h2d_gbps, d2h_gbps});
  report.table(table);
  print_result(report, hl::format("experiment=copy setting={} h2d_gbps={:.2} d2h_gbps={:.2} "
                                  "correct={}",
                                  token(setting), h2d_gbps, d2h_gbps, correct ? 1 : 0));
  report.summary(hl::format("HSA_ENABLE_SDMA {}: {:.1} / {:.1} GB/s", setting, h2d_gbps, d2h_gbps));
}

// Counts the launches that reached the GPU; in one stream, so no atomics are needed.
__global__ void count_launch(unsigned int* counter) {
  if (threadIdx.x == 0) *counter += 1;
}

//! [aql_queue_size]
// A 20 ms kernel blocks the stream; then the host enqueues many tiny kernels behind it.
// Each launch takes at least one packet slot of the stream's AQL queue until the GPU has
// processed it. When the queue has room for all of them the host returns at once; when it
// has not, the host must wait for the blocker to finish before it can write more packets.
inline void measure_aql(hl::Report& report, const Variable& variable) {
  const double ticks_per_us = hl::spin_ticks_per_microsecond();
  hl::GpuStream stream;
  hl::DeviceBuffer<unsigned int> counter(1);
  const unsigned int launches = 4096;
  const double blocker_us = 20000.0;
  std::vector<double> enqueue_ms, total_ms;
  bool correct = true;
  for (int run = 0; run < 4; ++run) {
    HIP_CHECK(hipMemset(counter.data(), 0, sizeof(unsigned int)));
    HIP_CHECK(hipDeviceSynchronize());
    const auto start = std::chrono::steady_clock::now();
    hl::launch_spin_kernel(blocker_us, ticks_per_us, dim3(1), dim3(64), stream);
    for (unsigned int i = 0; i < launches; ++i) {
      hipLaunchKernelGGL(count_launch, dim3(1), dim3(64), 0, stream, counter.data());
      HIP_CHECK_LAUNCH();
    }
    const auto enqueued = std::chrono::steady_clock::now();
    HIP_CHECK(hipStreamSynchronize(stream));
    const auto done = std::chrono::steady_clock::now();
    correct = correct && counter.download()[0] == launches;
    if (run == 0) continue;  // warm-up
    enqueue_ms.push_back(elapsed_ms(start, enqueued));
    total_ms.push_back(elapsed_ms(start, done));
  }
  report.check(hl::format("all {} launches ran", launches), correct);
  const double enqueue = hl::summarize(enqueue_ms).median;
  const double total = hl::summarize(total_ms).median;
  const std::string setting = setting_of(variable.name);
  hl::ResultTable table(
      "aql", hl::format("{} tiny launches behind a {:.0} ms kernel", launches, blocker_us / 1000.0),
      {{"ROC_AQL_QUEUE_SIZE"}, {"host enqueue", "ms"}, {"until done", "ms"}});
  table.row({setting, enqueue, total});
  report.table(table);
  print_result(report, hl::format("experiment=aql setting={} enqueue_ms={:.3} total_ms={:.3} "
                                  "correct={}",
                                  token(setting), enqueue, total, correct ? 1 : 0));
  report.summary(
      hl::format("ROC_AQL_QUEUE_SIZE {}: enqueue {:.2} ms of {:.2} ms", setting, enqueue, total));
}
//! [aql_queue_size]

/// Runs the child measurement --measure names. The variable comes first: one this platform
/// does not have is reported (exit 77) before any GPU work. The wait child opens the device
/// itself, after it has chosen its waiting policy.
inline void run_measurement(hl::Report& report, const Settings& s,
                            const hl::CommonOptions& options) {
  const std::optional<Variable> variable = resolve_variable(s.measure, s.variable);
  if (s.measure == "wait") return measure_waiting_policy(report, s, options, variable);
  report.facts(hl::open_device(options.device).facts());
  if (s.measure == "queues") measure_queues(report, s, options, *variable);
  if (s.measure == "copy") measure_copy(report, options, *variable);
  if (s.measure == "aql") measure_aql(report, *variable);
}

// --- The parent's side: starting children and reading their results ------------------------

// Combinations that make no sense are refused before any GPU work (exit 2).
inline void refuse_meaningless_options(const Settings& s, const hl::CommonOptions& options) {
  if (s.measure == "none" && s.variable != "auto") {
    throw hl::UsageError("--variable needs a --measure run; the lesson compares all variables");
  }
  if (s.measure == "wait" && s.policy == "all") {
    throw hl::UsageError("--measure wait needs one --policy: spin, yield, blocking-sync or auto");
  }
  if (s.trace_chains && s.measure != "queues") {
    throw hl::UsageError("--trace-chains belongs to --measure queues");
  }
  if (s.measure != "none" && options.mode != hl::Mode::kTour) {
    throw hl::UsageError("--check and --speed-check run the children themselves: no --measure");
  }
}

/// A child's number \p key (divided by its number \p per, when given), or nothing (shown
/// "-", JSON null) when the child did not report it.
inline std::optional<double> reported(const hl::ChildRun& r, const std::string& key,
                                      const std::string& per = "") {
  const double v = r.number(key) / (per.empty() ? 1.0 : r.number(per));
  return std::isnan(v) ? std::nullopt : std::optional<double>(v);
}

/// "ok", "not applicable here", or how the child ended, for a table cell.
inline std::string child_status(const hl::ChildRun& r) {
  if (r.not_applicable()) return "not applicable here";
  if (r.succeeded()) return "ok";
  return r.outcome.status() + (r.outcome.exit_code == 0 ? ", wrong results" : "");
}

/// Records that a child ran and passed its own checks; a setting this platform does not
/// have (exit 77) is a skip, not a failure.
inline void check_child(hl::Report& report, const std::string& name, const hl::ChildRun& r) {
  if (r.not_applicable()) {
    report.note(hl::format("skip    {}: not applicable here ({})", name, r.tail(1)));
    return;
  }
  report.check(name, r.succeeded(), r.succeeded() ? "" : r.outcome.status() + ": " + r.tail());
}

/// The queue counts step 2 compares: 1 and the default in every mode; the tour adds the most
/// (NVIDIA's maximum of 32; on AMD, which documents no maximum, one queue per stream).
inline std::vector<hl::EnvSetting> queue_settings(const Settings& s, hl::Mode mode) {
  std::vector<hl::EnvSetting> settings = {{kQueues.name, std::string("1")},
                                          {kQueues.name, std::nullopt}};
#if defined(__HIP_PLATFORM_AMD__)
  const std::string most = hl::format("{}", std::max<std::int64_t>(s.streams, 4));
#else
  (void)s;
  const std::string most = "32";
#endif
  if (mode == hl::Mode::kTour) settings.push_back({kQueues.name, most});
  return settings;
}

/// The extra arguments of step 2's children: the one-queue child also traces (chain_traces.hpp).
inline const std::vector<std::string> kTraceArgs = {"--trace-chains"}, kNoArgs = {};

/// Starts children of this program with the options they all share.
class Children {
 public:
  Children(hl::Report& report, const Settings& s, const hl::CommonOptions& o) : report_(report) {
    // Every child checks its own results; for --check three repeats are plenty.
    std::istringstream words(hl::format(
        "--device {} --seed {} --repeat {} --size {} --streams {} --chain {} --kernel-us {} "
        "--wait-us {}",
        o.device, o.seed, o.timed() ? o.repeat : 3, o.size, s.streams, s.chain, s.kernel_us,
        s.wait_us));
    for (std::string word; words >> word;) common_.push_back(word);
  }

  /// Runs `lesson05_queue_env --measure <measure> [args...]` with \p changes in its
  /// environment; a child that hangs is killed after 120 s.
  hl::ChildRun run(const std::string& measure, std::vector<std::string> args,
                   const std::vector<hl::EnvSetting>& changes) {
    std::string shown, extra;
    for (const auto& c : changes) shown += c.value ? c.describe() + " " : "(" + c.describe() + ") ";
    for (const auto& a : args) extra += " " + a;
    report_.note(
        hl::format("  running: {}lesson05_queue_env --measure {}{}", shown, measure, extra));
    args.insert(args.begin(), {"--measure", measure});
    args.insert(args.end(), common_.begin(), common_.end());
    return hl::run_self(args, changes, 120.0);
  }

 private:
  hl::Report& report_;
  std::vector<std::string> common_;
};

}  // namespace queue_env
