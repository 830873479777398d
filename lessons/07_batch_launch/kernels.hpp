/// \file lessons/07_batch_launch/kernels.hpp
/// \brief Lesson 07's batch of small vector adds, its kernels (all doing segment.hpp's arithmetic,
/// differing only in how the work reaches the GPU), and the launch helpers main.hip and
/// bench.hip share. hl::BlockTrace arguments are empty when timed, a TracedRun's slice in step 4.
#pragma once

#include <hip/hip_runtime.h>
// (after hip_runtime.h: HIP 5.2's AMD cooperative-groups header needs it first)
#include <hip/hip_cooperative_groups.h>
#if defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_ext.h>
#endif

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/stats.hpp"
#include "hip_lessons/step_result.hpp"
#include "hip_lessons/traced_run.hpp"
#include "hip_lessons/validation.hpp"
#include "segment.hpp"

namespace batch {

namespace hl = hip_lessons;

/// `count` segments of `n` elements: seeded random inputs, the host reference a + b, the output,
/// the segment table that the one-launch kernels read, and the persistent kernel's queue head.
struct Batch {
  unsigned int count;
  std::size_t n;
  std::vector<float> expected;
  hl::DeviceBuffer<float> a, b, c;
  std::vector<Segment> segments;
  hl::DeviceBuffer<Segment> table;
  hl::DeviceBuffer<unsigned int> counter;

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
    for (std::size_t k = 0, offset = 0; k < count; ++k, offset += n) {
      segments[k] = Segment{a.data() + offset, b.data() + offset, c.data() + offset, n};
    }
    table.upload(segments);
  }
  std::size_t total() const { return static_cast<std::size_t>(count) * n; }
  std::string shape() const { return hl::format("{} x {}", count, n); }
};

/// A kernel that does nothing: what is left is the cost of launching it.
__global__ void empty_kernel() {}

// One launch per segment (and, captured, one graph node per segment).
__global__ void add_segment(Segment s, hl::BlockTrace trace) {
  hl::BlockTimer timer(trace);
  add_elements(s, static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x,
               static_cast<std::size_t>(gridDim.x) * blockDim.x);
  timer.stop();
}

// One launch for the whole batch. Block v of the batch works on segment v / blocks_per_segment;
// the loop over v lets a grid smaller than the batch cover it.
__global__ void add_segments_fused(const Segment* segments, unsigned int count,
                                   unsigned int blocks_per_segment) {
  const std::size_t batch_blocks = static_cast<std::size_t>(count) * blocks_per_segment;
  const std::size_t segment_stride = static_cast<std::size_t>(blocks_per_segment) * blockDim.x;
  for (std::size_t v = blockIdx.x; v < batch_blocks; v += gridDim.x) {
    add_elements(segments[v / blocks_per_segment],
                 (v % blocks_per_segment) * blockDim.x + threadIdx.x, segment_stride);
  }
}

// A grid that fits on the device at once stays resident and takes work items from a queue in
// device memory (an atomic counter) until it is empty: one launch, and the blocks balance the
// work among themselves. Non-null `owner` and `claims` note, per segment, the block that took
// it and how many times it was taken (step 4 checks the queue; null when timed).
//! [persistent]
__global__ void add_segments_persistent(const Segment* segments, unsigned int count,
                                        unsigned int* next_item, hl::BlockTrace trace,
                                        unsigned int* owner, unsigned int* claims) {
  hl::BlockTimer timer(trace);
  __shared__ unsigned int item;
  for (;;) {
    if (threadIdx.x == 0) item = atomicAdd(next_item, 1u);
    __syncthreads();
    const unsigned int k = item;
    __syncthreads();        // every thread has read `item` before thread 0 takes the next one
    if (k >= count) break;  // the same k for the whole block: all threads leave together
    if (claims != nullptr && threadIdx.x == 0) {
      atomicAdd(&claims[k], 1u);
      owner[k] = blockIdx.x;
    }
    add_elements(segments[k], threadIdx.x, blockDim.x);
  }
  timer.stop();  // reached by every thread: they all leave the loop at the same k
}
//! [persistent]

// One cooperative launch walks the batch in rounds of gridDim.x segments. grid.sync() ends each
// round: no block starts the next before every block has finished this one, as a kernel
// boundary would between dependent launches. A block waiting at the barrier holds its place on
// the GPU, so the barrier completes only if every block of the grid is resident at once.
//! [cooperative]
__global__ void add_segments_cooperative(const Segment* segments, unsigned int count) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  for (unsigned int first = 0; first < count; first += gridDim.x) {
    const unsigned int k = first + blockIdx.x;
    if (k < count) add_elements(segments[k], threadIdx.x, blockDim.x);
    grid.sync();
  }
}
//! [cooperative]

