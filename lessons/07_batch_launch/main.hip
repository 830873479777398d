/// \file lessons/07_batch_launch/main.hip
/// \brief Lesson 07: many small kernels, and the ways to launch them.
///
/// The story (the README's Application flow has the same numbers):
///  1. What one launch costs: empty kernels back to back, issued then waited for, one launch +
///     synchronize at a time, and the same kernels as the nodes of one replayed graph.
///     Also the empty kernel of a code object loaded at run time (hipModuleLaunchKernel).
///  2. A batch of small vector adds (--count segments of --size elements) as individual
///     launches, as a replayed graph, as one fused kernel, as a persistent kernel fed by a
///     queue in device memory, as module launches, and as one cooperative kernel whose rounds
///     end at grid.sync() (on AMD also hipExtLaunchKernelGGL, with and without
///     hipExtAnyOrderLaunch); every segment checked for every method, the speed-ups checked.
///     A cooperative grid one block larger than fits at once is refused, and the lesson checks
///     that it is.
///  3. New inputs for an instantiated graph without capturing it again
///     (hipGraphExecKernelNodeSetParams), checked, and its cost against a new capture.
///  4. AMD: what the start/stop events of hipExtLaunchKernelGGL measure. It has no launch count.
///  5. The tour only: step 2 over batch sizes 1 .. 10000.
///  6. The last batch traced block by block (batch_trace.hpp): the gaps between launches on a
///     timeline, and a check that the persistent kernel's blocks took every segment once.
/// --check runs steps 2, 3 and 6 on shapes that catch guard and queue bugs, without timing; the
/// tour and --speed-check run steps 1-4 and 6 at --count x --size.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "batch.hpp"
#include "batch_trace.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/lesson.hpp"
#include "hip_lessons/streams.hpp"
#include "hip_lessons/timing.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"
#include "module_launch.hpp"

namespace hl = hip_lessons;
using batch::Batch;
using batch::Geometry;
using batch::Launcher;
using batch::Segment;

