// HIP API test: kernel launch and kernel-side names.
//
// GPU part: the three launch forms (hipLaunchKernelGGL, triple chevron, hipLaunchKernel)
// compute the same vector sum; dynamic shared memory (HIP_DYNAMIC_SHARED), the mask-less
// warp intrinsics (__shfl*, __ballot, __any, __all) with warpSize, __launch_bounds__,
// hipFuncGetAttributes / hipFuncSetAttribute / hipFuncSetCacheConfig, cooperative launch,
// and an oversized block that must be rejected at launch.
#include <random>
#include <vector>

#include "check.h"

namespace {

constexpr unsigned kSeed = 424242u;
constexpr int kBoundedThreads = 256;
constexpr int kTileWords = 1024;

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = static_cast<int>(hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x);
  if (i < n) c[i] = a[i] + b[i];
}

/// One partial sum per block, through dynamic shared memory of blockDim ints.
__global__ void block_sum(const int* in, int* out) {
  HIP_DYNAMIC_SHARED(int, partial)
  const unsigned t = hipThreadIdx_x;
  partial[t] = in[hipBlockIdx_x * hipBlockDim_x + t];
  __syncthreads();
  for (unsigned stride = hipBlockDim_x / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) out[hipBlockIdx_x] = partial[0];
}

/// Per warp: sum by __shfl_down (lane 0 writes), sum by __shfl_xor (every lane has it),
/// broadcast by __shfl, neighbour by __shfl_up, and votes.
__global__ void warp_ops(const int* in, int* down_sum, int* xor_sum, int* broadcast, int* up,
                         int* votes) {
  const int i = static_cast<int>(hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x);
  const int lane = static_cast<int>(hipThreadIdx_x) % warpSize;
  const int warp = i / warpSize;
  const int v = in[i];
  int sum = v;
  for (int offset = warpSize / 2; offset > 0; offset /= 2) sum += __shfl_down(sum, offset);
  if (lane == 0) down_sum[warp] = sum;
  int all = v;
  for (int mask = warpSize / 2; mask > 0; mask /= 2) all += __shfl_xor(all, mask);
  xor_sum[i] = all;
  broadcast[i] = __shfl(v, 0);
  up[i] = __shfl_up(v, 1);
  const unsigned long long even_lanes = __ballot(lane % 2 == 0);
  const int any_big = __any(v > 1000) ? 1 : 0;
  const int all_small = __all(v < 1000000) ? 1 : 0;
  if (lane == 0) {
    votes[3 * warp + 0] = __popcll(even_lanes);
    votes[3 * warp + 1] = any_big;
    votes[3 * warp + 2] = all_small;
  }
}

__global__ __launch_bounds__(kBoundedThreads) void bounded(int* out) {
  __shared__ int tile[kTileWords];
  for (int k = static_cast<int>(hipThreadIdx_x); k < kTileWords;
       k += static_cast<int>(hipBlockDim_x)) {
    tile[k] = k;
  }
  __syncthreads();
  out[hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x] = tile[(hipThreadIdx_x * 7) % kTileWords];
}

/// Fills `words` ints of dynamic shared memory and copies them out (block 0 only).
__global__ void big_shared(int* out, int words) {
  HIP_DYNAMIC_SHARED(int, buffer)
  for (int k = static_cast<int>(hipThreadIdx_x); k < words; k += static_cast<int>(hipBlockDim_x)) {
    buffer[k] = 3 * k + 1;
  }
  __syncthreads();
  for (int k = static_cast<int>(hipThreadIdx_x); k < words; k += static_cast<int>(hipBlockDim_x)) {
    out[k] = buffer[words - 1 - k];
  }
}

__global__ void write_block_index(int* out) {
  if (hipThreadIdx_x == 0) out[hipBlockIdx_x] = static_cast<int>(hipBlockIdx_x);
}

std::vector<int> random_ints(size_t n, unsigned seed, int lo, int hi) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int> v(n);
  for (int& x : v) x = dist(rng);
  return v;
}

