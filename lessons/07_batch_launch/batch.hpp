/// \file lessons/07_batch_launch/batch.hpp
/// \brief The batch of lesson 07 on the device, and every launch method by name.
///
/// main.hip checks and times the batch, bench.hip sweeps it; both build it and run its methods
/// through this file, so each keeps to what it measures.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/report.hpp"
#include "hip_lessons/timing.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"
#include "module_launch.hpp"

namespace batch {

/// `count` segments of `n` elements: seeded random inputs, the host reference a + b, the
/// output, and the segment table that the fused and persistent kernels read.
struct Batch {
  unsigned int count;
  std::size_t n;
  std::vector<float> expected;  // a + b
  hip_lessons::DeviceBuffer<float> a, b, c;
  std::vector<Segment> segments;             // for the per-segment launches
  hip_lessons::DeviceBuffer<Segment> table;  // the same, for the fused and persistent kernels
  hip_lessons::DeviceBuffer<unsigned int> counter;  // the persistent kernel's queue head

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
    hip_lessons::fill_uniform(ha, seed);
    hip_lessons::fill_uniform(hb, seed + 1);
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

  /// Device memory a batch of \p segment_count x \p elements takes (inputs, output, table).
  static std::size_t bytes(unsigned int segment_count, std::size_t elements) {
    return (3 * elements * sizeof(float) + sizeof(Segment)) * segment_count;
  }
  /// Whether such a batch fits in 90% of the device memory free now.
  static bool fits(unsigned int segment_count, std::size_t elements) {
    std::size_t free_bytes = 0, total_bytes = 0;
    HIP_CHECK(hipMemGetInfo(&free_bytes, &total_bytes));
    return static_cast<double>(bytes(segment_count, elements)) <=
           0.9 * static_cast<double>(free_bytes);
  }
};

/// Compares every element of the first \p segments segments (0: all) of \p work's output with
/// \p expected and records the check \p what; a failure names the first wrong segment, so a
/// queue that skipped one, or a graph node aimed at the wrong one, shows at once.
inline bool check_segments(hip_lessons::Report& report, const std::string& what, const Batch& work,
                           const std::vector<float>& expected, unsigned int segments = 0) {
  const std::vector<float> actual = work.c.download();
  segments = segments == 0 ? work.count : segments;
  const std::size_t count = static_cast<std::size_t>(segments) * work.n;
  const std::optional<hip_lessons::Mismatch> wrong =
      hip_lessons::first_mismatch(expected.data(), actual.data(), count);
  if (!wrong) {
    return report.check(what, true,
                        hip_lessons::format("{} segments, {} elements match", segments, count));
  }
  return report.check(what, false,
                      hip_lessons::format("segment {}: {}", wrong->index / work.n,
                                          hip_lessons::describe(*wrong, count)));
}

/// The ways the lesson launches a batch.
enum class Method {
  kIndividual,
  kGraph,
  kFused,
  kPersistent,
  kModuleLaunch,
  kCooperative,
  kExtLaunch,
  kExtAnyOrder
};

/// A method as the tables show it.
struct MethodInfo {
  Method method;
  const char* name;
  unsigned int host_calls;  ///< host API calls per batch; 0 means one per segment
};

/// Every method this build can run, individual launches (the baseline of every ratio) first.
inline constexpr MethodInfo kMethods[] = {
    {Method::kIndividual, "individual launches", 0},
    {Method::kGraph, "graph replay", 1},
    {Method::kFused, "one fused kernel", 1},
    {Method::kPersistent, "persistent kernel + queue", 2},  // memset of the counter + launch
    {Method::kModuleLaunch, "individual hipModuleLaunchKernel", 0},
    {Method::kCooperative, "cooperative kernel, grid.sync", 1},
#if defined(__HIP_PLATFORM_AMD__)
    {Method::kExtLaunch, "hipExtLaunchKernelGGL", 0},
    {Method::kExtAnyOrder, "hipExtLaunchKernelGGL, hipExtAnyOrderLaunch", 0},
#endif
};
static_assert(kMethods[0].method == Method::kIndividual && kMethods[1].method == Method::kGraph &&
                  kMethods[2].method == Method::kFused && kMethods[3].method == Method::kPersistent,
              "the speed checks read the four portable methods first, in this order");

/// The block size and the grids of the persistent and the cooperative kernel (0: the device
/// has no cooperative launch): how every batch of a run is launched.
struct Geometry {
  unsigned int block;
  unsigned int persistent_grid;
  unsigned int cooperative_grid;
};

/// How this device launches every batch with blocks of \p block threads: the persistent and
/// the cooperative grid, both sized from occupancy.
inline Geometry geometry_for(unsigned int block, const hip_lessons::Device& device) {
  return {block, persistent_grid(block, device.compute_units()),
          cooperative_grid(device.index, block, device.compute_units())};
}

/// The batches a run checks: segments, and elements per segment.
using Shapes = std::vector<std::pair<unsigned int, std::size_t>>;

/// --check: one segment, sizes that catch the guards (1, 257, 4099), and more segments than the
/// persistent grid has blocks, so its blocks must go back to the queue. Else --count x --size.
inline Shapes shapes_to_run(const hip_lessons::CommonOptions& options, unsigned int count,
                            const Geometry& geometry) {
  if (options.mode != hip_lessons::Mode::kCheck) {
    return {{count, static_cast<std::size_t>(options.size)}};
  }
  Shapes shapes;
  for (const unsigned int segments : {1u, 7u, 3 * geometry.persistent_grid + 1}) {
    for (const std::size_t elements : {std::size_t{1}, std::size_t{257}, std::size_t{4099}}) {
      shapes.push_back({segments, elements});
    }
  }
  return shapes;
}

/// Runs one batch by any method on one stream. The graph of the batch's individual launches is
/// captured here, once, so enqueue() only enqueues. Without a \p module, the module's method
/// is not available.
class Launcher {
 public:
  Launcher(const Batch& work, const Geometry& geometry, hipStream_t stream,
           const KernelModule* module = nullptr)
      : batch_(work), geometry_(geometry), module_(module), stream_(stream), graph_(capture()) {}

