/// \file device.hpp
/// \brief Opening a device and the platform facts lessons print (vendor, CU vs SM, warp).
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "hip_lessons/cell.hpp"
#include "hip_lessons/environment.hpp"
#include "hip_lessons/errors.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/options.hpp"

namespace hip_lessons {

/// The platform this binary was compiled for.
#if defined(__HIP_PLATFORM_AMD__)
inline constexpr const char* kVendor = "AMD";
/// What the vendor calls one compute unit of the device.
inline constexpr const char* kComputeUnitName = "CU";
/// What the vendor calls the group of threads that executes in lockstep.
inline constexpr const char* kWarpName = "wavefront";
#else
inline constexpr const char* kVendor = "NVIDIA";
inline constexpr const char* kComputeUnitName = "SM";
inline constexpr const char* kWarpName = "warp";
#endif

/// An opened device: its index and properties.
struct Device {
  int index = 0;
  hipDeviceProp_t props{};

  int compute_units() const { return props.multiProcessorCount; }
  int warp_size() const { return props.warpSize; }
  std::string name() const { return props.name; }
  /// The facts every lesson's JSON starts with: name, vendor, compute units, warp size.
  std::vector<Fact> facts() const {
    return {{"device", name()},
            {"vendor", kVendor},
            {"compute_units", compute_units()},
            {"warp_size", warp_size()}};
  }
};

/// The error for a --device index that is not in 0..count-1.
inline UsageError no_such_device(int index, int count) {
  return UsageError("--device " + std::to_string(index) + " does not exist: this machine has " +
                    std::to_string(count) + " GPU(s), valid indices are 0.." +
                    std::to_string(count - 1));
}

/// Checks, without creating a context, that device \p index exists. Throws SkipError when
/// there is no usable GPU (with the runtime's reason, and any device-selection variable that
/// may be hiding the GPUs) and UsageError when \p index is not in 0..count-1.
inline void require_device_index(int index) {
  int count = 0;
  const hipError_t status = hipGetDeviceCount(&count);
  if (status != hipSuccess || count == 0) {
    std::string suspects;
    for (const std::string& setting : device_selection_settings()) {
      suspects += (suspects.empty() ? "" : ", ") + setting;
    }
    throw SkipError(std::string("no GPU: hipGetDeviceCount reported ") +
                    (status != hipSuccess ? hipGetErrorName(status) : "0 devices") +
                    (suspects.empty() ? "" : "; " + suspects + " chooses which GPUs are visible") +
                    "; lesson01_env_check explains why");
  }
  if (index < 0 || index >= count) throw no_such_device(index, count);
}

/// Makes device \p index current, after require_device_index().
inline Device open_device(int index) {
  require_device_index(index);
  Device device;
  device.index = index;
  HIP_CHECK(hipSetDevice(index));
  HIP_CHECK(hipGetDeviceProperties(&device.props, index));
  return device;
}

/// Throws UsageError, before anything is allocated, when \p bytes would not fit in the
/// device memory that is free now (keeping 5% for the runtime).
inline void require_device_memory(std::size_t bytes, const std::string& what) {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  HIP_CHECK(hipMemGetInfo(&free_bytes, &total_bytes));
  const double usable = 0.95 * static_cast<double>(free_bytes);
  if (static_cast<double>(bytes) > usable) {
    throw UsageError(
        what + " needs " + format_bytes(static_cast<double>(bytes)) +
        " of device memory, but only " + format_bytes(static_cast<double>(free_bytes)) + " of " +
        format_bytes(static_cast<double>(total_bytes)) + " are free; use a smaller --size");
  }
}

/// Checks a --block value against the device (LessonCli::add_block_size() already checked
/// what is known without one) and returns it as a launch dimension. Throws UsageError naming
/// the value and this device's rule.
inline unsigned int checked_block_size(const Device& device, std::int64_t block,
                                       BlockRule rule = BlockRule::kAnySize) {
  if (rule == BlockRule::kWholeWarps && block % device.warp_size() != 0) {
    throw UsageError("--block " + std::to_string(block) + " is not a multiple of this device's " +
                     kWarpName + " size " + std::to_string(device.warp_size()));
  }
  if (block < 1 || block > device.props.maxThreadsPerBlock) {
    throw UsageError("--block " + std::to_string(block) + " is above this device's limit of " +
                     std::to_string(device.props.maxThreadsPerBlock) + " threads per block");
  }
  return static_cast<unsigned int>(block);
}

}  // namespace hip_lessons
