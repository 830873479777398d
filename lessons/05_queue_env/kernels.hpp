/// \file lessons/05_queue_env/kernels.hpp
/// \brief The measurements of lesson 05: dependent kernel chains on many streams, and what
/// the host's waiting policy costs; shared by main.hip and bench.hip.
#pragma once

#include <hip/hip_runtime.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "hip_lessons/block_trace.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/spin_kernel.hpp"

namespace queue_env {

// --- Chains of dependent kernels ---------------------------------------------------------

/// Multiplier of a chain step (odd, so every step is a bijection of 32-bit words).
inline constexpr std::uint32_t kChainMultiplier = 2891336453u;

/// What step \p step of a chain does to the stream's word. The result depends on the order
/// of the steps, so a step that ran early, late, twice, or beside another is caught.
__host__ __device__ inline std::uint32_t chain_step_value(std::uint32_t word, unsigned int step) {
  return word * kChainMultiplier + step + 1;
}

//! [chain_step]
// One block that is busy for a fixed time and then applies step `step` to its stream's
// word. Kernels in one stream run in order, so step k always sees the result of step k-1.
// A traced launch also records when and where its block ran (empty `trace`: nothing).
__global__ void chain_step(long long ticks, std::uint32_t* words, unsigned int stream,
                           unsigned int step, hip_lessons::BlockTrace trace) {
  hip_lessons::BlockTimer timer(trace);
  hip_lessons::spin_for_ticks(ticks);
  if (threadIdx.x == 0) words[stream] = chain_step_value(words[stream], step);
  timer.stop();  // every thread reaches it
}
//! [chain_step]

/// Threads in the one block of a chain step (one AMD wavefront, two NVIDIA warps).
inline constexpr unsigned int kChainThreads = 64;

/// The host reference: \p steps chain steps applied to \p word.
inline std::uint32_t chain_reference(std::uint32_t word, unsigned int steps) {
  for (unsigned int k = 0; k < steps; ++k) word = chain_step_value(word, k);
  return word;
}

/// The order in which the host issues the launches of all chains.
enum class IssueOrder {
  kDepthFirst,    ///< stream 0 steps 0..n-1, then stream 1 steps 0..n-1, ...
  kBreadthFirst,  ///< step 0 on every stream, then step 1 on every stream, ...
};

//! [issue_orders]
// The same work, two issue orders. Every stream gets the same chain of `steps` kernels
// either way; only the order of the host's launch calls differs. With as many hardware
// queues as streams the order does not matter. With fewer, streams share queues, and a
// queue processes its commands in order: depth-first, stream 1's first kernel sits behind
// stream 0's whole chain in the shared queue although it depends on nothing. With a
// `recorder`, every launch is traced ("step <k>" on stream s).
inline void issue_chains(IssueOrder order, const std::vector<hipStream_t>& streams,
                         unsigned int steps, long long ticks, std::uint32_t* words,
                         hip_lessons::BlockTraceRecorder* recorder = nullptr) {
  auto launch = [&](unsigned int s, unsigned int k) {
    const hip_lessons::BlockTrace trace =
        recorder ? recorder->reserve(hip_lessons::format("step {}", k), 1, static_cast<int>(s))
                 : hip_lessons::BlockTrace{};
    hipLaunchKernelGGL(chain_step, dim3(1), dim3(kChainThreads), 0, streams[s], ticks, words, s, k,
                       trace);
    HIP_CHECK_LAUNCH();
  };
  const auto count = static_cast<unsigned int>(streams.size());
  if (order == IssueOrder::kDepthFirst) {
    for (unsigned int s = 0; s < count; ++s) {
      for (unsigned int k = 0; k < steps; ++k) launch(s, k);
    }
  } else {
    for (unsigned int k = 0; k < steps; ++k) {
      for (unsigned int s = 0; s < count; ++s) launch(s, k);
    }
  }
}
//! [issue_orders]

// --- The host's waiting policy ------------------------------------------------------------

/// A waiting policy: its name on the command line and its hipSetDeviceFlags flag.
struct Policy {
  const char* name;
  unsigned int flag;
};

inline const std::vector<Policy>& policies() {
  static const std::vector<Policy> all = {
      {"spin", hipDeviceScheduleSpin},
      {"yield", hipDeviceScheduleYield},
      {"blocking-sync", hipDeviceScheduleBlockingSync},
      {"auto", hipDeviceScheduleAuto},
  };
  return all;
}

/// CPU time used so far by all threads of this process, in milliseconds.
inline double process_cpu_ms() {
  timespec now{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) * 1e-6;
}

/// What waiting for one kernel cost the host.
struct WaitCost {
  double cpu_ms = 0.0;   ///< CPU time of the whole process during the wait
  double wall_ms = 0.0;  ///< wall-clock time of the wait
  long long ticks = 0;   ///< how long the kernel says it ran (its own clock)
};

//! [wait_cost]
// Launches a kernel that runs for `microseconds` and waits for it with
// hipStreamSynchronize, measuring the process's CPU time (every thread: the runtime's
// helper threads count too) against the wall clock. Spinning costs a whole core for the
// whole wait; blocking sync puts the thread to sleep until the GPU signals completion.
inline WaitCost measure_wait(double microseconds, double ticks_per_us, hipStream_t stream,
                             long long* elapsed_ticks_device) {
  WaitCost cost;
  const double cpu_before = process_cpu_ms();
  const auto wall_before = std::chrono::steady_clock::now();
  hip_lessons::launch_spin_kernel(microseconds, ticks_per_us, dim3(1), dim3(kChainThreads), stream,
                                  elapsed_ticks_device);
  HIP_CHECK(hipStreamSynchronize(stream));
  const auto wall_after = std::chrono::steady_clock::now();
  cost.cpu_ms = process_cpu_ms() - cpu_before;
  cost.wall_ms = std::chrono::duration<double, std::milli>(wall_after - wall_before).count();
  HIP_CHECK(hipMemcpy(&cost.ticks, elapsed_ticks_device, sizeof cost.ticks, hipMemcpyDeviceToHost));
  return cost;
}
//! [wait_cost]

//! [round_trip]
// The host's view of a short kernel: launch it, wait for it, in microseconds of wall
// clock. The kernel itself takes `microseconds`; the rest is launch latency plus the time
// the waiting thread needs to notice completion, which is what the waiting policy changes.
inline double round_trip_us(double microseconds, double ticks_per_us, hipStream_t stream) {
  const auto before = std::chrono::steady_clock::now();
  hip_lessons::launch_spin_kernel(microseconds, ticks_per_us, dim3(1), dim3(kChainThreads), stream);
  HIP_CHECK(hipStreamSynchronize(stream));
  const auto after = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(after - before).count();
}
//! [round_trip]

}  // namespace queue_env
