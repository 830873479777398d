/// \file lessons/03_multi_stream/kernels.hpp
/// \brief The kernels of lesson 03, the fork/join that spreads work over worker streams, and
/// the copy/compute pipeline: shared by main.hip and bench.hip, so both run the same work.
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "hip_lessons/block_trace.hpp"
#include "hip_lessons/buffers.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/spin_kernel.hpp"
#include "hip_lessons/timing.hpp"
#include "hip_lessons/traced_run.hpp"
#include "hip_lessons/validation.hpp"

namespace multi_stream {

inline constexpr unsigned int kOneBlockThreads = 64;  // one AMD wavefront, two NVIDIA warps
inline constexpr unsigned int kFillingThreads = 256;  // blocks of the kernels that fill the GPU

/// The stamp: what a block writes into its slot (the one output element it owns), made from
/// the slot's input and the kernel's number. A block that ran twice, never ran, or wrote
/// another block's slot leaves a wrong value there.
__host__ __device__ inline std::uint32_t stamp(std::uint32_t input, unsigned int kernel) {
  return input * 2654435761u + kernel;
}

// Occupies its blocks for a fixed time, then does a little real work. With one block it uses
// one CU / SM out of dozens: the rest of the GPU idles unless kernels from other streams run
// beside it. A traced launch also records when and where each block ran (empty: nothing).
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

/// Blocks of spin_then_stamp that fit on the whole GPU at once: occupancy per CU x CUs.
inline unsigned int blocks_filling_the_gpu(int compute_units) {
  int per_cu = 0;
  HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, spin_then_stamp,
                                                         static_cast<int>(kFillingThreads), 0));
  return static_cast<unsigned int>(std::max(1, per_cu) * compute_units);
}

/// `kernels` launches of spin_then_stamp: their random input (from `seed`, so a run can be
/// repeated), the host's reference of every slot, and the device buffers.
struct StampWork {
  unsigned int kernels, blocks, threads;
  long long ticks;
  std::vector<std::uint32_t> input, expected;
  hip_lessons::DeviceBuffer<std::uint32_t> in{input.size()}, out{input.size()};
  StampWork(unsigned int k, unsigned int b, unsigned int t, long long spin, std::uint64_t seed)
      : kernels(k), blocks(b), threads(t), ticks(spin), input(std::size_t{k} * b) {
    hip_lessons::fill_random_words(input, seed);
    for (std::size_t i = 0; i < input.size(); ++i) expected.push_back(stamp(input[i], i / b));
    in.upload(input);
  }
};

//! [worker_streams]
// Worker streams, and the events that tie them to one origin stream. Non-blocking streams
// (hipStreamNonBlocking) never wait for the legacy default stream, stream 0, nor it for them.
// The events only order work (hipEventDisableTiming): none of them is ever timed.
struct Workers {
  std::vector<hipStream_t> streams;
  hipEvent_t fork = nullptr;      // recorded on the origin, waited for by every worker
  std::vector<hipEvent_t> joins;  // one per worker, recorded on it, waited for by the origin
};

inline Workers create_workers(std::size_t count) {
  Workers w{std::vector<hipStream_t>(count), nullptr, std::vector<hipEvent_t>(count)};
  for (hipStream_t& s : w.streams) HIP_CHECK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  HIP_CHECK(hipEventCreateWithFlags(&w.fork, hipEventDisableTiming));
  for (hipEvent_t& e : w.joins) HIP_CHECK(hipEventCreateWithFlags(&e, hipEventDisableTiming));
  return w;
}

inline void destroy_workers(const Workers& w) {
  for (const hipStream_t s : w.streams) HIP_CHECK(hipStreamDestroy(s));
  for (const hipEvent_t e : w.joins) HIP_CHECK(hipEventDestroy(e));
  HIP_CHECK(hipEventDestroy(w.fork));
}
//! [worker_streams]

//! [fork_join]
// Enqueues `work` (on the workers' streams) between a fork from and a join into `origin`.
// Fork: every worker waits for an event recorded on the origin, so it starts after the
// origin's earlier work. Join: the origin waits for an event recorded on each worker after
// its work, so the origin's next work comes after all of it. The host never waits.
template <class Work>
void fork_join(hipStream_t origin, const Workers& w, Work&& work) {
  HIP_CHECK(hipEventRecord(w.fork, origin));
  for (const hipStream_t worker : w.streams) HIP_CHECK(hipStreamWaitEvent(worker, w.fork, 0));
  work();
  for (std::size_t i = 0; i < w.streams.size(); ++i) {
    HIP_CHECK(hipEventRecord(w.joins[i], w.streams[i]));  // one event each: see the README
    HIP_CHECK(hipStreamWaitEvent(origin, w.joins[i], 0));
  }
}
//! [fork_join]

// Kernel k goes to worker k % workers: each worker runs its kernels in order, kernels on
// different workers may run at once. A traced run gives every launch its slice of the trace.
inline void enqueue_round_robin(const StampWork& k, const Workers& workers, hipStream_t origin,
                                hip_lessons::TracedRun* trace = nullptr) {
  fork_join(origin, workers, [&] {
    for (unsigned int kernel = 0; kernel < k.kernels; ++kernel) {
      const auto s = static_cast<int>(kernel % workers.streams.size());
      hipLaunchKernelGGL(spin_then_stamp, dim3(k.blocks), dim3(k.threads), 0, workers.streams[s],
                         k.ticks, k.in.data(), k.out.data(), kernel,
                         trace
                             ? trace->reserve(hip_lessons::format("kernel {}", kernel), k.blocks, s)
                             : hip_lessons::BlockTrace{});
      HIP_CHECK_LAUNCH();
    }
  });
}