/// One launch per segment. With a \p run, each launch records its blocks in a slice of its own
/// (captured into a graph, each node keeps the slice it was captured with).
inline void launch_individually(const std::vector<Segment>& segments, unsigned int block,
                                hipStream_t stream, hl::TracedRun* run = nullptr) {
  for (const Segment& s : segments) {
    const unsigned int blocks = blocks_for(s.n, block);
    const hl::BlockTrace trace =
        run != nullptr ? run->reserve("add_segment", blocks, 0) : hl::BlockTrace{};
    hipLaunchKernelGGL(add_segment, dim3(blocks), dim3(block), 0, stream, s, trace);
    HIP_CHECK_LAUNCH();
  }
}

/// The cooperative kernel on a \p grid of the caller's choice. The arguments go by address, one
/// pointer per kernel parameter. Returns the launch's error instead of throwing it: a grid
/// larger than Geometry::cooperative_grid is refused with hipErrorCooperativeLaunchTooLarge.
inline hipError_t launch_cooperative(const Segment* table, unsigned int count, unsigned int grid,
                                     unsigned int block, hipStream_t stream) {
  void* arguments[] = {&table, &count};
  return hipLaunchCooperativeKernel(reinterpret_cast<const void*>(add_segments_cooperative),
                                    dim3(grid), dim3(block), arguments, 0, stream);
}

/// How every batch of a run is launched: the block, and the grids of the persistent and the
/// cooperative kernel, each the blocks the device keeps resident at once (lesson 04's occupancy
/// x compute units), the most hipLaunchCooperativeKernel takes. No cooperative grid (0) where
/// the device has no cooperative launch or HIP refuses that grid: `no_cooperative` says why.
struct Geometry {
  unsigned int block, persistent_grid, cooperative_grid;
  int compute_units;
  std::string no_cooperative =
      "this device has no cooperative launch (hipDeviceAttributeCooperativeLaunch)";
  /// Why HIP may take a grid one block larger, where it may: on RDNA HIP 6.2 scales its
  /// cooperative limit by the kernel's WGP or CU mode as it reads it from the code object
  /// metadata (ROCm/clr rocm-6.2.2 hip_platform.cpp 423-428), which the occupancy API does not.
  std::string larger_grid_may_pass{};
};
inline Geometry geometry_for(const hl::Device& device, unsigned int block, hipStream_t stream) {
  const auto resident = [&](const void* kernel) {
    int per_cu = 0;
    HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, kernel, block, 0));
    return static_cast<unsigned int>(per_cu * device.compute_units());
  };
  Geometry g{block, resident(reinterpret_cast<const void*>(add_segments_persistent)), 0,
             device.compute_units()};
  if (std::string(device.props.gcnArchName).rfind("gfx1", 0) == 0) {
    g.larger_grid_may_pass =
        "on RDNA HIP's cooperative limit follows the kernel's WGP or CU mode as HIP reads it "
        "from the code object, which the occupancy API leaves out (not established by a run)";
  }
  int cooperative = 0;
  HIP_CHECK(hipDeviceGetAttribute(&cooperative, hipDeviceAttributeCooperativeLaunch, device.index));
  if (cooperative == 0) return g;
  // HIP checks a cooperative grid against a unit count of its own, which need not be
  // multiProcessorCount: from HIP 6.2, on RDNA under GPU_ENABLE_WGP_MODE=0, it counts half the
  // units for a kernel built in WGP mode, while the occupancy answer still counts per WGP. So
  // the grid is tried first: with no segments the kernel does nothing, or HIP refuses it.
  const unsigned int grid = resident(reinterpret_cast<const void*>(add_segments_cooperative));
  const hipError_t tried = launch_cooperative(nullptr, 0, grid, block, stream);
  if (tried != hipErrorCooperativeLaunchTooLarge) {
    HIP_CHECK(tried);
    HIP_CHECK(hipStreamSynchronize(stream));
    g.cooperative_grid = grid;
    g.no_cooperative.clear();
    return g;
  }
  (void)hipGetLastError();  // the refusal is this thread's last error: read and cleared
  g.no_cooperative = hl::format(
      "HIP refuses the occupancy-sized cooperative grid, {} blocks (from HIP 6.2 on RDNA with "
      "GPU_ENABLE_WGP_MODE=0 it counts half the units)",
      grid);
  return g;
}

