/// \file lessons/07_batch_launch/main.hip
/// \brief Lesson 07: many small kernels, and four ways to launch them.
///
/// The story: (1) what one launch costs: empty kernels back to back, a launch followed by a
/// synchronize, and the same kernels as nodes of a graph; (2) a batch of small vector adds
/// (1000 segments of 4096 elements by default) done as individual launches, as a replayed
/// graph, as one fused kernel, and as a persistent kernel fed by a device-side queue, every
/// segment validated for every method; (3) changing the inputs of an instantiated graph
/// without capturing it again (hipGraphExecKernelNodeSetParams); (4) on AMD, what
/// hipExtLaunchKernelGGL's start/stop events and hipExtAnyOrderLaunch flag really do (there
/// is no launch count); (5) a sweep over the batch size.
#include <hip/hip_runtime.h>
#if defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_ext.h>
#endif

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/lesson.hpp"
#include "hip_lessons/timing.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;
using batch::Segment;

namespace {

// =========================================================================================
// The batch: count segments of n elements, inputs, expected results, device buffers
// =========================================================================================

struct Batch {
  unsigned int count;
  std::size_t n;
  std::vector<float> expected;  // a + b
  hl::DeviceBuffer<float> a, b, c;
  std::vector<Segment> segments;           // for the per-segment launches
  hl::DeviceBuffer<Segment> table;         // the same, for the fused and persistent kernels
  hl::DeviceBuffer<unsigned int> counter;  // the persistent kernel's queue head

  Batch(unsigned int segment_count, std::size_t elements, std::uint64_t seed)
      : count(segment_count),
        n(elements),
        expected(total()),
        a(total()),
        b(total()),
        c(total()),
        segments(segment_count),
        table(segment_count),
        counter(1) {
    std::vector<float> ha(total()), hb(total());
    hl::fill_uniform(ha, seed);
    hl::fill_uniform(hb, seed + 1);
    for (std::size_t i = 0; i < total(); ++i) expected[i] = ha[i] + hb[i];
    a.upload(ha);
    b.upload(hb);
    for (unsigned int k = 0; k < count; ++k) {
      const std::size_t offset = static_cast<std::size_t>(k) * n;
      segments[k] = Segment{a.data() + offset, b.data() + offset, c.data() + offset, n};
    }
    table.upload(segments);
  }
  std::size_t total() const { return static_cast<std::size_t>(count) * n; }
};

/// Device memory a batch takes (inputs, output, table), for require_device_memory.
std::size_t batch_bytes(unsigned int count, std::size_t n) {
  return 3 * static_cast<std::size_t>(count) * n * sizeof(float) + count * sizeof(Segment);
}

/// Compares every element of every segment with the host reference; a failure names the
/// first wrong segment.
bool validate(hl::Report& report, const std::string& what, const Batch& batch,
              const std::vector<float>& expected) {
  const std::vector<float> actual = batch.c.download();
  const auto mismatch = hl::first_mismatch(expected, actual);
  if (!mismatch) {
    return report.check(what, true,
                        std::to_string(batch.count) + " segments, " +
                            std::to_string(actual.size()) + " elements match");
  }
  return report.check(what, false,
                      "segment " + std::to_string(mismatch->index / batch.n) + ": " +
                          hl::describe(*mismatch, actual.size()));
}

// =========================================================================================
// The methods
// =========================================================================================

enum class Method { kIndividual, kGraph, kFused, kPersistent, kExtLaunch, kExtAnyOrder };

const char* name(Method m) {
  switch (m) {
    case Method::kIndividual:
      return "individual launches";
    case Method::kGraph:
      return "graph replay";
    case Method::kFused:
      return "one fused kernel";
    case Method::kPersistent:
      return "persistent kernel + queue";
    case Method::kExtLaunch:
      return "hipExtLaunchKernelGGL";
    case Method::kExtAnyOrder:
      return "hipExtLaunchKernelGGL, hipExtAnyOrderLaunch";
  }
  return "?";
}

std::vector<Method> methods() {
  std::vector<Method> all = {Method::kIndividual, Method::kGraph, Method::kFused,
                             Method::kPersistent};
#if defined(__HIP_PLATFORM_AMD__)
  all.push_back(Method::kExtLaunch);
  all.push_back(Method::kExtAnyOrder);
#endif
  return all;
}

#if defined(__HIP_PLATFORM_AMD__)
//! [ext_launch]
// hip/hip_ext.h (AMD only):
//   hipExtLaunchKernelGGL(kernel, grid, block, sharedMemBytes, stream,
//                         startEvent, stopEvent, flags, args...)
// There is no launch count: it is one launch, like hipLaunchKernelGGL. The events, when not
// null, are recorded by the runtime around this kernel; `flags` = hipExtAnyOrderLaunch clears
// the barrier bit of the kernel's AQL packet, so the packet processor need not wait for the
// previous packet in the queue to finish before starting it. It wraps hipExtLaunchKernel and
// discards that function's return value, so the error is read from hipGetLastError.
void launch_individually_ext(const std::vector<Segment>& segments, unsigned int block,
                             hipStream_t stream, unsigned int flags) {
  for (const Segment& s : segments) {
    hipExtLaunchKernelGGL(batch::add_segment, dim3(batch::blocks_for(s.n, block)), dim3(block), 0,
                          stream, nullptr, nullptr, flags, s);
    HIP_CHECK_LAUNCH();
  }
}
//! [ext_launch]
#endif

/// Everything a method needs to run a batch once; enqueue() only enqueues.
struct Runner {
  Batch& batch;
  const batch::Graph& graph;  // the batch's individual launches, captured
  unsigned int block;
  unsigned int persistent_grid;
  hipStream_t stream;

