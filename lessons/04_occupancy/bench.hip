/// \file lessons/04_occupancy/bench.hip
/// \brief Google Benchmark cases of lesson 04: the triad and the FMA chain at block sizes
/// 64..1024, with the occupancy-sized grid, one block per CU, and one element per thread.
#include <hip/hip_runtime.h>

#include <cstdint>
#include <vector>

#include "hip_lessons/bench.hpp"
#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/streams.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;
using occupancy::Kernel;

namespace {

/// How a case chooses its grid.
enum class Grid { kOccupancy, kOneBlockPerCu, kOneElementPerThread };

/// \p kernel at state.range(0) threads per block: the triad on 2^26 elements (memory-bound),
/// the FMA chain on 2^22 (compute-bound).
void kernel_case(benchmark::State& state, Kernel kernel, Grid rule) {
  const auto block = static_cast<int>(state.range(0));
  const hl::Device device = hl::open_device(0);
  if (block % device.warp_size() != 0 || block > device.props.maxThreadsPerBlock) {
    state.SkipWithError("block size not usable on this device");
    return;
  }
  const bool triad = kernel == Kernel::kTriad;
  const std::size_t n = std::size_t{1} << (triad ? 26 : 22);
  hl::DeviceBuffer<float> x(n), c(triad ? n : 0), y(n);
  std::vector<float> host(n);
  hl::fill_uniform(host, 1);
  x.upload(host);
  if (triad) c.upload(host);
  int blocks_per_cu = 1;  // the occupancy grid: every block resident at once
  if (rule == Grid::kOccupancy) {
    HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_cu,
                                                           occupancy::address(kernel), block, 0));
  }
  const auto grid = static_cast<unsigned int>(rule == Grid::kOneElementPerThread
                                                  ? (n + block - 1) / block
                                                  : blocks_per_cu * device.compute_units());
  hl::GpuStream stream;
  hl::time_iterations(state, stream, [&] {
    occupancy::launch(kernel, grid, static_cast<unsigned int>(block), 0, stream, x.data(), c.data(),
                      y.data(), n);
  });
  state.counters["grid"] = grid;
  if (triad) {
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 3 * n * sizeof(float)));
  } else {
    state.counters["FLOP/s"] =
        benchmark::Counter(2.0 * occupancy::kChainLength * static_cast<double>(n),
                           benchmark::Counter::kIsIterationInvariantRate);
  }
}

void triad_case(benchmark::State& state, Grid rule) { kernel_case(state, Kernel::kTriad, rule); }
void fma_chain_case(benchmark::State& state, Grid rule) {
  kernel_case(state, Kernel::kFmaChain, rule);
}
void block_sizes(benchmark::internal::Benchmark* b) {
  b->RangeMultiplier(2)->Range(64, 1024)->UseManualTime();
}

}  // namespace

BENCHMARK_CAPTURE(triad_case, occupancy_grid, Grid::kOccupancy)->Apply(block_sizes);
BENCHMARK_CAPTURE(triad_case, one_block_per_cu, Grid::kOneBlockPerCu)->Apply(block_sizes);
BENCHMARK_CAPTURE(triad_case, one_element_per_thread, Grid::kOneElementPerThread)
    ->Apply(block_sizes);
BENCHMARK_CAPTURE(fma_chain_case, occupancy_grid, Grid::kOccupancy)->Apply(block_sizes);
BENCHMARK_CAPTURE(fma_chain_case, one_block_per_cu, Grid::kOneBlockPerCu)->Apply(block_sizes);

int main(int argc, char** argv) { return hl::benchmark_main(argc, argv); }
