/// \file lessons/06_cu_masking/bench.hip
/// \brief Google Benchmark cases of lesson 06: the compute-bound kernel on the whole device
/// and on partitions of 8, 16 and 32 compute units.
#include <hip/hip_runtime.h>

#include <string>
#include <vector>

#include "hip_lessons/bench.hpp"
#include "hip_lessons/buffers.hpp"
#include "hip_lessons/cu_partition.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;

namespace {

constexpr std::size_t kElements = std::size_t{1} << 20;
constexpr int kIterations = 2048;

struct Buffers {
  hl::DeviceBuffer<float> in, out;
  Buffers() : in(kElements), out(kElements) {
    std::vector<float> host(kElements);
    hl::fill_uniform(host, 1);
    in.upload(host);
  }
};

void whole_device_case(benchmark::State& state) {
  hl::open_device(0);
  Buffers buffers;
  hl::GpuStream stream;
  hl::time_iterations(state, stream, [&] {
    cu_masking::launch(buffers.in.data(), buffers.out.data(), kElements, kIterations, stream);
  });
  state.SetLabel("plain stream");
}

void partition_case(benchmark::State& state) {
  const hl::Device device = hl::open_device(0);
  const auto units = static_cast<int>(state.range(0));
  try {
    hl::DevicePartition split = hl::partition_device(device, 1, units);
    hl::CuPartitionStream& stream = split.groups[0];
    Buffers buffers;
    hl::time_iterations(state, stream, [&] {
      cu_masking::launch(buffers.in.data(), buffers.out.data(), kElements, kIterations, stream);
    });
    state.SetLabel(std::to_string(stream.granted_units()) + " " + hl::kComputeUnitName + "s granted");
  } catch (const hl::SkipError& reason) {
    state.SkipWithError((std::string("skipped: ") + reason.what()).c_str());
  } catch (const hl::UsageError& reason) {
    state.SkipWithError((std::string("does not fit: ") + reason.what()).c_str());
  }
}

}  // namespace

BENCHMARK(whole_device_case)->UseManualTime();
BENCHMARK(partition_case)->Arg(8)->Arg(16)->Arg(32)->UseManualTime();

int main(int argc, char** argv) { return hl::benchmark_main(argc, argv); }
