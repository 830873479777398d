/// \file lessons/06_cu_masking/kernels.hpp
/// \brief Lesson 06's compute-bound kernel, its host reference and launch, and the two stream
/// makers: a stream whose kernels run on some compute units only, from a CU mask on AMD and
/// from a green context on NVIDIA (partition_device()). Shared by main.hip and bench.hip.
#pragma once

#include <hip/hip_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "cu_partition.hpp"
#include "hip_lessons/amd_cu_masks.hpp"
#include "hip_lessons/amd_mask_device.hpp"
#include "hip_lessons/block_trace.hpp"
#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/driver_api.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/validation.hpp"

namespace cu_masking {

/// Threads per block; a multiple of both warp (32) and wavefront (32 or 64) sizes.
constexpr unsigned int kBlock = 256;
/// x <- x * kScale + kOffset converges to kOffset / (1 - kScale) = 0.5, so the chains stay
/// far from overflow and from denormals for any input in [-1, 1].
constexpr float kScale = 0.999f;
constexpr float kOffset = 0.0005f;

/// out[i] = the sum of four chains of `iterations` steps x <- fma(x, kScale, kOffset) from
/// in[i] + 0, 0.25, 0.5, 0.75: almost no memory traffic, so the units that run it set its time.
/// A traced launch records each block's unit (__smid()), start and end; every thread must reach
/// timer.stop(), so the bounds check guards the work only.
__global__ void fma_chains(const float* in, float* out, std::size_t n, int iterations,
                           hip_lessons::BlockTrace trace) {
  hip_lessons::BlockTimer timer(trace);
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    float x[4] = {in[i], in[i] + 0.25f, in[i] + 0.5f, in[i] + 0.75f};
#pragma unroll 8
    for (int k = 0; k < iterations; ++k) {
      for (float& chain : x) chain = fmaf(chain, kScale, kOffset);
    }
    out[i] = (x[0] + x[1]) + (x[2] + x[3]);
  }
  timer.stop();
}

/// The host reference of one element: the same operations in the same order (std::fma is the
/// correctly rounded fused multiply-add, like fmaf on both GPUs).
inline float fma_chains_reference(float in, int iterations) {
  float x[4] = {in, in + 0.25f, in + 0.5f, in + 0.75f};
  for (int k = 0; k < iterations; ++k) {
    for (float& chain : x) chain = std::fma(chain, kScale, kOffset);
  }
  return (x[0] + x[1]) + (x[2] + x[3]);
}

inline unsigned int blocks_for(std::size_t n) {
  return static_cast<unsigned int>((n + kBlock - 1) / kBlock);
}

/// Launches fma_chains over n elements on \p stream: nothing in the launch says where it runs;
/// a partition's stream does. Timed launches pass no \p trace.
inline void launch(const float* in, float* out, std::size_t n, int iterations, hipStream_t stream,
                   hip_lessons::BlockTrace trace = {}) {
  hipLaunchKernelGGL(fma_chains, dim3(blocks_for(n)), dim3(kBlock), 0, stream, in, out, n,
                     iterations, trace);
  HIP_CHECK(hipGetLastError());
}

/// The kernel's random inputs in [-1, 1] on the device, and (once the whole device has run it)
/// its output, which every partition must reproduce.
struct Workload {
  std::size_t n;
  int iterations;
  std::vector<float> input, expected;  // expected: the whole device's output, once checked
  hl::DeviceBuffer<float> d_in;
  std::optional<double> whole_device_ms;  // its time (nothing under --check)
  Workload(std::size_t count, int steps, std::uint64_t seed) : n(count), iterations(steps) {
    // The input and up to three outputs, refused before anything is allocated, on the host too.
    hl::require_device_memory(4 * n * sizeof(float), hl::format("--size {}", n));
    input.resize(n);
    hl::fill_uniform(input, seed);
    d_in = hl::DeviceBuffer<float>(n);
    d_in.upload(input);  // waits: green-context streams do not wait for the null stream
  }
};

/// The same operations in the same order on both sides, exactly rounded: results agree to the
/// last bit; the tolerance only forgives a compiler that reorders the final sum.
constexpr hl::Tolerance kTolerance{1e-6, 1e-6};

/// A stream whose kernels run on `units` compute units only (as multiProcessorCount counts
/// them); launches, events and waits on it are plain HIP. Made by partition_device() or
/// partition_on_mask(), ended by destroy().
struct Partition {
  hipStream_t stream = nullptr;
  int requested = 0, units = 0;
  std::string name, placement;     // placement: the mask bits (AMD), "green context" (NVIDIA)
  void* green_context = nullptr;   // NVIDIA: the green context that owns its SMs
  hl::CuMask bits{}, read_back{};  // AMD: the mask bits it was created with, and read back
  std::optional<std::string> readback_caveat{};  // AMD: why read_back may not be the truth
  bool user_mask = false;                        // --cu-mask's
};

