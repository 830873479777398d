/// \file lessons/03_multi_stream/kernels.hpp
/// \brief The kernels of lesson 03, how they are launched, and the fork/join that spreads
/// work over several streams.
///
/// Shared by the lesson driver (main.hip) and its benchmarks (bench.hip), so both time
/// exactly the same work.
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hip_lessons/block_trace.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/spin_kernel.hpp"
#include "hip_lessons/streams.hpp"
#include "hip_lessons/timing.hpp"

namespace multi_stream {

// --- Part 1: small, fixed-duration kernels --------------------------------------------

inline constexpr unsigned int kSmallThreads = 64;  // one AMD wavefront, two NVIDIA warps
inline constexpr unsigned int kFullThreads = 256;  // blocks of the kernels that fill the GPU

/// What each block of a small kernel writes: a function of its input and of the kernel's
/// index, so a block that ran twice, never ran, or wrote another block's slot is caught.
__host__ __device__ inline std::uint32_t stamp(std::uint32_t input, unsigned int kernel) {
  return input * 2654435761u + kernel;
}

//! [spin_then_stamp]
// A kernel that occupies its blocks for a fixed time and then does a little real work.
// With one block it uses one CU / SM out of dozens: the rest of the GPU sits idle unless
// other kernels run beside it, which only happens when they come from other streams.
// A traced launch also records when and where each block ran (empty `trace`: nothing).
__global__ void spin_then_stamp(long long ticks, const std::uint32_t* in, std::uint32_t* out,
                                unsigned int kernel, hip_lessons::BlockTrace trace) {
  hip_lessons::BlockTimer timer(trace);
  hip_lessons::spin_for_ticks(ticks);
  if (threadIdx.x == 0) {
    const std::size_t slot = static_cast<std::size_t>(kernel) * gridDim.x + blockIdx.x;
    out[slot] = stamp(in[slot], kernel);
  }
  timer.stop();  // every thread reaches it
}
//! [spin_then_stamp]

/// Launches small kernel number \p kernel (\p blocks blocks of \p threads threads, each
/// spinning \p ticks) on \p stream; a non-empty \p trace records its blocks.
inline void launch_small_kernel(long long ticks, unsigned int blocks, unsigned int threads,
                                const std::uint32_t* in, std::uint32_t* out, unsigned int kernel,
                                hipStream_t stream, hip_lessons::BlockTrace trace = {}) {
  hipLaunchKernelGGL(spin_then_stamp, dim3(blocks), dim3(threads), 0, stream, ticks, in, out,
                     kernel, trace);
  HIP_CHECK_LAUNCH();
}

/// How many blocks of spin_then_stamp fit on the whole GPU at once (blocks per CU from the
/// occupancy calculator, times the CU count): a kernel of that many blocks fills it.
inline unsigned int blocks_filling_the_gpu(int compute_units) {
  int per_cu = 0;
  HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, spin_then_stamp,
                                                         static_cast<int>(kFullThreads), 0));
  return static_cast<unsigned int>(std::max(1, per_cu) * compute_units);
}

// --- Part 2: the compute stage of the copy/compute pipeline ---------------------------

//! [lcg_rounds]
// A compute-bound stand-in for real work: each element goes through `rounds` steps of
// x = a*x + c (mod 2^32). Its cost grows with `rounds`, so the lesson can make the kernel
// take about as long as copying its data, which is when overlapping the two pays most.
__global__ void lcg_rounds(const std::uint32_t* in, std::uint32_t* out, std::size_t n,
                           std::uint32_t a, std::uint32_t c, unsigned int rounds) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint32_t x = in[i];
  for (unsigned int r = 0; r < rounds; ++r) x = a * x + c;
  out[i] = x;
}
//! [lcg_rounds]

/// The multiplier and increment of lcg_rounds (Numerical Recipes' LCG constants).
inline constexpr std::uint32_t kLcgA = 1664525u;
inline constexpr std::uint32_t kLcgC = 1013904223u;

/// The host reference of lcg_rounds in O(1) per element: `rounds` steps of x = a*x + c
/// compose to x = A*x + C with A = a^rounds and C = c*(a^(rounds-1) + ... + a + 1), all
/// mod 2^32. Computing A and C once keeps checking every element cheap.
struct LcgJump {
  std::uint32_t multiplier = 1;
  std::uint32_t increment = 0;
  explicit LcgJump(unsigned int rounds) {
    for (unsigned int r = 0; r < rounds; ++r) {
      multiplier *= kLcgA;
      increment = kLcgA * increment + kLcgC;
    }
  }
  std::uint32_t operator()(std::uint32_t x) const { return multiplier * x + increment; }
};