  void enqueue(Method m) const {
    switch (m) {
      case Method::kIndividual:
        batch::launch_individually(batch.segments, block, stream);
        break;
      case Method::kGraph:
        graph.launch(stream);
        break;
      case Method::kFused:
        batch::launch_fused(batch.table.data(), batch.count, batch.n, block, stream);
        break;
      case Method::kPersistent:
        batch::launch_persistent(batch.table.data(), batch.count, batch.counter.data(),
                                 persistent_grid, block, stream);
        break;
#if defined(__HIP_PLATFORM_AMD__)
      case Method::kExtLaunch:
        launch_individually_ext(batch.segments, block, stream, 0);
        break;
      case Method::kExtAnyOrder:
        launch_individually_ext(batch.segments, block, stream, hipExtAnyOrderLaunch);
        break;
#else
      case Method::kExtLaunch:
      case Method::kExtAnyOrder:
        throw std::logic_error("hipExtLaunchKernelGGL is AMD-only");
#endif
    }
  }
};

batch::Graph capture_batch(const Batch& b, unsigned int block, hipStream_t stream) {
  return batch::Graph::capture(stream,
                               [&] { batch::launch_individually(b.segments, block, stream); });
}

/// Times each method on the batch (output poisoned first, validated after) and returns the
/// median milliseconds per batch, in the order of methods().
std::vector<double> time_methods(hl::Report& report, Runner& run, const hl::TimingPlan& plan) {
  std::vector<double> medians;
  for (const Method m : methods()) {
    run.batch.c.poison();
    const hl::Stats t = hl::time_on_stream(run.stream, plan, [&] { run.enqueue(m); });
    validate(report,
             std::string(name(m)) + ", " + std::to_string(run.batch.count) + " x " +
                 std::to_string(run.batch.n),
             run.batch, run.batch.expected);
    medians.push_back(t.median);
  }
  return medians;
}

// =========================================================================================
// 1. What a launch costs
// =========================================================================================

void launch_cost(hl::Report& report, unsigned int launches, const hl::TimingPlan& plan,
                 hipStream_t stream) {
  const auto empty_launches = [&] {
    for (unsigned int i = 0; i < launches; ++i) {
      hipLaunchKernelGGL(batch::empty_kernel, dim3(1), dim3(1), 0, stream);
      HIP_CHECK_LAUNCH();
    }
  };
  // GPU clock: from an event before the first launch to one after the last. The host issues
  // launches more slowly than the GPU runs empty kernels, so this is the issue rate.
  const hl::Stats back_to_back = hl::time_on_stream(stream, plan, empty_launches);
  // Host clock: issue them all and wait for the last one.
  const hl::Stats issue_and_wait = hl::time_wall(plan, [&] {
    empty_launches();
    HIP_CHECK(hipStreamSynchronize(stream));
  });
  // A launch the host waits for before issuing the next: the full round trip.
  const hl::Stats round_trip =
      hl::time_wall(hl::TimingPlan{plan.warmup, std::max(plan.repeats, 200)}, [&] {
        hipLaunchKernelGGL(batch::empty_kernel, dim3(1), dim3(1), 0, stream);
        HIP_CHECK_LAUNCH();
        HIP_CHECK(hipStreamSynchronize(stream));
      });
  // The same launches recorded once as a graph and replayed with one call.
  const batch::Graph graph = batch::Graph::capture(stream, empty_launches);
  const hl::Stats replay = hl::time_on_stream(stream, plan, [&] { graph.launch(stream); });

  const double per = 1000.0 / launches;  // ms per batch -> us per kernel
  hl::Table table({"how", "clock", "us per kernel"});
  table.add_row(
      {"empty kernels, back to back", "GPU events", hl::fixed(back_to_back.median * per, 2)});
  table.add_row(
      {"empty kernels, issue all then wait", "host", hl::fixed(issue_and_wait.median * per, 2)});
  table.add_row(
      {"launch + synchronize, one at a time", "host", hl::fixed(round_trip.median * 1000.0, 2)});
  table.add_row({"empty kernels as graph nodes, one replay", "GPU events",
                 hl::fixed(replay.median * per, 2)});
  report.table("launch_cost",
               "What one launch costs (" + std::to_string(launches) + " empty kernels)", table);
  report.measurement("empty_launch_us", back_to_back.median * per);
  report.measurement("launch_sync_round_trip_us", round_trip.median * 1000.0);
  report.measurement("graph_node_us", replay.median * per);
}

// =========================================================================================
// 3. New inputs for an instantiated graph, without capturing it again
// =========================================================================================

//! [update_graph]
// Every kernel node of the captured graph gets the segment of the second inputs at the same
// position. hipGraphGetNodes lists the nodes (in no promised order), hipGraphKernelNodeGetParams
// reads each node's launch (its kernelParams point at the captured argument values, here one
// Segment), and hipGraphExecKernelNodeSetParams writes the new argument into the instantiated
// graph. The function, grid and block stay; only the argument changes.
void point_graph_at(const batch::Graph& graph, const Batch& b, const float* a2, const float* b2) {
  std::size_t count = 0;
  HIP_CHECK(hipGraphGetNodes(graph.graph(), nullptr, &count));
  std::vector<hipGraphNode_t> nodes(count);
  HIP_CHECK(hipGraphGetNodes(graph.graph(), nodes.data(), &count));
  for (hipGraphNode_t node : nodes) {
    hipGraphNodeType type{};
    HIP_CHECK(hipGraphNodeGetType(node, &type));
    if (type != hipGraphNodeTypeKernel) continue;
    hipKernelNodeParams params{};
    HIP_CHECK(hipGraphKernelNodeGetParams(node, &params));
    if (params.kernelParams == nullptr) {
      throw std::runtime_error(
          "hipGraphKernelNodeGetParams gave no kernelParams for a captured launch");
    }
    const Segment old = *static_cast<const Segment*>(params.kernelParams[0]);
    const std::ptrdiff_t offset = old.c - b.c.data();  // which segment this node computes
    if (offset < 0 || static_cast<std::size_t>(offset) >= b.total() ||
        offset % static_cast<std::ptrdiff_t>(b.n) != 0) {
      throw std::runtime_error("a graph node's output pointer is not a segment of this batch");
    }
    Segment updated{a2 + offset, b2 + offset, old.c, old.n};
    void* arguments[] = {&updated};
    params.kernelParams = arguments;
    params.extra = nullptr;
    HIP_CHECK(hipGraphExecKernelNodeSetParams(graph.exec(), node, &params));
  }
}
//! [update_graph]

void update_without_recapture(hl::Report& report, Batch& b, unsigned int block,
                              const hl::TimingPlan& plan, hipStream_t stream, std::uint64_t seed,
                              bool timed) {
  const batch::Graph graph = capture_batch(b, block, stream);
  std::vector<float> ha(b.total()), hb(b.total()), expected(b.total());
  hl::fill_uniform(ha, seed + 10);
  hl::fill_uniform(hb, seed + 11);
  for (std::size_t i = 0; i < b.total(); ++i) expected[i] = ha[i] + hb[i];
  hl::DeviceBuffer<float> a2(b.total()), b2(b.total());
  a2.upload(ha);
  b2.upload(hb);

  point_graph_at(graph, b, a2.data(), b2.data());
  b.c.poison();
  graph.launch(stream);
  HIP_CHECK(hipStreamSynchronize(stream));
  validate(report,
           "graph replay after hipGraphExecKernelNodeSetParams (second inputs), " +
               std::to_string(b.count) + " x " + std::to_string(b.n),
           b, expected);
  if (!timed) return;

  // Host clock: updating every node against capturing and instantiating a new graph.
  const hl::TimingPlan few{1, std::min(plan.repeats, 5)};
  const hl::Stats update =
      hl::time_wall(few, [&] { point_graph_at(graph, b, a2.data(), b2.data()); });
  const hl::Stats recapture = hl::time_wall(few, [&] { (void)capture_batch(b, block, stream); });
  hl::Table table({"how", "host ms", "us per node"});
  table.add_row({"hipGraphExecKernelNodeSetParams on every node", hl::fixed(update.median, 3),
                 hl::fixed(update.median * 1000.0 / b.count, 2)});
  table.add_row({"capture + instantiate a new graph", hl::fixed(recapture.median, 3),
                 hl::fixed(recapture.median * 1000.0 / b.count, 2)});
  report.table("graph_update", "New inputs for " + std::to_string(b.count) + " graph nodes", table);
}

#if defined(__HIP_PLATFORM_AMD__)
// =========================================================================================
// 4. hipExtLaunchKernelGGL's start and stop events (AMD)
// =========================================================================================
void ext_events(hl::Report& report, Batch& b, unsigned int block, hipStream_t stream) {
  const Segment s = b.segments[0];
  hl::GpuEvent start, stop, before, after;
  hipExtLaunchKernelGGL(batch::add_segment, dim3(batch::blocks_for(s.n, block)), dim3(block), 0,
                        stream, start.get(), stop.get(), 0, s);
  HIP_CHECK_LAUNCH();
  before.record(stream);
  hipLaunchKernelGGL(batch::add_segment, dim3(batch::blocks_for(s.n, block)), dim3(block), 0,
                     stream, s);
  HIP_CHECK_LAUNCH();
  after.record(stream);
  after.synchronize();
  hl::Table table({"events", "ms"});
  table.add_row(
      {"start/stop passed to hipExtLaunchKernelGGL", hl::fixed(stop.milliseconds_since(start), 4)});
  table.add_row({"hipEventRecord before and after hipLaunchKernelGGL",
                 hl::fixed(after.milliseconds_since(before), 4)});
  report.table("ext_events", "One segment's kernel, timed two ways", table);
}
#endif

// =========================================================================================
// 5. The sweep over the batch size
// =========================================================================================

void sweep(hl::Report& report, const std::set<unsigned int>& counts, std::size_t n,
           unsigned int block, unsigned int persistent_grid, const hl::TimingPlan& plan,
           hipStream_t stream, std::uint64_t seed) {
  hl::Table table({"segments", "method", "median us", "us per kernel", "x individual"});
  for (const unsigned int count : counts) {
    std::size_t free_bytes = 0, total_bytes = 0;
    HIP_CHECK(hipMemGetInfo(&free_bytes, &total_bytes));
    if (static_cast<double>(batch_bytes(count, n)) > 0.9 * static_cast<double>(free_bytes)) {
      std::cout << "sweep: " << count << " segments of " << n << " elements do not fit; left out\n";
      continue;
    }
    Batch b(count, n, seed);
    const batch::Graph graph = capture_batch(b, block, stream);
    Runner run{b, graph, block, persistent_grid, stream};
    const std::vector<double> ms = time_methods(report, run, plan);
    const std::vector<Method> all = methods();
    for (std::size_t i = 0; i < all.size(); ++i) {
      table.add_row({std::to_string(count), name(all[i]), hl::fixed(ms[i] * 1000.0, 1),
                     hl::fixed(ms[i] * 1000.0 / count, 3), hl::fixed(ms[0] / ms[i], 2)});
    }
  }
  report.table("sweep", "Batch size sweep, segments of " + std::to_string(n) + " elements", table);
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t count_option = 1000;
  std::int64_t block_option = 256;
  double min_graph = 1.5;
  double min_fused = 20.0;
  double min_persistent = 10.0;
  hl::LessonCli cli("lesson07_batch_launch",
                    "Lesson 07: launch many small kernels as launches, a graph, one fused kernel, "
                    "or a persistent kernel",
                    4096, std::int64_t{1} << 28);
  cli.add_count("--count", count_option, "Segments in the batch (one small kernel each)", 1,
                100000);
  cli.add_count("--block", block_option, "Threads per block (a multiple of the warp size)", 1,
                1024);
  cli.add_number("--min-graph-speedup", min_graph,
                 "Speed check: individual launches time / graph replay time must reach this", 0.0,
                 1e6);
  cli.add_number("--min-fused-speedup", min_fused,
                 "Speed check: individual launches time / fused kernel time must reach this", 0.0,
                 1e6);
  cli.add_number("--min-persistent-speedup", min_persistent,
                 "Speed check: individual launches time / persistent kernel time must reach this",
                 0.0, 1e6);

  return hl::run_lesson(cli, argc, argv, [&](hl::Report& report) {
    const hl::CommonOptions& options = cli.options();
    // Every GPU's warp size is a multiple of 32, so this much is known before opening one.
    if (block_option % 32 != 0) {
      throw hl::UsageError("--block " + std::to_string(block_option) +
                           " is not a multiple of 32; block sizes must be whole warps (32 threads "
                           "on NVIDIA and RDNA, 64 on GCN and CDNA)");
    }
    const hl::Device device = hl::open_device(options.device);
    hl::describe_device(report, device);
    if (block_option % device.warp_size() != 0) {
      throw hl::UsageError("--block " + std::to_string(block_option) +
                           " is not a multiple of this device's " + hl::kWarpName + " size " +
                           std::to_string(device.warp_size()));
    }
    if (block_option > device.props.maxThreadsPerBlock) {
      throw hl::UsageError("--block " + std::to_string(block_option) +
                           " is above this device's limit of " +
                           std::to_string(device.props.maxThreadsPerBlock) + " threads per block");
    }
    const auto block = static_cast<unsigned int>(block_option);
    const auto count = static_cast<unsigned int>(count_option);
    const auto n = static_cast<std::size_t>(options.size);
    // The batch and the second inputs of the graph update (the sweep checks its own sizes).
    hl::require_device_memory(
        batch_bytes(count, n) + 2 * static_cast<std::size_t>(count) * n * sizeof(float),
        "--count " + std::to_string(count) + " x --size " + std::to_string(n));
    const unsigned int persistent_grid = batch::persistent_grid(block, device.compute_units());
    std::cout << device.name() << ": block " << block << ", persistent grid " << persistent_grid
              << " (" << persistent_grid / device.compute_units() << " resident blocks per "
              << hl::kComputeUnitName << ")\n";
    report.fact("segments", count);
    report.fact("segment_elements", static_cast<double>(n));
    hl::GpuStream stream;
    const hl::TimingPlan plan{3, options.repeat};

#if !defined(__HIP_PLATFORM_AMD__)
    const std::string ext_skip =
        "hipExtLaunchKernelGGL and hipExtAnyOrderLaunch are AMD-only (hip/hip_ext.h); "
        "CUDA has no launch with attached start/stop events or an any-order flag";
    std::cout << "check   skip  hipExtLaunchKernelGGL: " << ext_skip << '\n';
    report.fact("skipped: hipExtLaunchKernelGGL", ext_skip);
#endif

    if (options.check) {
      // Every method and the graph update on random inputs: one segment, odd sizes that catch
      // guards, and more segments than the persistent grid has blocks.
      for (const unsigned int segments : {1u, 7u, 3 * persistent_grid + 1}) {
        for (const std::size_t elements : {std::size_t{1}, std::size_t{257}, std::size_t{4099}}) {
          Batch b(segments, elements, options.seed);
          const batch::Graph graph = capture_batch(b, block, stream);
          const Runner run{b, graph, block, persistent_grid, stream};
          for (const Method m : methods()) {
            b.c.poison();
            run.enqueue(m);
            HIP_CHECK(hipStreamSynchronize(stream));
            validate(report,
                     std::string(name(m)) + ", " + std::to_string(segments) + " x " +
                         std::to_string(elements),
                     b, b.expected);
          }
          update_without_recapture(report, b, block, plan, stream, options.seed, false);
        }
      }
      report.summary(report.failures() == 0 ? "every method correct on every segment"
                                            : "checks failed");
      return;
    }

    // --- 1. Launch cost --------------------------------------------------------------------
    launch_cost(report, count, plan, stream);

    // --- 2. The batch, four ways -----------------------------------------------------------
    Batch b(count, n, options.seed);
    const batch::Graph graph = capture_batch(b, block, stream);
    Runner run{b, graph, block, persistent_grid, stream};
    const std::vector<double> ms = time_methods(report, run, plan);
    const std::vector<Method> all = methods();
    hl::Table table({"method", "host API calls", "median us", "us per kernel", "x individual"});
    for (std::size_t i = 0; i < all.size(); ++i) {
      const std::string calls = all[i] == Method::kGraph || all[i] == Method::kFused ? "1"
                                : all[i] == Method::kPersistent ? "2 (memset + launch)"
                                                                : std::to_string(count);
      table.add_row({name(all[i]), calls, hl::fixed(ms[i] * 1000.0, 1),
                     hl::fixed(ms[i] * 1000.0 / count, 3), hl::fixed(ms[0] / ms[i], 2)});
      report.measurement(std::string("batch_us.") + name(all[i]), ms[i] * 1000.0);
    }
    report.table("methods", std::to_string(count) + " x vectorAdd(" + std::to_string(n) + ")",
                 table);

    // --- 3. Graph update -------------------------------------------------------------------
    update_without_recapture(report, b, block, plan, stream, options.seed, true);

    // --- 4. AMD's extended launch ------------------------------------------------------------
#if defined(__HIP_PLATFORM_AMD__)
    ext_events(report, b, block, stream);
#endif

    // --- 5. Sweep (tour only) --------------------------------------------------------------
    if (!options.speed_check) {
      std::set<unsigned int> counts = {1, 10, 100, 1000, 10000};
      counts.insert(count);
      sweep(report, counts, n, block, persistent_grid, plan, stream, options.seed);
    }

    const double graph_speedup = ms[0] / ms[1];
    const double fused_speedup = ms[0] / ms[2];
    const double persistent_speedup = ms[0] / ms[3];
    std::cout << '\n';
    if (options.speed_check) {
      report.check_ratio_at_least("individual launches / graph replay", graph_speedup, min_graph);
      report.check_ratio_at_least("individual launches / one fused kernel", fused_speedup,
                                  min_fused);
      report.check_ratio_at_least("individual launches / persistent kernel", persistent_speedup,
                                  min_persistent);
    } else {
      std::cout << "speed-ups over individual launches: graph " << hl::fixed(graph_speedup, 2)
                << " (the speed test requires >= " << hl::fixed(min_graph, 2) << "), fused "
                << hl::fixed(fused_speedup, 1) << " (>= " << hl::fixed(min_fused, 1)
                << "), persistent " << hl::fixed(persistent_speedup, 1)
                << " (>= " << hl::fixed(min_persistent, 1) << ")\n";
    }
    report.summary(std::to_string(count) + " x vectorAdd(" + std::to_string(n) + "): launches " +
                   hl::fixed(ms[0] * 1000.0, 0) + " us, graph " + hl::fixed(ms[1] * 1000.0, 0) +
                   " us (" + hl::fixed(graph_speedup, 1) + "x), fused " +
                   hl::fixed(ms[2] * 1000.0, 0) + " us (" + hl::fixed(fused_speedup, 0) +
                   "x), persistent " + hl::fixed(ms[3] * 1000.0, 0) + " us (" +
                   hl::fixed(persistent_speedup, 0) + "x)");
  });
}