void launch_forms(hipStream_t stream) {
  const int n = 1000003;  // not a multiple of the block size
  std::mt19937 rng(kSeed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> a(n);
  std::vector<float> b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = dist(rng);
    b[i] = dist(rng);
  }
  float* da = nullptr;
  float* db = nullptr;
  float* dc = nullptr;
  const size_t bytes = n * sizeof(float);
  CHECK_HIP(hipMalloc(&da, bytes), "hipMalloc a");
  CHECK_HIP(hipMalloc(&db, bytes), "hipMalloc b");
  CHECK_HIP(hipMalloc(&dc, bytes), "hipMalloc c");
  CHECK_HIP(hipMemcpy(da, a.data(), bytes, hipMemcpyHostToDevice), "copy a");
  CHECK_HIP(hipMemcpy(db, b.data(), bytes, hipMemcpyHostToDevice), "copy b");
  const int block = 256;
  const int grid = (n + block - 1) / block;  // grid = ceil(n / block), block = 256

  auto verify = [&](const char* form) {
    std::vector<float> c(n, -99.0f);
    CHECK_HIP(hipMemcpy(c.data(), dc, bytes, hipMemcpyDeviceToHost),
              hip_api_test::fmt("copy c (%s)", form));
    int bad = -1;
    for (int i = 0; i < n && bad < 0; ++i)
      if (c[i] != a[i] + b[i]) bad = i;
    CHECK(bad < 0, hip_api_test::fmt(
                       "%s: all %d sums correct%s", form, n,
                       bad < 0 ? "" : hip_api_test::fmt(" (first mismatch at %d)", bad).c_str()));
    CHECK_HIP(hipMemset(dc, 0xff, bytes), "poison c");
  };

  CHECK_HIP(hipMemset(dc, 0xff, bytes), "poison c");
  hipLaunchKernelGGL(vector_add, dim3(grid), dim3(block), 0, stream, da, db, dc, n);
  CHECK_HIP(hipGetLastError(), "hipLaunchKernelGGL launched");
  CHECK_HIP(hipStreamSynchronize(stream), "hipLaunchKernelGGL finished");
  verify("hipLaunchKernelGGL");

  vector_add<<<grid, block, 0, stream>>>(da, db, dc, n);
  CHECK_HIP(hipGetLastError(), "triple-chevron launch");
  CHECK_HIP(hipStreamSynchronize(stream), "triple-chevron finished");
  verify("triple chevron");

  const float* ca = da;
  const float* cb = db;
  int count = n;
  void* args[] = {&ca, &cb, &dc, &count};
  CHECK_HIP(hipLaunchKernel(reinterpret_cast<const void*>(&vector_add), dim3(grid), dim3(block),
                            args, 0, stream),
            "hipLaunchKernel");
  CHECK_HIP(hipStreamSynchronize(stream), "hipLaunchKernel finished");
  verify("hipLaunchKernel");

  CHECK_HIP(hipFree(da), "hipFree a");
  CHECK_HIP(hipFree(db), "hipFree b");
  CHECK_HIP(hipFree(dc), "hipFree c");
}

