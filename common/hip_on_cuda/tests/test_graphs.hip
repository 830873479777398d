// HIP API test: graphs and stream capture.
//
// Host part: capture-mode/status values. GPU part: a captured graph has the right node
// count and types and gives the right result after several replays; an explicitly built
// graph (kernel nodes, dependencies added both ways) computes (v + 3) * 2; changing a
// kernel node's argument through hipGraphExecKernelNodeSetParams and through
// hipGraphKernelNodeSetParams + hipGraphExecUpdate changes the result; memset, memcpy
// and host nodes run in order; synchronising a capturing stream fails the capture
// with HIP's capture error codes.
#include <atomic>
#include <vector>

#include "check.h"

static_assert(hipStreamCaptureModeGlobal == 0 && hipStreamCaptureModeThreadLocal == 1 &&
                  hipStreamCaptureModeRelaxed == 2,
              "hipStreamCaptureMode");
static_assert(hipStreamCaptureStatusNone == 0 && hipStreamCaptureStatusActive == 1 &&
                  hipStreamCaptureStatusInvalidated == 2,
              "hipStreamCaptureStatus");
static_assert(hipGraphExecUpdateSuccess == 0 && hipGraphExecUpdateError == 1,
              "hipGraphExecUpdateResult");
#if HIP_VERSION_MAJOR >= 6
static_assert(hipGraphNodeTypeKernel == 0 && hipGraphNodeTypeMemcpy == 1 &&
                  hipGraphNodeTypeMemset == 2 && hipGraphNodeTypeHost == 3 &&
                  hipGraphNodeTypeEmpty == 5,
              "hipGraphNodeType (HIP 6 numbering)");
#endif

namespace {

__global__ void add_one(int* data, int n) {
  const int i = static_cast<int>(hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x);
  if (i < n) data[i] += 1;
}
__global__ void set_value(int* data, int n, int v) {
  const int i = static_cast<int>(hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x);
  if (i < n) data[i] = v;
}
__global__ void add_value(int* data, int n, int v) {
  const int i = static_cast<int>(hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x);
  if (i < n) data[i] += v;
}
__global__ void mul_value(int* data, int n, int v) {
  const int i = static_cast<int>(hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x);
  if (i < n) data[i] *= v;
}

void count_host_node(void* user) { static_cast<std::atomic<int>*>(user)->fetch_add(1); }

constexpr int kBlock = 256;

bool check_all(const int* device, int n, int want, const std::string& what) {
  std::vector<int> host(n, -12345);
  if (!CHECK_HIP(hipMemcpy(host.data(), device, n * sizeof(int), hipMemcpyDeviceToHost),
                 "copy back " + what)) {
    return false;
  }
  for (int i = 0; i < n; ++i) {
    if (host[i] != want) {
      return hip_api_test::record(
          false, what, hip_api_test::fmt("element %d is %d, expected %d", i, host[i], want));
    }
  }
  return hip_api_test::record(true, what, "");
}

void captured_graph(int* d, int n, hipStream_t stream) {
  const int kernels = 5;
  const int replays = 3;
  const dim3 grid((n + kBlock - 1) / kBlock);
  CHECK_HIP(hipMemsetAsync(d, 0, n * sizeof(int), stream), "zero the buffer");  // stream-ordered
  CHECK_HIP(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal),
            "hipStreamBeginCapture(Global)");
  hipStreamCaptureStatus status = hipStreamCaptureStatusNone;
  CHECK_HIP(hipStreamIsCapturing(stream, &status), "hipStreamIsCapturing");
  CHECK_EQ(status, hipStreamCaptureStatusActive, "stream is capturing");
  unsigned long long id = 0;
  status = hipStreamCaptureStatusNone;
  CHECK_HIP(hipStreamGetCaptureInfo(stream, &status, &id), "hipStreamGetCaptureInfo");
  CHECK_EQ(status, hipStreamCaptureStatusActive, "capture info says active");
  for (int k = 0; k < kernels; ++k)
    hipLaunchKernelGGL(add_one, grid, dim3(kBlock), 0, stream, d, n);
  hipGraph_t graph = nullptr;
  CHECK_HIP(hipStreamEndCapture(stream, &graph), "hipStreamEndCapture");
  CHECK_HIP(hipStreamIsCapturing(stream, &status), "hipStreamIsCapturing after the capture");
  CHECK_EQ(status, hipStreamCaptureStatusNone, "capture has ended");
  if (graph == nullptr) return;

