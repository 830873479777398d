/// \file buffers.hpp
/// \brief RAII device buffers.
///
/// Lessons throw on errors; owning every allocation in an object means an error in the
/// middle of a run still frees what was allocated before the program exits.
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "hip_lessons/hip_check.hpp"

namespace hip_lessons {

/// A device allocation of \p T elements, freed on destruction. Move-only.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) HIP_CHECK(hipMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }
  ~DeviceBuffer() {
    if (data_ != nullptr) (void)hipFree(data_);
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  /// Swaps: \p other, a temporary or a moved-from buffer, frees the old allocation.
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

  /// Copies host data in (sizes must match) and waits until it is on the device. hipMemcpy
  /// from pageable memory may return before the DMA finishes, and work on non-blocking
  /// streams does not wait for the legacy default stream, so the wait makes the buffer safe
  /// to use from any stream.
  void upload(const std::vector<T>& host) {
    HIP_CHECK(hipMemcpy(data_, host.data(), bytes(), hipMemcpyHostToDevice));
    HIP_CHECK(hipDeviceSynchronize());
  }
  /// Copies the whole buffer out into a new host vector.
  std::vector<T> download() const {
    std::vector<T> host(count_);
    HIP_CHECK(hipMemcpy(host.data(), data_, bytes(), hipMemcpyDeviceToHost));
    return host;
  }
  /// Fills every byte with 0xFF: for floats that is a NaN, which no correct result equals,
  /// so an element the kernel never wrote fails validation. Waits for the fill, since
  /// hipMemset on device memory is asynchronous and non-blocking streams would not wait.
  void poison() {
    HIP_CHECK(hipMemset(data_, 0xFF, bytes()));
    HIP_CHECK(hipDeviceSynchronize());
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace hip_lessons
