// Lesson 05, first look: streams share a few hardware queues, so the order of launches matters.
//
// The GPU takes work from a few hardware queues, and the runtime maps every stream onto one of
// them (GPU_MAX_HW_QUEUES on AMD, default 4; CUDA_DEVICE_MAX_CONNECTIONS on NVIDIA, default 8).
// A queue hands its commands over in order. So when streams share a queue, a kernel that must
// wait for the kernel before it in its own stream also holds back the other streams' kernels
// queued behind it: a false dependency. Here 16 streams each run a chain of 4 kernels, and the
// same 64 launches are issued in two orders: depth-first (stream 0's whole chain, then stream
// 1's...) and breadth-first (every stream's first kernel, then every stream's second...).
// Run it again with GPU_MAX_HW_QUEUES=1 (AMD) or CUDA_DEVICE_MAX_CONNECTIONS=1 (NVIDIA) to see
// one queue. The full lesson runs itself once per setting, traces the one-queue runs block by
// block, and adds the serialization switch, the host's waiting policy and AMD's copy knobs.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "hip_lessons/minimal_hip_check.hpp"

constexpr int kStreams = 16, kChain = 4;

//! [kernel]
// One thread, busy for `rounds` dependent multiply-adds, then done. Step k of a chain adds k + 1,
// so the result depends on the order of the steps: a chain run out of order gives a wrong word.
__global__ void chain_step(std::uint32_t* words, int stream, int step, int rounds) {
  std::uint32_t v = words[stream];
  for (int r = 0; r < rounds; ++r) v = v * 2891336453u + static_cast<std::uint32_t>(step + 1);
  words[stream] = v;
}
//! [kernel]

// Issues every chain in one order and returns the time from the first launch to the last
// kernel's end, measured with events on the null stream, which waits for all streams.
float issue(bool depth_first, const std::vector<hipStream_t>& streams, std::uint32_t* words,
            int rounds) {
  hipEvent_t start, stop;
  HIP_CHECK(hipEventCreate(&start));
  HIP_CHECK(hipEventCreate(&stop));
  HIP_CHECK(hipEventRecord(start, 0));
  //! [issue_orders]
  for (int i = 0; i < kStreams * kChain; ++i) {
    const int s = depth_first ? i / kChain : i % kStreams;  // which stream
    const int k = depth_first ? i % kChain : i / kStreams;  // which step of its chain
    hipLaunchKernelGGL(chain_step, dim3(1), dim3(1), 0, streams[s], words, s, k, rounds);
  }
  //! [issue_orders]
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipEventRecord(stop, 0));
  HIP_CHECK(hipEventSynchronize(stop));
  float ms = 0;
  HIP_CHECK(hipEventElapsedTime(&ms, start, stop));
  HIP_CHECK(hipEventDestroy(start));
  HIP_CHECK(hipEventDestroy(stop));
  return ms;
}

int main() {
  HIP_SKIP_WITHOUT_GPU();
  std::vector<hipStream_t> streams(kStreams);
  for (hipStream_t& stream : streams) HIP_CHECK(hipStreamCreate(&stream));
  std::vector<std::uint32_t> start(kStreams), got(kStreams);
  std::mt19937 generator(42);  // random start words: a missed or repeated step cannot hide
  for (std::uint32_t& word : start) word = static_cast<std::uint32_t>(generator());
  std::uint32_t* words = nullptr;
  const std::size_t bytes = kStreams * sizeof(std::uint32_t);
  HIP_CHECK(hipMalloc(&words, bytes));

  // Size a kernel to about 100 us, so that a kernel lasts much longer than a launch takes.
  int rounds = 1 << 14;
  for (int attempt = 0; attempt < 2; ++attempt) {  // the first also loads the kernel
    hipEvent_t a, b;
    HIP_CHECK(hipEventCreate(&a));
    HIP_CHECK(hipEventCreate(&b));
    HIP_CHECK(hipEventRecord(a, 0));
    hipLaunchKernelGGL(chain_step, dim3(1), dim3(1), 0, 0, words, 0, 0, rounds);
    HIP_CHECK(hipEventRecord(b, 0));
    HIP_CHECK(hipEventSynchronize(b));
    float ms = 0;
    HIP_CHECK(hipEventElapsedTime(&ms, a, b));
    if (attempt == 1) rounds = std::max(1, static_cast<int>(rounds * 0.1 / ms));
    HIP_CHECK(hipEventDestroy(a));
    HIP_CHECK(hipEventDestroy(b));
  }

  // The host reference: each stream's word through its 4 steps, in order.
  std::vector<std::uint32_t> expected = start;
  for (std::uint32_t& v : expected)
    for (int k = 0; k < kChain; ++k)
      for (int r = 0; r < rounds; ++r) v = v * 2891336453u + static_cast<std::uint32_t>(k + 1);

  float ms[2] = {0, 0};  // depth-first, breadth-first: the best of 5 runs each
  int wrong = 0;
  for (int run = 0; run < 10; ++run) {
    const bool depth_first = run % 2 == 0;
    HIP_CHECK(hipMemcpy(words, start.data(), bytes, hipMemcpyHostToDevice));
    const float t = issue(depth_first, streams, words, rounds);
    ms[depth_first ? 0 : 1] = run < 2 ? t : std::min(ms[depth_first ? 0 : 1], t);
    std::fill(got.begin(), got.end(), 0u);
    HIP_CHECK(hipMemcpy(got.data(), words, bytes, hipMemcpyDeviceToHost));
    for (int s = 0; s < kStreams; ++s) wrong += got[s] != expected[s];
  }
  HIP_CHECK(hipFree(words));
  for (hipStream_t stream : streams) HIP_CHECK(hipStreamDestroy(stream));
  const char* amd = std::getenv("GPU_MAX_HW_QUEUES");
  const char* nvidia = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  std::printf(
      "%d streams x %d kernels of %d rounds (GPU_MAX_HW_QUEUES=%s, "
      "CUDA_DEVICE_MAX_CONNECTIONS=%s): "
      "depth-first %.3f ms, breadth-first %.3f ms: %s (%d wrong chains of %d)\n",
      kStreams, kChain, rounds, amd ? amd : "unset", nvidia ? nvidia : "unset", ms[0], ms[1],
      wrong == 0 ? "ok" : "FAIL", wrong, 10 * kStreams);
  return wrong == 0 ? 0 : 1;
}
