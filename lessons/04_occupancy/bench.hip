/// \file lessons/04_occupancy/bench.hip
/// \brief Google Benchmark cases of lesson 04: the triad and the FMA chain at block sizes
/// 64..1024, with the occupancy-sized grid, one block per CU, and one element per thread.
#include <hip/hip_runtime.h>

#include <cstdint>
#include <vector>

#include "hip_lessons/bench.hpp"
#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;

namespace {

/// How a case chooses its grid.
enum class Grid { kOccupancy, kOneBlockPerCu, kOneElementPerThread };

unsigned int grid_for(Grid rule, const void* kernel, const hl::Device& device, int block,
                      std::size_t n) {
  switch (rule) {
    case Grid::kOccupancy:
      return static_cast<unsigned int>(occupancy::max_active_blocks(kernel, block, 0) *
                                       device.compute_units());
    case Grid::kOneBlockPerCu:
      return static_cast<unsigned int>(device.compute_units());
    case Grid::kOneElementPerThread:
      return static_cast<unsigned int>((n + block - 1) / block);
  }
  return 1;
}

constexpr std::size_t kTriadElements = std::size_t{1} << 26;
constexpr std::size_t kChainElements = std::size_t{1} << 22;

void triad_case(benchmark::State& state, Grid rule) {
  const auto block = static_cast<int>(state.range(0));
  const hl::Device device = hl::open_device(0);
  if (block % device.warp_size() != 0 || block > device.props.maxThreadsPerBlock) {
    state.SkipWithError("block size not usable on this device");
    return;
  }
  const std::size_t n = kTriadElements;
  hl::DeviceBuffer<float> b(n), c(n), a(n);
  std::vector<float> host(n);
  hl::fill_uniform(host, 1);
  b.upload(host);
  c.upload(host);
  hl::GpuStream stream;
  const unsigned int grid = grid_for(rule, occupancy::triad_address(), device, block, n);
  hl::time_iterations(state, stream, [&] {
    occupancy::launch_triad(grid, static_cast<unsigned int>(block), 0, stream, b.data(), c.data(),
                            a.data(), n);
  });
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 3 * n * sizeof(float)));
  state.counters["grid"] = grid;
}

void fma_chain_case(benchmark::State& state, Grid rule) {
  const auto block = static_cast<int>(state.range(0));
  const hl::Device device = hl::open_device(0);
  if (block % device.warp_size() != 0 || block > device.props.maxThreadsPerBlock) {
    state.SkipWithError("block size not usable on this device");
    return;
  }
  const std::size_t n = kChainElements;
  hl::DeviceBuffer<float> x(n), y(n);
  std::vector<float> host(n);
  hl::fill_uniform(host, 1);
  x.upload(host);
  hl::GpuStream stream;
  const unsigned int grid =
      grid_for(rule, occupancy::address(occupancy::Unary::kFmaChain), device, block, n);
  hl::time_iterations(state, stream, [&] {
    occupancy::launch_unary(occupancy::Unary::kFmaChain, grid, static_cast<unsigned int>(block),
                            stream, x.data(), y.data(), n);
  });
  state.counters["grid"] = grid;
  state.counters["FLOP/s"] =
      benchmark::Counter(occupancy::kChainFlopsPerElement * static_cast<double>(n),
                         benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK_CAPTURE(triad_case, occupancy_grid, Grid::kOccupancy)
    ->RangeMultiplier(2)
    ->Range(64, 1024)
    ->UseManualTime();
BENCHMARK_CAPTURE(triad_case, one_block_per_cu, Grid::kOneBlockPerCu)
    ->RangeMultiplier(2)
    ->Range(64, 1024)
    ->UseManualTime();
BENCHMARK_CAPTURE(triad_case, one_element_per_thread, Grid::kOneElementPerThread)
    ->RangeMultiplier(2)
    ->Range(64, 1024)
    ->UseManualTime();
BENCHMARK_CAPTURE(fma_chain_case, occupancy_grid, Grid::kOccupancy)
    ->RangeMultiplier(2)
    ->Range(64, 1024)
    ->UseManualTime();
BENCHMARK_CAPTURE(fma_chain_case, one_block_per_cu, Grid::kOneBlockPerCu)
    ->RangeMultiplier(2)
    ->Range(64, 1024)
    ->UseManualTime();

int main(int argc, char** argv) { return hl::benchmark_main(argc, argv); }
