/// \file lessons/07_batch_launch/main.hip
/// \brief Lesson 07: many small kernels, and the ways to launch them.
///
/// The story (the README's Application flow has the same numbers):
///  1. What one launch costs: empty kernels back to back, issued then waited for, one launch +
///     wait at a time, through the module API, and as the nodes of a replayed graph.
///  2. One batch of small vector adds every way (kernels.hpp's every_way), every segment
///     checked, the speed-ups checked, and an oversized cooperative grid refused.
///  3. New inputs for an instantiated graph (hipGraphExecKernelNodeSetParams), checked, and
///     what the update costs against a new capture.
///  4. The batch traced block by block: the gaps between launches, and the persistent
///     kernel's queue checked.
/// --check runs every step once, untimed, steps 2 and 3 on shapes that catch guard and queue
/// bugs; the tour and --speed-check time them at --count x --size.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hip_lessons/device.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/lesson.hpp"
#include "hip_lessons/timeline.hpp"
#include "hip_lessons/timing.hpp"
#include "hip_lessons/traced_run.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;
using batch::Batch;
using batch::Segment;

namespace {

// Milliseconds -> microseconds, shared among `per` kernels (nothing when the run was untimed).
std::optional<double> microseconds(std::optional<double> ms, unsigned int per = 1) {
  return ms ? std::optional(*ms * 1000.0 / per) : std::nullopt;
}

// 1. An empty kernel leaves only its launch. The host issues launches more slowly than the GPU
// runs empty kernels, so even the GPU clock measures the host's issue rate here; a graph issues
// all its nodes with one call.
hl::StepResult measure_launch_cost(const hl::Device& device, unsigned int launches,
                                   hipStream_t stream, hipFunction_t module_empty,
                                   const hl::RunOrTime& runs) {
  // With `each`, the host waits for each kernel before it launches the next: the round trip.
  const auto empty_launches = [&](bool each = false) {
    for (unsigned int i = 0; i < launches; ++i) {
      hipLaunchKernelGGL(batch::empty_kernel, dim3(1), dim3(1), 0, stream);
      HIP_CHECK(hipGetLastError());
      if (each) HIP_CHECK(hipStreamSynchronize(stream));
    }
  };
  // Each workload's median in microseconds per kernel, by GPU events or the host clock.
  const auto gpu = [&](const auto& work) {
    return microseconds(runs.on_stream(stream, work), launches);
  };
  const auto host = [&](const auto& work) { return microseconds(runs.wall(work), launches); };
  const auto back_to_back = gpu(empty_launches);
  const auto issue_then_wait = host([&] {
    empty_launches();
    HIP_CHECK(hipStreamSynchronize(stream));
  });
  const auto round_trip = host([&] { empty_launches(true); });
  // The module API takes grid, block, shared memory and stream as plain numbers, and the
  // kernel's arguments as an array of pointers (none here).
  const auto module_launch = gpu([&] {
    for (unsigned int i = 0; i < launches; ++i) {
      HIP_CHECK(hipModuleLaunchKernel(module_empty, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr));
    }
  });
  const batch::Graph graph(stream, empty_launches);
  const auto graph_node = gpu([&] { HIP_CHECK(hipGraphLaunch(graph.exec, stream)); });

  hl::StepResult step(hl::format("1. What one launch costs ({} empty kernels)", launches));
  step.facts(device.facts());
  hl::ResultTable table("launch_cost", "Per kernel",
                        {{"how"}, {"clock"}, {"us per kernel", "", 2}});
  table.row({"empty kernels, back to back", "GPU events", back_to_back})
      .row({"the same via hipModuleLaunchKernel", "GPU events", module_launch})
      .row({"empty kernels, issue all then wait", "host", issue_then_wait})
      .row({"launch + synchronize, one at a time", "host", round_trip})
      .row({"empty kernels as graph nodes, one replay", "GPU events", graph_node});
  return step.table(table)
      .measurement("empty_launch_us", back_to_back)
      .measurement("module_launch_us", module_launch)
      .measurement("launch_sync_round_trip_us", round_trip)
      .measurement("graph_node_us", graph_node);
}

// 2. The same batch every way, each on a poisoned output (NaN, which no sum equals) and checked
// segment by segment. The graph turns --count launch calls into one; fusion, the persistent and
// the cooperative kernel turn --count kernels into one, which is why their speed-ups are larger.
hl::StepResult launch_every_way(Batch& b, const batch::Geometry& g, hipStream_t stream,
                                hipFunction_t module_add_segment, const hl::RunOrTime& runs,
                                const std::vector<const hl::SpeedCheck*>& checks) {
  hl::StepResult step("2. One batch, every way: " + b.shape() + " vector adds");
  step.fact("segments", b.count).fact("segment_elements", b.n);
  // Capture: the launches are recorded as a graph, not run; each replay is one hipGraphLaunch.
  const batch::Graph graph(stream,
                           [&] { batch::launch_individually(b.segments, g.block, stream); });
  hl::ResultTable table("methods", b.shape() + " vector adds",
                        {{"method"},
                         {"host API calls"},
                         {"median", "us", 1},
                         {"us per kernel", "", 3},
                         {"x individual", "", 2}});
  std::vector<std::optional<double>> us;  // per batch, of each method that ran, in order
  const auto speedup = [&](std::size_t i) { return hl::ratio(us[0], us[i]); };
  for (const batch::Method& m : batch::every_way(b, g, stream, graph, module_add_segment)) {
    if (!m.enqueue) {
      step.skip(m.name, m.unavailable);
      continue;
    }
    // The poison lands first: hipExtAnyOrderLaunch kernels (AMD) need not wait for the memset.
    b.c.poison();
    us.push_back(microseconds(runs.on_stream(stream, m.enqueue)));
    step.record({batch::segments_match(m.name + ", " + b.shape(), b, b.expected, b.count)});
    table.row({m.name, m.host_calls == 0 ? b.count : m.host_calls, us.back(),
               hl::ratio(us.back(), b.count), speedup(us.size() - 1)});
    step.measurement("batch_us." + m.name, us.back());
  }
  step.table(table);
  for (std::size_t i = 0; i < checks.size(); ++i) step.speed(*checks[i], speedup(i + 1));
  if (us[0]) {  // a timed run
    step.summary(hl::format(
        "{} x vectorAdd({}): launches {:.0} us, graph {:.0} us ({:.1}x), fused {:.0} us ({:.0}x), "
        "persistent {:.0} us ({:.0}x)",
        b.count, b.n, *us[0], *us[1], *speedup(1), *us[2], *speedup(2), *us[3], *speedup(3)));
  }

  // A cooperative launch promises all its blocks resident at once, so that grid.sync() can
  // complete: a grid one block larger is refused before anything runs.
  if (g.cooperative_grid > 0) {
    const std::string name = hl::format(
        "a cooperative grid of {} blocks ({} per {} x {} + 1) is refused", g.cooperative_grid + 1,
        g.cooperative_grid / g.compute_units, hl::kComputeUnitName, g.compute_units);
    step.record({batch::launch_a_larger_cooperative_grid(name, g, stream)});
  }
  return step;
}

// Every kernel node of the captured graph gets the segment of the second inputs at the same
// position. hipGraphGetNodes lists the nodes (in no promised order), hipGraphKernelNodeGetParams
// reads each node's launch (its kernelParams point at the captured arguments, a Segment and an
// empty BlockTrace), and hipGraphExecKernelNodeSetParams writes new arguments into the
// instantiated graph: the function, grid and block stay, only the segment changes.
//! [update_graph]
void point_graph_at(const batch::Graph& graph, const Batch& b, const Batch& second) {
  std::size_t count = 0;
  HIP_CHECK(hipGraphGetNodes(graph.graph, nullptr, &count));
  std::vector<hipGraphNode_t> nodes(count);
  HIP_CHECK(hipGraphGetNodes(graph.graph, nodes.data(), &count));
  for (hipGraphNode_t node : nodes) {
    hipGraphNodeType type{};
    HIP_CHECK(hipGraphNodeGetType(node, &type));
    if (type != hipGraphNodeTypeKernel) continue;
    hipKernelNodeParams params{};
    HIP_CHECK(hipGraphKernelNodeGetParams(node, &params));
    if (params.kernelParams == nullptr) throw std::runtime_error("a node without kernelParams");
    const Segment old = *static_cast<const Segment*>(params.kernelParams[0]);
    const std::ptrdiff_t offset = old.c - b.c.data();  // which segment this node computes
    if (offset < 0 || offset >= static_cast<std::ptrdiff_t>(b.total()) || offset % b.n != 0) {
      throw std::runtime_error("a graph node's output is not a segment of this batch");
    }
    Segment updated{second.a.data() + offset, second.b.data() + offset, old.c, old.n};
    void* arguments[] = {&updated, params.kernelParams[1]};  // add_segment's arguments, in order
    params.kernelParams = arguments;
    params.extra = nullptr;
    HIP_CHECK(hipGraphExecKernelNodeSetParams(graph.exec, node, &params));
  }
}
//! [update_graph]

// 3. A graph of the batch gets the inputs of a second batch of the same shape, is replayed and
// checked against that batch's reference. Timed, the update is set against what it saves: a
// new capture and instantiation.
hl::StepResult update_graph_inputs(Batch& b, unsigned int block, hipStream_t stream,
                                   std::uint64_t seed, const hl::RunOrTime& runs) {
  const auto enqueue = [&] { batch::launch_individually(b.segments, block, stream); };
  const batch::Graph graph(stream, enqueue);
  const Batch second(b.count, b.n, seed + 10);
  point_graph_at(graph, b, second);
  b.c.poison();
  HIP_CHECK(hipGraphLaunch(graph.exec, stream));
  HIP_CHECK(hipStreamSynchronize(stream));
  hl::StepResult step("3. New inputs for an instantiated graph of " + b.shape());
  step.record({batch::segments_match(
      "graph replay after hipGraphExecKernelNodeSetParams (second inputs), " + b.shape(), b,
      second.expected, b.count)});

  const auto update = runs.wall([&] { point_graph_at(graph, b, second); });
  const auto recapture = runs.wall([&] { const batch::Graph fresh(stream, enqueue); });
  hl::ResultTable table("graph_update", "New inputs for every node of the graph",
                        {{"how"}, {"host", "ms", 3}, {"us per node", "", 2}});
  table
      .row({"hipGraphExecKernelNodeSetParams on every node", update, microseconds(update, b.count)})
      .row({"capture + instantiate a new graph", recapture, microseconds(recapture, b.count)});
  return step.table(table);
}

// 4. The batch traced block by block: individual launches (each its own trace slice), the same
// captured into a graph (each node keeps its slice) and replayed, and the persistent kernel. A
// batch above 16384 blocks is traced over its first segments (the persistent kernel whole).
hl::StepResult trace_the_batch(hl::TraceFile& traces, Batch& b, const batch::Geometry& g,
                               hipStream_t stream) {
  const unsigned int per_segment = batch::blocks_for(b.n, g.block);
  const auto traced = static_cast<unsigned int>(
      std::clamp<std::size_t>(std::size_t{16384} / per_segment, 1, b.count));
  const std::vector<Segment> segments(b.segments.begin(), b.segments.begin() + traced);
  const std::string part = hl::format("{} of {}", traced, b.shape());
  hl::StepResult step("4. The batch traced block by block");

  hl::TracedRun launched(traces, "individual launches", std::size_t{traced} * per_segment);
  b.c.poison();
  batch::launch_individually(segments, g.block, stream, &launched);
  const hl::Schedule launches = launched.finish();
  step.record(
      {batch::segments_match("traced individual launches, " + part, b, b.expected, traced)});

  hl::TracedRun replayed(traces, "graph replay", std::size_t{traced} * per_segment);
  const batch::Graph graph(
      stream, [&] { batch::launch_individually(segments, g.block, stream, &replayed); });
  b.c.poison();
  HIP_CHECK(hipGraphLaunch(graph.exec, stream));
  const hl::Schedule replay = replayed.finish();
  step.record({batch::segments_match("traced graph replay, " + part, b, b.expected, traced)});

  hl::TracedRun resident(traces, "persistent kernel", g.persistent_grid);
  hl::DeviceBuffer<unsigned int> owner(b.count), claims(b.count);
  HIP_CHECK(hipMemsetAsync(owner.data(), 0xFF, owner.bytes(), stream));  // no block yet
  HIP_CHECK(hipMemsetAsync(claims.data(), 0, claims.bytes(), stream));
  b.c.poison();
  batch::launch_persistent(b, g, stream,
                           resident.reserve("add_segments_persistent", g.persistent_grid, 0),
                           owner.data(), claims.data());
  const hl::Schedule persistent = resident.finish();
  step.record(
      {batch::segments_match("traced persistent kernel, " + b.shape(), b, b.expected, b.count),
       batch::each_segment_taken_once(owner.download(), claims.download(), g.persistent_grid)});

  // Sixteen launches: one column (1/64 of their time) is shorter than the gap between two.
  const unsigned int shown = std::min(16u, traced);
  const auto row = [](const hl::Schedule& s, const char* label) {
    return hl::rows_by_stream(s, {{0, label}}).front();
  };
  step.figure(hl::timeline(
      "The first individual launches (up to 16), each method from its first block: launches "
      "leave gaps (.), graph nodes follow closer, the persistent kernel has none",
      {row(launches, "launches"), row(replay, "graph replay"), row(persistent, "persistent")},
      launches.launches().at(static_cast<int>(shown) - 1).span.end));
  hl::ResultTable gaps("trace_gaps", "Gaps between kernels, traced (" + part + ")",
                       {{"method"}, {"kernels"}, {"median gap", "us", 2}, {"span", "us", 1}});
  gaps.row({"individual launches", traced, batch::median_gap_us(launches), launches.span_us()})
      .row({"graph replay", traced, batch::median_gap_us(replay), replay.span_us()})
      .row({"persistent kernel", 1, std::nullopt, persistent.span_us()});
  return step.table(gaps);
}

}  // namespace

