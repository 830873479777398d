/// \file lessons/05_queue_env/main.hip
/// \brief Lesson 05: the process-wide knobs: hardware queue count, waiting policy, and
/// AMD's copy path and queue size.
///
/// These settings are read once, when the GPU runtime starts (environment variables), or
/// can be chosen once per process (hipSetDeviceFlags). A program cannot try several of them
/// in turn, so this lesson runs itself again, once per setting: the parent starts a child
/// process of its own binary with one variable changed in the child's environment only,
/// the child measures and prints one machine-readable "@result" line, and the parent puts
/// the children's results side by side.
///
/// The story: (1) how many hardware queues the streams share (GPU_MAX_HW_QUEUES on AMD,
/// CUDA_DEVICE_MAX_CONNECTIONS on NVIDIA) and the false serialization that too few cause,
/// depending on the order the host issues work in; (2) what malformed values do; (3) how the
/// host waits for the GPU (spin, yield, blocking sync) and what that costs in CPU time and
/// latency; (4) AMD's copy engines (HSA_ENABLE_SDMA) and queue size (ROC_AQL_QUEUE_SIZE).
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/lesson.hpp"
#include "hip_lessons/spin_kernel.hpp"
#include "hip_lessons/timing.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"
#include "hip_lessons/child_process.hpp"

namespace hl = hip_lessons;
namespace qe = queue_env;

namespace {

// --- The settings this lesson knows ----------------------------------------------------------

/// Which measurement a variable belongs to, and on which platform it exists.
struct Variable {
  const char* name;
  const char* platform;  ///< "AMD" or "NVIDIA"
  const char* measure;   ///< the --measure run that shows its effect
  const char* meaning;
};

const std::vector<Variable>& variables() {
  static const std::vector<Variable> all = {
      {"GPU_MAX_HW_QUEUES", "AMD", "queues",
       "hardware queues HIP creates per device (default 4); more streams share them"},
      {"CUDA_DEVICE_MAX_CONNECTIONS", "NVIDIA", "queues",
       "hardware connections per device (default 8, at most 32); more streams share them"},
      {"HSA_ENABLE_INTERRUPT", "AMD", "wait",
       "1 (default): a sleeping waiter is woken by an interrupt; 0: ROCr polls"},
      {"HSA_ENABLE_SDMA", "AMD", "copy",
       "1 (default): copies use the SDMA copy engines; 0: blit kernels on the CUs"},
      {"ROC_AQL_QUEUE_SIZE", "AMD", "aql", "packets per HIP AQL queue (64 bytes each)"},
  };
  return all;
}

#if defined(__HIP_PLATFORM_AMD__)
constexpr const char* kPlatform = "AMD";
constexpr const char* kQueueVariable = "GPU_MAX_HW_QUEUES";
constexpr const char* kForeignQueueVariable = "CUDA_DEVICE_MAX_CONNECTIONS";
constexpr const char* kQueueDefault = "4";
#else
constexpr const char* kPlatform = "NVIDIA";
constexpr const char* kQueueVariable = "CUDA_DEVICE_MAX_CONNECTIONS";
constexpr const char* kForeignQueueVariable = "GPU_MAX_HW_QUEUES";
constexpr const char* kQueueDefault = "8";
#endif

const Variable& find_variable(const std::string& name) {
  for (const Variable& v : variables()) {
    if (name == v.name) return v;
  }
  throw hl::UsageError("unknown variable " + name);
}

/// Resolves --variable for a --measure run. "auto" means the measurement's own variable on
/// this platform (none for "wait"). A variable of another measurement is a usage error; a
/// variable that does not exist on this platform is "not applicable here" (exit 77), said
/// before any GPU work, so it is never silently measured as if it had an effect.
std::optional<Variable> resolve_variable(const std::string& measure, const std::string& chosen) {
  std::string name = chosen;
  if (name == "auto") {
    if (measure == "queues") name = kQueueVariable;
    if (measure == "copy") name = "HSA_ENABLE_SDMA";
    if (measure == "aql") name = "ROC_AQL_QUEUE_SIZE";
    if (name == "auto") return std::nullopt;
  }
  const Variable& v = find_variable(name);
  if (measure != v.measure) {
    throw hl::UsageError("--variable " + name + " belongs to --measure " + v.measure +
                         ", not --measure " + measure);
  }
  if (std::string(v.platform) != kPlatform) {
    throw hl::SkipError(std::string("not applicable here: ") + name + " is read by the " +
                        v.platform + " runtime only; this binary runs on " + kPlatform +
                        (measure == "queues" ? std::string(", whose counterpart is ") +
                                                   kQueueVariable
                                             : std::string()));
  }
  return v;
}

/// The value of \p name in this process's environment, or "default".
std::string setting_of(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "default" : std::string(value);
}

/// Everything a child needs to know, and the thresholds the parent applies.
struct Settings {
  std::string measure = "none";
  std::string policy = "all";
  std::string variable = "auto";
  unsigned int streams = 16;
  unsigned int chain = 4;
  double kernel_us = 100.0;
  double wait_us = 5000.0;
  double min_depth_ratio = 4.0;
  double max_breadth_vs_ideal = 1.75;
  double max_blocking_cpu = 0.25;
  double min_spin_cpu = 0.70;
};

/// Prints the one machine-readable line of a measuring child: "@result key=value ...".
/// Values never contain spaces (a space in an environment value becomes '_').
void print_result(const std::vector<std::pair<std::string, std::string>>& values) {
  std::cout << hl::kResultPrefix;
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::string value = values[i].second;
    std::replace(value.begin(), value.end(), ' ', '_');
    std::cout << (i == 0 ? "" : " ") << values[i].first << "=" << (value.empty() ? "-" : value);
  }
  std::cout << std::endl;
}

