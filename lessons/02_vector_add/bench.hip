/// \file lessons/02_vector_add/bench.hip
/// \brief Google Benchmark cases of lesson 02: each variant, and the copy, over 2^16..2^28.
#include <hip/hip_runtime.h>

#include <cstdint>

#include "hip_lessons/bench.hpp"
#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/streams.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;

namespace {

struct Arrays {
  hl::DeviceBuffer<float> a, b, c;
  explicit Arrays(std::size_t n) : a(n), b(n), c(n) {
    std::vector<float> host(n);
    hl::fill_uniform(host, 1);
    a.upload(host);
    b.upload(host);
  }
};

void vector_add_case(benchmark::State& state, vector_add::Variant variant) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const hl::Device device = hl::open_device(0);
  Arrays arrays(n);
  hl::GpuStream stream;
  const unsigned int block = 256;
  const unsigned int grid_stride_blocks = vector_add::grid_stride_blocks(
      device.compute_units(), device.props.maxThreadsPerMultiProcessor, block);
  hl::time_iterations(state, stream, [&] {
    vector_add::launch(variant, arrays.a.data(), arrays.b.data(), arrays.c.data(), n, block,
                       grid_stride_blocks, stream);
  });
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 3 * n * sizeof(float)));
  state.SetLabel(vector_add::name(variant));
}

void copy_case(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  hl::open_device(0);
  Arrays arrays(n);
  hl::GpuStream stream;
  hl::time_iterations(state, stream, [&] {
    HIP_CHECK(hipMemcpyAsync(arrays.c.data(), arrays.a.data(), n * sizeof(float),
                             hipMemcpyDeviceToDevice, stream));
  });
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2 * n * sizeof(float)));
}

}  // namespace

int main(int argc, char** argv) {
  const hl::BenchSweep sizes{1 << 16, 1 << 28, 4};
  hl::register_cases("vector_add_case", vector_add_case,
                     {{"one_element_per_thread", vector_add::Variant::kOneElementPerThread},
                      {"grid_stride", vector_add::Variant::kGridStride},
                      {"float4", vector_add::Variant::kFloat4}},
                     sizes);
  benchmark::RegisterBenchmark("copy_case", copy_case)
      ->RangeMultiplier(sizes.multiplier)
      ->Range(sizes.first, sizes.last)
      ->UseManualTime();
  return hl::benchmark_main(argc, argv);
}
