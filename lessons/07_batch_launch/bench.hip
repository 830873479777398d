/// \file lessons/07_batch_launch/bench.hip
/// \brief Google Benchmark cases of lesson 07: time per kernel against the batch size
/// (1..10000 segments of 4096 elements) for each launch method compiled into the program (on
/// AMD also hipExtLaunchKernelGGL with and without hipExtAnyOrderLaunch).
#include <hip/hip_runtime.h>

#include <cstdint>

#include "batch.hpp"
#include "hip_lessons/bench.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/streams.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;
using batch::Method;

namespace {

constexpr std::size_t kSegmentElements = 4096;
constexpr unsigned int kBlock = 256;
const hl::BenchSweep kBatchSizes{1, 10000, 10};

void batch_case(benchmark::State& state, Method method) {
  const auto count = static_cast<unsigned int>(state.range(0));
  const hl::Device device = hl::open_device(0);
  const batch::Batch work(count, kSegmentElements, 1);
  hl::GpuStream stream;
  const batch::Geometry geometry = batch::geometry_for(kBlock, device);
  const batch::Launcher launcher(work, geometry, stream);
  if (!launcher.available(method)) {
    state.SkipWithError(
        "this device has no cooperative launch (hipDeviceAttributeCooperativeLaunch)");
    return;
  }
  hl::time_iterations(state, stream, [&] { launcher.enqueue(method); });
  // Seconds per small kernel (the batch time divided by its size), and kernels per second.
  state.counters["time_per_kernel"] = benchmark::Counter(
      count, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * count);
}

}  // namespace

int main(int argc, char** argv) {
  hl::register_cases("batch_case", batch_case,
                     {{"individual_launches", Method::kIndividual},
                      {"graph_replay", Method::kGraph},
                      {"fused_kernel", Method::kFused},
                      {"persistent_kernel", Method::kPersistent},
                      {"cooperative_kernel", Method::kCooperative}},
                     kBatchSizes);
#if defined(__HIP_PLATFORM_AMD__)
  hl::register_cases(
      "batch_case", batch_case,
      {{"ext_launch", Method::kExtLaunch}, {"ext_launch_any_order", Method::kExtAnyOrder}},
      kBatchSizes);
#endif
  return hl::benchmark_main(argc, argv);
}