/// Threads per block of lcg_rounds.
inline constexpr unsigned int kLcgBlock = 256;

inline void launch_lcg_rounds(const std::uint32_t* in, std::uint32_t* out, std::size_t n,
                              unsigned int rounds, hipStream_t stream) {
  const auto blocks = static_cast<unsigned int>((n + kLcgBlock - 1) / kLcgBlock);
  hipLaunchKernelGGL(lcg_rounds, dim3(blocks), dim3(kLcgBlock), 0, stream, in, out, n, kLcgA, kLcgC,
                     rounds);
  HIP_CHECK_LAUNCH();
}

/// Where the pipeline reads and writes: pinned (or pageable) host arrays and device arrays.
struct PipelineArrays {
  const std::uint32_t* host_in;
  std::uint32_t* host_out;
  std::uint32_t* device_in;
  std::uint32_t* device_out;
  std::size_t n;
};

/// Four events per chunk, recorded on its stream before its input copy and after each of its
/// three stages: step 4's timeline reads them (traced_runs.hpp).
using ChunkMarks = std::vector<std::array<hip_lessons::GpuEvent, 4>>;

//! [pipeline]
// Cuts the work into chunks of ceil(n / chunks) elements, so the last one is shorter when
// `chunks` does not divide n (1000 in 3: 334 + 334 + 332) and there can be fewer chunks than
// asked (9 in 4: three of 3; 5 in 8: five of 1). Chunk c is copied in, computed and copied
// out on stream c % streams.size(): work in one stream runs in order, but one chunk's copy
// can run while another stream's kernel computes, and the two copy directions can run at
// once on separate copy engines. From pageable host memory nothing overlaps: the runtime
// stages each copy through its own pinned buffer, synchronously with the host.
// `marks`, when given, gets an event recorded before and after each stage (step 4's timeline).
inline void enqueue_pipeline(const PipelineArrays& a, std::size_t chunks, unsigned int rounds,
                             const std::vector<hipStream_t>& streams, ChunkMarks* marks = nullptr) {
  const std::size_t chunk = (a.n + chunks - 1) / chunks;
  for (std::size_t c = 0, offset = 0; offset < a.n; ++c, offset += chunk) {
    const hipStream_t stream = streams[c % streams.size()];
    const auto mark = [&](int point) {
      if (marks != nullptr) (*marks)[c][point].record(stream);
    };
    const std::size_t count = std::min(chunk, a.n - offset);
    const std::size_t bytes = count * sizeof(std::uint32_t);
    mark(0);
    HIP_CHECK(hipMemcpyAsync(a.device_in + offset, a.host_in + offset, bytes, hipMemcpyHostToDevice,
                             stream));
    mark(1);
    launch_lcg_rounds(a.device_in + offset, a.device_out + offset, count, rounds, stream);
    mark(2);
    HIP_CHECK(hipMemcpyAsync(a.host_out + offset, a.device_out + offset, bytes,
                             hipMemcpyDeviceToHost, stream));
    mark(3);
  }
}
//! [pipeline]

/// Median times of the three pipeline stages, each alone on the whole array.
struct StageTimes {
  double h2d = 0.0, kernel = 0.0, d2h = 0.0;
};

/// Times the host-to-device copy, the kernel and the device-to-host copy of the whole of
/// \p a one at a time on \p stream: what overlap can at best achieve (the longest stage)
/// against their sum (no overlap at all).
inline StageTimes time_stages(const PipelineArrays& a, unsigned int rounds, hipStream_t stream,
                              const hip_lessons::TimingPlan& plan) {
  const std::size_t bytes = a.n * sizeof(std::uint32_t);
  StageTimes t;
  t.h2d = hip_lessons::time_on_stream(stream, plan, [&] {
            HIP_CHECK(hipMemcpyAsync(a.device_in, a.host_in, bytes, hipMemcpyHostToDevice, stream));
          }).median;
  t.kernel = hip_lessons::time_on_stream(stream, plan, [&] {
               launch_lcg_rounds(a.device_in, a.device_out, a.n, rounds, stream);
             }).median;
  t.d2h =
      hip_lessons::time_on_stream(stream, plan, [&] {
        HIP_CHECK(hipMemcpyAsync(a.host_out, a.device_out, bytes, hipMemcpyDeviceToHost, stream));
      }).median;
  return t;
}

