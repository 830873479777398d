// HIP API test: cooperative groups and cooperative launch.
//
// GPU part: hipDeviceAttributeCooperativeLaunch agrees with hipDeviceProp_t; a kernel
// launched with hipLaunchCooperativeKernel on the largest co-resident grid sums random
// inputs per block (thread_block_tile<32> shuffles, thread_block::sync), passes
// grid_group::sync(), and then reads what *other* blocks wrote before the barrier (its
// neighbour's partial sum and the grand total of all partials); the host checks every
// value. A dynamic tiled_partition(block, 16) reports its rank and size. One block more
// than fits is refused with hipErrorCooperativeLaunchTooLarge.
// HIP 5.2's AMD cooperative-groups header needs hip_runtime.h first (it uses hipBlockDim_x).
#include <hip/hip_runtime.h>
// (keep this order)
#include <hip/hip_cooperative_groups.h>

#include <random>
#include <vector>

#include "check.h"

namespace cg = cooperative_groups;

namespace {

constexpr unsigned kSeed = 20240913u;
constexpr int kBlock = 256;
constexpr int kTile = 32;
constexpr int kPerBlock = 1024;  // inputs summed by one block
constexpr int kDynamicTile = 16;

/// Phase 1: block b sums in[b * kPerBlock ...] into partial[b]. grid.sync(). Phase 2:
/// block b stores partial[(b + 1) % blocks] (written by another block) and the sum of
/// every partial. Also records grid.thread_rank(), grid.size() and the dynamic tile's
/// rank and size, for the host to check.
__global__ void two_phase(const int* in, int* partial, int* neighbour, long long* total,
                          unsigned long long* grid_rank, unsigned long long* grid_size,
                          int* tile_rank, int* tile_size) {
  __shared__ int tile_sums[kBlock / kTile];
  cg::thread_block block = cg::this_thread_block();
  cg::grid_group grid = cg::this_grid();
  const unsigned b = hipBlockIdx_x;
  const unsigned blocks = hipGridDim_x;
  const unsigned t = block.thread_rank();
  const unsigned global = b * kBlock + t;

  grid_rank[global] = static_cast<unsigned long long>(grid.thread_rank());
  if (global == 0) *grid_size = static_cast<unsigned long long>(grid.size());
  cg::thread_group dynamic_tile = cg::tiled_partition(block, kDynamicTile);
  tile_rank[global] = static_cast<int>(dynamic_tile.thread_rank());
  tile_size[global] = static_cast<int>(dynamic_tile.size());

  int v = 0;
  for (unsigned i = t; i < static_cast<unsigned>(kPerBlock); i += block.size())
    v += in[b * kPerBlock + i];
  auto tile = cg::tiled_partition<kTile>(block);
  for (int offset = kTile / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
  if (tile.thread_rank() == 0) tile_sums[t / kTile] = v;
  block.sync();
  if (t == 0) {
    int s = 0;
    for (int w = 0; w < kBlock / kTile; ++w) s += tile_sums[w];
    partial[b] = s;
  }

  grid.sync();  // every block's partial is written and visible

  if (t == 0) {
    neighbour[b] = partial[(b + 1) % blocks];
    long long sum = 0;
    for (unsigned other = 0; other < blocks; ++other) sum += partial[other];
    total[b] = sum;
  }
}

template <typename T>
T* device_array(size_t count, const char* what) {
  T* p = nullptr;
  CHECK_HIP(hipMalloc(&p, count * sizeof(T)), hip_api_test::fmt("hipMalloc %s", what));
  return p;
}

template <typename T>
std::vector<T> to_host(const T* d, size_t count, const char* what) {
  std::vector<T> h(count);
  CHECK_HIP(hipMemcpy(h.data(), d, count * sizeof(T), hipMemcpyDeviceToHost),
            hip_api_test::fmt("copy back %s", what));
  return h;
}

/// Index of the first element where `actual` differs from `expected(i)`, or -1.
template <typename T, typename F>
long long first_mismatch(const std::vector<T>& actual, F expected) {
  for (size_t i = 0; i < actual.size(); ++i)
    if (actual[i] != expected(i)) return static_cast<long long>(i);
  return -1;
}

void run(const hipDeviceProp_t& prop, hipStream_t stream) {
  int per_sm = 0;
  CHECK_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm, reinterpret_cast<const void*>(&two_phase), kBlock, 0),
            "hipOccupancyMaxActiveBlocksPerMultiprocessor(two_phase)");
  const int blocks = per_sm * prop.multiProcessorCount;
  CHECK(blocks > 0, hip_api_test::fmt("co-resident grid: %d blocks/CU x %d CUs = %d", per_sm,
                                      prop.multiProcessorCount, blocks));
  if (blocks <= 0) return;
  const size_t threads = static_cast<size_t>(blocks) * kBlock;

  std::mt19937 rng(kSeed);
  std::uniform_int_distribution<int> value(-1000, 1000);
  std::vector<int> in(static_cast<size_t>(blocks) * kPerBlock);
  for (int& x : in) x = value(rng);
  std::vector<long long> expected_partial(blocks, 0);
  long long expected_total = 0;
  for (int b = 0; b < blocks; ++b) {
    for (int i = 0; i < kPerBlock; ++i)
      expected_partial[b] += in[static_cast<size_t>(b) * kPerBlock + i];
    expected_total += expected_partial[b];
  }