namespace {

// Each method's speed-up over individual launches, as declared in main().
struct SpeedChecks {
  const hl::SpeedCheck& graph;
  const hl::SpeedCheck& fused;
  const hl::SpeedCheck& persistent;
};

// 1. An empty kernel leaves only its launch. The host issues launches more slowly than the GPU
// runs empty kernels, so even the GPU clock measures the host's issue rate here; a graph issues
// all its nodes with one call. Beside them, the same empty kernel from a code object loaded at
// run time: what launching through the module API costs.
void measure_launch_cost(hl::Report& report, unsigned int launches, const hl::TimingPlan& plan,
                         hipStream_t stream, const batch::KernelModule& module) {
  const auto empty_launches = [&] {
    for (unsigned int i = 0; i < launches; ++i) {
      hipLaunchKernelGGL(batch::empty_kernel, dim3(1), dim3(1), 0, stream);
      HIP_CHECK_LAUNCH();
    }
  };
  const hl::Stats back_to_back = hl::time_on_stream(stream, plan, empty_launches);
  const hl::Stats issue_and_wait = hl::time_wall(plan, [&] {
    empty_launches();
    HIP_CHECK(hipStreamSynchronize(stream));
  });
  // The host waits for each kernel before it launches the next: the whole round trip.
  const hl::Stats round_trip =
      hl::time_wall(hl::TimingPlan{plan.warmup, std::max(plan.repeats, 200)}, [&] {
        hipLaunchKernelGGL(batch::empty_kernel, dim3(1), dim3(1), 0, stream);
        HIP_CHECK_LAUNCH();
        HIP_CHECK(hipStreamSynchronize(stream));
      });
  const hl::Stats module_launches = hl::time_on_stream(stream, plan, [&] {
    for (unsigned int i = 0; i < launches; ++i) module.launch_empty(stream);
  });
  const batch::Graph graph = batch::Graph::capture(stream, empty_launches);
  const hl::Stats replay = hl::time_on_stream(stream, plan, [&] { graph.launch(stream); });

  const double per_kernel = 1000.0 / launches;  // ms per run -> us per kernel
  hl::ResultTable table("launch_cost",
                        hl::format("What one launch costs ({} empty kernels)", launches),
                        {{"how"}, {"clock"}, {"us per kernel", "", 2}});
  table.row({"empty kernels, back to back", "GPU events", back_to_back.median * per_kernel});
  table.row(
      {"the same via hipModuleLaunchKernel", "GPU events", module_launches.median * per_kernel});
  table.row({"empty kernels, issue all then wait", "host", issue_and_wait.median * per_kernel});
  table.row({"launch + synchronize, one at a time", "host", round_trip.median * 1000.0});
  table.row({"empty kernels as graph nodes, one replay", "GPU events", replay.median * per_kernel});
  report.table(table);
  report.measurement("empty_launch_us", back_to_back.median * per_kernel);
  report.measurement("module_launch_us", module_launches.median * per_kernel);
  report.measurement("launch_sync_round_trip_us", round_trip.median * 1000.0);
  report.measurement("graph_node_us", replay.median * per_kernel);
}

// 2. The same batch every way. The graph turns --count launch calls into one; fusion and the
// persistent kernel turn --count kernels into one, which is why their speed-ups are larger.
// The two hipExtLaunchKernelGGL methods (AMD) still launch once per segment: hip_ext.h notes
// that hipExtAnyOrderLaunch "is not supported on AMD GFX9xx boards" (kernels.hpp says more).
void compare_methods(hl::Report& report, Batch& b, const Launcher& launcher,
                     const std::optional<hl::TimingPlan>& plan, const SpeedChecks& checks) {
  const std::vector<std::optional<double>> ms = batch::run_every_method(report, b, launcher, plan);
  if (!plan) return;  // --check: correctness only
  hl::ResultTable table("methods", hl::format("{} x vectorAdd({})", b.count, b.n),
                        {{"method"},
                         {"host API calls"},
                         {"median", "us", 1},
                         {"us per kernel", "", 3},
                         {"x individual", "", 2}});
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const auto& m = batch::kMethods[i];
    const batch::MethodTime t = batch::method_time(ms, i, b.count);
    table.row(
        {m.name, m.host_calls == 0 ? b.count : m.host_calls, t.us, t.us_per_kernel, t.speedup});
    if (t.us) report.measurement(hl::format("batch_us.{}", m.name), *t.us);
  }
  report.table(table);
  // The first four methods run everywhere (kMethods' static_assert).
  const auto speedup = [&](std::size_t i) { return *batch::method_time(ms, i, b.count).speedup; };
  report.speed(checks.graph, speedup(1));
  report.speed(checks.fused, speedup(2));
  report.speed(checks.persistent, speedup(3));
  report.summary(hl::format(
      "{} x vectorAdd({}): launches {:.0} us, graph {:.0} us ({:.1}x), fused {:.0} us ({:.0}x), "
      "persistent {:.0} us ({:.0}x)",
      b.count, b.n, *ms[0] * 1000.0, *ms[1] * 1000.0, speedup(1), *ms[2] * 1000.0, speedup(2),
      *ms[3] * 1000.0, speedup(3)));
}

//! [cooperative_refusal]
// The end of 2. A cooperative launch promises that all its blocks are resident at once, so
// that grid.sync() can complete; a grid one block larger could not be, and the runtime refuses
// it before anything runs (the CUDA runtime documents the limit; HIP on AMD checks the same
// occupancy product). The refusal is also this thread's last error: it is read and cleared.
void check_cooperative_refusal(hl::Report& report, const Batch& b, const Geometry& geometry,
                               const hl::Device& device, hipStream_t stream) {
  if (geometry.cooperative_grid == 0) return;
  const unsigned int too_large = geometry.cooperative_grid + 1;
  const hipError_t refused =
      batch::launch_cooperative(b.table.data(), b.count, too_large, geometry.block, stream);
  (void)hipGetLastError();
  HIP_CHECK(hipStreamSynchronize(stream));  // the stream is still usable
  report.check(hl::format("a cooperative grid of {} blocks ({} per {} x {} + 1) is refused",
                          too_large, geometry.cooperative_grid / device.compute_units(),
                          hl::kComputeUnitName, device.compute_units()),
               refused == hipErrorCooperativeLaunchTooLarge,
               hl::format("{}: {}", hipGetErrorName(refused), hipGetErrorString(refused)));
}
//! [cooperative_refusal]

