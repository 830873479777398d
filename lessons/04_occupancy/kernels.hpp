/// \file lessons/04_occupancy/kernels.hpp
/// \brief The kernels lesson 04 sizes by occupancy, their launch (shared with bench.hip), and
/// the problem main.hip runs them on. Explicit fmaf() keeps the host references bit-identical
/// (a compiler may not contract or reorder an explicit fused multiply-add).
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hip_lessons/block_trace.hpp"
#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/timing.hpp"
#include "hip_lessons/validation.hpp"

// `#pragma unroll` only where a device compiler reads it: the host compiler would warn.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define OCCUPANCY_UNROLL _Pragma("unroll")
#else
#define OCCUPANCY_UNROLL
#endif

namespace occupancy {

namespace hl = hip_lessons;

// Every kernel is a grid-stride loop: correct for any grid, so the grid can come from occupancy.
// A non-empty trace records the block's CU, start and end; every thread reaches timer.stop().
template <class Element>
__device__ void grid_stride(std::size_t n, hl::BlockTrace trace, Element element) {
  hl::BlockTimer timer(trace);
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = first; i < n; i += stride) element(i);
  timer.stop();
}

// Every kernel takes (x, c, y, n, trace); only the triad reads c.
// STREAM triad y = x + s * c: two loads and one store per element, almost no arithmetic, so its
// speed is the number of memory requests in flight, i.e. of resident threads.
constexpr float kTriadScalar = 0.5f;
__global__ void triad(const float* x, const float* c, float* y, std::size_t n,
                      hl::BlockTrace trace) {
  grid_stride(n, trace, [=](std::size_t i) { y[i] = fmaf(kTriadScalar, c[i], x[i]); });
}

// 1024 dependent FMAs: each waits for the previous one, so the CU stays busy only if enough
// other warps are resident to issue meanwhile. The values converge towards 1 (normal numbers).
constexpr int kChainLength = 1024;
__host__ __device__ inline float fma_chain(float v) {
  OCCUPANCY_UNROLL
  for (int k = 0; k < kChainLength; ++k) v = fmaf(v, 0.999f, 0.001f);
  return v;
}
__global__ void fma_chain_kernel(const float* x, const float*, float* y, std::size_t n,
                                 hl::BlockTrace trace) {
  grid_stride(n, trace, [=](std::size_t i) { y[i] = fma_chain(x[i]); });
}

// 64 values alive through 8 rounds need about 64 registers per thread, or spills. Every value
// stays in [0.25, 1]; fmaf(t, 0.8f, 0.0f), not t * 0.8f, so no FMA is contracted on the device.
__host__ __device__ inline float many_live_values(float v) {
  float live[64];
  OCCUPANCY_UNROLL
  for (int k = 0; k < 64; ++k) live[k] = fmaf(v, 0.25f, 0.5f + static_cast<float>(k) / 256.0f);
  OCCUPANCY_UNROLL
  for (int round = 0; round < 8; ++round) {
    OCCUPANCY_UNROLL
    for (int k = 0; k < 64; ++k)
      live[k] = fmaf(fmaf(live[k], live[(k + 1) % 64], 0.25f), 0.8f, 0.0f);
  }
  float sum = 0.0f;
  OCCUPANCY_UNROLL
  for (int k = 0; k < 64; ++k) sum += live[k];
  return sum;
}

//! [launch_bounds]
constexpr int kBoundedBlock = 256;  // the block size both register kernels are launched with
// The second number of __launch_bounds__ is a minimum: of waves per SIMD on AMD (it becomes
// amdgpu_waves_per_eu), of resident blocks per SM on CUDA. Both leave 64 registers a thread.
#if defined(__HIP_PLATFORM_AMD__)
constexpr int kLaunchBoundsHint = 8;  // 512 VGPRs / 8 waves on gfx90a
#else
constexpr int kLaunchBoundsHint = 4;  // 65536 registers / (4 blocks x 256 threads)
#endif
// The same body twice: registers chosen freely, and capped by launch bounds (spilling the rest).
__global__ void registers_unbounded(const float* x, const float*, float* y, std::size_t n,
                                    hl::BlockTrace trace) {
  grid_stride(n, trace, [=](std::size_t i) { y[i] = many_live_values(x[i]); });
}
__global__ void __launch_bounds__(kBoundedBlock, kLaunchBoundsHint)
    registers_bounded(const float* x, const float*, float* y, std::size_t n, hl::BlockTrace trace) {
  grid_stride(n, trace, [=](std::size_t i) { y[i] = many_live_values(x[i]); });
}
//! [launch_bounds]

/// The kernels of this lesson, in the order of kEntries and kNames.
enum class Kernel { kTriad, kFmaChain, kRegistersUnbounded, kRegistersBounded };
inline constexpr Kernel kKernels[] = {Kernel::kTriad, Kernel::kFmaChain,
                                      Kernel::kRegistersUnbounded, Kernel::kRegistersBounded};
using Entry = void (*)(const float*, const float*, float*, std::size_t, hl::BlockTrace);
inline const Entry kEntries[] = {triad, fma_chain_kernel, registers_unbounded, registers_bounded};
inline const char* const kNames[] = {"triad", "fma_chain", "registers_unbounded",
                                     "registers_bounded"};

inline const char* name(Kernel kernel) { return kNames[static_cast<int>(kernel)]; }
/// Host address of a kernel, as the attribute and occupancy queries take it.
inline const void* address(Kernel kernel) {
  return reinterpret_cast<const void*>(kEntries[static_cast<int>(kernel)]);
}

