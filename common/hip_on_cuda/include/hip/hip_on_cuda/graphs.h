/// \file graphs.h
/// \brief Graphs and stream capture of the hip_on_cuda layer.
///
/// Graph handles are CUDA's. What needs translating:
/// - hipKernelNodeParams / hipMemsetParams order their fields differently from CUDA's
///   structs, so they are copied field by field;
/// - hipGraphNodeType uses HIP's numbering (which matches CUDA for 0..11);
/// - hipGraphInstantiate keeps HIP's five-argument form (error node, log buffer) and
///   maps it onto cudaGraphInstantiateWithParams, which CUDA 12 and 13 both have;
/// - CUDA 13 added per-edge data to the edge functions (cudaGraphAddDependencies,
///   cudaGraphGetEdges, cudaGraphNodeGetDependencies, ...) and to capture info; HIP
///   has no edge data, so the layer passes none (CUDA_VERSION-guarded for CUDA 12);
/// - hipGraphExecUpdate keeps HIP's (error node, result) outputs over CUDA 12's
///   cudaGraphExecUpdateResultInfo.
#ifndef HIP_ON_CUDA_GRAPHS_H
#define HIP_ON_CUDA_GRAPHS_H

#include <cstdio>

#include "hip/hip_on_cuda/errors.h"

static_assert(hipStreamCaptureModeGlobal == static_cast<int>(cudaStreamCaptureModeGlobal) &&
                  hipStreamCaptureModeThreadLocal ==
                      static_cast<int>(cudaStreamCaptureModeThreadLocal) &&
                  hipStreamCaptureModeRelaxed == static_cast<int>(cudaStreamCaptureModeRelaxed),
              "hipStreamCaptureMode and cudaStreamCaptureMode must agree");
static_assert(hipStreamCaptureStatusNone == static_cast<int>(cudaStreamCaptureStatusNone) &&
                  hipStreamCaptureStatusActive == static_cast<int>(cudaStreamCaptureStatusActive) &&
                  hipStreamCaptureStatusInvalidated ==
                      static_cast<int>(cudaStreamCaptureStatusInvalidated),
              "hipStreamCaptureStatus and cudaStreamCaptureStatus must agree");
static_assert(hipStreamAddCaptureDependencies ==
                      static_cast<int>(cudaStreamAddCaptureDependencies) &&
                  hipStreamSetCaptureDependencies ==
                      static_cast<int>(cudaStreamSetCaptureDependencies),
              "capture-dependency flags must agree");
static_assert(hipGraphInstantiateFlagAutoFreeOnLaunch ==
                      static_cast<int>(cudaGraphInstantiateFlagAutoFreeOnLaunch) &&
                  hipGraphInstantiateFlagUpload ==
                      static_cast<int>(cudaGraphInstantiateFlagUpload) &&
                  hipGraphInstantiateFlagDeviceLaunch ==
                      static_cast<int>(cudaGraphInstantiateFlagDeviceLaunch) &&
                  hipGraphInstantiateFlagUseNodePriority ==
                      static_cast<int>(cudaGraphInstantiateFlagUseNodePriority),
              "graph instantiate flags must agree");
static_assert(hipGraphExecUpdateSuccess == static_cast<int>(cudaGraphExecUpdateSuccess) &&
                  hipGraphExecUpdateError == static_cast<int>(cudaGraphExecUpdateError) &&
                  hipGraphExecUpdateErrorTopologyChanged ==
                      static_cast<int>(cudaGraphExecUpdateErrorTopologyChanged) &&
                  hipGraphExecUpdateErrorNodeTypeChanged ==
                      static_cast<int>(cudaGraphExecUpdateErrorNodeTypeChanged) &&
                  hipGraphExecUpdateErrorFunctionChanged ==
                      static_cast<int>(cudaGraphExecUpdateErrorFunctionChanged) &&
                  hipGraphExecUpdateErrorParametersChanged ==
                      static_cast<int>(cudaGraphExecUpdateErrorParametersChanged) &&
                  hipGraphExecUpdateErrorNotSupported ==
                      static_cast<int>(cudaGraphExecUpdateErrorNotSupported) &&
                  hipGraphExecUpdateErrorUnsupportedFunctionChange ==
                      static_cast<int>(cudaGraphExecUpdateErrorUnsupportedFunctionChange),
              "hipGraphExecUpdateResult and cudaGraphExecUpdateResult must agree");