#if defined(__HIP_PLATFORM_AMD__)
inline PartitionRules partition_rules(const hl::Device& device) {
  return amd_partition_rules(hl::amd_mask_device(device));
}

/// A stream on the compute units whose bits are set in \p bits, asked for as \p requested
/// units. The size passed counts 32-bit words, not bits; HIP ignores words past the device.
inline Partition masked_stream(const hl::AmdMaskDevice& amd, const hl::CuMask& bits,
                               int requested) {
  const hl::MaskLayout layout = hl::mask_layout(amd);
  const auto words = static_cast<std::uint32_t>(layout.bits + 31) / 32;
  Partition partition;
  //! [amd_cu_mask_stream]
  HIP_CHECK(hipExtStreamCreateWithCUMask(&partition.stream, words, bits.words.data()));
  // HIP's record of the stream's mask; not always what its queue got (readback_caveat()).
  HIP_CHECK(hipExtStreamGetCUMask(partition.stream, hl::kMaxMaskBits / 32,
                                  partition.read_back.words.data()));
  //! [amd_cu_mask_stream]
  partition.requested = requested;
  partition.units = hl::units_of(amd, bits);
  partition.name = hl::format("{} {}s", requested, layout.unit);
  partition.placement = "mask bits " + bits.ids();
  partition.bits = bits;
  partition.readback_caveat = readback_caveat(layout.bits_per_unit, amd.global_mask.has_value(),
                                              std::getenv("HSA_CU_MASK") != nullptr);
  return partition;
}

/// \p groups disjoint partitions of \p each units, with the same share of every XCC, inside
/// ROC_GLOBAL_CU_MASK (hl::plan_partitions()); UsageError when they cannot be made.
inline std::vector<Partition> partition_device(const hl::Device& device, int groups, int each) {
  const hl::AmdMaskDevice amd = hl::amd_mask_device(device);
  std::vector<Partition> partitions;
  for (const hl::CuMask& bits : hl::plan_partitions(amd, std::vector<int>(groups, each))) {
    partitions.push_back(masked_stream(amd, bits, each));
  }
  return partitions;
}

inline void destroy(Partition& partition) {
  HIP_CHECK(hipStreamSynchronize(partition.stream));  // never pull CUs from under a kernel
  HIP_CHECK(hipStreamDestroy(partition.stream));
}
#elif CUDA_VERSION >= 12050 && CUDART_VERSION >= 12050
/// All SMs of HIP device \p index as the driver's resource, which carries the split rules.
inline CUdevResource device_sms(int index, CUdevice* device) {
  HIP_LESSONS_DRIVER_FUNCTION(cuDeviceGet, 2000);
  HIP_LESSONS_DRIVER_FUNCTION(cuDeviceGetDevResource, 12040);
  CU_CHECK(cuDeviceGet(device, index));
  CUdevResource whole{};
  CU_CHECK(cuDeviceGetDevResource(*device, &whole, CU_DEV_RESOURCE_TYPE_SM));
  return whole;
}

// cuda.h: partitions "have minimum SM count requirements, often rounding up and aligning".
inline PartitionRules partition_rules(const hl::Device& device) {
  CUdevice dev = 0;
  const CUdevResource sms = device_sms(device.index, &dev);
  return {static_cast<int>(sms.sm.smCount), static_cast<int>(sms.sm.minSmPartitionSize),
          static_cast<int>(sms.sm.smCoscheduledAlignment),
          "green contexts (cuDevSmResourceSplitByCount)"};
}

