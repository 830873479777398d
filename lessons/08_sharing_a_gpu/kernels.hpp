/// \file lessons/08_sharing_a_gpu/kernels.hpp
/// \brief The two tenants of lesson 08: a victim that launches one small kernel at a time and
/// waits for it, and an aggressor that keeps the whole GPU busy with long kernels; their host
/// references, and the streams that split the GPU between them.
#pragma once

#include <hip/hip_runtime.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hip_lessons/amd_mask_device.hpp"
#include "hip_lessons/block_trace.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/driver_api.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/spin_kernel.hpp"
#include "hip_lessons/traced_run.hpp"
#include "hip_lessons/validation.hpp"
#include "tenants.hpp"

namespace sharing {

namespace hl = hip_lessons;

/// Threads of the victim's one block, and of each of the aggressor's blocks.
constexpr unsigned int kVictimThreads = 64;
constexpr unsigned int kAggressorThreads = 256;

/// What both kernels write: \p x mixed with \p salt, so every output slot and every round
/// has its own value and a slot written by the wrong launch does not match.
__host__ __device__ inline std::uint32_t scramble(std::uint32_t x, std::uint32_t salt) {
  x ^= salt * 0x9E3779B9u;
  x *= 0x85EBCA6Bu;
  return x ^ (x >> 13);
}

//! [tenant_kernels]
// The victim: one block that works for `ticks` of the device clock, then writes its result.
__global__ void victim_kernel(const std::uint32_t* in, std::uint32_t* out, unsigned int launch,
                              long long ticks, hl::BlockTrace trace) {
  hl::BlockTimer timer(trace);
  hl::spin_for_ticks(ticks);
  if (threadIdx.x == 0) out[launch] = scramble(in[launch], launch);
  timer.stop();
}

// The aggressor: as many blocks as the GPU holds at once, each busy for `ticks`; a kernel the
// victim's block has to get past, on the same SMs or in the same time slice.
__global__ void aggressor_kernel(const std::uint32_t* in, std::uint32_t* out, unsigned int round,
                                 long long ticks, hl::BlockTrace trace) {
  hl::BlockTimer timer(trace);
  hl::spin_for_ticks(ticks);
  if (threadIdx.x == 0) out[blockIdx.x] = scramble(in[blockIdx.x], round);
  timer.stop();
}
//! [tenant_kernels]

/// The aggressor's grid: every block it can keep resident on the device at once. On AMD it
/// counts the units its queue can use (hl::available_units()), not multiProcessorCount, which
/// ROC_GLOBAL_CU_MASK halves on RDNA in WGP mode and HSA_CU_MASK does not change.
inline unsigned int aggressor_blocks(const hl::Device& device) {
  const int units =
      hl::grid_units(hl::amd_mask_device_or_none(device.index), device.compute_units());
  return static_cast<unsigned int>(units *
                                   (device.props.maxThreadsPerMultiProcessor / kAggressorThreads));
}

/// The host reference of \p launches victim launches (or of one aggressor round, \p salt
/// fixed): what `out` must hold.
inline std::vector<std::uint32_t> expected(const std::vector<std::uint32_t>& in, std::size_t count,
                                           std::optional<std::uint32_t> round = std::nullopt) {
  std::vector<std::uint32_t> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    out[i] = scramble(in[i], round ? *round : static_cast<std::uint32_t>(i));
  }
  return out;
}

/// Two streams that divide the GPU: the victim's on \p victim_units compute units, the
/// aggressor's on all the others. AMD: CU-masked streams planned by the common mask rules
/// (amd_split(), lesson 06). NVIDIA: a green context of at least \p victim_units SMs and one of
/// the SMs left.
struct SplitStreams {
  hipStream_t victim = nullptr, aggressor = nullptr;
  void* contexts[2] = {nullptr, nullptr};  // NVIDIA: the green contexts that own the SMs
};