// --- Child: hardware queues and false serialization ------------------------------------------

struct ChainTiming {
  double median_ms = 0.0;
  bool correct = false;
};

// Runs every chain `warmup + repeats` times in the given order, resetting the words before
// each run, timing launch-to-completion with the host clock, and checking every run.
ChainTiming time_chains(hl::Report& report, qe::IssueOrder order,
                        const std::vector<hipStream_t>& streams, unsigned int steps,
                        long long ticks, const std::vector<std::uint32_t>& initial,
                        hl::DeviceBuffer<std::uint32_t>& words, int repeats,
                        const std::string& label) {
  std::vector<std::uint32_t> expected(streams.size());
  for (std::size_t s = 0; s < streams.size(); ++s) {
    expected[s] = qe::chain_reference(initial[s], steps);
  }
  const std::vector<std::uint32_t> start(initial.begin(),
                                         initial.begin() + static_cast<long>(streams.size()));
  std::vector<double> samples;
  std::optional<hl::Mismatch> wrong;
  const int warmup = 2;
  for (int run = 0; run < warmup + repeats; ++run) {
    HIP_CHECK(hipMemcpy(words.data(), start.data(), start.size() * sizeof(std::uint32_t),
                        hipMemcpyHostToDevice));
    HIP_CHECK(hipDeviceSynchronize());
    const auto before = std::chrono::steady_clock::now();
    qe::issue_chains(order, streams, steps, ticks, words.data());
    HIP_CHECK(hipDeviceSynchronize());
    const auto after = std::chrono::steady_clock::now();
    std::vector<std::uint32_t> got(streams.size());
    HIP_CHECK(hipMemcpy(got.data(), words.data(), got.size() * sizeof(std::uint32_t),
                        hipMemcpyDeviceToHost));
    if (!wrong) wrong = hl::first_mismatch(expected, got);
    if (run >= warmup) {
      samples.push_back(std::chrono::duration<double, std::milli>(after - before).count());
    }
  }
  ChainTiming t;
  t.median_ms = hl::summarize(samples).median;
  t.correct = report.check_match(label + ", every run", wrong, expected.size());
  return t;
}

void measure_queues(hl::Report& report, const Settings& s, const hl::CommonOptions& options) {
  const std::optional<Variable> variable = resolve_variable("queues", s.variable);
  const hl::Device device = hl::open_device(options.device);
  hl::describe_device(report, device);
  const double ticks_per_us = hl::spin_ticks_per_microsecond();
  const auto ticks = static_cast<long long>(s.kernel_us * ticks_per_us);

  std::vector<hl::GpuStream> owned;
  owned.reserve(s.streams);
  std::vector<hipStream_t> streams;
  for (unsigned int i = 0; i < s.streams; ++i) {
    owned.emplace_back(hipStreamNonBlocking);
    streams.push_back(owned.back().get());
  }
  std::mt19937_64 generator(options.seed);
  std::vector<std::uint32_t> initial(s.streams);
  for (auto& w : initial) w = static_cast<std::uint32_t>(generator());
  hl::DeviceBuffer<std::uint32_t> words(s.streams);

  const std::string chains = std::to_string(s.streams) + " chains of " + std::to_string(s.chain);
  const ChainTiming depth = time_chains(report, qe::IssueOrder::kDepthFirst, streams, s.chain,
                                        ticks, initial, words, options.repeat,
                                        chains + ", depth-first");
  const ChainTiming breadth = time_chains(report, qe::IssueOrder::kBreadthFirst, streams,
                                          s.chain, ticks, initial, words, options.repeat,
                                          chains + ", breadth-first");
  const std::vector<hipStream_t> one(streams.begin(), streams.begin() + 1);
  const ChainTiming single = time_chains(report, qe::IssueOrder::kBreadthFirst, one, s.chain,
                                         ticks, initial, words, options.repeat,
                                         "1 chain of " + std::to_string(s.chain));
  const double ideal_ms = s.chain * s.kernel_us / 1000.0;
  const std::string setting = setting_of(variable->name);

  hl::Table table({"issue order", "median ms", "x ideal"});
  table.add_row({"depth-first", hl::fixed(depth.median_ms, 3),
                 hl::fixed(depth.median_ms / ideal_ms, 2)});
  table.add_row({"breadth-first", hl::fixed(breadth.median_ms, 3),
                 hl::fixed(breadth.median_ms / ideal_ms, 2)});
  table.add_row({"one chain alone", hl::fixed(single.median_ms, 3),
                 hl::fixed(single.median_ms / ideal_ms, 2)});
  report.table("chains", std::string(variable->name) + " " + setting + ": " + chains + " x " +
                             hl::fixed(s.kernel_us, 0) + " us kernels (ideal " +
                             hl::fixed(ideal_ms, 3) + " ms)",
               table);
  const bool correct = depth.correct && breadth.correct && single.correct;
  print_result({{"experiment", "queues"},
                {"variable", variable->name},
                {"setting", setting},
                {"depth_first_ms", hl::fixed(depth.median_ms, 4)},
                {"breadth_first_ms", hl::fixed(breadth.median_ms, 4)},
                {"single_chain_ms", hl::fixed(single.median_ms, 4)},
                {"ideal_ms", hl::fixed(ideal_ms, 4)},
                {"correct", correct ? "1" : "0"}});
  report.summary(std::string(variable->name) + " " + setting + ": depth-first " +
                 hl::fixed(depth.median_ms, 2) + " ms, breadth-first " +
                 hl::fixed(breadth.median_ms, 2) + " ms");
}