//! [choose_rounds]
// Overlap pays most when the stages take about as long as each other. Copies run at PCIe
// speed, a few tens of GB/s, while the kernel's cost is set by its rounds: time it once at
// 256 rounds and scale so that the kernel takes about as long as the input copy.
inline unsigned int rounds_matching_the_copy(const PipelineArrays& a, hipStream_t stream) {
  const StageTimes probe = time_stages(a, 256, stream, hip_lessons::TimingPlan{2, 5});
  const double rounds = 256.0 * probe.h2d / probe.kernel;
  return static_cast<unsigned int>(std::clamp(std::llround(rounds), 1LL, 1LL << 20));
}
//! [choose_rounds]

/// Every thread waits `ticks`, then writes out[i] = stamp(in[i], k): a producer whose
/// results exist only after a known time, so a consumer that does not wait reads stale data.
__global__ void delayed_stamp(long long ticks, const std::uint32_t* in, std::uint32_t* out,
                              std::size_t n, unsigned int k) {
  hip_lessons::spin_for_ticks(ticks);
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = stamp(in[i], k);
}

inline void launch_delayed_stamp(long long ticks, const std::uint32_t* in, std::uint32_t* out,
                                 std::size_t n, unsigned int k, hipStream_t stream) {
  hipLaunchKernelGGL(delayed_stamp, dim3(static_cast<unsigned int>((n + 255) / 256)), dim3(256), 0,
                     stream, ticks, in, out, n, k);
  HIP_CHECK_LAUNCH();
}

// --- Spreading work over streams: fork and join with events ----------------------------

/// A set of non-blocking worker streams that fork from and join back into an origin stream.
class StreamSet {
 public:
  explicit StreamSet(std::size_t count) : fork_(hipEventDisableTiming) {
    streams_.reserve(count);
    joins_.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      streams_.emplace_back(hipStreamNonBlocking);
      joins_.emplace_back(hipEventDisableTiming);
      handles_.push_back(streams_.back().get());
    }
  }

  const std::vector<hipStream_t>& streams() const { return handles_; }
  std::size_t size() const { return handles_.size(); }

  //! [fork_join]
  // Enqueues `work` (which uses streams()) between a fork from and a join into `origin`:
  // record an event on the origin and make every worker wait for it (hipStreamWaitEvent),
  // enqueue the work, then record an event on every worker and make the origin wait for all
  // of them. Everything enqueued on the origin afterwards, such as the stop event of a
  // timing, runs after all the work on all the workers. The host never waits: the
  // dependencies are carried out on the GPU.
  template <class Work>
  void fork_join(hipStream_t origin, Work&& work) {
    fork_.record(origin);
    for (const hipStream_t s : handles_) HIP_CHECK(hipStreamWaitEvent(s, fork_.get(), 0));
    work();
    for (std::size_t i = 0; i < handles_.size(); ++i) {
      joins_[i].record(handles_[i]);
      HIP_CHECK(hipStreamWaitEvent(origin, joins_[i].get(), 0));
    }
  }
  //! [fork_join]

 private:
  std::vector<hip_lessons::GpuStream> streams_;
  std::vector<hip_lessons::GpuEvent> joins_;
  std::vector<hipStream_t> handles_;
  hip_lessons::GpuEvent fork_;
};

/// Enqueues \p kernels small kernels round-robin over the streams of \p set, between a fork
/// from and a join into \p origin: kernel k goes to stream k % set.size(). With a \p recorder,
/// every launch is traced (the kernel named "kernel <k>", on its stream's number).
inline void enqueue_small_kernels(StreamSet& set, hipStream_t origin, unsigned int kernels,
                                  long long ticks, unsigned int blocks, unsigned int threads,
                                  const std::uint32_t* in, std::uint32_t* out,
                                  hip_lessons::BlockTraceRecorder* recorder = nullptr) {
  set.fork_join(origin, [&] {
    for (unsigned int k = 0; k < kernels; ++k) {
      const auto s = static_cast<int>(k % set.size());
      launch_small_kernel(ticks, blocks, threads, in, out, k, set.streams()[s],
                          recorder
                              ? recorder->reserve(hip_lessons::format("kernel {}", k), blocks, s)
                              : hip_lessons::BlockTrace{});
    }
  });
}

}  // namespace multi_stream