  int* d_in = device_array<int>(in.size(), "inputs");
  int* d_partial = device_array<int>(blocks, "partials");
  int* d_neighbour = device_array<int>(blocks, "neighbours");
  long long* d_total = device_array<long long>(blocks, "totals");
  unsigned long long* d_grid_rank = device_array<unsigned long long>(threads, "grid ranks");
  unsigned long long* d_grid_size = device_array<unsigned long long>(1, "grid size");
  int* d_tile_rank = device_array<int>(threads, "tile ranks");
  int* d_tile_size = device_array<int>(threads, "tile sizes");
  CHECK_HIP(hipMemcpy(d_in, in.data(), in.size() * sizeof(int), hipMemcpyHostToDevice),
            "copy inputs");
  CHECK_HIP(hipMemset(d_partial, 0, blocks * sizeof(int)), "clear partials");

  void* args[] = {&d_in,        &d_partial,   &d_neighbour, &d_total,
                  &d_grid_rank, &d_grid_size, &d_tile_rank, &d_tile_size};
  CHECK_HIP(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(&two_phase), dim3(blocks),
                                       dim3(kBlock), args, 0, stream),
            hip_api_test::fmt("hipLaunchCooperativeKernel, %d blocks of %d", blocks, kBlock));
  CHECK_HIP(hipStreamSynchronize(stream), "cooperative kernel completes");

  const std::vector<int> partial = to_host(d_partial, blocks, "partials");
  const std::vector<int> neighbour = to_host(d_neighbour, blocks, "neighbours");
  const std::vector<long long> total = to_host(d_total, blocks, "totals");
  const std::vector<unsigned long long> grid_rank = to_host(d_grid_rank, threads, "grid ranks");
  const std::vector<unsigned long long> grid_size = to_host(d_grid_size, 1, "grid size");
  const std::vector<int> tile_rank = to_host(d_tile_rank, threads, "tile ranks");
  const std::vector<int> tile_size = to_host(d_tile_size, threads, "tile sizes");

  long long bad = first_mismatch(partial, [&](size_t b) { return expected_partial[b]; });
  CHECK(bad < 0, hip_api_test::fmt("phase 1: every block sum is right (bad block %lld)", bad));
  bad = first_mismatch(neighbour, [&](size_t b) { return expected_partial[(b + 1) % blocks]; });
  CHECK(bad < 0, hip_api_test::fmt("phase 2: neighbour's phase-1 sum seen (bad block %lld)", bad));
  bad = first_mismatch(total, [&](size_t) { return expected_total; });
  CHECK(bad < 0, hip_api_test::fmt("phase 2: all %d partials sum to %lld (bad block %lld)", blocks,
                                   expected_total, bad));
  bad = first_mismatch(grid_rank, [](size_t i) { return static_cast<unsigned long long>(i); });
  CHECK(bad < 0, hip_api_test::fmt("grid.thread_rank() is the global index (bad %lld)", bad));
  CHECK_EQ(grid_size[0], threads, "grid.size() is the number of threads in the grid");
  bad = first_mismatch(tile_rank, [](size_t i) { return static_cast<int>(i % kDynamicTile); });
  CHECK(bad < 0, hip_api_test::fmt("tiled_partition(block, %d).thread_rank() (bad %lld)",
                                   kDynamicTile, bad));
  bad = first_mismatch(tile_size, [](size_t) { return kDynamicTile; });
  CHECK(bad < 0,
        hip_api_test::fmt("tiled_partition(block, %d).size() (bad %lld)", kDynamicTile, bad));

  // The grid must be resident at once; one block more cannot be, and the runtime says so
  // before launching anything.
  CHECK_ERROR(
      hipLaunchCooperativeKernel(reinterpret_cast<const void*>(&two_phase), dim3(blocks + 1),
                                 dim3(kBlock), args, 0, stream),
      hipErrorCooperativeLaunchTooLarge,
      hip_api_test::fmt("%d blocks (one more than fits) is CooperativeLaunchTooLarge", blocks + 1));
  hip_api_test::ignore(hipGetLastError());
  CHECK_HIP(hipStreamSynchronize(stream), "stream healthy after the refused launch");

  for (void* p : {static_cast<void*>(d_in), static_cast<void*>(d_partial),
                  static_cast<void*>(d_neighbour), static_cast<void*>(d_total),
                  static_cast<void*>(d_grid_rank), static_cast<void*>(d_grid_size),
                  static_cast<void*>(d_tile_rank), static_cast<void*>(d_tile_size)})
    CHECK_HIP(hipFree(p), "hipFree");
}

}  // namespace

int main() {
  const int no_gpu = hip_api_test::require_gpu();
  if (no_gpu >= 0) return no_gpu;
  std::printf("seed %u\n", kSeed);
  CHECK_HIP(hipSetDevice(0), "hipSetDevice(0)");
  hipDeviceProp_t prop;
  CHECK_HIP(hipGetDeviceProperties(&prop, 0), "hipGetDeviceProperties");
  int attribute = -1;
  CHECK_HIP(hipDeviceGetAttribute(&attribute, hipDeviceAttributeCooperativeLaunch, 0),
            "hipDeviceGetAttribute(CooperativeLaunch)");
  CHECK_EQ(attribute, prop.cooperativeLaunch, "attribute agrees with prop.cooperativeLaunch");
  if (attribute != 1) {
    std::printf("skipped: device 0 has no cooperative launch\n");
    return hip_api_test::tally().failed > 0 ? 1 : hip_api_test::kExitSkip;
  }
  hipStream_t stream = nullptr;
  CHECK_HIP(hipStreamCreate(&stream), "hipStreamCreate");
  run(prop, stream);
  CHECK_HIP(hipStreamDestroy(stream), "hipStreamDestroy");
  CHECK_HIP(hipDeviceSynchronize(), "hipDeviceSynchronize");
  CHECK_HIP(hipGetLastError(), "no error left behind");
  return hip_api_test::finish();
}