  size_t count = 0;
  CHECK_HIP(hipGraphGetNodes(graph, nullptr, &count), "hipGraphGetNodes (count)");
  CHECK_EQ(count, kernels, "captured graph has one node per launch");
  std::vector<hipGraphNode_t> nodes(count);
  CHECK_HIP(hipGraphGetNodes(graph, nodes.data(), &count), "hipGraphGetNodes (nodes)");
  int kernel_nodes = 0;
  for (hipGraphNode_t node : nodes) {
    hipGraphNodeType type = hipGraphNodeTypeCount;
    if (hipGraphNodeGetType(node, &type) == hipSuccess && type == hipGraphNodeTypeKernel)
      ++kernel_nodes;
  }
  CHECK_EQ(kernel_nodes, kernels, "every captured node is a kernel node");

  hipGraphExec_t exec = nullptr;
  hipGraphNode_t error_node = nullptr;
  char log[256] = "not written";
  CHECK_HIP(hipGraphInstantiate(&exec, graph, &error_node, log, sizeof log),
            "hipGraphInstantiate (5 arguments)");
  CHECK(error_node == nullptr, "no error node");
  for (int r = 0; r < replays; ++r)
    CHECK_HIP(hipGraphLaunch(exec, stream), hip_api_test::fmt("hipGraphLaunch #%d", r + 1));
  CHECK_HIP(hipStreamSynchronize(stream), "hipStreamSynchronize");
  check_all(d, n, kernels * replays,
            hip_api_test::fmt("%d replays of %d captured +1 kernels", replays, kernels));
  CHECK_HIP(hipGraphExecDestroy(exec), "hipGraphExecDestroy");
  CHECK_HIP(hipGraphDestroy(graph), "hipGraphDestroy");
}

hipKernelNodeParams kernel_params(const void* kernel, int n, void** args) {
  hipKernelNodeParams p{};
  p.func = const_cast<void*>(kernel);
  p.gridDim = dim3((n + kBlock - 1) / kBlock);
  p.blockDim = dim3(kBlock);
  p.sharedMemBytes = 0;
  p.kernelParams = args;
  p.extra = nullptr;
  return p;
}