namespace hip_on_cuda {
namespace detail {

inline hipGraphNodeType from_cuda(cudaGraphNodeType type) {
  switch (type) {
    case cudaGraphNodeTypeKernel:
      return hipGraphNodeTypeKernel;
    case cudaGraphNodeTypeMemcpy:
      return hipGraphNodeTypeMemcpy;
    case cudaGraphNodeTypeMemset:
      return hipGraphNodeTypeMemset;
    case cudaGraphNodeTypeHost:
      return hipGraphNodeTypeHost;
    case cudaGraphNodeTypeGraph:
      return hipGraphNodeTypeGraph;
    case cudaGraphNodeTypeEmpty:
      return hipGraphNodeTypeEmpty;
    case cudaGraphNodeTypeWaitEvent:
      return hipGraphNodeTypeWaitEvent;
    case cudaGraphNodeTypeEventRecord:
      return hipGraphNodeTypeEventRecord;
    case cudaGraphNodeTypeExtSemaphoreSignal:
      return hipGraphNodeTypeExtSemaphoreSignal;
    case cudaGraphNodeTypeExtSemaphoreWait:
      return hipGraphNodeTypeExtSemaphoreWait;
    case cudaGraphNodeTypeMemAlloc:
      return hipGraphNodeTypeMemAlloc;
    case cudaGraphNodeTypeMemFree:
      return hipGraphNodeTypeMemFree;
    default:
      return hipGraphNodeTypeCount;  // a CUDA-only node kind (conditional, ...)
  }
}

inline cudaKernelNodeParams to_cuda(const hipKernelNodeParams& p) {
  cudaKernelNodeParams c{};
  c.func = p.func;
  c.gridDim = p.gridDim;
  c.blockDim = p.blockDim;
  c.sharedMemBytes = p.sharedMemBytes;
  c.kernelParams = p.kernelParams;
  c.extra = p.extra;
  return c;
}

inline hipKernelNodeParams from_cuda(const cudaKernelNodeParams& c) {
  hipKernelNodeParams p{};
  p.blockDim = c.blockDim;
  p.extra = c.extra;
  p.func = c.func;
  p.gridDim = c.gridDim;
  p.kernelParams = c.kernelParams;
  p.sharedMemBytes = c.sharedMemBytes;
  return p;
}

inline cudaMemsetParams to_cuda(const hipMemsetParams& p) {
  cudaMemsetParams c{};
  c.dst = p.dst;
  c.pitch = p.pitch;
  c.value = p.value;
  c.elementSize = p.elementSize;
  c.width = p.width;
  c.height = p.height;
  return c;
}

inline const char* instantiate_result_text(cudaGraphInstantiateResult result) {
  switch (result) {
    case cudaGraphInstantiateSuccess:
      return "";
    case cudaGraphInstantiateInvalidStructure:
      return "graph structure is invalid";
    case cudaGraphInstantiateNodeOperationNotSupported:
      return "a node's operation is not supported";
    case cudaGraphInstantiateMultipleDevicesNotSupported:
      return "nodes on multiple devices are not supported";
    default:
      return "graph instantiation failed";
  }
}

}  // namespace detail
}  // namespace hip_on_cuda

// ---------------------------------------------------------------------------------------
// Stream capture
// ---------------------------------------------------------------------------------------

inline hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode) {
  return hip_on_cuda::detail::map(
      cudaStreamBeginCapture(stream, static_cast<cudaStreamCaptureMode>(mode)));
}

inline hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t* pGraph) {
  return hip_on_cuda::detail::map(cudaStreamEndCapture(stream, pGraph));
}

