/// \file hip_error_path.hip
/// \brief GPU test of what every lesson does when a HIP call fails in the middle of a run.
///
/// The body allocates --size floats (1 GiB by default), then launches a kernel with twice
/// the device's block-size limit, which the runtime refuses. run_lesson() must print the call,
/// file and line and return 1; the buffer must be released on the way out, which this program
/// checks with hipMemGetInfo afterwards (exit 3 when the memory did not come back).
#include <hip/hip_runtime.h>

#include <cstddef>
#include <iostream>

#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/lesson.hpp"

namespace hl = hip_lessons;

namespace {

__global__ void fill_ones(float* out, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}

std::size_t free_device_bytes() {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  HIP_CHECK(hipMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

}  // namespace

int main(int argc, char** argv) {
  hl::LessonCli cli("common_hip_error_path",
                    "Fails a kernel launch after allocating --size floats; checks the exit code, "
                    "the message and that the memory is released",
                    std::int64_t{1} << 28, std::int64_t{1} << 32);
  std::size_t free_before = 0;
  bool allocated = false;
  const int code = hl::run_lesson(cli, argc, argv, [&](hl::Lesson& lesson) {
    hl::StepResult step("A launch that must fail");
    const hl::Device device = hl::open_device(cli.options().device);
    step.facts(device.facts());
    const auto n = static_cast<std::size_t>(cli.options().size);
    hl::require_device_memory(n * sizeof(float), "--size " + std::to_string(n));
    free_before = free_device_bytes();
    hl::DeviceBuffer<float> buffer(n);
    allocated = true;
    const unsigned int too_many_threads =
        2u * static_cast<unsigned int>(device.props.maxThreadsPerBlock);
    hipLaunchKernelGGL(fill_ones, dim3(1), dim3(too_many_threads), 0, nullptr, buffer.data(), n);
    HIP_CHECK_LAUNCH();
    lesson.report.step(step.check(
        "a launch of " + std::to_string(too_many_threads) + " threads per block is refused",
        false));
  });
  if (!allocated) return code;  // bad input, or no GPU: nothing to check afterwards
  const std::size_t free_after = free_device_bytes();
  // Allocation granularity and the runtime's own bookkeeping move a few MiB at most.
  const bool released = free_after + (std::size_t{64} << 20) >= free_before;
  std::cout << "device memory released after the failure: " << (released ? "yes" : "NO")
            << " (free before the allocation " << hl::format_bytes(static_cast<double>(free_before))
            << ", after the failure " << hl::format_bytes(static_cast<double>(free_after)) << ")\n";
  return released ? code : 3;
}