// A compute-bound stand-in for real work: `rounds` steps of x = a*x + c (mod 2^32) per element,
// so the kernel can be made to take as long as copying its data, where overlap pays most.
__global__ void lcg_rounds(const std::uint32_t* in, std::uint32_t* out, std::size_t n,
                           std::uint32_t a, std::uint32_t c, unsigned int rounds) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint32_t x = in[i];
  for (unsigned int r = 0; r < rounds; ++r) x = a * x + c;
  out[i] = x;
}

inline constexpr std::uint32_t kLcgA = 1664525u, kLcgC = 1013904223u;  // Numerical Recipes

/// The host reference of lcg_rounds in O(1) per element: `rounds` steps of x = a*x + c
/// compose to x = A*x + C with A = a^rounds and C = c*(a^(rounds-1) + ... + a + 1), mod 2^32.
struct LcgJump {
  std::uint32_t multiplier = 1, increment = 0;
  explicit LcgJump(unsigned int rounds) {
    for (unsigned int r = 0; r < rounds; ++r) {
      multiplier *= kLcgA;
      increment = kLcgA * increment + kLcgC;
    }
  }
  std::uint32_t operator()(std::uint32_t x) const { return multiplier * x + increment; }
};

inline void launch_lcg_rounds(const std::uint32_t* in, std::uint32_t* out, std::size_t n,
                              unsigned int rounds, hipStream_t stream) {
  hipLaunchKernelGGL(lcg_rounds, dim3(static_cast<unsigned int>((n + 255) / 256)), dim3(256), 0,
                     stream, in, out, n, kLcgA, kLcgC, rounds);
  HIP_CHECK_LAUNCH();
}

struct PipelineArrays {  // where the pipeline reads and writes: host (pinned or not), device
  const std::uint32_t* host_in;
  std::uint32_t *host_out, *device_in, *device_out;
  std::size_t n;
};

//! [pinned_memory]
// Page-locked (pinned) host memory from hipHostMalloc is what the copy engines read and write
// directly, so a hipMemcpyAsync from it returns at once and runs beside other streams' work.
using PinnedWords = std::unique_ptr<std::uint32_t[], hipError_t (*)(void*)>;
inline PinnedWords pinned_words(std::size_t n) {
  void* words = nullptr;
  HIP_CHECK(hipHostMalloc(&words, n * sizeof(std::uint32_t), hipHostMallocDefault));
  return PinnedWords(static_cast<std::uint32_t*>(words), hipHostFree);
}
//! [pinned_memory]

/// The pipeline's seeded input and host reference, pinned and pageable host arrays, device arrays.
struct PipelineData {
  std::size_t n;
  std::vector<std::uint32_t> input = std::vector<std::uint32_t>(n), expected = input;
  std::vector<std::uint32_t> pageable_out = input;
  PinnedWords pinned_in = pinned_words(n), pinned_out = pinned_words(n);
  hip_lessons::DeviceBuffer<std::uint32_t> device_in{n}, device_out{n};
  PipelineData(std::size_t count, std::uint64_t seed) : n(count) {
    hip_lessons::fill_random_words(input, seed);
    std::copy(input.begin(), input.end(), pinned_in.get());
  }
  PipelineArrays arrays(bool pageable) {
    if (pageable)
      return {input.data(), pageable_out.data(), device_in.data(), device_out.data(), n};
    return {pinned_in.get(), pinned_out.get(), device_in.data(), device_out.data(), n};
  }
};

//! [pipeline]
// Chunks of ceil(n / chunks) elements: the last is shorter when `chunks` does not divide n
// (1000 in 3: 334 + 334 + 332), and there can be fewer than asked (5 in 8: five of 1). Chunk c
// is copied in, computed and copied out on stream c % streams.size(): while one chunk's kernel
// computes, another stream's chunk can copy, in each direction on its own copy engine. From
// pageable memory nothing overlaps: the runtime stages each copy, synchronously with the host.
// `marks`, when given, get four events per chunk: before its copy in and after each stage.
inline void enqueue_pipeline(const PipelineArrays& a, std::size_t chunks, unsigned int rounds,
                             const std::vector<hipStream_t>& streams,
                             const hipEvent_t* marks = nullptr) {
  const std::size_t chunk = (a.n + chunks - 1) / chunks;
  for (std::size_t c = 0, offset = 0; offset < a.n; ++c, offset += chunk) {
    const hipStream_t stream = streams[c % streams.size()];
    const auto mark = [&](std::size_t point) {
      if (marks != nullptr) HIP_CHECK(hipEventRecord(marks[4 * c + point], stream));
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

// Overlap pays most when the stages take about as long as each other. Copies run at PCIe speed
// (tens of GB/s); the kernel's cost is set by its rounds: time the input copy and 256 rounds
// on the whole array, and scale the rounds so that the kernel takes as long as the copy.
inline unsigned int rounds_matching_the_copy(const PipelineArrays& a, hipStream_t stream) {
  const hip_lessons::RunOrTime probe(hip_lessons::TimingPlan{2, 5});
  const double copy_ms = *probe.on_stream(stream, [&] {
    HIP_CHECK(hipMemcpyAsync(a.device_in, a.host_in, a.n * sizeof(std::uint32_t),
                             hipMemcpyHostToDevice, stream));
  });
  const double kernel_ms = *probe.on_stream(
      stream, [&] { launch_lcg_rounds(a.device_in, a.device_out, a.n, 256, stream); });
  return static_cast<unsigned int>(
      std::clamp(std::llround(256 * copy_ms / kernel_ms), 1LL, 1LL << 20));
}

}  // namespace multi_stream