// --- Child: the waiting policy -----------------------------------------------------------------

const qe::Policy& find_policy(const std::string& name) {
  for (const qe::Policy& p : qe::policies()) {
    if (name == p.name) return p;
  }
  throw hl::UsageError("--measure wait needs one --policy: spin, yield, blocking-sync or auto");
}

void measure_wait(hl::Report& report, const Settings& s, const hl::CommonOptions& options) {
  const std::optional<Variable> variable = resolve_variable("wait", s.variable);
  const qe::Policy& policy = find_policy(s.policy);

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
  hl::describe_device(report, device);
  unsigned int flags = 0;
  HIP_CHECK(hipGetDeviceFlags(&flags));
  std::ostringstream flags_hex;
  flags_hex << "0x" << std::hex << flags;

  const double ticks_per_us = hl::spin_ticks_per_microsecond();
  hl::GpuStream stream;
  hl::DeviceBuffer<long long> elapsed(1);
  const double round_trip_kernel_us = 10.0;
  for (int i = 0; i < 20; ++i) qe::round_trip_us(round_trip_kernel_us, ticks_per_us, stream);
  qe::measure_wait(1000.0, ticks_per_us, stream, elapsed.data());  // warm-up

  std::vector<double> cpu_per_wall, wall_ms;
  bool full_time = true;
  const auto wanted_ticks = static_cast<long long>(s.wait_us * ticks_per_us);
  for (int i = 0; i < 7; ++i) {
    const qe::WaitCost cost = qe::measure_wait(s.wait_us, ticks_per_us, stream, elapsed.data());
    cpu_per_wall.push_back(cost.cpu_ms / cost.wall_ms);
    wall_ms.push_back(cost.wall_ms);
    full_time = full_time && cost.ticks >= wanted_ticks;
  }
  report.check("every waited-for kernel ran its full " + hl::fixed(s.wait_us / 1000.0, 1) +
                   " ms (its own clock)", full_time);
  std::vector<double> round_trips;
  const int trips = std::max(100, 10 * options.repeat);
  for (int i = 0; i < trips; ++i) {
    round_trips.push_back(qe::round_trip_us(round_trip_kernel_us, ticks_per_us, stream));
  }
  const double ratio = hl::summarize(cpu_per_wall).median;
  const double wall = hl::summarize(wall_ms).median;
  const double trip = hl::summarize(round_trips).median;
  const std::string setting = variable ? std::string(variable->name) + "=" +
                                             setting_of(variable->name)
                                       : std::string("-");

  hl::Table table({"policy", "device flags", "CPU / wall while waiting", "wait ms",
                   "round trip us"});
  table.add_row({policy.name, flags_hex.str(), hl::fixed(ratio, 2), hl::fixed(wall, 2),
                 hl::fixed(trip, 1)});
  report.table("wait", "Waiting for a " + hl::fixed(s.wait_us / 1000.0, 1) + " ms kernel, and " +
                           "the round trip of a " + hl::fixed(round_trip_kernel_us, 0) +
                           " us kernel (" + std::to_string(trips) + " trips, median)",
               table);
  print_result({{"experiment", "wait"},
                {"policy", policy.name},
                {"setting", setting},
                {"flags", flags_hex.str()},
                {"cpu_per_wall", hl::fixed(ratio, 4)},
                {"wait_ms", hl::fixed(wall, 3)},
                {"round_trip_us", hl::fixed(trip, 2)},
                {"correct", full_time ? "1" : "0"}});
  report.summary(std::string(policy.name) + ": CPU/wall " + hl::fixed(ratio, 2) +
                 ", round trip " + hl::fixed(trip, 1) + " us");
}