inline hipError_t hipStreamIsCapturing(hipStream_t stream, hipStreamCaptureStatus* pCaptureStatus) {
  if (pCaptureStatus == nullptr) return hipErrorInvalidValue;
  cudaStreamCaptureStatus s = cudaStreamCaptureStatusNone;
  const cudaError_t e = cudaStreamIsCapturing(stream, &s);
  if (e == cudaSuccess) *pCaptureStatus = static_cast<hipStreamCaptureStatus>(s);
  return hip_on_cuda::detail::map(e);
}

/// Capture status, unique capture id, graph being built and its current dependency set.
/// CUDA 13's form also reports edge data, which HIP does not have.
inline hipError_t hipStreamGetCaptureInfo_v2(hipStream_t stream,
                                             hipStreamCaptureStatus* captureStatus_out,
                                             unsigned long long* id_out = nullptr,
                                             hipGraph_t* graph_out = nullptr,
                                             const hipGraphNode_t** dependencies_out = nullptr,
                                             size_t* numDependencies_out = nullptr) {
  if (captureStatus_out == nullptr) return hipErrorInvalidValue;
  cudaStreamCaptureStatus s = cudaStreamCaptureStatusNone;
#if CUDART_VERSION >= 13000
  const cudaError_t e = cudaStreamGetCaptureInfo(stream, &s, id_out, graph_out, dependencies_out,
                                                 nullptr, numDependencies_out);
#else
  const cudaError_t e = cudaStreamGetCaptureInfo(stream, &s, id_out, graph_out, dependencies_out,
                                                 numDependencies_out);
#endif
  if (e == cudaSuccess) *captureStatus_out = static_cast<hipStreamCaptureStatus>(s);
  return hip_on_cuda::detail::map(e);
}

inline hipError_t hipStreamGetCaptureInfo(hipStream_t stream,
                                          hipStreamCaptureStatus* pCaptureStatus,
                                          unsigned long long* pId) {
  return hipStreamGetCaptureInfo_v2(stream, pCaptureStatus, pId);
}

inline hipError_t hipStreamUpdateCaptureDependencies(hipStream_t stream,
                                                     hipGraphNode_t* dependencies,
                                                     size_t numDependencies,
                                                     unsigned int flags = 0) {
#if CUDART_VERSION >= 13000
  return hip_on_cuda::detail::map(
      cudaStreamUpdateCaptureDependencies(stream, dependencies, nullptr, numDependencies, flags));
#else
  return hip_on_cuda::detail::map(
      cudaStreamUpdateCaptureDependencies(stream, dependencies, numDependencies, flags));
#endif
}

inline hipError_t hipThreadExchangeStreamCaptureMode(hipStreamCaptureMode* mode) {
  if (mode == nullptr) return hipErrorInvalidValue;
  auto m = static_cast<cudaStreamCaptureMode>(*mode);
  const cudaError_t e = cudaThreadExchangeStreamCaptureMode(&m);
  if (e == cudaSuccess) *mode = static_cast<hipStreamCaptureMode>(m);
  return hip_on_cuda::detail::map(e);
}

// ---------------------------------------------------------------------------------------
// Graph construction and inspection
// ---------------------------------------------------------------------------------------

inline hipError_t hipGraphCreate(hipGraph_t* pGraph, unsigned int flags) {
  return hip_on_cuda::detail::map(cudaGraphCreate(pGraph, flags));
}

inline hipError_t hipGraphDestroy(hipGraph_t graph) {
  return hip_on_cuda::detail::map(cudaGraphDestroy(graph));
}

inline hipError_t hipGraphClone(hipGraph_t* pGraphClone, hipGraph_t originalGraph) {
  return hip_on_cuda::detail::map(cudaGraphClone(pGraphClone, originalGraph));
}

/// With `nodes` == nullptr, stores the node count in `*numNodes`.
inline hipError_t hipGraphGetNodes(hipGraph_t graph, hipGraphNode_t* nodes, size_t* numNodes) {
  return hip_on_cuda::detail::map(cudaGraphGetNodes(graph, nodes, numNodes));
}

