/// \file lessons/05_queue_env/bench.hip
/// \brief Google Benchmark cases of lesson 05: the host's round trip (launch a 10 us kernel
/// and wait for it) under each waiting policy.
///
/// Design: a process chooses its waiting policy once, before its GPU context exists, so
/// one process cannot time all four policies. The benchmark process itself only counts the
/// devices and launches nothing. For each policy it starts one helper process, this same
/// binary with --round-trip-server=POLICY, which sets the policy first thing, warms up, and
/// then answers each request line "1" with one round-trip time. Every benchmark iteration asks
/// its policy's helper for one round trip and reports that time with SetIterationTime, so
/// all four policies appear side by side in one Google Benchmark run and one JSON file.
/// The round trip is timed with the host clock inside the helper, not with HIP events:
/// what the policy changes is how soon the waiting host thread notices completion, which
/// device-side events cannot see.
#include <hip/hip_runtime.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "hip_lessons/bench.hpp"
#include "hip_lessons/child_process.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/spin_kernel.hpp"
#include "hip_lessons/timing.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;
namespace qe = queue_env;

namespace {

constexpr const char* kServerFlag = "--round-trip-server=";
constexpr const char* kReady = "@ready";
constexpr const char* kTrip = "@trip ";
constexpr double kKernelUs = 10.0;

// --- The helper process ---------------------------------------------------------------------

/// Main of a helper: set the policy, then serve round trips until stdin ends or reads "0".
int serve(const std::string& policy_name) {
  const qe::Policy* policy = nullptr;
  for (const qe::Policy& p : qe::kPolicies) {
    if (policy_name == p.name) policy = &p;
  }
  if (policy == nullptr) {
    std::cerr << "error: unknown policy '" << policy_name << "'\n";
    return hl::kExitUsage;
  }
  try {
    int count = 0;
    if (hipGetDeviceCount(&count) != hipSuccess || count == 0) {
      std::cout << "skipped: no GPU" << std::endl;
      return hl::kExitSkip;
    }
    HIP_CHECK(hipSetDeviceFlags(policy->flag));  // before anything creates the context
    hl::open_device(0);
    const double ticks_per_us = hl::spin_ticks_per_microsecond();
    hl::GpuStream stream;
    for (int i = 0; i < 50; ++i) qe::round_trip_us(kKernelUs, ticks_per_us, stream);
    std::cout << kReady << std::endl;
    std::string line;
    while (std::getline(std::cin, line)) {
      const long requested = std::strtol(line.c_str(), nullptr, 10);
      if (requested <= 0) break;
      for (long i = 0; i < requested; ++i) {
        std::cout << kTrip << qe::round_trip_us(kKernelUs, ticks_per_us, stream) << '\n';
      }
      std::cout.flush();
    }
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << '\n';
    return hl::kExitFail;
  }
  return hl::kExitPass;
}

// --- The benchmark side ---------------------------------------------------------------------

/// One running helper per policy, started on first use and stopped at exit.
class Helper {
 public:
  explicit Helper(const std::string& policy)
      : child_({hl::self_executable(), kServerFlag + policy}, hl::child_environment({}), true) {
    while (const auto line = child_.read_line(120.0)) {
      if (*line == kReady) {
        ready_ = true;
        break;
      }
      log_ += *line + " | ";
    }
  }
  ~Helper() {
    try {
      child_.write_line("0");
      child_.finish(10.0);
    } catch (const std::exception&) {
      // the child is gone already; ChildProcess's destructor reaps it
    }
  }
  Helper(const Helper&) = delete;
  Helper& operator=(const Helper&) = delete;

  bool ready() const { return ready_; }
  const std::string& log() const { return log_; }

  /// One round trip in microseconds, or a negative value when the helper stopped answering.
  double round_trip() {
    child_.write_line("1");
    while (const auto line = child_.read_line(10.0)) {
      if (line->rfind(kTrip, 0) == 0) return std::stod(line->substr(std::string(kTrip).size()));
    }
    return -1.0;
  }

 private:
  hl::ChildProcess child_;
  bool ready_ = false;
  std::string log_;
};

Helper& helper_for(const std::string& policy) {
  static std::map<std::string, std::unique_ptr<Helper>> helpers;
  auto& slot = helpers[policy];
  if (!slot) slot = std::make_unique<Helper>(policy);
  return *slot;
}

void sync_round_trip(benchmark::State& state, const std::string& policy) {
  Helper& helper = helper_for(policy);
  if (!helper.ready()) {
    state.SkipWithError(
        ("the helper for policy " + policy + " did not start: " + helper.log()).c_str());
    return;
  }
  for (auto _ : state) {
    const double us = helper.round_trip();
    if (us < 0.0) {
      state.SkipWithError(("the helper for policy " + policy + " stopped answering").c_str());
      break;
    }
    state.SetIterationTime(us * 1e-6);
  }
  state.SetLabel(policy + ", " + std::to_string(static_cast<int>(kKernelUs)) + " us kernel");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]).rfind(kServerFlag, 0) == 0) {
    return serve(std::string(argv[1]).substr(std::string(kServerFlag).size()));
  }
  std::signal(SIGPIPE, SIG_IGN);  // a helper that died must give a write error, not kill us
  for (const qe::Policy& policy : qe::kPolicies) {
    benchmark::RegisterBenchmark((std::string("sync_round_trip/") + policy.name).c_str(),
                                 sync_round_trip, std::string(policy.name))
        ->UseManualTime();
  }
  return hl::benchmark_main(argc, argv);
}