// --- Children for AMD only: copy engines and queue size ------------------------------------------

void measure_copy(hl::Report& report, const Settings& s, const hl::CommonOptions& options) {
  const std::optional<Variable> variable = resolve_variable("copy", s.variable);
  const hl::Device device = hl::open_device(options.device);
  hl::describe_device(report, device);
  const auto n = static_cast<std::size_t>(options.size);
  hl::require_device_memory(n * sizeof(float), "--size " + std::to_string(n));
  std::vector<float> input(n);
  hl::fill_uniform(input, options.seed);
  hl::PinnedBuffer<float> host_in(n), host_out(n);
  std::copy(input.begin(), input.end(), host_in.data());
  std::fill(host_out.data(), host_out.data() + n, std::nanf(""));
  hl::DeviceBuffer<float> device_buffer(n);
  hl::GpuStream stream;
  const hl::TimingPlan plan{2, std::min(options.repeat, 10)};
  const std::size_t bytes = n * sizeof(float);
  const hl::Stats h2d = hl::time_on_stream(stream, plan, [&] {
    HIP_CHECK(hipMemcpyAsync(device_buffer.data(), host_in.data(), bytes, hipMemcpyHostToDevice,
                             stream));
  });
  const hl::Stats d2h = hl::time_on_stream(stream, plan, [&] {
    HIP_CHECK(hipMemcpyAsync(host_out.data(), device_buffer.data(), bytes, hipMemcpyDeviceToHost,
                             stream));
  });
  const bool correct = report.check_match("data copied in and out unchanged",
                                          hl::first_mismatch(input.data(), host_out.data(), n), n);
  const double h2d_gbps = bytes / (h2d.median * 1e6);
  const double d2h_gbps = bytes / (d2h.median * 1e6);
  const std::string setting = setting_of(variable->name);
  hl::Table table({"HSA_ENABLE_SDMA", "host-to-device GB/s", "device-to-host GB/s"});
  table.add_row({setting, hl::fixed(h2d_gbps, 1), hl::fixed(d2h_gbps, 1)});
  report.table("copy", "Pinned copies of " + hl::format_bytes(static_cast<double>(bytes)), table);
  print_result({{"experiment", "copy"},
                {"setting", setting},
                {"h2d_gbps", hl::fixed(h2d_gbps, 2)},
                {"d2h_gbps", hl::fixed(d2h_gbps, 2)},
                {"correct", correct ? "1" : "0"}});
  report.summary("HSA_ENABLE_SDMA " + setting + ": " + hl::fixed(h2d_gbps, 1) + " / " +
                 hl::fixed(d2h_gbps, 1) + " GB/s");
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
void measure_aql(hl::Report& report, const Settings& s, const hl::CommonOptions& options) {
  const std::optional<Variable> variable = resolve_variable("aql", s.variable);
  const hl::Device device = hl::open_device(options.device);
  hl::describe_device(report, device);
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
    enqueue_ms.push_back(std::chrono::duration<double, std::milli>(enqueued - start).count());
    total_ms.push_back(std::chrono::duration<double, std::milli>(done - start).count());
  }
  report.check("all " + std::to_string(launches) + " launches ran", correct);
  const double enqueue = hl::summarize(enqueue_ms).median;
  const double total = hl::summarize(total_ms).median;
  const std::string setting = setting_of(variable->name);
  hl::Table table({"ROC_AQL_QUEUE_SIZE", "host enqueue ms", "until done ms"});
  table.add_row({setting, hl::fixed(enqueue, 2), hl::fixed(total, 2)});
  report.table("aql", std::to_string(launches) + " tiny launches behind a " +
                          hl::fixed(blocker_us / 1000.0, 0) + " ms kernel",
               table);
  print_result({{"experiment", "aql"},
                {"setting", setting},
                {"enqueue_ms", hl::fixed(enqueue, 3)},
                {"total_ms", hl::fixed(total, 3)},
                {"correct", correct ? "1" : "0"}});
  report.summary("ROC_AQL_QUEUE_SIZE " + setting + ": enqueue " + hl::fixed(enqueue, 2) +
                 " ms of " + hl::fixed(total, 2) + " ms");
}
//! [aql_queue_size]

// --- Parent: running the children ------------------------------------------------------------

/// The GPU the children will use, looked up without creating a context in the parent
/// (hipSetDevice would), so the children have the GPU to themselves.
hl::Device probe_device(int index) {
  hl::require_device_index(index);
  hl::Device device;
  device.index = index;
  HIP_CHECK(hipGetDeviceProperties(&device.props, index));
  return device;
}