inline hipError_t hipGraphGetRootNodes(hipGraph_t graph, hipGraphNode_t* pRootNodes,
                                       size_t* pNumRootNodes) {
  return hip_on_cuda::detail::map(cudaGraphGetRootNodes(graph, pRootNodes, pNumRootNodes));
}

inline hipError_t hipGraphGetEdges(hipGraph_t graph, hipGraphNode_t* from, hipGraphNode_t* to,
                                   size_t* numEdges) {
#if CUDART_VERSION >= 13000
  return hip_on_cuda::detail::map(cudaGraphGetEdges(graph, from, to, nullptr, numEdges));
#else
  return hip_on_cuda::detail::map(cudaGraphGetEdges(graph, from, to, numEdges));
#endif
}

inline hipError_t hipGraphNodeGetType(hipGraphNode_t node, hipGraphNodeType* pType) {
  if (pType == nullptr) return hipErrorInvalidValue;
  cudaGraphNodeType t = cudaGraphNodeTypeEmpty;
  const cudaError_t e = cudaGraphNodeGetType(node, &t);
  if (e == cudaSuccess) *pType = hip_on_cuda::detail::from_cuda(t);
  return hip_on_cuda::detail::map(e);
}

inline hipError_t hipGraphNodeGetDependencies(hipGraphNode_t node, hipGraphNode_t* pDependencies,
                                              size_t* pNumDependencies) {
#if CUDART_VERSION >= 13000
  return hip_on_cuda::detail::map(
      cudaGraphNodeGetDependencies(node, pDependencies, nullptr, pNumDependencies));
#else
  return hip_on_cuda::detail::map(
      cudaGraphNodeGetDependencies(node, pDependencies, pNumDependencies));
#endif
}

inline hipError_t hipGraphNodeGetDependentNodes(hipGraphNode_t node,
                                                hipGraphNode_t* pDependentNodes,
                                                size_t* pNumDependentNodes) {
#if CUDART_VERSION >= 13000
  return hip_on_cuda::detail::map(
      cudaGraphNodeGetDependentNodes(node, pDependentNodes, nullptr, pNumDependentNodes));
#else
  return hip_on_cuda::detail::map(
      cudaGraphNodeGetDependentNodes(node, pDependentNodes, pNumDependentNodes));
#endif
}

/// Adds edges from[i] -> to[i]. CUDA 13 added per-edge data; HIP has none.
inline hipError_t hipGraphAddDependencies(hipGraph_t graph, const hipGraphNode_t* from,
                                          const hipGraphNode_t* to, size_t numDependencies) {
#if CUDART_VERSION >= 13000
  return hip_on_cuda::detail::map(
      cudaGraphAddDependencies(graph, from, to, nullptr, numDependencies));
#else
  return hip_on_cuda::detail::map(cudaGraphAddDependencies(graph, from, to, numDependencies));
#endif
}

inline hipError_t hipGraphRemoveDependencies(hipGraph_t graph, const hipGraphNode_t* from,
                                             const hipGraphNode_t* to, size_t numDependencies) {
#if CUDART_VERSION >= 13000
  return hip_on_cuda::detail::map(
      cudaGraphRemoveDependencies(graph, from, to, nullptr, numDependencies));
#else
  return hip_on_cuda::detail::map(cudaGraphRemoveDependencies(graph, from, to, numDependencies));
#endif
}

inline hipError_t hipGraphDestroyNode(hipGraphNode_t node) {
  return hip_on_cuda::detail::map(cudaGraphDestroyNode(node));
}

// ---------------------------------------------------------------------------------------
// Nodes
// ---------------------------------------------------------------------------------------

inline hipError_t hipGraphAddKernelNode(hipGraphNode_t* pGraphNode, hipGraph_t graph,
                                        const hipGraphNode_t* pDependencies, size_t numDependencies,
                                        const hipKernelNodeParams* pNodeParams) {
  if (pNodeParams == nullptr) return hipErrorInvalidValue;
  const cudaKernelNodeParams p = hip_on_cuda::detail::to_cuda(*pNodeParams);
  return hip_on_cuda::detail::map(
      cudaGraphAddKernelNode(pGraphNode, graph, pDependencies, numDependencies, &p));
}

