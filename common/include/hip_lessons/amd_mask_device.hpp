/// \file amd_mask_device.hpp
/// \brief The running AMD device as the CU-mask rules of amd_cu_masks.hpp see it, read from
/// HIP and from the environment the runtime read at start-up. AMD builds only.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "hip_lessons/amd_cu_masks.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/hip_check.hpp"

namespace hip_lessons {

#if defined(__HIP_PLATFORM_AMD__)
/// \p device's arch, HIP release, WGP mode, physical units, XCCs and ROC_GLOBAL_CU_MASK.
inline AmdMaskDevice amd_mask_device(const Device& device) {
  AmdMaskDevice amd;
  const std::string arch = device.props.gcnArchName;
  amd.arch = arch.substr(0, arch.find(':'));
  HIP_CHECK(hipRuntimeGetVersion(&amd.hip_version));
  // HIP's WGP mode exists on gfx10+ only (ROCm/clr rocclr/device/rocm/rocsettings.cpp).
  amd.wgp_mode = amd.arch.rfind("gfx1", 0) == 0 &&
                 hip_counts_wgps(std::getenv("GPU_ENABLE_WGP_MODE"), amd.hip_version);
  // multiProcessorCount counts only ROC_GLOBAL_CU_MASK's units; the mask's bits span them all.
  if (hipDeviceGetAttribute(&amd.physical_units, hipDeviceAttributePhysicalMultiProcessorCount,
                            device.index) != hipSuccess) {
    (void)hipGetLastError();  // a HIP without the attribute (before 5.2)
    amd.physical_units = device.props.multiProcessorCount;
  }
  std::optional<int> xccs;
  if (amd.hip_version >= 70000000) {  // hipDeviceAttributeNumberOfXccs = 10018, HIP 7.0 and later
    int count = 0;
    const auto attribute = static_cast<hipDeviceAttribute_t>(10018);
    if (hipDeviceGetAttribute(&count, attribute, device.index) == hipSuccess) xccs = count;
    (void)hipGetLastError();
  }
  amd.xccs = amd_xcc_count(amd.arch, amd.physical_units, xccs);
  if (const char* global = std::getenv("ROC_GLOBAL_CU_MASK")) {
    amd.global_mask = hip_global_cu_mask(global, amd.physical_units, amd.wgp_mode);
  }
  return amd;
}
#endif

}  // namespace hip_lessons