/// Starts children of this program and remembers the options they all get.
class Children {
 public:
  Children(const Settings& s, const hl::CommonOptions& o) {
    common_ = {"--device", std::to_string(o.device), "--seed", std::to_string(o.seed),
               "--repeat", std::to_string(o.repeat), "--size", std::to_string(o.size),
               "--streams", std::to_string(s.streams), "--chain", std::to_string(s.chain),
               "--kernel-us", hl::fixed(s.kernel_us, 0), "--wait-us", hl::fixed(s.wait_us, 0)};
  }

  /// Runs `lesson05 --measure <measure> [extra...]` with \p change in its environment.
  hl::ChildRun run(const std::string& measure, const std::vector<std::string>& extra,
                   const std::vector<hl::EnvSetting>& changes) {
    std::vector<std::string> args = {"--measure", measure};
    args.insert(args.end(), extra.begin(), extra.end());
    std::string shown;
    for (const auto& c : changes) {
      shown += (c.value ? c.name + "=" + *c.value : "(" + c.name + " unset)") + " ";
    }
    std::cout << "  running: " << shown << "lesson05_queue_env --measure " << measure;
    for (const auto& e : extra) std::cout << ' ' << e;
    std::cout << std::endl;
    args.insert(args.end(), common_.begin(), common_.end());
    return hl::run_self(args, changes, 120.0);
  }

 private:
  std::vector<std::string> common_;
};

/// "ok", "not applicable here", or how the child ended, for a table cell.
std::string child_status(const hl::ChildRun& r) {
  if (r.not_applicable()) return "not applicable here";
  if (r.succeeded()) return "ok";
  return r.outcome.status() + (r.outcome.exit_code == 0 ? ", wrong results" : "");
}

/// Records that a child ran and passed its own checks (or was not applicable).
void check_child(hl::Report& report, const std::string& name, const hl::ChildRun& r) {
  if (r.not_applicable()) {
    std::cout << "skip    " << name << ": not applicable here (" << r.tail(1) << ")\n";
    return;
  }
  report.check(name, r.succeeded(), r.succeeded() ? "" : r.outcome.status() + ": " + r.tail());
}

std::string number_cell(const hl::ChildRun& r, const std::string& key, int digits) {
  const double v = r.number(key);
  return std::isnan(v) ? "-" : hl::fixed(v, digits);
}

double ratio_of(const hl::ChildRun& r, const std::string& a, const std::string& b) {
  return r.number(a) / r.number(b);
}

/// The queue-count settings compared: 1, the default, and the most (NVIDIA's maximum of
/// 32; on AMD, which documents no maximum, one queue per stream).
std::vector<hl::EnvSetting> queue_settings(const Settings& s) {
#if defined(__HIP_PLATFORM_AMD__)
  const std::string most = std::to_string(std::max(s.streams, 4u));
#else
  (void)s;
  const std::string most = "32";
#endif
  return {{kQueueVariable, std::string("1")}, {kQueueVariable, std::nullopt},
          {kQueueVariable, most}};
}

struct QueueRows {
  hl::ChildRun one, fallback;
};

QueueRows tour_queues(hl::Report& report, Children& children, const Settings& s) {
  std::cout << "\n1. Hardware queues: " << s.streams << " streams, each a chain of " << s.chain
            << " dependent " << hl::fixed(s.kernel_us, 0) << " us one-block kernels\n";
  hl::Table table({"setting", "child", "depth-first ms", "breadth-first ms", "depth / breadth",
                   "breadth / ideal"});
  QueueRows rows;
  std::vector<std::pair<std::string, hl::ChildRun>> measured;
  for (const hl::EnvSetting& setting : queue_settings(s)) {
    hl::ChildRun r = children.run("queues", {}, {setting});
    check_child(report, "chains correct with " + setting.describe(), r);
    const std::string label =
        setting.value ? setting.describe()
                      : setting.name + " unset (default " + kQueueDefault + ")";
    table.add_row({label, child_status(r), number_cell(r, "depth_first_ms", 3),
                   number_cell(r, "breadth_first_ms", 3),
                   hl::fixed(ratio_of(r, "depth_first_ms", "breadth_first_ms"), 2),
                   hl::fixed(ratio_of(r, "breadth_first_ms", "ideal_ms"), 2)});
    if (setting.value && *setting.value == "1") rows.one = r;
    if (!setting.value) rows.fallback = r;
    measured.emplace_back(label, r);
  }
  // The other platform's variable: the child says it does not apply (exit 77).
  const hl::ChildRun foreign = children.run("queues", {"--variable", kForeignQueueVariable},
                                            {{kForeignQueueVariable, std::string("1")}});
  table.add_row({std::string(kForeignQueueVariable) + "=1", child_status(foreign), "-", "-", "-",
                 "-"});
  report.table("queues", "Queue count against issue order (ideal " +
                             hl::fixed(s.chain * s.kernel_us / 1000.0, 3) + " ms)",
               table);

  // Malformed values: what does the runtime do with them? Each runs in its own child, so a
  // runtime that rejects or crashes on a value cannot take the lesson down with it.
  std::cout << "\n2. Malformed values of " << kQueueVariable << "\n";
  hl::Table bad({"setting", "child", "depth-first ms", "breadth-first ms",
                 "depth-first closest to"});
  for (const char* value : {"abc", "0", "1000"}) {
    const hl::ChildRun r = children.run("queues", {}, {{kQueueVariable, std::string(value)}});
    std::string closest = "-";
    double best = 1e300;
    const double mine = r.number("depth_first_ms");
    for (const auto& [label, reference] : measured) {
      const double distance = std::fabs(std::log(mine / reference.number("depth_first_ms")));
      if (!std::isnan(distance) && distance < best) {
        best = distance;
        closest = label;
      }
    }
    bad.add_row({std::string(kQueueVariable) + "=" + value,
                 r.not_applicable() ? "not applicable here" : r.outcome.status(),
                 number_cell(r, "depth_first_ms", 3), number_cell(r, "breadth_first_ms", 3),
                 closest});
  }
  report.table("malformed", "Malformed values: the exit status of a child and what it measured",
               bad);
  return rows;
}