//! [update_graph]
// Every kernel node of the captured graph gets the segment of the second inputs at the same
// position. hipGraphGetNodes lists the nodes (in no promised order), hipGraphKernelNodeGetParams
// reads each node's launch (its kernelParams point at the captured argument values, here a
// Segment and the untraced BlockTrace), and hipGraphExecKernelNodeSetParams writes the new
// arguments into the instantiated graph. The function, grid and block stay; only the segment
// changes.
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
    hl::BlockTrace trace = *static_cast<const hl::BlockTrace*>(params.kernelParams[1]);
    void* arguments[] = {&updated, &trace};  // every argument of add_segment, in order
    params.kernelParams = arguments;
    params.extra = nullptr;
    HIP_CHECK(hipGraphExecKernelNodeSetParams(graph.exec(), node, &params));
  }
}
//! [update_graph]

// 3. A graph of its own (the launcher's stays as captured) gets the inputs of a second batch
// of the same shape, is replayed and checked against that batch's reference. Timed, the update
// is set against what it saves: a new capture and instantiation.
void update_graph_inputs(hl::Report& report, Batch& b, const Launcher& launcher, std::uint64_t seed,
                         const std::optional<hl::TimingPlan>& plan) {
  const hipStream_t stream = launcher.stream();
  const batch::Graph graph = launcher.capture();
  const Batch second(b.count, b.n, seed + 10);
  point_graph_at(graph, b, second.a.data(), second.b.data());
  b.c.poison();
  graph.launch(stream);
  HIP_CHECK(hipStreamSynchronize(stream));
  const std::string what = "graph replay after hipGraphExecKernelNodeSetParams (second inputs)";
  batch::check_segments(report, hl::format("{}, {} x {}", what, b.count, b.n), b, second.expected);
  if (!plan) return;

  const hl::TimingPlan few{1, std::min(plan->repeats, 5)};  // host clock; captures are slow
  const hl::Stats update =
      hl::time_wall(few, [&] { point_graph_at(graph, b, second.a.data(), second.b.data()); });
  const hl::Stats recapture = hl::time_wall(few, [&] { (void)launcher.capture(); });
  hl::ResultTable table("graph_update", hl::format("New inputs for {} graph nodes", b.count),
                        {{"how"}, {"host", "ms", 3}, {"us per node", "", 2}});
  table.row({"hipGraphExecKernelNodeSetParams on every node", update.median,
             update.median * 1000.0 / b.count});
  table.row(
      {"capture + instantiate a new graph", recapture.median, recapture.median * 1000.0 / b.count});
  report.table(table);
}