/// A cooperative launch one block larger than g.cooperative_grid (with no segments the kernel
/// would do nothing), as check \p name: held if HIP refused it, as the lesson checks, or, where
/// HIP may take it (g.larger_grid_may_pass), not applicable with the reason. The refusal is this
/// thread's last error: read and cleared; the stream stays usable.
inline hl::Verdict launch_a_larger_cooperative_grid(const std::string& name, const Geometry& g,
                                                    hipStream_t stream) {
  const hipError_t answer = launch_cooperative(nullptr, 0, g.cooperative_grid + 1, g.block, stream);
  (void)hipGetLastError();
  HIP_CHECK(hipStreamSynchronize(stream));
  const bool refused = answer == hipErrorCooperativeLaunchTooLarge;
  const std::string seen = hipGetErrorName(answer) + std::string(": ") + hipGetErrorString(answer);
  if (!refused && !g.larger_grid_may_pass.empty())
    return {name, std::nullopt, g.larger_grid_may_pass + "; HIP answered " + seen};
  return {name, refused, seen};
}

/// Empties \p b's queue (resets its head), then one persistent launch on g's grid; a non-empty
/// \p trace records its blocks, non-null \p owner and \p claims which block took each segment.
inline void launch_persistent(const Batch& b, const Geometry& g, hipStream_t stream,
                              hl::BlockTrace trace = {}, unsigned int* owner = nullptr,
                              unsigned int* claims = nullptr) {
  HIP_CHECK(hipMemsetAsync(b.counter.data(), 0, sizeof(unsigned int), stream));
  hipLaunchKernelGGL(add_segments_persistent, dim3(g.persistent_grid), dim3(g.block), 0, stream,
                     b.table.data(), b.count, b.counter.data(), trace, owner, claims);
  HIP_CHECK_LAUNCH();
}

/// A stream's work as an instantiated graph. Between hipStreamBeginCapture and
/// hipStreamEndCapture what \p enqueue puts on \p stream is recorded, not run (launches on one
/// stream become a chain of kernel nodes); hipGraphInstantiate validates and prepares the whole
/// graph once, so that each replay is one hipGraphLaunch.
struct Graph {
  hipGraph_t graph = nullptr;
  hipGraphExec_t exec = nullptr;

