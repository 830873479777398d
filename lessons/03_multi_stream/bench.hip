/// \file lessons/03_multi_stream/bench.hip
/// \brief Google Benchmark cases of lesson 03: 32 one-block kernels on 1..32 streams, and the
/// copy/compute pipeline with 1..16 chunks.
///
/// Each case also reports a speedup counter against the one-stream (or one-chunk) version
/// of the same work, timed in the same case, so the curve reads directly as "x faster".
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hip_lessons/bench.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/spin_kernel.hpp"
#include "hip_lessons/streams.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;
namespace ms = multi_stream;

namespace {

constexpr unsigned int kKernels = 32;
constexpr double kKernelUs = 100.0;

void small_kernels(benchmark::State& state) {
  const auto stream_count = static_cast<std::size_t>(state.range(0));
  hl::open_device(0);
  const auto ticks = static_cast<long long>(kKernelUs * hl::spin_ticks_per_microsecond());
  const ms::StampWork work(kKernels, 1, ms::kOneBlockThreads, ticks, 1);
  hl::GpuStream origin;
  const ms::Workers one = ms::create_workers(1);
  const ms::Workers several = ms::create_workers(stream_count);
  auto on = [&](const ms::Workers& workers) {
    return [&] { ms::enqueue_round_robin(work, workers, origin); };
  };
  const hl::TimingPlan plan{1, 5};
  const double one_stream = hl::time_on_stream(origin, plan, on(one));
  const double these_streams = hl::time_on_stream(origin, plan, on(several));
  hl::time_iterations(state, origin, on(several));
  state.counters["speedup_vs_1_stream"] = one_stream / these_streams;
  ms::destroy_workers(one);
  ms::destroy_workers(several);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kKernels);
}

void pipeline(benchmark::State& state) {
  const auto chunks = static_cast<std::size_t>(state.range(0));
  const std::size_t n = std::size_t{1} << 24;
  hl::open_device(0);
  ms::PipelineData data(n, 1);
  const ms::PipelineArrays arrays = data.arrays(false);  // pinned
  hl::GpuStream origin;
  const unsigned int rounds = ms::rounds_matching_the_copy(arrays, origin);
  const ms::Workers one = ms::create_workers(1);
  const ms::Workers several = ms::create_workers(std::min<std::size_t>(chunks, 4));
  auto run = [&](const ms::Workers& workers, std::size_t pieces) {
    return [&, pieces] {
      ms::fork_join(origin, workers,
                    [&] { ms::enqueue_pipeline(arrays, pieces, rounds, workers.streams); });
    };
  };
  const hl::TimingPlan plan{1, 5};
  const double sequential = hl::time_on_stream(origin, plan, run(one, 1));
  const double pipelined = hl::time_on_stream(origin, plan, run(several, chunks));
  hl::time_iterations(state, origin, run(several, chunks));
  state.counters["speedup_vs_sequential"] = sequential / pipelined;
  state.counters["rounds"] = rounds;
  ms::destroy_workers(one);
  ms::destroy_workers(several);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 2 *
                          static_cast<std::int64_t>(n * sizeof(std::uint32_t)));
}

}  // namespace

BENCHMARK(small_kernels)->ArgName("streams")->RangeMultiplier(2)->Range(1, 32)->UseManualTime();
BENCHMARK(pipeline)->ArgName("chunks")->RangeMultiplier(2)->Range(1, 16)->UseManualTime();

int main(int argc, char** argv) { return hl::benchmark_main(argc, argv); }