void shared_and_warp(const hipDeviceProp_t& prop, hipStream_t stream) {
  const int block = 256;
  const int blocks = 64;
  const int n = block * blocks;
  const std::vector<int> in = random_ints(n, kSeed + 1, -5000, 5000);
  int* d_in = nullptr;
  int* d_out = nullptr;
  CHECK_HIP(hipMalloc(&d_in, n * sizeof(int)), "hipMalloc in");
  CHECK_HIP(hipMalloc(&d_out, 6 * n * sizeof(int)), "hipMalloc out");
  CHECK_HIP(hipMemcpy(d_in, in.data(), n * sizeof(int), hipMemcpyHostToDevice), "copy in");

  hipLaunchKernelGGL(block_sum, dim3(blocks), dim3(block), block * sizeof(int), stream, d_in,
                     d_out);
  CHECK_HIP(hipGetLastError(), "block_sum launched with dynamic shared memory");
  std::vector<int> sums(blocks, 0);
  CHECK_HIP(hipMemcpy(sums.data(), d_out, blocks * sizeof(int), hipMemcpyDeviceToHost),
            "copy sums");
  int bad = -1;
  for (int g = 0; g < blocks && bad < 0; ++g) {
    int want = 0;
    for (int t = 0; t < block; ++t) want += in[g * block + t];
    if (sums[g] != want) bad = g;
  }
  CHECK(bad < 0,
        hip_api_test::fmt("HIP_DYNAMIC_SHARED block sums correct%s",
                          bad < 0 ? "" : hip_api_test::fmt(" (first bad block %d)", bad).c_str()));

  const int w = prop.warpSize;
  const int warps = n / w;
  int* down = d_out;
  int* xors = d_out + n;
  int* bcast = d_out + 2 * n;
  int* up = d_out + 3 * n;
  int* votes = d_out + 4 * n;
  hipLaunchKernelGGL(warp_ops, dim3(blocks), dim3(block), 0, stream, d_in, down, xors, bcast, up,
                     votes);
  CHECK_HIP(hipGetLastError(), "warp_ops launched");
  std::vector<int> out(6 * n, 0);
  CHECK_HIP(hipMemcpy(out.data(), d_out, 6 * n * sizeof(int), hipMemcpyDeviceToHost),
            "copy warp results");
  int bad_down = -1, bad_xor = -1, bad_bcast = -1, bad_up = -1, bad_vote = -1;
  for (int warp = 0; warp < warps; ++warp) {
    int want = 0;
    bool any_big = false;
    for (int l = 0; l < w; ++l) {
      want += in[warp * w + l];
      any_big = any_big || in[warp * w + l] > 1000;
    }
    if (out[warp] != want && bad_down < 0) bad_down = warp;
    for (int l = 0; l < w; ++l) {
      const int i = warp * w + l;
      if (out[n + i] != want && bad_xor < 0) bad_xor = i;
      if (out[2 * n + i] != in[warp * w] && bad_bcast < 0) bad_bcast = i;
      if (l > 0 && out[3 * n + i] != in[i - 1] && bad_up < 0) bad_up = i;
    }
    const int* v = &out[4 * n + 3 * warp];
    if ((v[0] != w / 2 || v[1] != (any_big ? 1 : 0) || v[2] != 1) && bad_vote < 0) bad_vote = warp;
  }
  CHECK(bad_down < 0, hip_api_test::fmt("__shfl_down warp sums (warpSize %d) correct (bad warp %d)",
                                        w, bad_down));
  CHECK(bad_xor < 0,
        hip_api_test::fmt("__shfl_xor gives every lane the warp sum (bad index %d)", bad_xor));
  CHECK(bad_bcast < 0, hip_api_test::fmt("__shfl broadcasts lane 0 (bad index %d)", bad_bcast));
  CHECK(bad_up < 0,
        hip_api_test::fmt("__shfl_up passes the lower neighbour (bad index %d)", bad_up));
  CHECK(bad_vote < 0,
        hip_api_test::fmt("__ballot / __any / __all votes correct (bad warp %d)", bad_vote));
  CHECK_HIP(hipFree(d_in), "hipFree in");
  CHECK_HIP(hipFree(d_out), "hipFree out");
}

void attributes(const hipDeviceProp_t& prop, hipStream_t stream) {
  hipFuncAttributes attr{};
  if (CHECK_HIP(hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(&bounded)),
                "hipFuncGetAttributes(bounded)")) {
    CHECK(attr.maxThreadsPerBlock > 0 && attr.maxThreadsPerBlock <= kBoundedThreads,
          hip_api_test::fmt("__launch_bounds__(%d) caps maxThreadsPerBlock (%d)", kBoundedThreads,
                            attr.maxThreadsPerBlock));
    CHECK(attr.sharedSizeBytes >= kTileWords * sizeof(int),
          hip_api_test::fmt("static shared memory %zu >= %zu bytes", attr.sharedSizeBytes,
                            kTileWords * sizeof(int)));
    CHECK(attr.numRegs >= 0, hip_api_test::fmt("numRegs %d", attr.numRegs));
  }
  int* d = nullptr;
  const int blocks = 8;
  CHECK_HIP(hipMalloc(&d, blocks * kBoundedThreads * sizeof(int)), "hipMalloc");
  hipLaunchKernelGGL(bounded, dim3(blocks), dim3(kBoundedThreads), 0, stream, d);
  CHECK_HIP(hipGetLastError(), "launch at the __launch_bounds__ size");
  CHECK_HIP(hipStreamSynchronize(stream), "bounded kernel finished");
  CHECK_HIP(hipFree(d), "hipFree");

  CHECK_HIP(
      hipFuncSetCacheConfig(reinterpret_cast<const void*>(&vector_add), hipFuncCachePreferShared),
      "hipFuncSetCacheConfig(PreferShared)");

  // Dynamic shared memory beyond the default 48 KiB needs an opt-in on NVIDIA.
  int optin = 0;
  size_t bytes = 32 * 1024;
  if (hipDeviceGetAttribute(&optin, hipDeviceAttributeSharedMemPerBlockOptin, 0) == hipSuccess &&
      static_cast<size_t>(optin) > bytes) {
    bytes = static_cast<size_t>(optin);
  }
  hip_api_test::ignore(hipGetLastError());
  const int words = static_cast<int>(bytes / sizeof(int));
  CHECK_HIP(
      hipFuncSetAttribute(reinterpret_cast<const void*>(&big_shared),
                          hipFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)),
      hip_api_test::fmt("hipFuncSetAttribute(MaxDynamicSharedMemorySize, %zu)", bytes));
  int* out = nullptr;
  CHECK_HIP(hipMalloc(&out, bytes), "hipMalloc");
  hipLaunchKernelGGL(big_shared, dim3(1), dim3(256), bytes, stream, out, words);
  CHECK_HIP(hipGetLastError(),
            hip_api_test::fmt("launch with %zu bytes of dynamic shared memory", bytes));
  std::vector<int> host(words, -1);
  CHECK_HIP(hipMemcpy(host.data(), out, bytes, hipMemcpyDeviceToHost), "copy back");
  int bad = -1;
  for (int k = 0; k < words && bad < 0; ++k)
    if (host[k] != 3 * (words - 1 - k) + 1) bad = k;
  CHECK(bad < 0,
        hip_api_test::fmt("%d words of dynamic shared memory correct (bad %d)", words, bad));
  CHECK_HIP(hipFree(out), "hipFree");

  // A block larger than the device allows is rejected. Which code says so depends on the
  // runtime: CUDA 13.0 on an H200 reports invalid value, other runtimes invalid configuration.
  hipLaunchKernelGGL(write_block_index, dim3(1), dim3(prop.maxThreadsPerBlock * 2), 0, stream,
                     nullptr);
  const hipError_t oversized = hipGetLastError();
  CHECK(oversized == hipErrorInvalidConfiguration || oversized == hipErrorInvalidValue,
        hip_api_test::fmt("block of %d threads is rejected (got %s)", prop.maxThreadsPerBlock * 2,
                          hipGetErrorName(oversized)));
  CHECK_HIP(hipGetLastError(), "launch error is not sticky");
}