inline hipError_t hipGraphKernelNodeGetParams(hipGraphNode_t node,
                                              hipKernelNodeParams* pNodeParams) {
  if (pNodeParams == nullptr) return hipErrorInvalidValue;
  cudaKernelNodeParams p{};
  const cudaError_t e = cudaGraphKernelNodeGetParams(node, &p);
  if (e == cudaSuccess) *pNodeParams = hip_on_cuda::detail::from_cuda(p);
  return hip_on_cuda::detail::map(e);
}

/// Changes a kernel node of the graph (instantiated copies keep their parameters; see
/// hipGraphExecKernelNodeSetParams / hipGraphExecUpdate).
inline hipError_t hipGraphKernelNodeSetParams(hipGraphNode_t node,
                                              const hipKernelNodeParams* pNodeParams) {
  if (pNodeParams == nullptr) return hipErrorInvalidValue;
  const cudaKernelNodeParams p = hip_on_cuda::detail::to_cuda(*pNodeParams);
  return hip_on_cuda::detail::map(cudaGraphKernelNodeSetParams(node, &p));
}

/// Changes a kernel node inside an instantiated graph without re-instantiating it.
inline hipError_t hipGraphExecKernelNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                                  const hipKernelNodeParams* pNodeParams) {
  if (pNodeParams == nullptr) return hipErrorInvalidValue;
  const cudaKernelNodeParams p = hip_on_cuda::detail::to_cuda(*pNodeParams);
  return hip_on_cuda::detail::map(cudaGraphExecKernelNodeSetParams(hGraphExec, node, &p));
}

inline hipError_t hipGraphAddEmptyNode(hipGraphNode_t* pGraphNode, hipGraph_t graph,
                                       const hipGraphNode_t* pDependencies,
                                       size_t numDependencies) {
  return hip_on_cuda::detail::map(
      cudaGraphAddEmptyNode(pGraphNode, graph, pDependencies, numDependencies));
}

inline hipError_t hipGraphAddHostNode(hipGraphNode_t* pGraphNode, hipGraph_t graph,
                                      const hipGraphNode_t* pDependencies, size_t numDependencies,
                                      const hipHostNodeParams* pNodeParams) {
  if (pNodeParams == nullptr) return hipErrorInvalidValue;
  cudaHostNodeParams p{};
  p.fn = pNodeParams->fn;
  p.userData = pNodeParams->userData;
  return hip_on_cuda::detail::map(
      cudaGraphAddHostNode(pGraphNode, graph, pDependencies, numDependencies, &p));
}

inline hipError_t hipGraphAddMemsetNode(hipGraphNode_t* pGraphNode, hipGraph_t graph,
                                        const hipGraphNode_t* pDependencies, size_t numDependencies,
                                        const hipMemsetParams* pMemsetParams) {
  if (pMemsetParams == nullptr) return hipErrorInvalidValue;
  const cudaMemsetParams p = hip_on_cuda::detail::to_cuda(*pMemsetParams);
  return hip_on_cuda::detail::map(
      cudaGraphAddMemsetNode(pGraphNode, graph, pDependencies, numDependencies, &p));
}

inline hipError_t hipGraphAddMemcpyNode1D(hipGraphNode_t* pGraphNode, hipGraph_t graph,
                                          const hipGraphNode_t* pDependencies,
                                          size_t numDependencies, void* dst, const void* src,
                                          size_t count, hipMemcpyKind kind) {
  return hip_on_cuda::detail::map(cudaGraphAddMemcpyNode1D(pGraphNode, graph, pDependencies,
                                                           numDependencies, dst, src, count,
                                                           static_cast<cudaMemcpyKind>(kind)));
}

inline hipError_t hipGraphAddChildGraphNode(hipGraphNode_t* pGraphNode, hipGraph_t graph,
                                            const hipGraphNode_t* pDependencies,
                                            size_t numDependencies, hipGraph_t childGraph) {
  return hip_on_cuda::detail::map(
      cudaGraphAddChildGraphNode(pGraphNode, graph, pDependencies, numDependencies, childGraph));
}

