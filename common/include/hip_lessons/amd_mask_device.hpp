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
/// \p device's arch, HIP release, WGP mode, physical units, XCCs, ROC_GLOBAL_CU_MASK,
/// HSA_CU_MASK and ROCr index: describe_amd_device() with HIP's answers and std::getenv.
inline AmdMaskDevice amd_mask_device(const Device& device) {
  int hip_version = 0, physical_units = 0;
  HIP_CHECK(hipRuntimeGetVersion(&hip_version));
  // multiProcessorCount counts only ROC_GLOBAL_CU_MASK's units; the mask's bits span them all.
  if (hipDeviceGetAttribute(&physical_units, hipDeviceAttributePhysicalMultiProcessorCount,
                            device.index) != hipSuccess) {
    (void)hipGetLastError();  // a HIP without the attribute (before 5.2)
    physical_units = device.props.multiProcessorCount;
  }
  std::optional<int> xccs;
  if (hip_version >= 70000000) {  // hipDeviceAttributeNumberOfXccs = 10018, HIP 7.0 and later
    int count = 0;
    const auto attribute = static_cast<hipDeviceAttribute_t>(10018);
    if (hipDeviceGetAttribute(&count, attribute, device.index) == hipSuccess) xccs = count;
    (void)hipGetLastError();
  }
  return describe_amd_device(
      device.props.gcnArchName, hip_version, physical_units, xccs, device.index,
      [](const char* name, const void*) -> const char* { return std::getenv(name); });
}
#endif

/// The AMD mask view of HIP's GPU \p index, or nothing (an NVIDIA build, or no such GPU: the
/// lesson's own check of --device says so).
inline std::optional<AmdMaskDevice> amd_mask_device_or_none(int index) {
#if defined(__HIP_PLATFORM_AMD__)
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess || index < 0 || index >= count) {
    (void)hipGetLastError();
    return std::nullopt;
  }
  Device device{index, {}};
  HIP_CHECK(hipGetDeviceProperties(&device.props, index));
  return amd_mask_device(device);
#else
  (void)index;
  return std::nullopt;
#endif
}

}  // namespace hip_lessons