void explicit_graph(int* d, int n, hipStream_t stream) {
  hipGraph_t graph = nullptr;
  if (!CHECK_HIP(hipGraphCreate(&graph, 0), "hipGraphCreate")) return;
  int seven = 7;
  int three = 3;
  int two = 2;
  void* set_args[] = {&d, &n, &seven};
  void* add_args[] = {&d, &n, &three};
  void* mul_args[] = {&d, &n, &two};
  const hipKernelNodeParams set_p =
      kernel_params(reinterpret_cast<const void*>(&set_value), n, set_args);
  const hipKernelNodeParams add_p =
      kernel_params(reinterpret_cast<const void*>(&add_value), n, add_args);
  const hipKernelNodeParams mul_p =
      kernel_params(reinterpret_cast<const void*>(&mul_value), n, mul_args);
  hipGraphNode_t set_node = nullptr;
  hipGraphNode_t add_node = nullptr;
  hipGraphNode_t mul_node = nullptr;
  CHECK_HIP(hipGraphAddKernelNode(&set_node, graph, nullptr, 0, &set_p),
            "hipGraphAddKernelNode (set 7)");
  CHECK_HIP(hipGraphAddKernelNode(&add_node, graph, &set_node, 1, &add_p),
            "hipGraphAddKernelNode (+3, after set)");
  CHECK_HIP(hipGraphAddKernelNode(&mul_node, graph, nullptr, 0, &mul_p),
            "hipGraphAddKernelNode (*2)");
  CHECK_HIP(hipGraphAddDependencies(graph, &add_node, &mul_node, 1),
            "hipGraphAddDependencies (+3 -> *2)");

  size_t count = 0;
  CHECK_HIP(hipGraphGetNodes(graph, nullptr, &count), "hipGraphGetNodes");
  CHECK_EQ(count, 3, "graph has 3 nodes");
  size_t roots = 0;
  CHECK_HIP(hipGraphGetRootNodes(graph, nullptr, &roots), "hipGraphGetRootNodes");
  CHECK_EQ(roots, 1, "graph has 1 root");
  size_t edges = 0;
  CHECK_HIP(hipGraphGetEdges(graph, nullptr, nullptr, &edges), "hipGraphGetEdges");
  CHECK_EQ(edges, 2, "graph has 2 edges");
  hipGraphNodeType type = hipGraphNodeTypeCount;
  CHECK_HIP(hipGraphNodeGetType(set_node, &type), "hipGraphNodeGetType");
  CHECK_EQ(type, hipGraphNodeTypeKernel, "node type is hipGraphNodeTypeKernel");

  hipGraphExec_t exec = nullptr;
  CHECK_HIP(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0), "hipGraphInstantiate");
  CHECK_HIP(hipGraphLaunch(exec, stream), "hipGraphLaunch");
  CHECK_HIP(hipStreamSynchronize(stream), "hipStreamSynchronize");
  check_all(d, n, (7 + 3) * 2, "explicit graph computes (7 + 3) * 2");

  // Change the first node's argument in the executable graph only.
  hipKernelNodeParams got{};
  CHECK_HIP(hipGraphKernelNodeGetParams(set_node, &got), "hipGraphKernelNodeGetParams");
  CHECK(got.func == set_p.func && got.gridDim.x == set_p.gridDim.x && got.blockDim.x == kBlock,
        "kernel node parameters read back");
  int eleven = 11;
  void* eleven_args[] = {&d, &n, &eleven};
  hipKernelNodeParams changed = set_p;
  changed.kernelParams = eleven_args;
  CHECK_HIP(hipGraphExecKernelNodeSetParams(exec, set_node, &changed),
            "hipGraphExecKernelNodeSetParams (set 11)");
  CHECK_HIP(hipGraphLaunch(exec, stream), "hipGraphLaunch");
  CHECK_HIP(hipStreamSynchronize(stream), "hipStreamSynchronize");
  check_all(d, n, (11 + 3) * 2, "updated executable graph computes (11 + 3) * 2");

  // Change the graph, then bring the executable graph up to date.
  int five = 5;
  void* five_args[] = {&d, &n, &five};
  changed.kernelParams = five_args;
  CHECK_HIP(hipGraphKernelNodeSetParams(set_node, &changed), "hipGraphKernelNodeSetParams (set 5)");
  hipGraphNode_t error_node = nullptr;
  hipGraphExecUpdateResult result = hipGraphExecUpdateError;
  CHECK_HIP(hipGraphExecUpdate(exec, graph, &error_node, &result), "hipGraphExecUpdate");
  CHECK_EQ(result, hipGraphExecUpdateSuccess, "update result is hipGraphExecUpdateSuccess");
  CHECK_HIP(hipGraphLaunch(exec, stream), "hipGraphLaunch");
  CHECK_HIP(hipStreamSynchronize(stream), "hipStreamSynchronize");
  check_all(d, n, (5 + 3) * 2, "hipGraphExecUpdate applied (5 + 3) * 2");

  hipGraphExec_t fresh = nullptr;
  CHECK_HIP(hipGraphInstantiateWithFlags(&fresh, graph, 0), "hipGraphInstantiateWithFlags");
  // On the graph's stream: a hipMemset on the legacy default stream could land after the
  // graph's first node (seen once on the H200, the result 6 = (0 + 3) * 2).
  CHECK_HIP(hipMemsetAsync(d, 0, n * sizeof(int), stream), "zero the buffer");
  CHECK_HIP(hipGraphLaunch(fresh, stream), "hipGraphLaunch (fresh instance)");
  CHECK_HIP(hipStreamSynchronize(stream), "hipStreamSynchronize");
  check_all(d, n, (5 + 3) * 2, "fresh instance of the changed graph computes (5 + 3) * 2");

  CHECK_HIP(hipGraphExecDestroy(fresh), "hipGraphExecDestroy (fresh)");
  CHECK_HIP(hipGraphExecDestroy(exec), "hipGraphExecDestroy");
  CHECK_HIP(hipGraphDestroy(graph), "hipGraphDestroy");
}