struct WaitRows {
  hl::ChildRun spin, blocking;
};

WaitRows tour_wait(hl::Report& report, Children& children, const Settings& s) {
  std::cout << "\n3. Waiting for the GPU: hipSetDeviceFlags, one policy per child\n";
  hl::Table table({"policy", "setting", "child", "CPU / wall while waiting", "round trip us"});
  WaitRows rows;
  for (const qe::Policy& policy : qe::policies()) {
    // --policy narrows the table to one policy; spin and blocking-sync always run, because
    // the ratios below compare them.
    const std::string name = policy.name;
    if (s.policy != "all" && s.policy != name && name != "spin" && name != "blocking-sync") {
      continue;
    }
    const hl::ChildRun r = children.run("wait", {"--policy", policy.name}, {});
    check_child(report, std::string("waiting with policy ") + policy.name, r);
    table.add_row({policy.name, "-", child_status(r), number_cell(r, "cpu_per_wall", 2),
                   number_cell(r, "round_trip_us", 1)});
    if (std::string(policy.name) == "spin") rows.spin = r;
    if (std::string(policy.name) == "blocking-sync") rows.blocking = r;
  }
  // AMD's process-wide switch under blocking sync: interrupts (default) or polling.
  const hl::ChildRun polled = children.run(
      "wait", {"--policy", "blocking-sync", "--variable", "HSA_ENABLE_INTERRUPT"},
      {{"HSA_ENABLE_INTERRUPT", std::string("0")}});
  table.add_row({"blocking-sync", "HSA_ENABLE_INTERRUPT=0", child_status(polled),
                 number_cell(polled, "cpu_per_wall", 2), number_cell(polled, "round_trip_us", 1)});
  report.table("wait", "CPU time per wall time during a " + hl::fixed(s.wait_us / 1000.0, 1) +
                           " ms wait, and the round trip of a 10 us kernel",
               table);
  return rows;
}

void tour_amd_copy_path(hl::Report& report, Children& children) {
  std::cout << "\n4. AMD: copy engines and AQL queue size\n";
  hl::Table table({"setting", "child", "result"});
  for (const std::optional<std::string>& value :
       {std::optional<std::string>(), std::optional<std::string>("0")}) {
    const hl::ChildRun r = children.run("copy", {}, {{"HSA_ENABLE_SDMA", value}});
    check_child(report, "pinned copies correct with HSA_ENABLE_SDMA " + value.value_or("unset"), r);
    table.add_row({value ? "HSA_ENABLE_SDMA=" + *value : "HSA_ENABLE_SDMA unset (default 1)",
                   child_status(r),
                   r.has("h2d_gbps") ? "H2D " + number_cell(r, "h2d_gbps", 1) + " GB/s, D2H " +
                                           number_cell(r, "d2h_gbps", 1) + " GB/s"
                                     : "-"});
  }
  for (const std::optional<std::string>& value :
       {std::optional<std::string>(), std::optional<std::string>("1024")}) {
    const hl::ChildRun r = children.run("aql", {}, {{"ROC_AQL_QUEUE_SIZE", value}});
    check_child(report, "launches complete with ROC_AQL_QUEUE_SIZE " + value.value_or("unset"), r);
    table.add_row({value ? "ROC_AQL_QUEUE_SIZE=" + *value : "ROC_AQL_QUEUE_SIZE unset",
                   child_status(r),
                   r.has("enqueue_ms") ? "4096 launches enqueued in " +
                                             number_cell(r, "enqueue_ms", 2) + " ms of " +
                                             number_cell(r, "total_ms", 2) + " ms"
                                       : "-"});
  }
  report.table("amd_copy_path", "AMD-only settings (each is a child; elsewhere it exits 77)",
               table);
}

