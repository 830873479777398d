/// \file lessons/04_occupancy/device_limits.hpp
/// \brief The per-CU budgets of the device, as the calculator takes them and as a table, and
/// what each of lesson 04's kernels uses of them (main.hip's steps 2 and 3).
#pragma once

#include <hip/hip_runtime.h>

#include <array>
#include <optional>
#include <string>

#include "hip_lessons/device.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/report.hpp"
#include "kernels.hpp"
#include "occupancy_calculator.hpp"

namespace occupancy {

namespace hl = hip_lessons;

// Some attributes are "CUDA only" in HIP's header (hipDeviceAttributeMaxBlocksPerMultiProcessor,
// ...ReservedSharedMemPerBlock) or newer than an installed ROCm. A refused query is an answer
// here ("not reported"), so it is not HIP_CHECKed; its error is cleared so that the next
// HIP_CHECK_LAUNCH does not report it against an unrelated launch.
inline std::optional<int> optional_attribute(hipDeviceAttribute_t attribute, int device) {
  int value = 0;
  if (hipDeviceGetAttribute(&value, attribute, device) == hipSuccess) return value;
  (void)hipGetLastError();
  return std::nullopt;
}

/// The budgets of one CU: the device properties and three attribute queries.
inline Limits read_limits(const hl::Device& device) {
  const hipDeviceProp_t& p = device.props;
  const std::string arch = p.gcnArchName;
  Limits l;
  l.arch = arch.substr(0, arch.find(':'));
  l.major = p.major;
  l.minor = p.minor;
  l.compute_units = p.multiProcessorCount;
  l.warp_size = p.warpSize;
  l.max_threads_per_cu = p.maxThreadsPerMultiProcessor;
  l.max_threads_per_block = p.maxThreadsPerBlock;
  l.regs_per_block = p.regsPerBlock;
  l.shared_per_cu = p.maxSharedMemoryPerMultiProcessor;
  l.shared_per_block = p.sharedMemPerBlock;
  l.regs_per_cu = optional_attribute(hipDeviceAttributeMaxRegistersPerMultiprocessor, device.index);
  l.max_blocks_per_cu =
      optional_attribute(hipDeviceAttributeMaxBlocksPerMultiProcessor, device.index);
  l.reserved_shared_per_block =
      optional_attribute(hipDeviceAttributeReservedSharedMemPerBlock, device.index);
  return l;
}

/// The table device_limits: each budget, and what it bounds.
inline hl::ResultTable limits_table(const Limits& l) {
  using hl::Cell;
  const std::string cu = hl::kComputeUnitName, warp = hl::kWarpName;
  const auto opt = [](std::optional<int> v) { return v ? Cell(*v) : Cell("not reported"); };
  hl::ResultTable t("device_limits", "Residency budgets of one " + cu,
                    {"limit", "value", "what it bounds"});
  t.row({"architecture", l.arch, "which allocation rules apply"});
  t.row({cu + "s", l.compute_units, "a full-device grid is blocks per " + cu + " x this"});
  t.row({warp + " size", l.warp_size, "threads are scheduled (and slots counted) in these units"});
  t.row({"threads per " + cu, l.max_threads_per_cu,
         hl::format("{} {} slots", l.max_threads_per_cu / l.warp_size, warp)});
  t.row({"threads per block", l.max_threads_per_block, "largest block"});
  t.row({"registers per " + cu, opt(l.regs_per_cu), "shared by all resident " + warp + "s"});
  t.row({"registers per block", l.regs_per_block, "one block's maximum"});
  t.row({"shared memory per " + cu, l.shared_per_cu, "bytes, shared by resident blocks"});
  t.row({"shared memory per block", l.shared_per_block, "bytes, without opt-in"});
  t.row({"reserved shared memory per block", opt(l.reserved_shared_per_block),
         "bytes the runtime adds to each block"});
  t.row({"blocks per " + cu, opt(l.max_blocks_per_cu),
         "cap on resident blocks, whatever their size"});
  return t;
}

/// Step 3: what the compiler made of each kernel: the numbers the residency rules take.
inline std::array<hipFuncAttributes, 4> kernel_attributes(hl::Report& report) {
  hl::ResultTable t("kernel_attributes", "What each kernel uses (hipFuncGetAttributes)",
                    {"kernel", "registers per thread", "static shared bytes",
                     "spill (local) bytes per thread", "max threads per block"});
  std::array<hipFuncAttributes, 4> all{};
  for (const Kernel k : kKernels) {
    hipFuncAttributes& a = all[static_cast<int>(k)];
    HIP_CHECK(hipFuncGetAttributes(&a, address(k)));
    t.row({name(k), a.numRegs, a.sharedSizeBytes, a.localSizeBytes, a.maxThreadsPerBlock});
  }
  report.table(t);
  return all;
}

}  // namespace occupancy
