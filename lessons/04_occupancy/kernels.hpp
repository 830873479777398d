/// \file lessons/04_occupancy/kernels.hpp
/// \brief The kernels lesson 04 sizes by occupancy, and how each is launched.
///
/// Shared by the lesson driver (main.hip) and its benchmarks (bench.hip), so both time the
/// same launches. Every kernel is a grid-stride loop: it is correct for any grid, which is
/// what lets the lesson choose the grid from occupancy instead of from the problem size.
/// The arithmetic uses explicit fmaf() so the host references below compute bit-identical
/// results (the compiler may not contract or reorder an explicit fused multiply-add).
/// Every kernel takes an hl::BlockTrace: empty (untraced) in the timed runs, a recorder's slice
/// where step 10 records on which CU and when each block ran (block_trace.hpp).
#pragma once

#include <hip/hip_runtime.h>

#include <cmath>
#include <cstddef>

#include "hip_lessons/block_trace.hpp"
#include "hip_lessons/hip_check.hpp"

// `#pragma unroll` only where a device compiler reads it: the host compiler would warn.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define OCCUPANCY_UNROLL _Pragma("unroll")
#else
#define OCCUPANCY_UNROLL
#endif

namespace occupancy {

namespace hl = hip_lessons;

// --- The memory-bound kernel --------------------------------------------------------------

constexpr float kTriadScalar = 0.5f;

//! [triad]
// STREAM triad a = b + s * c: two loads and one store per element, almost no arithmetic, so
// its speed is set by how many memory requests the device keeps in flight, i.e. by how many
// threads are resident. The grid-stride loop makes any grid correct. A non-empty trace records
// the block's CU and its start and end (every thread reaches timer.stop()).
__global__ void triad(const float* b, const float* c, float* a, float scalar, std::size_t n,
                      hl::BlockTrace trace) {
  hl::BlockTimer timer(trace);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    a[i] = fmaf(scalar, c[i], b[i]);
  }
  timer.stop();
}
//! [triad]

/// Host reference of one triad element.
inline float triad_reference(float b, float c) { return std::fma(kTriadScalar, c, b); }

// --- The compute-bound kernel -------------------------------------------------------------

constexpr int kChainLength = 1024;  ///< dependent FMAs per element
constexpr float kChainMultiplier = 0.999f;
constexpr float kChainAddend = 0.001f;

/// One element of the compute-bound kernel: a chain of kChainLength dependent FMAs. Each FMA
/// waits for the previous one, so a single warp stalls on every step; the SM stays busy only
/// if enough other warps are resident to issue meanwhile (latency hiding = occupancy).
/// The values converge towards 1, so they stay normal numbers.
__host__ __device__ inline float fma_chain(float v) {
  OCCUPANCY_UNROLL
  for (int k = 0; k < kChainLength; ++k) v = fmaf(v, kChainMultiplier, kChainAddend);
  return v;
}

//! [fma_chain]
__global__ void fma_chain_kernel(const float* x, float* y, std::size_t n, hl::BlockTrace trace) {
  hl::BlockTimer timer(trace);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    y[i] = fma_chain(x[i]);
  }
  timer.stop();
}
//! [fma_chain]

/// Floating-point operations per element of fma_chain_kernel (an FMA counts as two).
constexpr double kChainFlopsPerElement = 2.0 * kChainLength;

// --- Register pressure ----------------------------------------------------------------------

constexpr int kLiveValues = 64;  ///< values every thread keeps alive at once
constexpr int kRounds = 8;

/// One element of the register-hungry kernels: kLiveValues values that all stay alive through
/// kRounds rounds (each round reads its neighbour), so the compiler needs about kLiveValues
/// registers per thread, or it must spill some of them to memory. Every value stays in
/// [0.25, 1]. The scaling is an explicit fmaf(t, 0.8f, 0.0f) rather than t * 0.8f, so the sum
/// that follows cannot be contracted into an FMA on the device.
__host__ __device__ inline float many_live_values(float v) {
  float live[kLiveValues];
  OCCUPANCY_UNROLL
  for (int k = 0; k < kLiveValues; ++k) {
    live[k] = fmaf(v, 0.25f, 0.5f + static_cast<float>(k) * (1.0f / 256.0f));
  }
  OCCUPANCY_UNROLL
  for (int round = 0; round < kRounds; ++round) {
    OCCUPANCY_UNROLL
    for (int k = 0; k < kLiveValues; ++k) {
      const float t = fmaf(live[k], live[(k + 1) % kLiveValues], 0.25f);
      live[k] = fmaf(t, 0.8f, 0.0f);
    }
  }
  float sum = 0.0f;
  OCCUPANCY_UNROLL
  for (int k = 0; k < kLiveValues; ++k) sum += live[k];
  return sum;
}

