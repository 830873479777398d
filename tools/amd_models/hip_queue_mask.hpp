/// \file tools/amd_models/hip_queue_mask.hpp
/// \brief What the runtime does with a CU mask before the kernel driver sees it: HIP's queue
/// set-up (ROCm/clr rocclr/device/rocm/rocdevice.cpp, Device::acquireQueue) and ROCr's checks
/// (ROCR-Runtime src/core/runtime/amd_aql_queue.cpp, AqlQueue::SetCUMasking), written
/// independently of hip_lessons/amd_cu_masks.hpp so that the tests compare two readings.
/// Host code only; not run on a GPU.
#pragma once

#include <optional>
#include <string>

#include "hip_lessons/amd_cu_masks.hpp"

namespace amd_models {

/// A queue's CU mask as the driver gets it, or why there is none.
struct QueueMask {
  bool created = true;           ///< false: HIP's queue creation fails (a HIP error)
  hip_lessons::CuMask cu_ids{};  ///< the driver's mask (CU IDs), when created
  std::string why;               ///< what happened, when not as asked
};

namespace detail {
inline bool is_rdna(const std::string& arch) { return arch.rfind("gfx1", 0) == 0; }
}  // namespace detail

/// The mask a queue of a stream made with HIP bits \p stream_mask gets, in HIP
/// \p device.hip_version, with ROC_GLOBAL_CU_MASK as \p device.global_mask and HSA_CU_MASK as
/// \p hsa_cu_mask (CU IDs of this GPU) in the process, and \p cus CUs on the device:
///   1. HIP: the stream mask AND the global mask, word by word, or the global mask alone when
///      the AND is empty (every release read: ROCclr rocm-4.2.0 to clr rocm-6.2.2).
///   2. HIP, gfx10+ in WGP mode, from clr rocm-5.7.0 (8c123212): bit b becomes CUs 2b, 2b + 1.
///   3. ROCr, gfx10+, from rocm-5.3.0: a mask with one CU of a pair is refused
///      (HSA_STATUS_ERROR_INVALID_ARGUMENT), and HIP then fails the queue.
///   4. ROCr: bits past the device's CUs are dropped; with HSA_CU_MASK the mask is ANDed with
///      it, and a mask reduced so returns HSA_STATUS_CU_MASK_REDUCED, which HIP also treats as
///      a failure (rocdevice.cpp: any status but success destroys the queue).
inline QueueMask hip_stream_queue_mask(const hip_lessons::AmdMaskDevice& device,
                                       const hip_lessons::CuMask& stream_mask, int cus,
                                       const std::optional<hip_lessons::CuMask>& hsa_cu_mask) {
  using hip_lessons::CuMask;
  CuMask mask = stream_mask;
  if (device.global_mask) {
    bool any = false;
    for (std::size_t w = 0; w < mask.words.size(); ++w) {
      mask.words[w] &= device.global_mask->words[w];
      any = any || mask.words[w] != 0;
    }
    if (!any) mask = *device.global_mask;
  }
  const bool rdna = detail::is_rdna(device.arch);
  QueueMask queue;
  if (rdna && device.wgp_mode && device.hip_version >= 50700000) {
    for (int bit = 0; 2 * bit + 1 < hip_lessons::kMaxMaskBits; ++bit) {
      if (mask.has(bit)) queue.cu_ids.set(2 * bit), queue.cu_ids.set(2 * bit + 1);
    }
  } else {
    queue.cu_ids = mask;
  }
  if (rdna && device.hip_version >= 50300000) {
    for (int pair = 0; pair + 1 < hip_lessons::kMaxMaskBits; pair += 2) {
      if (queue.cu_ids.has(pair) != queue.cu_ids.has(pair + 1)) {
        return {false, {}, "ROCr refuses a mask with one CU of a WGP"};
      }
    }
  }
  for (int id = cus; id < hip_lessons::kMaxMaskBits; ++id) {
    queue.cu_ids.words[id / 32] &= ~(1u << (id % 32));
  }
  if (hsa_cu_mask) {
    for (int id = 0; id < cus; ++id) {
      if (queue.cu_ids.has(id) && !hsa_cu_mask->has(id)) {
        return {false, {}, "the mask reaches outside HSA_CU_MASK (HSA_STATUS_CU_MASK_REDUCED)"};
      }
    }
  }
  return queue;
}

/// The mask of a queue HIP creates without a stream mask (a plain stream, or HIP's own copy
/// and fill kernels) in a process whose HSA_CU_MASK for this GPU is \p hsa_cu_mask: ROCr's
/// AqlQueue constructor applies it, and ignores a refusal, so a mask ROCr refuses (one CU of a
/// pair on gfx10+, from rocm-5.3.0) leaves the queue on every CU (amd_aql_queue.cpp, the
/// constructor's SetCUMasking(0, nullptr) call, rocm-6.2.4).
inline QueueMask default_queue_mask(const hip_lessons::AmdMaskDevice& device, int cus,
                                    const hip_lessons::CuMask& hsa_cu_mask) {
  QueueMask queue{true, hip_lessons::cu_mask_range(0, cus), ""};
  if (detail::is_rdna(device.arch) && device.hip_version >= 50300000) {
    for (int pair = 0; pair + 1 < cus; pair += 2) {
      if (hsa_cu_mask.has(pair) != hsa_cu_mask.has(pair + 1)) {
        queue.why = "ROCr refused HSA_CU_MASK (half a WGP) and the queue kept every CU";
        return queue;
      }
    }
  }
  for (int id = 0; id < cus; ++id) {
    if (!hsa_cu_mask.has(id)) queue.cu_ids.words[id / 32] &= ~(1u << (id % 32));
  }
  return queue;
}

}  // namespace amd_models