void memory_nodes(int* d, int* d2, int n, hipStream_t stream) {
  hipGraph_t graph = nullptr;
  if (!CHECK_HIP(hipGraphCreate(&graph, 0), "hipGraphCreate")) return;
  hipMemsetParams memset_p{};
  memset_p.dst = d;
  memset_p.value = 0x01020304u;
  memset_p.elementSize = 4;
  memset_p.width = static_cast<size_t>(n);
  memset_p.height = 1;
  memset_p.pitch = 0;
  hipGraphNode_t memset_node = nullptr;
  hipGraphNode_t copy_node = nullptr;
  hipGraphNode_t host_node = nullptr;
  CHECK_HIP(hipGraphAddMemsetNode(&memset_node, graph, nullptr, 0, &memset_p),
            "hipGraphAddMemsetNode");
  CHECK_HIP(hipGraphAddMemcpyNode1D(&copy_node, graph, &memset_node, 1, d2, d, n * sizeof(int),
                                    hipMemcpyDeviceToDevice),
            "hipGraphAddMemcpyNode1D (after the memset)");
  std::atomic<int> host_calls{0};
  hipHostNodeParams host_p;
  host_p.fn = count_host_node;
  host_p.userData = &host_calls;
  CHECK_HIP(hipGraphAddHostNode(&host_node, graph, &copy_node, 1, &host_p),
            "hipGraphAddHostNode (after the copy)");
  hipGraphNodeType type = hipGraphNodeTypeCount;
  CHECK_HIP(hipGraphNodeGetType(memset_node, &type), "hipGraphNodeGetType(memset)");
  CHECK_EQ(type, hipGraphNodeTypeMemset, "memset node type");
  CHECK_HIP(hipGraphNodeGetType(host_node, &type), "hipGraphNodeGetType(host)");
  CHECK_EQ(type, hipGraphNodeTypeHost, "host node type");

  CHECK_HIP(hipMemsetAsync(d2, 0, n * sizeof(int), stream), "zero the target");
  hipGraphExec_t exec = nullptr;
  CHECK_HIP(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0), "hipGraphInstantiate");
  CHECK_HIP(hipGraphLaunch(exec, stream), "hipGraphLaunch");
  CHECK_HIP(hipStreamSynchronize(stream), "hipStreamSynchronize");
  check_all(d2, n, 0x01020304, "memset node then memcpy node filled the target");
  CHECK_EQ(host_calls.load(), 1, "host node ran once");
  CHECK_HIP(hipGraphExecDestroy(exec), "hipGraphExecDestroy");
  CHECK_HIP(hipGraphDestroy(graph), "hipGraphDestroy");
}

void capture_errors(int* d, int n, hipStream_t stream) {
  CHECK_HIP(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal), "hipStreamBeginCapture");
  hipLaunchKernelGGL(add_one, dim3((n + kBlock - 1) / kBlock), dim3(kBlock), 0, stream, d, n);
  CHECK_ERROR(hipStreamSynchronize(stream), hipErrorStreamCaptureUnsupported,
              "hipStreamSynchronize on a capturing stream is StreamCaptureUnsupported");
  hipGraph_t graph = nullptr;
  CHECK_ERROR(hipStreamEndCapture(stream, &graph), hipErrorStreamCaptureInvalidated,
              "the capture is then invalidated");
  if (graph != nullptr) hip_api_test::ignore(hipGraphDestroy(graph));
  hip_api_test::ignore(hipGetLastError());
  hipStreamCaptureStatus status = hipStreamCaptureStatusActive;
  CHECK_HIP(hipStreamIsCapturing(stream, &status), "hipStreamIsCapturing");
  CHECK_EQ(status, hipStreamCaptureStatusNone, "stream left capture mode");
  CHECK_HIP(hipStreamSynchronize(stream), "stream usable again");
}

}  // namespace

int main() {
  const int no_gpu = hip_api_test::require_gpu();
  if (no_gpu >= 0) return no_gpu;
  CHECK_HIP(hipSetDevice(0), "hipSetDevice(0)");
  const int n = 100003;
  int* d = nullptr;
  int* d2 = nullptr;
  CHECK_HIP(hipMalloc(&d, n * sizeof(int)), "hipMalloc");
  CHECK_HIP(hipMalloc(&d2, n * sizeof(int)), "hipMalloc");
  hipStream_t stream = nullptr;
  CHECK_HIP(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), "hipStreamCreateWithFlags");
  captured_graph(d, n, stream);
  explicit_graph(d, n, stream);
  memory_nodes(d, d2, n, stream);
  capture_errors(d, n, stream);
  CHECK_HIP(hipStreamDestroy(stream), "hipStreamDestroy");
  CHECK_HIP(hipFree(d), "hipFree");
  CHECK_HIP(hipFree(d2), "hipFree");
  CHECK_HIP(hipGetLastError(), "no error left behind");
  return hip_api_test::finish();
}
