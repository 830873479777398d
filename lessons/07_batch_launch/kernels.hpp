/// \file lessons/07_batch_launch/kernels.hpp
/// \brief The segmented vector add of lesson 07, done five ways, and how each is launched.
///
/// A batch is `count` independent segments c = a + b of `n` elements each. The same device
/// routine (add_elements) does the arithmetic in every method; the methods differ only in how
/// the work reaches the GPU: one launch per segment, a graph of those launches, one fused
/// launch over all segments, a persistent kernel that pulls segments from a queue, or one
/// cooperative launch whose blocks meet at grid-wide barriers. (The module API's launches of
/// the same per-segment kernel, from a code object loaded at run time: module_launch.hpp.)
/// Shared by the lesson driver (main.hip) and its benchmarks (bench.hip), through batch.hpp.
/// The per-segment and persistent kernels take an hl::BlockTrace (block_trace.hpp): empty in
/// the timed runs, a recorder's slice where step 6 records on which unit and when each block
/// ran.
#pragma once

#include <hip/hip_runtime.h>
// (after hip_runtime.h: HIP 5.2's AMD cooperative-groups header needs it first)
#include <hip/hip_cooperative_groups.h>
#if defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_ext.h>
#endif

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "hip_lessons/block_trace.hpp"
#include "hip_lessons/hip_check.hpp"
#include "segment.hpp"

namespace batch {

namespace hl = hip_lessons;

/// A kernel that does nothing: what is left is the cost of launching it.
__global__ void empty_kernel() {}

//! [per_segment]
// Method 1 (and, captured, method 2): one launch per segment.
__global__ void add_segment(Segment s, hl::BlockTrace trace) {
  hl::BlockTimer timer(trace);
  add_elements(s, static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x,
               static_cast<std::size_t>(gridDim.x) * blockDim.x);
  timer.stop();
}
//! [per_segment]

//! [fused]
// Method 3: one launch for the whole batch. Block v of the batch works on segment
// v / blocks_per_segment; the loop over v lets a grid smaller than the batch cover it.
__global__ void add_segments_fused(const Segment* segments, unsigned int count,
                                   unsigned int blocks_per_segment) {
  const std::size_t batch_blocks = static_cast<std::size_t>(count) * blocks_per_segment;
  const std::size_t segment_stride = static_cast<std::size_t>(blocks_per_segment) * blockDim.x;
  for (std::size_t v = blockIdx.x; v < batch_blocks; v += gridDim.x) {
    add_elements(segments[v / blocks_per_segment],
                 (v % blocks_per_segment) * blockDim.x + threadIdx.x, segment_stride);
  }
}
//! [fused]

/// Where the persistent kernel notes, per segment, which block took it (owner) and how many
/// times it was taken (claims): step 6 checks that every segment was taken exactly once. Null
/// in the timed runs.
struct SegmentOwners {
  unsigned int* owner = nullptr;
  unsigned int* claims = nullptr;
};

//! [persistent]
// Method 4: a grid that fits on the device at once stays resident and takes work items from a
// queue in device memory (an atomic counter) until it is empty: one launch, and the blocks
// balance the work among themselves.
__global__ void add_segments_persistent(const Segment* segments, unsigned int count,
                                        unsigned int* next_item, hl::BlockTrace trace,
                                        SegmentOwners owners) {
  hl::BlockTimer timer(trace);
  __shared__ unsigned int item;
  for (;;) {
    if (threadIdx.x == 0) item = atomicAdd(next_item, 1u);
    __syncthreads();
    const unsigned int k = item;
    __syncthreads();        // every thread has read `item` before thread 0 takes the next one
    if (k >= count) break;  // the same k for the whole block: all threads leave together
    if (owners.claims != nullptr && threadIdx.x == 0) {
      atomicAdd(&owners.claims[k], 1u);
      owners.owner[k] = blockIdx.x;
    }
    add_elements(segments[k], threadIdx.x, blockDim.x);
  }
  timer.stop();  // reached by every thread: they all leave the loop at the same k
}
//! [persistent]

//! [cooperative]
// Method 6: one cooperative launch walks the batch in rounds of gridDim.x segments, block b
// taking segment round x gridDim.x + b. grid.sync() ends each round: no block starts the next
// round before every block has finished this one, which is what a kernel boundary gives
// dependent launches, here without going back to the host. A block waiting at the barrier
// holds its place on the GPU, so the barrier can only complete if every block of the grid is
// resident at once: that is what hipLaunchCooperativeKernel checks before it launches.
__global__ void add_segments_cooperative(const Segment* segments, unsigned int count) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  for (unsigned int first = 0; first < count; first += gridDim.x) {
    const unsigned int k = first + blockIdx.x;
    if (k < count) add_elements(segments[k], threadIdx.x, blockDim.x);
    grid.sync();
  }
}
//! [cooperative]