/// TB/s of the triad (2 loads, 1 store), TFLOP/s of the FMA chain (an FMA is 2 FLOP).
inline std::optional<double> rate(Kernel kernel, std::size_t n, std::optional<double> ms) {
  if (!ms) return std::nullopt;
  return (kernel == Kernel::kTriad ? 3.0 * sizeof(float) : 2.0 * kChainLength) * n / *ms / 1e9;
}

/// Launches \p kernel with \p dynamic_shared bytes per block (unused, reserved all the same).
inline void launch(Kernel kernel, unsigned int grid, unsigned int block, std::size_t dynamic_shared,
                   hipStream_t stream, const float* x, const float* c, float* y, std::size_t n,
                   hl::BlockTrace trace = {}) {
  hipLaunchKernelGGL(kEntries[static_cast<int>(kernel)], dim3(grid), dim3(block), dynamic_shared,
                     stream, x, c, y, n, trace);
  HIP_CHECK_LAUNCH();
}

/// One launch on a Problem: its median time when timed, its output against the host reference.
struct Outcome {
  std::string check;  // "triad, N = 270336, grid 132 x block 256"
  std::size_t elements = 0;
  std::optional<hl::Mismatch> mismatch;
  std::optional<double> ms;
};

/// Seeded inputs, an output and the host references of n elements (2^22 at most for all but the
/// triad); x repeats 1024 random values so that a reference costs 1024 evaluations at most.
struct Problem {
  std::size_t n;
  hipStream_t stream;
  hl::RunOrTime runs;               // timed, or run once (--check)
  hl::DeviceBuffer<float> x, c, y;  // on the device
  std::map<Kernel, std::vector<float>> expected;

  Problem(std::size_t size, std::uint64_t seed, hipStream_t s, const hl::RunOrTime& r)
      : n(size), stream(s), runs(r) {
    // Too large is bad input (exit 2), checked before anything is allocated.
    hl::require_device_memory(3 * n * sizeof(float), hl::format("N = {}", n));
    x = hl::DeviceBuffer<float>(n);
    c = hl::DeviceBuffer<float>(n);
    y = hl::DeviceBuffer<float>(n);
    std::vector<float> distinct(1024), host_c(n), host_x(n);
    std::vector<std::uint32_t> which(n);
    hl::fill_uniform(distinct, seed);
    hl::fill_uniform(host_c, seed + 1);
    hl::fill_random_words(which, seed + 2);
    for (std::size_t i = 0; i < n; ++i) {
      which[i] %= 1024;  // x[i] is one of the 1024 distinct values
      host_x[i] = distinct[which[i]];
    }
    x.upload(host_x);
    c.upload(host_c);
    for (const Kernel k : kKernels) {  // the host references, per distinct x where they can be
      std::array<float, 1024> per_x{};
      for (int v = 0; v < 1024; ++v)
        per_x[v] = k == Kernel::kFmaChain ? fma_chain(distinct[v]) : many_live_values(distinct[v]);
      for (std::size_t i = 0; i < count(k); ++i)
        expected[k].push_back(k == Kernel::kTriad ? std::fma(kTriadScalar, host_c[i], host_x[i])
                                                  : per_x[which[i]]);
    }
  }
  std::size_t count(Kernel kernel) const {
    return kernel == Kernel::kTriad ? n : std::min(n, std::size_t{1} << 22);
  }

  /// Poisons y, runs \p enqueue (\p kernel on the first \p elements, \p grid x \p block) timed or
  /// once, and compares every element with the reference (the register kernels sum 64 values in
  /// an order the compiler chooses: within 1e-6; the others bit for bit).
  template <class Enqueue>
  Outcome verify(Kernel kernel, std::size_t elements, unsigned int grid, unsigned int block,
                 std::size_t dynamic_shared, Enqueue&& enqueue) {
    // Every byte 0xFF is a NaN, which no result equals: an element never written cannot pass.
    HIP_CHECK(hipMemsetAsync(y.data(), 0xFF, elements * sizeof(float), stream));
    Outcome outcome;
    outcome.ms = runs.on_stream(stream, enqueue);
    HIP_CHECK_LAUNCH();  // a refused launch in enqueue left its error here
    std::vector<float> output(elements);
    HIP_CHECK(hipMemcpy(output.data(), y.data(), elements * sizeof(float), hipMemcpyDeviceToHost));
    const bool exact = kernel == Kernel::kTriad || kernel == Kernel::kFmaChain;
    const std::string shared = dynamic_shared ? hl::format(", {} B shared", dynamic_shared) : "";
    outcome.check =
        hl::format("{}, N = {}, grid {} x block {}{}", name(kernel), elements, grid, block, shared);
    outcome.elements = elements;
    outcome.mismatch = hl::first_mismatch(expected[kernel].data(), output.data(), elements,
                                          exact ? hl::Tolerance{} : hl::Tolerance{1e-6, 1e-6});
    return outcome;
  }
  /// The same through launch(), on the first \p elements (0: count(kernel)).
  Outcome run(Kernel kernel, unsigned int grid, unsigned int block, std::size_t dynamic_shared = 0,
              std::size_t elements = 0, hl::BlockTrace trace = {}) {
    elements = elements == 0 ? count(kernel) : elements;
    return verify(kernel, elements, grid, block, dynamic_shared, [&] {
      launch(kernel, grid, block, dynamic_shared, stream, x.data(), c.data(), y.data(), elements,
             trace);
    });
  }
};

}  // namespace occupancy