inline SplitStreams split_the_gpu(const hl::Device& device, int victim_units) {
  SplitStreams split;
#if defined(__HIP_PLATFORM_AMD__)
  //! [cu_masks]
  // Two masks planned by lesson 06's rules (whole WGPs, the same share of every XCC): the
  // victim's units and the rest; one CU-masked stream on each.
  const hl::AmdMaskDevice amd = hl::amd_mask_device(device);
  const std::array<hl::CuMask, 2> masks = amd_split(amd, victim_units);
  const auto words = static_cast<std::uint32_t>(hl::mask_layout(amd).bits + 31) / 32;
  HIP_CHECK(hipExtStreamCreateWithCUMask(&split.victim, words, masks[0].words.data()));
  HIP_CHECK(hipExtStreamCreateWithCUMask(&split.aggressor, words, masks[1].words.data()));
  //! [cu_masks]
#else
  HIP_LESSONS_DRIVER_FUNCTION(cuDeviceGet, 2000);
  HIP_LESSONS_DRIVER_FUNCTION(cuDeviceGetDevResource, 12040);
  HIP_LESSONS_DRIVER_FUNCTION(cuDevSmResourceSplitByCount, 12040);
  HIP_LESSONS_DRIVER_FUNCTION(cuDevResourceGenerateDesc, 12040);
  HIP_LESSONS_DRIVER_FUNCTION(cuGreenCtxCreate, 12040);
  HIP_LESSONS_DRIVER_FUNCTION(cuGreenCtxStreamCreate, 12050);
  //! [green_contexts]
  CUdevice dev = 0;
  CUdevResource whole{}, sms[2]{};
  unsigned int groups = 1;
  CU_CHECK(cuDeviceGet(&dev, device.index));
  CU_CHECK(cuDeviceGetDevResource(dev, &whole, CU_DEV_RESOURCE_TYPE_SM));
  // One group of at least victim_units SMs (the driver rounds up); the rest for the aggressor.
  CU_CHECK(cuDevSmResourceSplitByCount(&sms[0], &groups, &whole, &sms[1], 0,
                                       static_cast<unsigned int>(victim_units)));
  hipStream_t* streams[2] = {&split.victim, &split.aggressor};
  for (int i = 0; i < 2; ++i) {
    CUdevResourceDesc desc = nullptr;
    CU_CHECK(cuDevResourceGenerateDesc(&desc, &sms[i], 1));
    CUgreenCtx green = nullptr;
    CU_CHECK(cuGreenCtxCreate(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
    CUstream stream = nullptr;
    CU_CHECK(cuGreenCtxStreamCreate(&stream, green, CU_STREAM_NON_BLOCKING, 0));
    *streams[i] = stream;
    split.contexts[i] = green;
  }
  //! [green_contexts]
#endif
  return split;
}

#if defined(__HIP_PLATFORM_AMD__)
/// AMD: for --partition \p k on \p device, why no partition can be made (an unknown chip
/// shape), why no HSA_CU_MASK per process (ROC_GLOBAL_CU_MASK), and those masks. UsageError
/// (exit 2) for a k the mask rules refuse.
inline std::tuple<std::optional<std::string>, std::optional<std::string>,
                  std::array<std::string, 2>>
plan_amd_partitions(const hl::Device& device, int k) {
  const hl::AmdMaskDevice amd = hl::amd_mask_device(device);
  try {
    amd_split(amd, k);
  } catch (const hl::SkipError& reason) {
    return {reason.what(), std::nullopt, {}};
  }
  try {
    return {std::nullopt, std::nullopt, per_process_cu_masks(amd, device.index, k)};
  } catch (const hl::SkipError& reason) {
    return {std::nullopt, reason.what(), {}};
  }
}
#endif

/// Ends both streams (after their work), then their green contexts (NVIDIA), which would leave
/// their streams behind unusable.
inline void destroy(SplitStreams& split) {
  HIP_CHECK(hipStreamSynchronize(split.victim));
  HIP_CHECK(hipStreamSynchronize(split.aggressor));
#if defined(__HIP_PLATFORM_AMD__)
  HIP_CHECK(hipStreamDestroy(split.victim));
  HIP_CHECK(hipStreamDestroy(split.aggressor));
#else
  HIP_LESSONS_DRIVER_FUNCTION(cuStreamDestroy, 4000);
  HIP_LESSONS_DRIVER_FUNCTION(cuGreenCtxDestroy, 12040);
  CU_CHECK(cuStreamDestroy(split.victim));
  CU_CHECK(cuStreamDestroy(split.aggressor));
  for (void* green : split.contexts) CU_CHECK(cuGreenCtxDestroy(static_cast<CUgreenCtx>(green)));
#endif
}

/// What a tenant process needs: its device, the clock rate, its sizes, and where its traced
/// runs go.
struct Tenancy {
  hl::Device device;
  double ticks_per_us;
  unsigned int launches;           // the victim's, --size
  double victim_us, aggressor_us;  // how long each block works
  std::uint64_t seed;
  hl::TraceFile& traces;
};

// Keeps three aggressor kernels queued on `stream` (top_up() between the victim's launches), so
// the GPU is never without its blocks; every round is traced into a ring of the last 64.
class Aggressor {
 public:
  Aggressor(const Tenancy& t, hipStream_t stream)
      : stream_(stream),
        blocks_(aggressor_blocks(t.device)),
        in_(blocks_),
        ticks_(std::llround(t.aggressor_us * t.ticks_per_us)),
        run_(t.traces, "aggressor", 64 * std::size_t{blocks_}, hl::Overflow::kKeepLatest) {
    hl::fill_random_words(in_, t.seed + 1);
    HIP_CHECK(hipMalloc(&d_in_, blocks_ * sizeof(std::uint32_t)));
    HIP_CHECK(hipMalloc(&d_out_, blocks_ * sizeof(std::uint32_t)));
    HIP_CHECK(hipMemcpy(d_in_, in_.data(), blocks_ * sizeof(std::uint32_t), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemsetAsync(d_out_, 0xFF, blocks_ * sizeof(std::uint32_t), stream_));
    for (hipEvent_t& e : done_) HIP_CHECK(hipEventCreateWithFlags(&e, hipEventDisableTiming));
    start_ = std::chrono::steady_clock::now();
  }
  ~Aggressor() {
    for (hipEvent_t e : done_) (void)hipEventDestroy(e);
    (void)hipFree(d_in_);
    (void)hipFree(d_out_);
  }

  void top_up() {
    while (rounds_ - finished_ < 3) {
      hipLaunchKernelGGL(aggressor_kernel, dim3(blocks_), dim3(kAggressorThreads), 0, stream_,
                         d_in_, d_out_, rounds_, ticks_, run_.reserve("aggressor", blocks_, 1));
      HIP_CHECK(hipGetLastError());
      HIP_CHECK(hipEventRecord(done_[rounds_ % 3], stream_));
      ++rounds_;
    }
    while (finished_ < rounds_ && hipEventQuery(done_[finished_ % 3]) == hipSuccess) ++finished_;
    (void)hipGetLastError();  // a round still running (hipErrorNotReady) is not an error
  }

  // Stops launching, waits for the queue, and returns its result (whether the last round's
  // output is right, the blocks it ran per second) and its traced rounds, the last 64.
  std::pair<std::string, hl::Schedule> finish() {
    HIP_CHECK(hipStreamSynchronize(stream_));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::vector<std::uint32_t> out(blocks_);
    HIP_CHECK(
        hipMemcpy(out.data(), d_out_, blocks_ * sizeof(std::uint32_t), hipMemcpyDeviceToHost));
    const bool correct = !hl::first_mismatch(expected(in_, blocks_, rounds_ - 1), out);
    // Blocks, not rounds: under MPS with a thread percentage the device reports fewer SMs, so
    // aggressor_blocks() sizes a round smaller and a round alone says nothing of the work done.
    return {hl::format("aggressor_correct={} blocks_per_s={} blocks={}", correct ? 1 : 0,
                       static_cast<double>(blocks_) * rounds_ / seconds, blocks_),
            run_.finish()};
  }

 private:
  hipStream_t stream_;
  unsigned int blocks_;
  std::vector<std::uint32_t> in_;
  long long ticks_;
  hl::TracedRun run_;
  std::uint32_t *d_in_ = nullptr, *d_out_ = nullptr;
  hipEvent_t done_[3] = {};
  unsigned int rounds_ = 0, finished_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace sharing