/// Method 1: one launch per segment, each checked. With a \p recorder, each launch records its
/// blocks in a slice of its own (captured into a graph, each node keeps its slice).
inline void launch_individually(const std::vector<Segment>& segments, unsigned int block,
                                hipStream_t stream, hl::BlockTraceRecorder* recorder = nullptr) {
  for (const Segment& s : segments) {
    const unsigned int blocks = blocks_for(s.n, block);
    const hl::BlockTrace trace =
        recorder != nullptr ? recorder->reserve("add_segment", blocks, 0) : hl::BlockTrace{};
    hipLaunchKernelGGL(add_segment, dim3(blocks), dim3(block), 0, stream, s, trace);
    HIP_CHECK_LAUNCH();
  }
}

#if defined(__HIP_PLATFORM_AMD__)
//! [ext_launch]
// hip/hip_ext.h (AMD only):
//   hipExtLaunchKernelGGL(kernel, grid, block, sharedMemBytes, stream,
//                         startEvent, stopEvent, flags, args...)
// One launch, like hipLaunchKernelGGL: there is no launch count. flags = hipExtAnyOrderLaunch
// makes the runtime clear the barrier bit of this kernel's AQL packet, so the packet processor
// need not wait for the previous packet of the queue to finish. hip_ext.h notes (on
// hipExtModuleLaunchKernel) that the flag "is not supported on AMD GFX9xx boards": Vega and the
// CDNA Instinct GPUs (MI100, MI200, MI300). The runtime clears the bit there too, but nothing
// promises an overlap, so the lesson measures what it gives.
// The template drops hipExtLaunchKernel's return value; errors come from hipGetLastError.
inline void launch_individually_ext(const std::vector<Segment>& segments, unsigned int block,
                                    hipStream_t stream, unsigned int flags) {
  for (const Segment& s : segments) {
    hipExtLaunchKernelGGL(add_segment, dim3(blocks_for(s.n, block)), dim3(block), 0, stream,
                          nullptr, nullptr, flags, s, hl::BlockTrace{});
    HIP_CHECK_LAUNCH();
  }
}
//! [ext_launch]
#endif

/// Largest grid of the fused launch; a bigger batch is covered by the kernel's loop.
constexpr unsigned int kMaxFusedGrid = 1u << 20;

/// Method 3: one launch over the \p count segments of \p table (device memory), each of at
/// most \p segment_elements elements.
inline void launch_fused(const Segment* table, unsigned int count, std::size_t segment_elements,
                         unsigned int block, hipStream_t stream) {
  const unsigned int per_segment = blocks_for(segment_elements, block);
  const std::size_t batch_blocks = static_cast<std::size_t>(count) * per_segment;
  const auto grid = static_cast<unsigned int>(std::min<std::size_t>(batch_blocks, kMaxFusedGrid));
  hipLaunchKernelGGL(add_segments_fused, dim3(grid), dim3(block), 0, stream, table, count,
                     per_segment);
  HIP_CHECK_LAUNCH();
}

/// The persistent grid: as many blocks as the device keeps resident at once (lesson 04).
inline unsigned int persistent_grid(unsigned int block, int compute_units) {
  int per_cu = 0;
  HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_cu, reinterpret_cast<const void*>(add_segments_persistent), static_cast<int>(block), 0));
  return static_cast<unsigned int>(std::max(per_cu, 1) * compute_units);
}