// 4. hipExtLaunchKernelGGL records its start/stop events for the kernel itself; hip_ext.h
// warns that HIP "actually updates the start event when the associated kernel completes", so
// the lesson shows what the pair measures next to hipEventRecord around a plain launch.
void show_ext_launch_events(hl::Report& report, const Batch& b, const Geometry& geometry,
                            hipStream_t stream, bool timed) {
#if defined(__HIP_PLATFORM_AMD__)
  if (!timed) return;
  const Segment s = b.segments[0];
  const dim3 grid(batch::blocks_for(s.n, geometry.block));
  hl::GpuEvent start, stop, before, after;
  hipExtLaunchKernelGGL(batch::add_segment, grid, dim3(geometry.block), 0, stream, start.get(),
                        stop.get(), 0, s, hl::BlockTrace{});
  HIP_CHECK_LAUNCH();
  before.record(stream);
  hipLaunchKernelGGL(batch::add_segment, grid, dim3(geometry.block), 0, stream, s,
                     hl::BlockTrace{});
  HIP_CHECK_LAUNCH();
  after.record(stream);
  after.synchronize();
  hl::ResultTable table("ext_events", "One segment's kernel, timed two ways",
                        {{"events"}, {"ms", "", 4}});
  table.row({"start/stop passed to hipExtLaunchKernelGGL", stop.milliseconds_since(start)});
  table.row(
      {"hipEventRecord before and after hipLaunchKernelGGL", after.milliseconds_since(before)});
  report.table(table);
#else
  (void)b, (void)geometry, (void)stream, (void)timed;
  const std::string reason =
      "hipExtLaunchKernelGGL and hipExtAnyOrderLaunch are AMD-only (hip/hip_ext.h); "
      "CUDA has no launch with attached start/stop events or an any-order flag";
  report.note("check   skip  hipExtLaunchKernelGGL: " + reason);
  report.fact("skipped: hipExtLaunchKernelGGL", reason);
#endif
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
  const SpeedChecks checks{
      cli.add_speed_check(hl::at_least("individual launches / graph replay", "--min-graph-speedup",
                                       HIP_LESSONS_07_MIN_GRAPH_SPEEDUP)),
      cli.add_speed_check(hl::at_least("individual launches / one fused kernel",
                                       "--min-fused-speedup", HIP_LESSONS_07_MIN_FUSED_SPEEDUP)),
      cli.add_speed_check(hl::at_least("individual launches / persistent kernel",
                                       "--min-persistent-speedup",
                                       HIP_LESSONS_07_MIN_PERSISTENT_SPEEDUP))};
  cli.add_trace_output();

  return hl::run_lesson(cli, argc, argv, [&](hl::Report& report) {
    const hl::CommonOptions& options = cli.options();
    const auto count = static_cast<unsigned int>(count_option);
    const auto n = static_cast<std::size_t>(options.size);
    const hl::Device device = hl::open_device(options.device);
    const unsigned int block =
        hl::checked_block_size(device, block_option, hl::BlockRule::kWholeWarps);
    // The batch and the second batch of the graph update (the sweep checks its own sizes).
    hl::require_device_memory(2 * Batch::bytes(count, n),
                              hl::format("--count {} x --size {}", count, n));
    const Geometry geometry = batch::geometry_for(block, device);
    const batch::KernelModule module(batch::module_file());
    report.facts(device.facts());
    report.fact("segments", count);
    report.fact("segment_elements", n);
    report.note(
        hl::format("{}: block {}, persistent grid {} ({} resident blocks per {}), "
                   "cooperative grid {}",
                   device.name(), block, geometry.persistent_grid,
                   geometry.persistent_grid / device.compute_units(), hl::kComputeUnitName,
                   geometry.cooperative_grid));
    hl::GpuStream stream;
    const auto plan =
        options.timed() ? std::make_optional(hl::TimingPlan{3, options.repeat}) : std::nullopt;

    if (plan) measure_launch_cost(report, count, *plan, stream, module);  // 1.
    std::unique_ptr<Batch> b;  // the last shape run; step 4 launches one of its segments
    for (const auto& [segments, elements] : batch::shapes_to_run(options, count, geometry)) {
      b.reset();  // free the previous shape first
      b = std::make_unique<Batch>(segments, elements, options.seed);
      const Launcher launcher(*b, geometry, stream, &module);
      compare_methods(report, *b, launcher, plan, checks);            // 2.
      update_graph_inputs(report, *b, launcher, options.seed, plan);  // 3.
    }
    check_cooperative_refusal(report, *b, geometry, device, stream);        // 2.
    show_ext_launch_events(report, *b, geometry, stream, options.timed());  // 4.
    if (options.mode == hl::Mode::kTour) {
      batch::sweep_batch_sizes(report, count, n, geometry, *plan, stream, module,
                               options.seed);  // 5.
    }
    batch::trace_methods(report, *b, geometry, stream);  // 6. (every mode)
    if (!plan) {
      report.summary(report.failures() == 0 ? "every method correct on every segment"
                                            : "checks failed");
    }
  });
}