void run_parent(hl::Report& report, const Settings& s, const hl::CommonOptions& options) {
  const hl::Device device = probe_device(options.device);
  hl::describe_device(report, device);
  // The copy child holds --size floats on the device: refuse sizes that cannot fit, here,
  // before any child starts.
  const double copy_bytes = static_cast<double>(options.size) * sizeof(float);
  if (copy_bytes > 0.9 * static_cast<double>(device.props.totalGlobalMem)) {
    throw hl::UsageError("--size " + std::to_string(options.size) + " needs " +
                         hl::format_bytes(copy_bytes) + " of device memory for the copy "
                         "measurement, but the device has " +
                         hl::format_bytes(static_cast<double>(device.props.totalGlobalMem)) +
                         "; use a smaller --size");
  }
  std::cout << device.name() << " (" << kPlatform << "); every measurement below runs in a "
            << "child process of this program with one setting changed in its environment\n";
  Children children(s, options);
  if (!options.check && !options.speed_check) {
    hl::Table known({"variable", "platform", "what it changes", "in this process"});
    for (const Variable& v : variables()) {
      known.add_row({v.name, v.platform, v.meaning, setting_of(v.name)});
    }
    report.table("variables", "The settings this lesson varies (read once, at runtime start)",
                 known);
  }

  if (options.check) {
    // Correctness, quickly: every child checks its own results; three repeats are plenty.
    hl::CommonOptions quick_options = options;
    quick_options.repeat = 3;
    Children quick(s, quick_options);
    for (const hl::EnvSetting& setting :
         {hl::EnvSetting{kQueueVariable, std::nullopt}, hl::EnvSetting{kQueueVariable, "1"}}) {
      const hl::ChildRun r = quick.run("queues", {}, {setting});
      check_child(report, "every chain correct, both issue orders, " + setting.describe(), r);
      // A chain can take longer than ideal (launch costs, slow tools such as
      // compute-sanitizer) but never shorter, unless the spin clock runs fast.
      const double single = r.number("single_chain_ms") / r.number("ideal_ms");
      if (r.succeeded()) {
        report.check("one chain alone takes at least 0.8 x its ideal time (spin clock not fast)",
                     single >= 0.8, hl::fixed(single, 2) + " x ideal");
      }
    }
    for (const char* policy : {"spin", "blocking-sync"}) {
      check_child(report, std::string("waiting with policy ") + policy,
                  quick.run("wait", {"--policy", policy}, {}));
    }
    check_child(report, "pinned copies correct", quick.run("copy", {}, {}));
    check_child(report, "all launches complete", quick.run("aql", {}, {}));
    report.summary(report.failures() == 0 ? "every child computed correct results"
                                          : "some children failed (see the FAIL lines)");
    return;
  }

  const std::string depth_name =
      std::string(kQueueVariable) + "=1: depth-first / breadth-first time";
  const std::string breadth_name =
      std::string(kQueueVariable) + " default: breadth-first / ideal chain time";
  const std::string spin_name = "spin: CPU time / wall time while waiting";
  const std::string blocking_name = "blocking-sync: CPU time / wall time while waiting";

  QueueRows queues;
  WaitRows waits;
  if (options.speed_check) {
    // Only the four children the checks need: well under a minute.
    queues.one = children.run("queues", {}, {{kQueueVariable, std::string("1")}});
    queues.fallback = children.run("queues", {}, {{kQueueVariable, std::nullopt}});
    waits.spin = children.run("wait", {"--policy", "spin"}, {});
    waits.blocking = children.run("wait", {"--policy", "blocking-sync"}, {});
    check_child(report, "chains correct with " + std::string(kQueueVariable) + "=1", queues.one);
    check_child(report, "chains correct with the default queue count", queues.fallback);
    check_child(report, "waiting with policy spin", waits.spin);
    check_child(report, "waiting with policy blocking-sync", waits.blocking);
  } else {
    queues = tour_queues(report, children, s);
    waits = tour_wait(report, children, s);
    tour_amd_copy_path(report, children);
  }

  const double depth_ratio = ratio_of(queues.one, "depth_first_ms", "breadth_first_ms");
  const double breadth_vs_ideal = ratio_of(queues.fallback, "breadth_first_ms", "ideal_ms");
  const double spin_cpu = waits.spin.number("cpu_per_wall");
  const double blocking_cpu = waits.blocking.number("cpu_per_wall");
  report.measurement("depth_over_breadth_one_queue", depth_ratio);
  report.measurement("breadth_over_ideal_default", breadth_vs_ideal);
  report.measurement("cpu_per_wall.spin", spin_cpu);
  report.measurement("cpu_per_wall.blocking_sync", blocking_cpu);
  report.measurement("round_trip_us.spin", waits.spin.number("round_trip_us"));
  report.measurement("round_trip_us.blocking_sync", waits.blocking.number("round_trip_us"));
  if (options.speed_check) {
    report.check_ratio_at_least(depth_name, depth_ratio, s.min_depth_ratio);
    report.check_ratio_at_most(breadth_name, breadth_vs_ideal, s.max_breadth_vs_ideal);
    report.check_ratio_at_least(spin_name, spin_cpu, s.min_spin_cpu);
    report.check_ratio_at_most(blocking_name, blocking_cpu, s.max_blocking_cpu);
  } else {
    std::cout << "\n"
              << depth_name << " = " << hl::fixed(depth_ratio, 2) << " (the speed test requires >= "
              << hl::fixed(s.min_depth_ratio, 2) << ")\n"
              << breadth_name << " = " << hl::fixed(breadth_vs_ideal, 2)
              << " (the speed test requires <= " << hl::fixed(s.max_breadth_vs_ideal, 2) << ")\n"
              << spin_name << " = " << hl::fixed(spin_cpu, 2) << " (the speed test requires >= "
              << hl::fixed(s.min_spin_cpu, 2) << ")\n"
              << blocking_name << " = " << hl::fixed(blocking_cpu, 2)
              << " (the speed test requires <= " << hl::fixed(s.max_blocking_cpu, 2) << ")\n";
  }
  report.summary(std::string(kQueueVariable) + "=1: depth-first " + hl::fixed(depth_ratio, 1) +
                 "x slower than breadth-first; CPU/wall spin " + hl::fixed(spin_cpu, 2) +
                 " vs blocking sync " + hl::fixed(blocking_cpu, 2));
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  std::int64_t streams = s.streams, chain = s.chain, kernel_us = 100, wait_us = 5000;
  hl::LessonCli cli("lesson05_queue_env",
                    "Lesson 05: process-wide knobs (hardware queues, waiting policy, AMD copy "
                    "path), each measured in its own child process",
                    std::int64_t{1} << 26);
  cli.add_choice("--measure", s.measure,
                 "Run one measurement in this process and print an @result line; the lesson "
                 "runs itself this way, once per setting (none = compare the settings)",
                 {"none", "queues", "wait", "copy", "aql"});
  cli.add_choice("--policy", s.policy,
                 "Waiting policy: all (compare them) or the one a --measure wait run sets",
                 {"all", "spin", "yield", "blocking-sync", "auto"});
  cli.add_choice("--variable", s.variable,
                 "The variable a --measure run is about; one this platform does not have is "
                 "reported as not applicable (exit 77)",
                 {"auto", "GPU_MAX_HW_QUEUES", "CUDA_DEVICE_MAX_CONNECTIONS",
                  "HSA_ENABLE_INTERRUPT", "HSA_ENABLE_SDMA", "ROC_AQL_QUEUE_SIZE"});
  cli.add_count("--streams", streams, "Streams, one dependent chain each", 1, 1024);
  cli.add_count("--chain", chain, "Kernels per chain", 1, 64);
  cli.add_count("--kernel-us", kernel_us, "Duration of each chain kernel in microseconds", 1,
                100000);
  cli.add_count("--wait-us", wait_us, "Duration of the kernel the host waits for (>= 5 ms)", 5000,
                1000000);
  cli.add_number("--min-depth-first-ratio", s.min_depth_ratio,
                 "Speed check: with 1 hardware queue, depth-first / breadth-first time", 0.0,
                 1000.0);
  cli.add_number("--max-breadth-vs-ideal", s.max_breadth_vs_ideal,
                 "Speed check: with the default queue count, breadth-first / ideal chain time",
                 0.0, 1000.0);
  cli.add_number("--max-blocking-cpu", s.max_blocking_cpu,
                 "Speed check: blocking-sync CPU time / wall time while waiting", 0.0, 100.0);
  cli.add_number("--min-spin-cpu", s.min_spin_cpu,
                 "Speed check: spin CPU time / wall time while waiting", 0.0, 100.0);

  return hl::run_lesson(cli, argc, argv, [&](hl::Report& report) {
    const hl::CommonOptions& options = cli.options();
    s.streams = static_cast<unsigned int>(streams);
    s.chain = static_cast<unsigned int>(chain);
    s.kernel_us = static_cast<double>(kernel_us);
    s.wait_us = static_cast<double>(wait_us);
    // Option combinations that make no sense are refused before any GPU work.
    if (s.measure == "none" && s.variable != "auto") {
      throw hl::UsageError("--variable only applies to a --measure run; the lesson itself "
                           "compares all the variables");
    }
    if (s.measure == "wait" && s.policy == "all") {
      throw hl::UsageError("--measure wait needs one --policy: spin, yield, blocking-sync or auto");
    }
    if (s.measure != "none" && (options.check || options.speed_check)) {
      throw hl::UsageError("--check and --speed-check run the children themselves; leave out "
                           "--measure");
    }
    if (s.measure == "queues") return measure_queues(report, s, options);
    if (s.measure == "wait") return measure_wait(report, s, options);
    if (s.measure == "copy") return measure_copy(report, s, options);
    if (s.measure == "aql") return measure_aql(report, s, options);
    run_parent(report, s, options);
  });
}