/// \p groups disjoint partitions of at least \p each SMs: the driver picks the SMs and rounds
/// each count up. UsageError when fewer fit.
inline std::vector<Partition> partition_device(const hl::Device& device, int groups, int each) {
  HIP_LESSONS_DRIVER_FUNCTION(cuDevSmResourceSplitByCount, 12040);
  HIP_LESSONS_DRIVER_FUNCTION(cuDevResourceGenerateDesc, 12040);
  HIP_LESSONS_DRIVER_FUNCTION(cuGreenCtxCreate, 12040);
  HIP_LESSONS_DRIVER_FUNCTION(cuGreenCtxStreamCreate, 12050);
  CUdevice dev = 0;
  CUdevResource whole = device_sms(device.index, &dev), rest{};  // rest: the SMs left over
  std::vector<CUdevResource> sms(static_cast<std::size_t>(groups));
  unsigned int made = static_cast<unsigned int>(groups);
  //! [nvidia_split]
  CU_CHECK(cuDevSmResourceSplitByCount(sms.data(), &made, &whole, &rest, 0,
                                       static_cast<unsigned int>(each)));
  //! [nvidia_split]
  if (made < sms.size()) {
    throw hl::UsageError(
        hl::format("{} partition(s) of {} SMs do not fit: the driver, which "
                   "rounds each up to its minimum and alignment, made {}",
                   groups, each, made));
  }
  std::vector<Partition> partitions;
  for (std::size_t i = 0; i < sms.size(); ++i) {
    //! [nvidia_green_context_streams]
    CUdevResourceDesc desc = nullptr;
    CU_CHECK(cuDevResourceGenerateDesc(&desc, &sms[i], 1));
    CUgreenCtx green = nullptr;  // CU_GREEN_CTX_DEFAULT_STREAM is required
    CU_CHECK(cuGreenCtxCreate(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
    CUstream stream = nullptr;  // must be non-blocking; 0 is the default priority
    CU_CHECK(cuGreenCtxStreamCreate(&stream, green, CU_STREAM_NON_BLOCKING, 0));
    //! [nvidia_green_context_streams]
    // A CUstream is a hipStream_t here: HIP launches take it.
    partitions.push_back({stream, each, static_cast<int>(sms[i].sm.smCount),
                          hl::format("{} {}s", each, hl::kComputeUnitName), "green context",
                          green});
  }
  return partitions;
}

/// The stream goes first: cuGreenCtxDestroy leaves a context's streams behind, unusable.
inline void destroy(Partition& partition) {
  HIP_LESSONS_DRIVER_FUNCTION(cuStreamDestroy, 4000);
  HIP_LESSONS_DRIVER_FUNCTION(cuGreenCtxDestroy, 12040);
  HIP_CHECK(hipStreamSynchronize(partition.stream));
  CU_CHECK(cuStreamDestroy(partition.stream));
  CU_CHECK(cuGreenCtxDestroy(static_cast<CUgreenCtx>(partition.green_context)));
}
#else
inline PartitionRules partition_rules(const hl::Device&) {
  throw hl::SkipError(hl::format(
      "this build has no green contexts: they need CUDA 12.5 or newer headers (this one has {}.{})",
      CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10));
}
inline std::vector<Partition> partition_device(const hl::Device&, int, int) { return {}; }
inline void destroy(Partition&) {}
#endif

/// One stream's part of a round: `kernels` launches into `out`, which must end up as `expected`
/// when run in partition `in` (nullptr: a plain stream, not checked).
struct Load {
  hipStream_t stream;
  int kernels = 0;
  std::size_t n = 0;
  int iterations = 0;
  float* out = nullptr;
  const float* expected = nullptr;
  const Partition* in = nullptr;
};

/// partition_rules(), after refusing (exit 2) a --partition \p k that cannot be made twice:
/// on AMD a size off the partition step (whole WGPs, the same share of every XCC) or two that
/// do not fit, with the nearest valid size; on NVIDIA two grants that do not fit.
inline PartitionRules checked_partition_rules(const hl::Device& device, int k) {
  const PartitionRules rules = partition_rules(device);
#if defined(__HIP_PLATFORM_AMD__)
  try {
    hl::plan_partitions(hl::amd_mask_device(device), {k, k});
  } catch (const hl::UsageError& refusal) {
    throw hl::UsageError(hl::format("--partition {}: {}", k, refusal.what()));
  }
#endif
  if (2 * expected_grant(rules, k) > rules.units) {
    throw hl::UsageError(hl::format(
        "--partition {} is granted as {} units here, and two partitions of that size must fit in "
        "the device's {}; use at most {}",
        k, expected_grant(rules, k), rules.units,
        rules.units / 2 / rules.granularity * rules.granularity));
  }
  return rules;
}

/// --cu-mask's partition (\p text): on AMD these mask bits; on NVIDIA as many SMs, picked by the
/// driver. UsageError for a mask this device cannot take (hl::cu_mask_problem() on AMD).
inline Partition partition_on_mask(const hl::Device& device, const std::string& text) {
  const hl::CuMask mask = hl::parse_cu_list("--cu-mask", text);
#if defined(__HIP_PLATFORM_AMD__)
  const hl::AmdMaskDevice amd = hl::amd_mask_device(device);
  const std::optional<std::string> problem = hl::cu_mask_problem(amd, mask);
#else  // NVIDIA: only the count matters, but a bit past the device is a mistake worth naming
  std::optional<std::string> problem;
  for (int bit = hl::kMaxMaskBits - 1; bit >= device.compute_units() && !problem; --bit) {
    if (mask.has(bit)) {
      problem = hl::format("the mask sets bit {}, but this device has {} SMs (0..{})", bit,
                           device.compute_units(), device.compute_units() - 1);
    }
  }
#endif
  if (problem) throw hl::UsageError("--cu-mask " + mask.ids() + " cannot be used: " + *problem);
#if defined(__HIP_PLATFORM_AMD__)
  Partition partition = masked_stream(amd, mask, hl::units_of(amd, mask));
#else
  Partition partition = partition_device(device, 1, mask.count()).at(0);
#endif
  partition.name = "--cu-mask " + mask.ids();
  partition.user_mask = true;
  return partition;
}

}  // namespace cu_masking
