/// \file lessons/07_batch_launch/bench.hip
/// \brief Google Benchmark cases of lesson 07: time per kernel against the batch size
/// (1..10000 segments of 4096 elements) for each launch method (on AMD also
/// hipExtLaunchKernelGGL with and without hipExtAnyOrderLaunch).
#include <hip/hip_runtime.h>
#if defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_ext.h>
#endif

#include <cstdint>
#include <vector>

#include "hip_lessons/bench.hpp"
#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;

namespace {

constexpr std::size_t kSegmentElements = 4096;
constexpr unsigned int kBlock = 256;

enum class Method { kIndividual, kGraph, kFused, kPersistent, kExtLaunch, kExtAnyOrder };

/// A batch of `count` segments on the device.
struct Batch {
  unsigned int count;
  hl::DeviceBuffer<float> a, b, c;
  std::vector<batch::Segment> segments;
  hl::DeviceBuffer<batch::Segment> table;
  hl::DeviceBuffer<unsigned int> counter;

  explicit Batch(unsigned int segment_count)
      : count(segment_count),
        a(total()),
        b(total()),
        c(total()),
        segments(segment_count),
        table(segment_count),
        counter(1) {
    std::vector<float> host(total());
    hl::fill_uniform(host, 1);
    a.upload(host);
    b.upload(host);
    for (unsigned int k = 0; k < count; ++k) {
      const std::size_t offset = static_cast<std::size_t>(k) * kSegmentElements;
      segments[k] = {a.data() + offset, b.data() + offset, c.data() + offset, kSegmentElements};
    }
    table.upload(segments);
  }
  std::size_t total() const { return static_cast<std::size_t>(count) * kSegmentElements; }
};

void batch_case(benchmark::State& state, Method method) {
  const auto count = static_cast<unsigned int>(state.range(0));
  const hl::Device device = hl::open_device(0);
  Batch batch(count);
  hl::GpuStream stream;
  const unsigned int persistent_grid = batch::persistent_grid(kBlock, device.compute_units());
  batch::Graph graph;
  if (method == Method::kGraph) {
    graph = batch::Graph::capture(
        stream, [&] { batch::launch_individually(batch.segments, kBlock, stream); });
  }
  hl::time_iterations(state, stream, [&] {
    switch (method) {
      case Method::kIndividual:
        batch::launch_individually(batch.segments, kBlock, stream);
        break;
      case Method::kGraph:
        graph.launch(stream);
        break;
      case Method::kFused:
        batch::launch_fused(batch.table.data(), count, kSegmentElements, kBlock, stream);
        break;
      case Method::kPersistent:
        batch::launch_persistent(batch.table.data(), count, batch.counter.data(), persistent_grid,
                                 kBlock, stream);
        break;
      case Method::kExtLaunch:
      case Method::kExtAnyOrder:
#if defined(__HIP_PLATFORM_AMD__)
        for (const batch::Segment& s : batch.segments) {
          hipExtLaunchKernelGGL(batch::add_segment, dim3(batch::blocks_for(s.n, kBlock)),
                                dim3(kBlock), 0, stream, nullptr, nullptr,
                                method == Method::kExtAnyOrder ? hipExtAnyOrderLaunch : 0u, s);
          HIP_CHECK_LAUNCH();
        }
#endif
        break;
    }
  });
  // Seconds per small kernel (the batch time divided by its size), and kernels per second.
  state.counters["time_per_kernel"] = benchmark::Counter(
      count, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * count);
}

}  // namespace

BENCHMARK_CAPTURE(batch_case, individual_launches, Method::kIndividual)
    ->RangeMultiplier(10)
    ->Range(1, 10000)
    ->UseManualTime();
BENCHMARK_CAPTURE(batch_case, graph_replay, Method::kGraph)
    ->RangeMultiplier(10)
    ->Range(1, 10000)
    ->UseManualTime();
BENCHMARK_CAPTURE(batch_case, fused_kernel, Method::kFused)
    ->RangeMultiplier(10)
    ->Range(1, 10000)
    ->UseManualTime();
BENCHMARK_CAPTURE(batch_case, persistent_kernel, Method::kPersistent)
    ->RangeMultiplier(10)
    ->Range(1, 10000)
    ->UseManualTime();
#if defined(__HIP_PLATFORM_AMD__)
BENCHMARK_CAPTURE(batch_case, ext_launch, Method::kExtLaunch)
    ->RangeMultiplier(10)
    ->Range(1, 10000)
    ->UseManualTime();
BENCHMARK_CAPTURE(batch_case, ext_launch_any_order, Method::kExtAnyOrder)
    ->RangeMultiplier(10)
    ->Range(1, 10000)
    ->UseManualTime();
#endif

int main(int argc, char** argv) { return hl::benchmark_main(argc, argv); }