/// Method 4: empty the queue (reset the counter), then one persistent launch; a non-empty
/// \p trace records its blocks, non-null \p owners which block took each segment.
inline void launch_persistent(const Segment* table, unsigned int count, unsigned int* counter,
                              unsigned int grid, unsigned int block, hipStream_t stream,
                              hl::BlockTrace trace = {}, SegmentOwners owners = {}) {
  HIP_CHECK(hipMemsetAsync(counter, 0, sizeof(unsigned int), stream));
  hipLaunchKernelGGL(add_segments_persistent, dim3(grid), dim3(block), 0, stream, table, count,
                     counter, trace, owners);
  HIP_CHECK_LAUNCH();
}

//! [cooperative_launch]
/// The largest cooperative grid: blocks resident at once per compute unit (lesson 04's
/// occupancy) times compute units, the limit that hipLaunchCooperativeKernel enforces. 0 when
/// the device has no cooperative launch (hipDeviceAttributeCooperativeLaunch).
inline unsigned int cooperative_grid(int device, unsigned int block, int compute_units) {
  int supported = 0;
  HIP_CHECK(hipDeviceGetAttribute(&supported, hipDeviceAttributeCooperativeLaunch, device));
  if (supported == 0) return 0;
  int per_cu = 0;
  HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_cu, reinterpret_cast<const void*>(add_segments_cooperative), static_cast<int>(block),
      0));
  return static_cast<unsigned int>(per_cu * compute_units);
}

/// Method 6 with a \p grid of the caller's choice. The arguments go by address, one pointer
/// per kernel parameter. Returns the launch's error instead of throwing it: a grid larger than
/// cooperative_grid() is refused with hipErrorCooperativeLaunchTooLarge, and nothing runs.
inline hipError_t launch_cooperative(const Segment* table, unsigned int count, unsigned int grid,
                                     unsigned int block, hipStream_t stream) {
  void* arguments[] = {&table, &count};
  return hipLaunchCooperativeKernel(reinterpret_cast<const void*>(add_segments_cooperative),
                                    dim3(grid), dim3(block), arguments, 0, stream);
}
//! [cooperative_launch]

/// An instantiated graph and the graph it came from; destroyed with its owner. Move-only.
class Graph {
 public:
  Graph() = default;
  ~Graph() { release(); }
  Graph(Graph&& other) noexcept
      : graph_(std::exchange(other.graph_, nullptr)), exec_(std::exchange(other.exec_, nullptr)) {}
  Graph& operator=(Graph&& other) noexcept {
    if (this != &other) {
      release();
      graph_ = std::exchange(other.graph_, nullptr);
      exec_ = std::exchange(other.exec_, nullptr);
    }
    return *this;
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  //! [capture]
  /// Records what \p enqueue puts on \p stream (nothing runs), then instantiates it: the
  /// runtime validates and prepares the whole batch once, so each replay is one call.
  template <class Work>
  static Graph capture(hipStream_t stream, Work&& enqueue) {
    Graph g;
    HIP_CHECK(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal));
    try {
      enqueue();
    } catch (...) {
      hipGraph_t partial = nullptr;  // leave the stream usable, then report the first error
      (void)hipStreamEndCapture(stream, &partial);
      if (partial != nullptr) (void)hipGraphDestroy(partial);
      throw;
    }
    HIP_CHECK(hipStreamEndCapture(stream, &g.graph_));
    char log[256] = {};
    hipGraphNode_t error_node = nullptr;
    HIP_CHECK(hipGraphInstantiate(&g.exec_, g.graph_, &error_node, log, sizeof log));
    return g;
  }
  //! [capture]

  /// Replays the whole batch on \p stream with one call.
  void launch(hipStream_t stream) const { HIP_CHECK(hipGraphLaunch(exec_, stream)); }

  hipGraph_t graph() const noexcept { return graph_; }
  hipGraphExec_t exec() const noexcept { return exec_; }

 private:
  void release() noexcept {
    if (exec_ != nullptr) (void)hipGraphExecDestroy(exec_);
    if (graph_ != nullptr) (void)hipGraphDestroy(graph_);
    exec_ = nullptr;
    graph_ = nullptr;
  }
  hipGraph_t graph_ = nullptr;
  hipGraphExec_t exec_ = nullptr;
};

}  // namespace batch
