/// \file lessons/06_cu_masking/bench.hip
/// \brief Google Benchmark cases of lesson 06: the compute-bound kernel on the whole device
/// and on partitions of 8, 16 and 32 compute units (kernels.hpp's partition_device()).
#include <hip/hip_runtime.h>

#include "hip_lessons/bench.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;

namespace {

constexpr std::size_t kElements = std::size_t{1} << 20;
constexpr int kIterations = 2048;

void whole_device_case(benchmark::State& state) {
  hl::open_device(0);
  const cu_masking::Workload work(kElements, kIterations, 1);
  hl::DeviceBuffer<float> out(kElements);
  hl::GpuStream stream;
  hl::time_iterations(state, stream, [&] {
    cu_masking::launch(work.d_in.data(), out.data(), kElements, kIterations, stream);
  });
  state.SetLabel("plain stream");
}

void partition_case(benchmark::State& state) {
  const hl::Device device = hl::open_device(0);
  const auto units = static_cast<int>(state.range(0));
  try {
    cu_masking::Partition partition = cu_masking::partition_device(device, 1, units).at(0);
    const cu_masking::Workload work(kElements, kIterations, 1);
    hl::DeviceBuffer<float> out(kElements);
    hl::time_iterations(state, partition.stream, [&] {
      cu_masking::launch(work.d_in.data(), out.data(), kElements, kIterations, partition.stream);
    });
    state.SetLabel(hl::format("{} {}s granted", partition.units, hl::kComputeUnitName));
    cu_masking::destroy(partition);
  } catch (const hl::SkipError& reason) {
    state.SkipWithError(hl::format("skipped: {}", reason.what()).c_str());
  } catch (const hl::UsageError& reason) {
    state.SkipWithError(hl::format("does not fit: {}", reason.what()).c_str());
  }
}

}  // namespace

BENCHMARK(whole_device_case)->UseManualTime();
BENCHMARK(partition_case)->Arg(8)->Arg(16)->Arg(32)->UseManualTime();

int main(int argc, char** argv) { return hl::benchmark_main(argc, argv); }