void cooperative(const hipDeviceProp_t& prop, hipStream_t stream) {
  if (!prop.cooperativeLaunch) {
    std::printf("note: cooperative launch not supported, cooperative checks left out\n");
    return;
  }
  const int block = 128;
  int per_sm = 0;
  CHECK_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm, reinterpret_cast<const void*>(&write_block_index), block, 0),
            "hipOccupancyMaxActiveBlocksPerMultiprocessor");
  const int grid = per_sm * prop.multiProcessorCount;
  int* d = nullptr;
  CHECK_HIP(hipMalloc(&d, (grid + 1) * sizeof(int)), "hipMalloc");
  void* args[] = {&d};
  CHECK_HIP(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(&write_block_index),
                                       dim3(grid), dim3(block), args, 0, stream),
            hip_api_test::fmt("hipLaunchCooperativeKernel with %d co-resident blocks", grid));
  std::vector<int> host(grid, -1);
  CHECK_HIP(hipMemcpy(host.data(), d, grid * sizeof(int), hipMemcpyDeviceToHost), "copy back");
  int bad = -1;
  for (int g = 0; g < grid && bad < 0; ++g)
    if (host[g] != g) bad = g;
  CHECK(bad < 0, hip_api_test::fmt("every cooperative block ran (bad %d)", bad));
  CHECK_ERROR(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(&write_block_index),
                                         dim3(grid + 1), dim3(block), args, 0, stream),
              hipErrorCooperativeLaunchTooLarge,
              "one block more than fits is CooperativeLaunchTooLarge");
  hip_api_test::ignore(hipGetLastError());
  CHECK_HIP(hipFree(d), "hipFree");
}

}  // namespace

int main() {
  const int no_gpu = hip_api_test::require_gpu();
  if (no_gpu >= 0) return no_gpu;
  std::printf("seed %u\n", kSeed);
  CHECK_HIP(hipSetDevice(0), "hipSetDevice(0)");
  hipDeviceProp_t prop;
  CHECK_HIP(hipGetDeviceProperties(&prop, 0), "hipGetDeviceProperties");
  hipStream_t stream = nullptr;
  CHECK_HIP(hipStreamCreate(&stream), "hipStreamCreate");
  launch_forms(stream);
  shared_and_warp(prop, stream);
  attributes(prop, stream);
  cooperative(prop, stream);
  CHECK_HIP(hipStreamDestroy(stream), "hipStreamDestroy");
  CHECK_HIP(hipDeviceSynchronize(), "hipDeviceSynchronize");
  CHECK_HIP(hipGetLastError(), "no error left behind");
  return hip_api_test::finish();
}