int main(int argc, char** argv) {
  hl::LessonCli cli("lesson07_batch_launch",
                    "Lesson 07: launch many small kernels as launches, a graph, one fused kernel, "
                    "or a persistent kernel",
                    4096, std::int64_t{1} << 28);
  std::int64_t count_option = 1000;
  cli.add_count("--count", count_option, "Segments in the batch (one small kernel each)", 1,
                100000);
  std::int64_t block_option = 256;
  cli.add_block_size(block_option, hl::BlockRule::kWholeWarps);
  // The speed-ups over individual launches of methods 1, 2 and 3 (graph, fused, persistent).
  const std::vector<const hl::SpeedCheck*> checks{
      &cli.add_speed_check(hl::at_least("individual launches / graph replay", "--min-graph-speedup",
                                        HIP_LESSONS_07_MIN_GRAPH_SPEEDUP)),
      &cli.add_speed_check(hl::at_least("individual launches / one fused kernel",
                                        "--min-fused-speedup", HIP_LESSONS_07_MIN_FUSED_SPEEDUP)),
      &cli.add_speed_check(hl::at_least("individual launches / persistent kernel",
                                        "--min-persistent-speedup",
                                        HIP_LESSONS_07_MIN_PERSISTENT_SPEEDUP))};
  cli.add_trace_output();

  return hl::run_lesson(cli, argc, argv, [&](hl::Lesson& lesson) {
    const hl::CommonOptions& options = lesson.options;
    const auto count = static_cast<unsigned int>(count_option);
    const auto n = static_cast<std::size_t>(options.size);
    const hl::Device device = hl::open_device(options.device);
    const unsigned int block =
        hl::checked_block_size(device, block_option, hl::BlockRule::kWholeWarps);
    // The batch and the second inputs of step 3, refused before anything is allocated.
    hl::require_device_memory(2 * std::size_t{count} * (3 * n * sizeof(float) + sizeof(Segment)),
                              hl::format("--count {} x --size {}", count, n));
    hipStream_t stream = nullptr;
    HIP_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
    const batch::Geometry geometry = batch::geometry_for(device, block, stream);
    // The module API loads a code object while the program runs and finds its kernels by name
    // (extern "C" in module_kernels.hip, so the names are not mangled).
    //! [module_load]
    hipModule_t module = nullptr;
    HIP_CHECK(hipModuleLoad(&module, batch::module_path().c_str()));
    hipFunction_t module_empty = nullptr;
    hipFunction_t module_add_segment = nullptr;
    HIP_CHECK(hipModuleGetFunction(&module_empty, module, "module_empty_kernel"));
    HIP_CHECK(hipModuleGetFunction(&module_add_segment, module, "module_add_segment"));
    //! [module_load]
    const hl::RunOrTime runs(options);

    lesson.report.step(measure_launch_cost(device, count, stream, module_empty, runs));  // 1.
    // --check: one segment, sizes that catch the guards (1, 257, 4099), and more segments than
    // the persistent grid has blocks, so that its blocks must go back to the queue.
    std::vector<std::pair<unsigned int, std::size_t>> check_shapes;
    for (const unsigned int segments : {1u, 7u, 3 * geometry.persistent_grid + 1}) {
      for (const std::size_t elements : {1, 257, 4099})
        check_shapes.push_back({segments, elements});
    }
    std::unique_ptr<Batch> b;  // the last shape run; step 4 traces it
    for (const auto& [segments, elements] : hl::per_mode(options, {count, n}, check_shapes)) {
      b.reset();  // free the previous shape first
      b = std::make_unique<Batch>(segments, elements, options.seed);
      lesson.report.step(
          launch_every_way(*b, geometry, stream, module_add_segment, runs, checks));   // 2.
      lesson.report.step(update_graph_inputs(*b, block, stream, options.seed, runs));  // 3.
    }
    lesson.report.step(trace_the_batch(lesson.traces, *b, geometry, stream));  // 4.
    HIP_CHECK(hipModuleUnload(module));
    HIP_CHECK(hipStreamDestroy(stream));
  });
}
