// Lesson 07, first look: many small kernels, launched one by one and as one graph.
//
// Each launch costs the host a few microseconds, however little the kernel does. A graph
// records the launches once (stream capture) and then submits all of them with one call
// (hipGraphLaunch). Both ways here compute the same 1000 small vector adds; each is timed with
// events and checked against the host. The times are printed; only correctness sets the exit
// code. The full lesson (main.hip) adds one fused kernel, a persistent kernel, a cooperative
// kernel, the module API, new inputs for a graph, and a block-by-block trace of the gaps.
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "hip_lessons/minimal_hip_check.hpp"

// One small kernel: c = a + b over one segment of n elements.
__global__ void add_segment(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// The batch: kernel k adds segment k. Launches on one stream run in order.
void launch_batch(const float* a, const float* b, float* c, int count, int n, hipStream_t s) {
  for (int k = 0; k < count; ++k) {
    const int offset = k * n;
    hipLaunchKernelGGL(add_segment, dim3((n + 255) / 256), dim3(256), 0, s, a + offset, b + offset,
                       c + offset, n);
  }
}

// Every element against the host's sum; prints the first wrong one.
int count_wrong(const std::vector<float>& c, const std::vector<float>& a,
                const std::vector<float>& b) {
  int wrong = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (!(std::fabs(c[i] - (a[i] + b[i])) <= 1e-6f) && wrong++ == 0)
      std::printf("c[%zu] = %g, expected %g\n", i, c[i], a[i] + b[i]);
  }
  return wrong;
}

int main() {
  HIP_SKIP_WITHOUT_GPU();
  const int count = 1000, n = 4096, total = count * n;
  const std::size_t bytes = total * sizeof(float);
  std::vector<float> a(total), b(total), c(total);
  std::mt19937 generator(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (int i = 0; i < total; ++i) a[i] = uniform(generator), b[i] = uniform(generator);
  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  HIP_CHECK(hipMalloc(&d_a, bytes));
  HIP_CHECK(hipMalloc(&d_b, bytes));
  HIP_CHECK(hipMalloc(&d_c, bytes));
  HIP_CHECK(hipMemcpy(d_a, a.data(), bytes, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(d_b, b.data(), bytes, hipMemcpyHostToDevice));
  hipStream_t stream = nullptr;
  HIP_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  hipEvent_t start = nullptr, stop = nullptr;
  HIP_CHECK(hipEventCreate(&start));
  HIP_CHECK(hipEventCreate(&stop));

  //! [capture]
  // Capture: the launches are recorded into a graph, not run. Instantiate once, replay often.
  hipGraph_t graph = nullptr;
  hipGraphExec_t replay = nullptr;
  HIP_CHECK(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal));
  launch_batch(d_a, d_b, d_c, count, n, stream);
  HIP_CHECK(hipStreamEndCapture(stream, &graph));
  HIP_CHECK(hipGraphInstantiate(&replay, graph, nullptr, nullptr, 0));
  //! [capture]

  // The same batch both ways, each on a poisoned output (0xff bytes are NaN), timed on the
  // stream by two events. The first pass warms up (first launches load the kernel).
  float ms[2] = {0.0f, 0.0f};
  int wrong[2] = {0, 0};
  for (int pass = 0; pass < 2; ++pass) {
    for (int way = 0; way < 2; ++way) {
      HIP_CHECK(hipMemsetAsync(d_c, 0xff, bytes, stream));
      HIP_CHECK(hipEventRecord(start, stream));
      //! [two_ways]
      if (way == 0) launch_batch(d_a, d_b, d_c, count, n, stream);  // 1000 launch calls
      if (way == 1) HIP_CHECK(hipGraphLaunch(replay, stream));      // one call
      //! [two_ways]
      HIP_CHECK(hipGetLastError());
      HIP_CHECK(hipEventRecord(stop, stream));
      HIP_CHECK(hipEventSynchronize(stop));
      HIP_CHECK(hipEventElapsedTime(&ms[way], start, stop));
      HIP_CHECK(hipMemcpy(c.data(), d_c, bytes, hipMemcpyDeviceToHost));
      wrong[way] += count_wrong(c, a, b);
    }
  }

  HIP_CHECK(hipGraphExecDestroy(replay));
  HIP_CHECK(hipGraphDestroy(graph));
  HIP_CHECK(hipEventDestroy(start));
  HIP_CHECK(hipEventDestroy(stop));
  HIP_CHECK(hipStreamDestroy(stream));
  HIP_CHECK(hipFree(d_a));
  HIP_CHECK(hipFree(d_b));
  HIP_CHECK(hipFree(d_c));
  const bool ok = wrong[0] == 0 && wrong[1] == 0;
  std::printf("%d x vector_add(%d): launches %.0f us, graph %.0f us: %s (%d + %d wrong)\n", count,
              n, ms[0] * 1000.0f, ms[1] * 1000.0f, ok ? "ok" : "FAIL", wrong[0], wrong[1]);
  return ok ? 0 : 1;
}