  /// Whether \p method can run here: the module's needs a loaded module, the cooperative
  /// kernel a device with cooperative launch.
  bool available(Method method) const {
    if (method == Method::kModuleLaunch) return module_ != nullptr;
    if (method == Method::kCooperative) return geometry_.cooperative_grid > 0;
    return true;
  }

  /// Records the batch's individual launches as a new graph and instantiates it (nothing runs).
  Graph capture() const {
    return Graph::capture(stream_,
                          [&] { launch_individually(batch_.segments, geometry_.block, stream_); });
  }

  void enqueue(Method method) const {
    switch (method) {
      case Method::kIndividual:
        return launch_individually(batch_.segments, geometry_.block, stream_);
      case Method::kGraph:
        return graph_.launch(stream_);
      case Method::kFused:
        return launch_fused(batch_.table.data(), batch_.count, batch_.n, geometry_.block, stream_);
      case Method::kPersistent:
        return launch_persistent(batch_.table.data(), batch_.count, batch_.counter.data(),
                                 geometry_.persistent_grid, geometry_.block, stream_);
      case Method::kModuleLaunch:
        if (module_ == nullptr) break;
        return module_->launch_individually(batch_.segments, geometry_.block, stream_);
      case Method::kCooperative:
        if (geometry_.cooperative_grid == 0) break;
        HIP_CHECK(launch_cooperative(batch_.table.data(), batch_.count, geometry_.cooperative_grid,
                                     geometry_.block, stream_));
        return;
#if defined(__HIP_PLATFORM_AMD__)
      case Method::kExtLaunch:
        return launch_individually_ext(batch_.segments, geometry_.block, stream_, 0);
      case Method::kExtAnyOrder:
        return launch_individually_ext(batch_.segments, geometry_.block, stream_,
                                       hipExtAnyOrderLaunch);
#else
      case Method::kExtLaunch:
      case Method::kExtAnyOrder:
        break;
#endif
    }
    throw std::logic_error("this method is not available here (see Launcher::available)");
  }

  hipStream_t stream() const { return stream_; }

 private:
  const Batch& batch_;
  Geometry geometry_;
  const KernelModule* module_;
  hipStream_t stream_;
  Graph graph_;
};

/// Each method on a poisoned output, then checked. With a plan, also timed: the median ms per
/// batch of each method, in the order of kMethods (none: not available here); without one
/// (--check), it runs once.
inline std::vector<std::optional<double>> run_every_method(
    hip_lessons::Report& report, Batch& b, const Launcher& launcher,
    const std::optional<hip_lessons::TimingPlan>& plan) {
  std::vector<std::optional<double>> medians;
  for (const auto& m : kMethods) {
    if (!launcher.available(m.method)) {
      report.note(hip_lessons::format("check   skip  {}: not available on this device", m.name));
      medians.emplace_back();
      continue;
    }
    b.c.poison();
    if (plan) {
      medians.push_back(hip_lessons::time_on_stream(launcher.stream(), *plan, [&] {
                          launcher.enqueue(m.method);
                        }).median);
    } else {
      launcher.enqueue(m.method);
      HIP_CHECK(hipStreamSynchronize(launcher.stream()));
    }
    check_segments(report, hip_lessons::format("{}, {} x {}", m.name, b.count, b.n), b, b.expected);
  }
  return medians;
}

/// Method i's median in us, per kernel, and its speed-up over individual launches (method 0);
/// none where the method is not available here.
struct MethodTime {
  std::optional<double> us, us_per_kernel, speedup;
};
inline MethodTime method_time(const std::vector<std::optional<double>>& ms, std::size_t i,
                              unsigned int kernels) {
  if (!ms[i]) return {};
  return {*ms[i] * 1000.0, *ms[i] * 1000.0 / kernels, *ms[0] / *ms[i]};
}

/// Step 5 of the lesson (the tour only): where the launch cost stops mattering. Every method
/// over batch sizes 1 .. 10000 and \p count, each batch checked, in one table.
inline void sweep_batch_sizes(hl::Report& report, unsigned int count, std::size_t n,
                              const Geometry& geometry, const hl::TimingPlan& plan,
                              hipStream_t stream, const KernelModule& module, std::uint64_t seed) {
  std::set<unsigned int> counts = {1, 10, 100, 1000, 10000};
  counts.insert(count);
  hl::ResultTable table("sweep", hl::format("Batch size sweep, segments of {} elements", n),
                        {{"segments"},
                         {"method"},
                         {"median", "us", 1},
                         {"us per kernel", "", 3},
                         {"x individual", "", 2}});
  for (const unsigned int segments : counts) {
    if (!Batch::fits(segments, n)) {
      report.note(
          hl::format("sweep: {} segments of {} elements do not fit; left out", segments, n));
      continue;
    }
    Batch b(segments, n, seed);
    const Launcher launcher(b, geometry, stream, &module);
    const std::vector<std::optional<double>> ms = run_every_method(report, b, launcher, plan);
    for (std::size_t i = 0; i < ms.size(); ++i) {
      const MethodTime t = method_time(ms, i, segments);
      table.row({segments, kMethods[i].name, t.us, t.us_per_kernel, t.speedup});
    }
  }
  report.table(table);
}

}  // namespace batch
