/// \file lessons/05_queue_env/kernels.hpp
/// \brief The kernels of lesson 05 and the launch sequences main.hip and bench.hip share:
/// dependent kernel chains on many streams, and a launch the host waits for.
#pragma once

#include <hip/hip_runtime.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "hip_lessons/format.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/spin_kernel.hpp"
#include "hip_lessons/traced_run.hpp"

namespace queue_env {

/// Threads in the one block of each kernel here (one AMD wavefront, two NVIDIA warps).
inline constexpr unsigned int kThreads = 64;

/// Step \p step of a chain: a bijection of words (odd multiplier) that depends on the step, so
/// a step run early, late, twice or beside another leaves a wrong word, wrong in later runs too.
__host__ __device__ inline std::uint32_t chain_step_value(std::uint32_t word, unsigned int step) {
  return word * 2891336453u + step + 1;
}

/// The host reference: \p steps chain steps applied to \p word.
inline std::uint32_t chain_reference(std::uint32_t word, unsigned int steps) {
  for (unsigned int k = 0; k < steps; ++k) word = chain_step_value(word, k);
  return word;
}

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

enum class IssueOrder { kDepthFirst, kBreadthFirst };  ///< how the host issues all chains

//! [issue_orders]
// The same work, two issue orders: depth-first launches stream 0's whole chain of `steps`
// kernels, then stream 1's...; breadth-first every stream's step 0, then every stream's step 1.
// With as many hardware queues as streams the order does not matter. With fewer, streams share
// queues, and a queue processes its commands in order: depth-first, stream 1's first kernel
// sits behind stream 0's whole chain although it depends on nothing. With `traced`, every
// launch is traced ("step <k>" on stream s).
inline void issue_chains(IssueOrder order, const std::vector<hipStream_t>& streams,
                         unsigned int steps, long long ticks, std::uint32_t* words,
                         hip_lessons::TracedRun* traced) {
  const auto count = static_cast<unsigned int>(streams.size());
  for (unsigned int i = 0; i < count * steps; ++i) {
    const unsigned int s = order == IssueOrder::kDepthFirst ? i / steps : i % count;
    const unsigned int k = order == IssueOrder::kDepthFirst ? i % steps : i / count;
    const hip_lessons::BlockTrace trace =
        traced ? traced->reserve(hip_lessons::format("step {}", k), 1, static_cast<int>(s))
               : hip_lessons::BlockTrace{};
    hipLaunchKernelGGL(chain_step, dim3(1), dim3(kThreads), 0, streams[s], ticks, words, s, k,
                       trace);
    HIP_CHECK_LAUNCH();
  }
}
//! [issue_orders]

/// Counts the launches that reached the GPU; all in one stream, so no atomics are needed.
__global__ void count_launch(unsigned int* counter) {
  if (threadIdx.x == 0) *counter += 1;
}

/// A waiting policy: its name on the command line and its hipSetDeviceFlags flag.
struct Policy {
  const char* name;
  unsigned int flag;
};
inline const Policy kPolicies[] = {{"spin", hipDeviceScheduleSpin},
                                   {"yield", hipDeviceScheduleYield},
                                   {"blocking-sync", hipDeviceScheduleBlockingSync},
                                   {"auto", hipDeviceScheduleAuto}};

// The host's view of a kernel: launch it, wait for it with hipStreamSynchronize, in
// microseconds of wall clock. The kernel itself takes `microseconds`; the rest is launch
// latency plus the time the waiting thread needs to notice completion, which is what the
// waiting policy changes. With `elapsed_ticks`, the kernel stores the ticks it spun.
inline double round_trip_us(double microseconds, double ticks_per_us, hipStream_t stream,
                            long long* elapsed_ticks = nullptr) {
  const auto before = std::chrono::steady_clock::now();
  hipLaunchKernelGGL(hip_lessons::spin_kernel<>, dim3(1), dim3(kThreads), 0, stream, microseconds,
                     ticks_per_us, elapsed_ticks, hip_lessons::BlockTrace{});
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipStreamSynchronize(stream));
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - before)
      .count();
}

}  // namespace queue_env