  //! [capture]
  template <class Work>
  Graph(hipStream_t stream, Work&& enqueue) {
    HIP_CHECK(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal));
    enqueue();
    HIP_CHECK(hipStreamEndCapture(stream, &graph));
    HIP_CHECK(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
  }
  //! [capture]
  ~Graph() {
    (void)hipGraphExecDestroy(exec);
    (void)hipGraphDestroy(graph);
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
};

/// One way to launch a batch: its name in the tables, its host API calls per batch (0: one per
/// segment), and what it enqueues; without `enqueue`, the reason this build or device has none.
struct Method {
  std::string name;
  unsigned int host_calls;
  std::function<void()> enqueue;
  std::string unavailable = "";
};

/// Every way the lesson launches batch \p b on \p stream, individual launches (the baseline of
/// every ratio) first and the graph \p replay of them second; the module launches take
/// \p module_add_segment, a kernel of the loaded code object.
inline std::vector<Method> every_way(const Batch& b, const Geometry& g, hipStream_t stream,
                                     const Graph& replay, hipFunction_t module_add_segment) {
  const std::function<void()> cooperative = [=, &b] {
    HIP_CHECK(launch_cooperative(b.table.data(), b.count, g.cooperative_grid, g.block, stream));
  };
  std::vector<Method> methods = {
      {"individual launches", 0, [=, &b] { launch_individually(b.segments, g.block, stream); }},
      {"graph replay", 1, [=, &replay] { HIP_CHECK(hipGraphLaunch(replay.exec, stream)); }},
      {"one fused kernel", 1,  // above 2^20 blocks the kernel's loop covers the rest
       [=, &b] {
         const unsigned int per_segment = blocks_for(b.n, g.block);
         const auto grid = static_cast<unsigned int>(
             std::min<std::size_t>(std::size_t{b.count} * per_segment, 1u << 20));
         hipLaunchKernelGGL(add_segments_fused, dim3(grid), dim3(g.block), 0, stream,
                            b.table.data(), b.count, per_segment);
         HIP_CHECK_LAUNCH();
       }},
      {"persistent kernel + queue", 2,  // a memset of the queue head, then the launch
       [=, &b] { launch_persistent(b, g, stream); }},
      {"individual hipModuleLaunchKernel", 0,
       [=, &b] {
         for (Segment s : b.segments) {
           void* arguments[] = {&s};  // one pointer per kernel parameter
           HIP_CHECK(hipModuleLaunchKernel(module_add_segment, blocks_for(s.n, g.block), 1, 1,
                                           g.block, 1, 1, 0, stream, arguments, nullptr));
         }
       }},
      {"cooperative kernel, grid.sync", 1, g.cooperative_grid > 0 ? cooperative : nullptr,
       g.no_cooperative}};
#if defined(__HIP_PLATFORM_AMD__)
  // hipLaunchKernelGGL plus optional start/stop events and flags (no launch count);
  // hipExtAnyOrderLaunch clears the barrier bit of the AQL packet.
  for (const unsigned int flags : {0u, unsigned{hipExtAnyOrderLaunch}}) {
    methods.push_back(
        {flags == 0 ? "hipExtLaunchKernelGGL" : "hipExtLaunchKernelGGL, hipExtAnyOrderLaunch", 0,
         [=, &b] {
           for (const Segment& s : b.segments) {
             hipExtLaunchKernelGGL(add_segment, dim3(blocks_for(s.n, g.block)), dim3(g.block), 0,
                                   stream, nullptr, nullptr, flags, s, hl::BlockTrace{});
             HIP_CHECK_LAUNCH();
           }
         }});
  }
#else
  methods.push_back({"hipExtLaunchKernelGGL", 0, nullptr,
                     "AMD-only (hip/hip_ext.h); CUDA has no launch with attached start/stop "
                     "events or an any-order flag"});
#endif
  return methods;
}

/// Check \p name: every element of the first \p segments segments of \p b's output (read back:
/// the stream is done) against \p expected; a failure names the first wrong segment: a skipped
/// queue item or a misdirected graph node.
inline hl::Verdict segments_match(const std::string& name, const Batch& b,
                                  const std::vector<float>& expected, unsigned int segments) {
  const std::size_t count = static_cast<std::size_t>(segments) * b.n;
  const std::vector<float> c = b.c.download();
  const std::optional<hl::Mismatch> wrong = hl::first_mismatch(expected.data(), c.data(), count);
  if (wrong)
    return {name, false,
            hl::format("segment {}: {}", wrong->index / b.n, hl::describe(*wrong, count))};
  return {name, true, hl::format("{} segments, {} elements match", segments, count)};
}

/// The rule of the persistent kernel's queue: each segment taken by exactly one block of the
/// \p grid. \p owner (0xFFFFFFFF: none) and \p claims are what the kernel noted per segment.
inline hl::Verdict each_segment_taken_once(const std::vector<unsigned int>& owner,
                                           const std::vector<unsigned int>& claims,
                                           unsigned int grid) {
  const std::string name = hl::format(
      "persistent kernel: every segment taken by exactly one block ({} segments, grid {})",
      owner.size(), grid);
  std::size_t k = 0;  // the first segment taken 0 or 2+ times, or by no block of the grid
  while (k < owner.size() && claims[k] == 1 && owner[k] < grid) ++k;
  if (k < owner.size()) {
    return {name, false,
            hl::format("segment {} taken {} time(s), owner {}", k, claims[k], owner[k])};
  }
  return {name, true,
          hl::format("each segment taken once; {} of the {} blocks took work",
                     std::set<unsigned int>(owner.begin(), owner.end()).size(), grid)};
}

/// The median time from one kernel's last block to the next kernel's first block.
inline std::optional<double> median_gap_us(const hl::Schedule& schedule) {
  const auto spans = schedule.launches();  // by launch, in launch order
  std::vector<double> gaps;
  for (auto it = spans.begin(); it != spans.end() && std::next(it) != spans.end(); ++it) {
    gaps.push_back(std::next(it)->second.span.start - it->second.span.end);
  }
  return gaps.empty() ? std::nullopt : std::optional(hl::median(std::move(gaps)));
}

/// The code object that the build makes from module_kernels.hip (a fatbin on NVIDIA, an AMDGPU
/// code object on AMD): beside the binary, else where the build wrote it.
inline std::string module_path() {
  const std::filesystem::path built = HIP_LESSONS_07_MODULE;
  std::error_code ignored;
  const std::filesystem::path beside =
      std::filesystem::read_symlink("/proc/self/exe", ignored).parent_path() / built.filename();
  if (std::filesystem::exists(beside, ignored)) return beside.string();
  if (std::filesystem::exists(built, ignored)) return built.string();
  throw std::runtime_error("the code object " + built.string() +
                           " is missing: rebuild the lesson, or copy it beside the binary");
}

}  // namespace batch