inline hipError_t hipGraphAddEventRecordNode(hipGraphNode_t* pGraphNode, hipGraph_t graph,
                                             const hipGraphNode_t* pDependencies,
                                             size_t numDependencies, hipEvent_t event) {
  return hip_on_cuda::detail::map(
      cudaGraphAddEventRecordNode(pGraphNode, graph, pDependencies, numDependencies, event));
}

inline hipError_t hipGraphAddEventWaitNode(hipGraphNode_t* pGraphNode, hipGraph_t graph,
                                           const hipGraphNode_t* pDependencies,
                                           size_t numDependencies, hipEvent_t event) {
  return hip_on_cuda::detail::map(
      cudaGraphAddEventWaitNode(pGraphNode, graph, pDependencies, numDependencies, event));
}

// ---------------------------------------------------------------------------------------
// Executable graphs
// ---------------------------------------------------------------------------------------

/// HIP's five-argument form. On failure `*pErrorNode` names the offending node (or is
/// nullptr) and `pLogBuffer` receives a one-line reason; on success the log is "".
inline hipError_t hipGraphInstantiate(hipGraphExec_t* pGraphExec, hipGraph_t graph,
                                      hipGraphNode_t* pErrorNode, char* pLogBuffer,
                                      size_t bufferSize) {
  cudaGraphInstantiateParams params{};
  params.flags = 0;
  const cudaError_t e = cudaGraphInstantiateWithParams(pGraphExec, graph, &params);
  if (pErrorNode != nullptr) *pErrorNode = params.errNode_out;
  if (pLogBuffer != nullptr && bufferSize > 0) {
    std::snprintf(
        pLogBuffer, bufferSize, "%s",
        e == cudaSuccess ? "" : hip_on_cuda::detail::instantiate_result_text(params.result_out));
  }
  return hip_on_cuda::detail::map(e);
}

/// `flags`: hipGraphInstantiateFlag* bits (CUDA's values).
inline hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t* pGraphExec, hipGraph_t graph,
                                               unsigned long long flags) {
  return hip_on_cuda::detail::map(cudaGraphInstantiateWithFlags(pGraphExec, graph, flags));
}

inline hipError_t hipGraphLaunch(hipGraphExec_t graphExec, hipStream_t stream) {
  return hip_on_cuda::detail::map(cudaGraphLaunch(graphExec, stream));
}

/// Uploads the executable graph to the device ahead of its first launch.
inline hipError_t hipGraphUpload(hipGraphExec_t graphExec, hipStream_t stream) {
  return hip_on_cuda::detail::map(cudaGraphUpload(graphExec, stream));
}

inline hipError_t hipGraphExecDestroy(hipGraphExec_t graphExec) {
  return hip_on_cuda::detail::map(cudaGraphExecDestroy(graphExec));
}

/// Applies the parameters of `hGraph` (same topology) to the instantiated `hGraphExec`.
inline hipError_t hipGraphExecUpdate(hipGraphExec_t hGraphExec, hipGraph_t hGraph,
                                     hipGraphNode_t* hErrorNode_out,
                                     hipGraphExecUpdateResult* updateResult_out) {
  cudaGraphExecUpdateResultInfo info{};
  const cudaError_t e = cudaGraphExecUpdate(hGraphExec, hGraph, &info);
  if (hErrorNode_out != nullptr) *hErrorNode_out = info.errorNode;
  if (updateResult_out != nullptr) {
    // CUDA has result codes past HIP's last one (e.g. attributes changed).
    *updateResult_out =
        static_cast<int>(info.result) <= hipGraphExecUpdateErrorUnsupportedFunctionChange
            ? static_cast<hipGraphExecUpdateResult>(info.result)
            : hipGraphExecUpdateError;
  }
  return hip_on_cuda::detail::map(e);
}

#endif  // HIP_ON_CUDA_GRAPHS_H