//! [launch_bounds]
// The block size both register kernels are launched with.
constexpr int kBoundedBlock = 256;
#if defined(__HIP_PLATFORM_AMD__)
// HIP on AMD: __launch_bounds__(MAX_THREADS, MIN_WAVES_PER_EU) becomes
// amdgpu_flat_work_group_size(1, MAX_THREADS) + amdgpu_waves_per_eu(MIN_WAVES_PER_EU)
// (hip/amd_detail/amd_hip_runtime.h): the second number asks for that many waves per SIMD.
// 8 waves per SIMD leaves each wave 512 / 8 = 64 VGPRs on gfx90a.
constexpr int kLaunchBoundsHint = 8;
#else
// CUDA: __launch_bounds__(MAX_THREADS, MIN_BLOCKS_PER_SM): the compiler limits registers so
// that 4 blocks of 256 threads fit on one SM: 65536 / (4 * 256) = 64 registers per thread.
constexpr int kLaunchBoundsHint = 4;
#endif

// Same body twice: the compiler picks the register count of the first freely; the second
// carries launch bounds, which cap it (spilling what does not fit) to raise occupancy.
__global__ void registers_unbounded(const float* x, float* y, std::size_t n, hl::BlockTrace trace) {
  hl::BlockTimer timer(trace);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    y[i] = many_live_values(x[i]);
  }
  timer.stop();
}

__global__ void __launch_bounds__(kBoundedBlock, kLaunchBoundsHint)
    registers_bounded(const float* x, float* y, std::size_t n, hl::BlockTrace trace) {
  hl::BlockTimer timer(trace);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    y[i] = many_live_values(x[i]);
  }
  timer.stop();
}
//! [launch_bounds]

// --- Launching ------------------------------------------------------------------------------

/// The kernels of this lesson: the triad reads x and c, the others map x to y.
enum class Kernel { kTriad, kFmaChain, kRegistersUnbounded, kRegistersBounded };
inline constexpr Kernel kKernels[] = {Kernel::kTriad, Kernel::kFmaChain,
                                      Kernel::kRegistersUnbounded, Kernel::kRegistersBounded};

inline const char* name(Kernel kernel) {
  const char* const names[] = {"triad", "fma_chain", "registers_unbounded", "registers_bounded"};
  return names[static_cast<int>(kernel)];
}

/// Host address of a kernel, as the occupancy and attribute queries take it.
inline const void* address(Kernel kernel) {
  const void* const addresses[] = {reinterpret_cast<const void*>(triad),
                                   reinterpret_cast<const void*>(fma_chain_kernel),
                                   reinterpret_cast<const void*>(registers_unbounded),
                                   reinterpret_cast<const void*>(registers_bounded)};
  return addresses[static_cast<int>(kernel)];
}

/// Host reference of one output element of \p kernel (\p c is read by the triad only).
inline float reference(Kernel kernel, float x, float c) {
  if (kernel == Kernel::kTriad) return triad_reference(x, c);
  return kernel == Kernel::kFmaChain ? fma_chain(x) : many_live_values(x);
}

/// Launches \p kernel on \p stream with \p dynamic_shared bytes of dynamic shared memory per
/// block (no kernel uses them; requesting them still reserves them) and checks that the launch
/// was accepted. A non-empty \p trace (one slice of a BlockTraceRecorder) records every block.
inline void launch(Kernel kernel, unsigned int grid, unsigned int block, std::size_t dynamic_shared,
                   hipStream_t stream, const float* x, const float* c, float* y, std::size_t n,
                   hl::BlockTrace trace = {}) {
  const dim3 g(grid), b(block);
  switch (kernel) {
    case Kernel::kTriad:
      hipLaunchKernelGGL(triad, g, b, dynamic_shared, stream, x, c, y, kTriadScalar, n, trace);
      break;
    case Kernel::kFmaChain:
      hipLaunchKernelGGL(fma_chain_kernel, g, b, dynamic_shared, stream, x, y, n, trace);
      break;
    case Kernel::kRegistersUnbounded:
      hipLaunchKernelGGL(registers_unbounded, g, b, dynamic_shared, stream, x, y, n, trace);
      break;
    case Kernel::kRegistersBounded:
      hipLaunchKernelGGL(registers_bounded, g, b, dynamic_shared, stream, x, y, n, trace);
      break;
  }
  HIP_CHECK_LAUNCH();
}

/// Resident blocks per CU/SM that the runtime predicts for \p kernel (the occupancy API).
inline int max_active_blocks(Kernel kernel, int block, std::size_t dynamic_shared = 0) {
  int blocks = 0;
  HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, address(kernel), block,
                                                         dynamic_shared));
  return blocks;
}

}  // namespace occupancy
