/// \file device.h
/// \brief Device management and properties of the hip_on_cuda layer.
///
/// hipGetDeviceProperties fills HIP 6.0's hipDeviceProp_t from cudaGetDeviceProperties
/// plus cudaDeviceGetAttribute for the fields CUDA 13 removed from cudaDeviceProp
/// (clockRate, memoryClockRate, computeMode, kernelExecTimeoutEnabled, deviceOverlap,
/// maxTexture1DLinear, singleToDoublePrecisionPerfRatio), so one code path serves
/// CUDA 12 and 13. hipDeviceGetAttribute translates HIP's attribute numbers (which are
/// not CUDA's) to cudaDeviceAttr.
#ifndef HIP_ON_CUDA_DEVICE_H
#define HIP_ON_CUDA_DEVICE_H

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>

#include "hip/hip_on_cuda/driver.h"

static_assert(hipComputeModeDefault == static_cast<int>(cudaComputeModeDefault) &&
                  hipComputeModeExclusiveProcess ==
                      static_cast<int>(cudaComputeModeExclusiveProcess),
              "hipComputeMode and cudaComputeMode must agree");
static_assert(hipLimitStackSize == static_cast<int>(cudaLimitStackSize) &&
                  hipLimitPrintfFifoSize == static_cast<int>(cudaLimitPrintfFifoSize) &&
                  hipLimitMallocHeapSize == static_cast<int>(cudaLimitMallocHeapSize),
              "hipLimit_t and cudaLimit must agree");
static_assert(hipFuncCachePreferNone == static_cast<int>(cudaFuncCachePreferNone) &&
                  hipFuncCachePreferShared == static_cast<int>(cudaFuncCachePreferShared) &&
                  hipFuncCachePreferL1 == static_cast<int>(cudaFuncCachePreferL1) &&
                  hipFuncCachePreferEqual == static_cast<int>(cudaFuncCachePreferEqual),
              "hipFuncCache_t and cudaFuncCache must agree");
static_assert(hipDeviceScheduleAuto == cudaDeviceScheduleAuto &&
                  hipDeviceScheduleSpin == cudaDeviceScheduleSpin &&
                  hipDeviceScheduleYield == cudaDeviceScheduleYield &&
                  hipDeviceScheduleBlockingSync == cudaDeviceScheduleBlockingSync &&
                  hipDeviceScheduleMask == cudaDeviceScheduleMask &&
                  hipDeviceMapHost == cudaDeviceMapHost &&
                  hipDeviceLmemResizeToMax == cudaDeviceLmemResizeToMax,
              "hipDevice* flags and cudaDevice* flags must agree");
static_assert(hipCpuDeviceId == cudaCpuDeviceId && hipInvalidDeviceId == cudaInvalidDeviceId,
              "special device ids must agree");

namespace hip_on_cuda {
namespace detail {

/// Attribute numbers of the CUDA driver that the runtime enum does not carry.
constexpr int kDriverAttrVirtualMemoryManagementSupported = 102;  // CU_DEVICE_ATTRIBUTE_...

/// How hipDeviceGetAttribute answers one HIP attribute.
struct AttributeRoute {
  enum Kind { kCuda, kDriver, kConstant, kTotalGlobalMem, kNotSupported, kInvalid } kind;
  int value;  ///< cudaDeviceAttr, driver attribute, or the constant
};

inline AttributeRoute route_attribute(hipDeviceAttribute_t attr) {
  using R = AttributeRoute;
  auto cuda = [](cudaDeviceAttr a) { return R{R::kCuda, static_cast<int>(a)}; };
  switch (attr) {
    case hipDeviceAttributeEccEnabled:
      return cuda(cudaDevAttrEccEnabled);
    case hipDeviceAttributeAccessPolicyMaxWindowSize:
      return cuda(cudaDevAttrMaxAccessPolicyWindowSize);
    case hipDeviceAttributeAsyncEngineCount:
      return cuda(cudaDevAttrAsyncEngineCount);
    case hipDeviceAttributeCanMapHostMemory:
      return cuda(cudaDevAttrCanMapHostMemory);
    case hipDeviceAttributeCanUseHostPointerForRegisteredMem:
      return cuda(cudaDevAttrCanUseHostPointerForRegisteredMem);
    case hipDeviceAttributeClockRate:
      return cuda(cudaDevAttrClockRate);
    case hipDeviceAttributeComputeMode:
      return cuda(cudaDevAttrComputeMode);
    case hipDeviceAttributeComputePreemptionSupported:
      return cuda(cudaDevAttrComputePreemptionSupported);
    case hipDeviceAttributeConcurrentKernels:
      return cuda(cudaDevAttrConcurrentKernels);
    case hipDeviceAttributeConcurrentManagedAccess:
      return cuda(cudaDevAttrConcurrentManagedAccess);
    case hipDeviceAttributeCooperativeLaunch:
      return cuda(cudaDevAttrCooperativeLaunch);
    case hipDeviceAttributeCooperativeMultiDeviceLaunch:
#if CUDART_VERSION >= 13000
      // CUDA 13 removed multi-device cooperative launch.
      return R{R::kConstant, 0};
#else
      return cuda(cudaDevAttrCooperativeMultiDeviceLaunch);
#endif
    case hipDeviceAttributeDeviceOverlap:
      return cuda(cudaDevAttrGpuOverlap);
    case hipDeviceAttributeDirectManagedMemAccessFromHost:
      return cuda(cudaDevAttrDirectManagedMemAccessFromHost);
    case hipDeviceAttributeGlobalL1CacheSupported:
      return cuda(cudaDevAttrGlobalL1CacheSupported);
    case hipDeviceAttributeHostNativeAtomicSupported:
      return cuda(cudaDevAttrHostNativeAtomicSupported);
    case hipDeviceAttributeIntegrated:
      return cuda(cudaDevAttrIntegrated);
    case hipDeviceAttributeIsMultiGpuBoard:
      return cuda(cudaDevAttrIsMultiGpuBoard);
    case hipDeviceAttributeKernelExecTimeout:
      return cuda(cudaDevAttrKernelExecTimeout);
    case hipDeviceAttributeL2CacheSize:
      return cuda(cudaDevAttrL2CacheSize);
    case hipDeviceAttributeLocalL1CacheSupported:
      return cuda(cudaDevAttrLocalL1CacheSupported);
    case hipDeviceAttributeLuid:
    case hipDeviceAttributeLuidDeviceNodeMask:
      return R{R::kNotSupported, 0};  // Windows only
    case hipDeviceAttributeComputeCapabilityMajor:
      return cuda(cudaDevAttrComputeCapabilityMajor);
    case hipDeviceAttributeManagedMemory:
      return cuda(cudaDevAttrManagedMemory);
    case hipDeviceAttributeMaxBlocksPerMultiProcessor:
      return cuda(cudaDevAttrMaxBlocksPerMultiprocessor);
    case hipDeviceAttributeMaxBlockDimX:
      return cuda(cudaDevAttrMaxBlockDimX);
    case hipDeviceAttributeMaxBlockDimY:
      return cuda(cudaDevAttrMaxBlockDimY);
    case hipDeviceAttributeMaxBlockDimZ:
      return cuda(cudaDevAttrMaxBlockDimZ);
    case hipDeviceAttributeMaxGridDimX:
      return cuda(cudaDevAttrMaxGridDimX);
    case hipDeviceAttributeMaxGridDimY:
      return cuda(cudaDevAttrMaxGridDimY);
    case hipDeviceAttributeMaxGridDimZ:
      return cuda(cudaDevAttrMaxGridDimZ);
    // Multi-dimensional limits answer with their first dimension (the width).
    case hipDeviceAttributeMaxSurface1D:
      return cuda(cudaDevAttrMaxSurface1DWidth);
    case hipDeviceAttributeMaxSurface1DLayered:
      return cuda(cudaDevAttrMaxSurface1DLayeredWidth);
    case hipDeviceAttributeMaxSurface2D:
      return cuda(cudaDevAttrMaxSurface2DWidth);
    case hipDeviceAttributeMaxSurface2DLayered:
      return cuda(cudaDevAttrMaxSurface2DLayeredWidth);
    case hipDeviceAttributeMaxSurface3D:
      return cuda(cudaDevAttrMaxSurface3DWidth);
    case hipDeviceAttributeMaxSurfaceCubemap:
      return cuda(cudaDevAttrMaxSurfaceCubemapWidth);
    case hipDeviceAttributeMaxSurfaceCubemapLayered:
      return cuda(cudaDevAttrMaxSurfaceCubemapLayeredWidth);
    case hipDeviceAttributeMaxTexture1DWidth:
      return cuda(cudaDevAttrMaxTexture1DWidth);
    case hipDeviceAttributeMaxTexture1DLayered:
      return cuda(cudaDevAttrMaxTexture1DLayeredWidth);
    case hipDeviceAttributeMaxTexture1DLinear:
      return cuda(cudaDevAttrMaxTexture1DLinearWidth);
    case hipDeviceAttributeMaxTexture1DMipmap:
      return cuda(cudaDevAttrMaxTexture1DMipmappedWidth);
    case hipDeviceAttributeMaxTexture2DWidth:
      return cuda(cudaDevAttrMaxTexture2DWidth);
    case hipDeviceAttributeMaxTexture2DHeight:
      return cuda(cudaDevAttrMaxTexture2DHeight);
    case hipDeviceAttributeMaxTexture2DGather:
      return cuda(cudaDevAttrMaxTexture2DGatherWidth);
    case hipDeviceAttributeMaxTexture2DLayered:
      return cuda(cudaDevAttrMaxTexture2DLayeredWidth);
    case hipDeviceAttributeMaxTexture2DLinear:
      return cuda(cudaDevAttrMaxTexture2DLinearWidth);
    case hipDeviceAttributeMaxTexture2DMipmap:
      return cuda(cudaDevAttrMaxTexture2DMipmappedWidth);
    case hipDeviceAttributeMaxTexture3DWidth:
      return cuda(cudaDevAttrMaxTexture3DWidth);
    case hipDeviceAttributeMaxTexture3DHeight:
      return cuda(cudaDevAttrMaxTexture3DHeight);
    case hipDeviceAttributeMaxTexture3DDepth:
      return cuda(cudaDevAttrMaxTexture3DDepth);
    case hipDeviceAttributeMaxTexture3DAlt:
      return cuda(cudaDevAttrMaxTexture3DWidthAlt);
    case hipDeviceAttributeMaxTextureCubemap:
      return cuda(cudaDevAttrMaxTextureCubemapWidth);
    case hipDeviceAttributeMaxTextureCubemapLayered:
      return cuda(cudaDevAttrMaxTextureCubemapLayeredWidth);
    case hipDeviceAttributeMaxThreadsDim:
      return cuda(cudaDevAttrMaxBlockDimX);
    case hipDeviceAttributeMaxThreadsPerBlock:
      return cuda(cudaDevAttrMaxThreadsPerBlock);
    case hipDeviceAttributeMaxThreadsPerMultiProcessor:
      return cuda(cudaDevAttrMaxThreadsPerMultiProcessor);
    case hipDeviceAttributeMaxPitch:
      return cuda(cudaDevAttrMaxPitch);
    case hipDeviceAttributeMemoryBusWidth:
      return cuda(cudaDevAttrGlobalMemoryBusWidth);
    case hipDeviceAttributeMemoryClockRate:
      return cuda(cudaDevAttrMemoryClockRate);
    case hipDeviceAttributeComputeCapabilityMinor:
      return cuda(cudaDevAttrComputeCapabilityMinor);
    case hipDeviceAttributeMultiGpuBoardGroupID:
      return cuda(cudaDevAttrMultiGpuBoardGroupID);
    case hipDeviceAttributeMultiprocessorCount:
      return cuda(cudaDevAttrMultiProcessorCount);
    case hipDeviceAttributePageableMemoryAccess:
      return cuda(cudaDevAttrPageableMemoryAccess);
    case hipDeviceAttributePageableMemoryAccessUsesHostPageTables:
      return cuda(cudaDevAttrPageableMemoryAccessUsesHostPageTables);
    case hipDeviceAttributePciBusId:
      return cuda(cudaDevAttrPciBusId);
    case hipDeviceAttributePciDeviceId:
      return cuda(cudaDevAttrPciDeviceId);
    case hipDeviceAttributePciDomainID:
      return cuda(cudaDevAttrPciDomainId);
    case hipDeviceAttributePersistingL2CacheMaxSize:
      return cuda(cudaDevAttrMaxPersistingL2CacheSize);
    case hipDeviceAttributeMaxRegistersPerBlock:
      return cuda(cudaDevAttrMaxRegistersPerBlock);
    case hipDeviceAttributeMaxRegistersPerMultiprocessor:
      return cuda(cudaDevAttrMaxRegistersPerMultiprocessor);
    case hipDeviceAttributeReservedSharedMemPerBlock:
      return cuda(cudaDevAttrReservedSharedMemoryPerBlock);
    case hipDeviceAttributeMaxSharedMemoryPerBlock:
      return cuda(cudaDevAttrMaxSharedMemoryPerBlock);
    case hipDeviceAttributeSharedMemPerBlockOptin:
      return cuda(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    case hipDeviceAttributeSharedMemPerMultiprocessor:
    case hipDeviceAttributeMaxSharedMemoryPerMultiprocessor:
      return cuda(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
    case hipDeviceAttributeSingleToDoublePrecisionPerfRatio:
      return cuda(cudaDevAttrSingleToDoublePrecisionPerfRatio);
    case hipDeviceAttributeStreamPrioritiesSupported:
      return cuda(cudaDevAttrStreamPrioritiesSupported);
    case hipDeviceAttributeSurfaceAlignment:
      return cuda(cudaDevAttrSurfaceAlignment);
    case hipDeviceAttributeTccDriver:
      return cuda(cudaDevAttrTccDriver);
    case hipDeviceAttributeTextureAlignment:
      return cuda(cudaDevAttrTextureAlignment);
    case hipDeviceAttributeTexturePitchAlignment:
      return cuda(cudaDevAttrTexturePitchAlignment);
    case hipDeviceAttributeTotalConstantMemory:
      return cuda(cudaDevAttrTotalConstantMemory);
    case hipDeviceAttributeTotalGlobalMem:
      return R{R::kTotalGlobalMem, 0};
    case hipDeviceAttributeUnifiedAddressing:
      return cuda(cudaDevAttrUnifiedAddressing);
    case hipDeviceAttributeWarpSize:
      return cuda(cudaDevAttrWarpSize);
    case hipDeviceAttributeMemoryPoolsSupported:
      return cuda(cudaDevAttrMemoryPoolsSupported);
    case hipDeviceAttributeVirtualMemoryManagementSupported:
      return R{R::kDriver, kDriverAttrVirtualMemoryManagementSupported};
    case hipDeviceAttributeHostRegisterSupported:
      return cuda(cudaDevAttrHostRegisterSupported);
    case hipDeviceAttributeMemoryPoolSupportedHandleTypes:
      return cuda(cudaDevAttrMemoryPoolSupportedHandleTypes);
    // HIP-only attributes with an NVIDIA meaning.
    case hipDeviceAttributeClockInstructionRate:
      return cuda(cudaDevAttrClockRate);
    case hipDeviceAttributePhysicalMultiProcessorCount:
      return cuda(cudaDevAttrMultiProcessorCount);
    case hipDeviceAttributeCooperativeMultiDeviceUnmatchedFunc:
    case hipDeviceAttributeCooperativeMultiDeviceUnmatchedGridDim:
    case hipDeviceAttributeCooperativeMultiDeviceUnmatchedBlockDim:
    case hipDeviceAttributeCooperativeMultiDeviceUnmatchedSharedMem:
      return R{R::kConstant, 0};  // CUDA never allowed unmatched multi-device launches
    case hipDeviceAttributeCanUseStreamWaitValue:
      return R{R::kConstant, 0};  // this layer does not provide hipStreamWaitValue*
    case hipDeviceAttributeImageSupport:
      return R{R::kConstant, 1};
    // AMD hardware concepts without an NVIDIA counterpart.
    case hipDeviceAttributeHdpMemFlushCntl:
    case hipDeviceAttributeHdpRegFlushCntl:
    case hipDeviceAttributeIsLargeBar:
    case hipDeviceAttributeAsicRevision:
    case hipDeviceAttributeFineGrainSupport:
      return R{R::kNotSupported, 0};
    // wall_clock64() reads %globaltimer, which counts nanoseconds: 10^6 kHz.
    case hipDeviceAttributeWallClockRate:
      return R{R::kConstant, 1000000};
    default:
      return R{R::kInvalid, 0};
  }
}

}  // namespace detail
}  // namespace hip_on_cuda

// ---------------------------------------------------------------------------------------
// Initialisation and selection
// ---------------------------------------------------------------------------------------

/// Initialises the runtime. `flags` must be 0, as in HIP and cuInit.
inline hipError_t hipInit(unsigned int flags) {
  if (flags != 0) return hipErrorInvalidValue;
  return hip_on_cuda::detail::map(cudaFree(nullptr));
}

/// Number of devices. Unlike CUDA, and like HIP, `*count` is 0 when the call fails
/// (no driver, no device), so a caller that only looks at the count is safe.
inline hipError_t hipGetDeviceCount(int* count) {
  if (count == nullptr) return hipErrorInvalidValue;
  const cudaError_t e = cudaGetDeviceCount(count);
  if (e != cudaSuccess) *count = 0;
  return hip_on_cuda::detail::map(e);
}

inline hipError_t hipDeviceGet(hipDevice_t* device, int ordinal) {
  if (device == nullptr) return hipErrorInvalidValue;
  int count = 0;
  const hipError_t e = hipGetDeviceCount(&count);
  if (e != hipSuccess) return e;
  if (ordinal < 0 || ordinal >= count) return hipErrorInvalidDevice;
  *device = ordinal;
  return hipSuccess;
}

inline hipError_t hipSetDevice(int deviceId) {
  return hip_on_cuda::detail::map(cudaSetDevice(deviceId));
}

inline hipError_t hipGetDevice(int* deviceId) {
  return hip_on_cuda::detail::map(cudaGetDevice(deviceId));
}

inline hipError_t hipDeviceSynchronize(void) {
  return hip_on_cuda::detail::map(cudaDeviceSynchronize());
}

inline hipError_t hipDeviceReset(void) { return hip_on_cuda::detail::map(cudaDeviceReset()); }

/// Sets the host-side waiting policy (hipDeviceScheduleSpin / Yield / BlockingSync /
/// Auto) and hipDeviceMapHost / hipDeviceLmemResizeToMax for the current device.
inline hipError_t hipSetDeviceFlags(unsigned flags) {
  return hip_on_cuda::detail::map(cudaSetDeviceFlags(flags));
}

inline hipError_t hipGetDeviceFlags(unsigned int* flags) {
  return hip_on_cuda::detail::map(cudaGetDeviceFlags(flags));
}

// ---------------------------------------------------------------------------------------
// Properties and attributes
// ---------------------------------------------------------------------------------------

inline hipError_t hipDeviceGetAttribute(int* pi, hipDeviceAttribute_t attr, int deviceId) {
  using hip_on_cuda::detail::AttributeRoute;
  if (pi == nullptr) return hipErrorInvalidValue;
  const AttributeRoute route = hip_on_cuda::detail::route_attribute(attr);
  switch (route.kind) {
    case AttributeRoute::kCuda:
      return hip_on_cuda::detail::map(
          cudaDeviceGetAttribute(pi, static_cast<cudaDeviceAttr>(route.value), deviceId));
    case AttributeRoute::kDriver: {
      using GetAttribute = int (*)(int*, int, int);  // cuDeviceGetAttribute
      GetAttribute get = nullptr;
      hipError_t e = hip_on_cuda::detail::driver_entry_point("cuDeviceGetAttribute", &get);
      if (e != hipSuccess) return e;
      int count = 0;
      e = hipGetDeviceCount(&count);
      if (e != hipSuccess) return e;
      if (deviceId < 0 || deviceId >= count) return hipErrorInvalidDevice;
      return hip_on_cuda::detail::map_driver_result(get(pi, route.value, deviceId));
    }
    case AttributeRoute::kConstant: {
      int count = 0;
      const hipError_t e = hipGetDeviceCount(&count);
      if (e != hipSuccess) return e;
      if (deviceId < 0 || deviceId >= count) return hipErrorInvalidDevice;
      *pi = route.value;
      return hipSuccess;
    }
    case AttributeRoute::kTotalGlobalMem: {
      // HIP's attribute is an int; a 141 GB device does not fit, so it saturates.
      cudaDeviceProp p{};
      const cudaError_t e = cudaGetDeviceProperties(&p, deviceId);
      if (e != cudaSuccess) return hip_on_cuda::detail::map(e);
      *pi = p.totalGlobalMem > static_cast<size_t>(INT_MAX) ? INT_MAX
                                                            : static_cast<int>(p.totalGlobalMem);
      return hipSuccess;
    }
    case AttributeRoute::kNotSupported:
      return hipErrorNotSupported;
    case AttributeRoute::kInvalid:
    default:
      return hipErrorInvalidValue;
  }
}

/// Fills HIP 6.0's hipDeviceProp_t. Fields CUDA 13 no longer has in cudaDeviceProp
/// come from cudaDeviceGetAttribute; HIP-only fields get their NVIDIA meaning.
inline hipError_t hipGetDeviceProperties(hipDeviceProp_t* prop, int deviceId) {
  if (prop == nullptr) return hipErrorInvalidValue;
  cudaDeviceProp p{};
  cudaError_t e = cudaGetDeviceProperties(&p, deviceId);
  if (e != cudaSuccess) return hip_on_cuda::detail::map(e);

  std::memset(prop, 0, sizeof *prop);
  std::memcpy(prop->name, p.name, sizeof prop->name);
  prop->name[sizeof prop->name - 1] = '\0';
  static_assert(sizeof prop->uuid.bytes == sizeof p.uuid.bytes, "UUID size");
  std::memcpy(prop->uuid.bytes, p.uuid.bytes, sizeof prop->uuid.bytes);
  static_assert(sizeof prop->luid == sizeof p.luid, "LUID size");
  std::memcpy(prop->luid, p.luid, sizeof prop->luid);
  prop->luidDeviceNodeMask = p.luidDeviceNodeMask;
  prop->totalGlobalMem = p.totalGlobalMem;
  prop->sharedMemPerBlock = p.sharedMemPerBlock;
  prop->regsPerBlock = p.regsPerBlock;
  prop->warpSize = p.warpSize;
  prop->memPitch = p.memPitch;
  prop->maxThreadsPerBlock = p.maxThreadsPerBlock;
  for (int i = 0; i < 3; ++i) {
    prop->maxThreadsDim[i] = p.maxThreadsDim[i];
    prop->maxGridSize[i] = p.maxGridSize[i];
    prop->maxTexture2DLinear[i] = p.maxTexture2DLinear[i];
    prop->maxTexture3D[i] = p.maxTexture3D[i];
    prop->maxTexture3DAlt[i] = p.maxTexture3DAlt[i];
    prop->maxTexture2DLayered[i] = p.maxTexture2DLayered[i];
    prop->maxSurface3D[i] = p.maxSurface3D[i];
    prop->maxSurface2DLayered[i] = p.maxSurface2DLayered[i];
  }
  for (int i = 0; i < 2; ++i) {
    prop->maxTexture2D[i] = p.maxTexture2D[i];
    prop->maxTexture2DMipmap[i] = p.maxTexture2DMipmap[i];
    prop->maxTexture2DGather[i] = p.maxTexture2DGather[i];
    prop->maxTexture1DLayered[i] = p.maxTexture1DLayered[i];
    prop->maxTextureCubemapLayered[i] = p.maxTextureCubemapLayered[i];
    prop->maxSurface2D[i] = p.maxSurface2D[i];
    prop->maxSurface1DLayered[i] = p.maxSurface1DLayered[i];
    prop->maxSurfaceCubemapLayered[i] = p.maxSurfaceCubemapLayered[i];
  }
  prop->totalConstMem = p.totalConstMem;
  prop->major = p.major;
  prop->minor = p.minor;
  prop->textureAlignment = p.textureAlignment;
  prop->texturePitchAlignment = p.texturePitchAlignment;
  prop->multiProcessorCount = p.multiProcessorCount;
  prop->integrated = p.integrated;
  prop->canMapHostMemory = p.canMapHostMemory;
  prop->maxTexture1D = p.maxTexture1D;
  prop->maxTexture1DMipmap = p.maxTexture1DMipmap;
  prop->maxTextureCubemap = p.maxTextureCubemap;
  prop->maxSurface1D = p.maxSurface1D;
  prop->maxSurfaceCubemap = p.maxSurfaceCubemap;
  prop->surfaceAlignment = p.surfaceAlignment;
  prop->concurrentKernels = p.concurrentKernels;
  prop->ECCEnabled = p.ECCEnabled;
  prop->pciBusID = p.pciBusID;
  prop->pciDeviceID = p.pciDeviceID;
  prop->pciDomainID = p.pciDomainID;
  prop->tccDriver = p.tccDriver;
  prop->asyncEngineCount = p.asyncEngineCount;
  prop->unifiedAddressing = p.unifiedAddressing;
  prop->memoryBusWidth = p.memoryBusWidth;
  prop->l2CacheSize = p.l2CacheSize;
  prop->persistingL2CacheMaxSize = p.persistingL2CacheMaxSize;
  prop->maxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
  prop->streamPrioritiesSupported = p.streamPrioritiesSupported;
  prop->globalL1CacheSupported = p.globalL1CacheSupported;
  prop->localL1CacheSupported = p.localL1CacheSupported;
  prop->sharedMemPerMultiprocessor = p.sharedMemPerMultiprocessor;
  prop->regsPerMultiprocessor = p.regsPerMultiprocessor;
  prop->managedMemory = p.managedMemory;
  prop->isMultiGpuBoard = p.isMultiGpuBoard;
  prop->multiGpuBoardGroupID = p.multiGpuBoardGroupID;
  prop->hostNativeAtomicSupported = p.hostNativeAtomicSupported;
  prop->pageableMemoryAccess = p.pageableMemoryAccess;
  prop->concurrentManagedAccess = p.concurrentManagedAccess;
  prop->computePreemptionSupported = p.computePreemptionSupported;
  prop->canUseHostPointerForRegisteredMem = p.canUseHostPointerForRegisteredMem;
  prop->cooperativeLaunch = p.cooperativeLaunch;
  prop->sharedMemPerBlockOptin = p.sharedMemPerBlockOptin;
  prop->pageableMemoryAccessUsesHostPageTables = p.pageableMemoryAccessUsesHostPageTables;
  prop->directManagedMemAccessFromHost = p.directManagedMemAccessFromHost;
  prop->maxBlocksPerMultiProcessor = p.maxBlocksPerMultiProcessor;
  prop->accessPolicyMaxWindowSize = p.accessPolicyMaxWindowSize;
  prop->reservedSharedMemPerBlock = p.reservedSharedMemPerBlock;
  prop->hostRegisterSupported = p.hostRegisterSupported;
  prop->sparseHipArraySupported = p.sparseCudaArraySupported;
  prop->hostRegisterReadOnlySupported = p.hostRegisterReadOnlySupported;
  prop->timelineSemaphoreInteropSupported = p.timelineSemaphoreInteropSupported;
  prop->memoryPoolsSupported = p.memoryPoolsSupported;
  prop->gpuDirectRDMASupported = p.gpuDirectRDMASupported;
  prop->gpuDirectRDMAFlushWritesOptions = p.gpuDirectRDMAFlushWritesOptions;
  prop->gpuDirectRDMAWritesOrdering = p.gpuDirectRDMAWritesOrdering;
  prop->memoryPoolSupportedHandleTypes = p.memoryPoolSupportedHandleTypes;
  prop->deferredMappingHipArraySupported = p.deferredMappingCudaArraySupported;
  prop->ipcEventSupported = p.ipcEventSupported;
  prop->clusterLaunch = p.clusterLaunch;
  prop->unifiedFunctionPointers = p.unifiedFunctionPointers;
#if CUDART_VERSION < 13000
  prop->cooperativeMultiDeviceLaunch = p.cooperativeMultiDeviceLaunch;
#endif

  // Fields that CUDA 13 removed from cudaDeviceProp: ask the attribute interface, which
  // has them in every supported CUDA version.
  struct {
    int* field;
    cudaDeviceAttr attr;
  } const from_attributes[] = {
      {&prop->clockRate, cudaDevAttrClockRate},
      {&prop->memoryClockRate, cudaDevAttrMemoryClockRate},
      {&prop->computeMode, cudaDevAttrComputeMode},
      {&prop->kernelExecTimeoutEnabled, cudaDevAttrKernelExecTimeout},
      {&prop->deviceOverlap, cudaDevAttrGpuOverlap},
      {&prop->maxTexture1DLinear, cudaDevAttrMaxTexture1DLinearWidth},
      {&prop->singleToDoublePrecisionPerfRatio, cudaDevAttrSingleToDoublePrecisionPerfRatio},
  };
  for (const auto& entry : from_attributes) {
    e = cudaDeviceGetAttribute(entry.field, entry.attr, deviceId);
    if (e != cudaSuccess) return hip_on_cuda::detail::map(e);
  }

  // HIP-only members.
  std::snprintf(prop->gcnArchName, sizeof prop->gcnArchName, "sm_%d%d", p.major, p.minor);
  prop->maxSharedMemoryPerMultiProcessor = p.sharedMemPerMultiprocessor;
  prop->clockInstructionRate = prop->clockRate;  // clock64() counts SM clock cycles
  // Every GPU that CUDA 12 and 13 support (sm_50 and newer) has all of these.
  prop->arch.hasGlobalInt32Atomics = 1;
  prop->arch.hasGlobalFloatAtomicExch = 1;
  prop->arch.hasSharedInt32Atomics = 1;
  prop->arch.hasSharedFloatAtomicExch = 1;
  prop->arch.hasFloatAtomicAdd = 1;
  prop->arch.hasGlobalInt64Atomics = 1;
  prop->arch.hasSharedInt64Atomics = 1;
  prop->arch.hasDoubles = 1;
  prop->arch.hasWarpVote = 1;
  prop->arch.hasWarpBallot = 1;
  prop->arch.hasWarpShuffle = 1;
  prop->arch.hasFunnelShift = 1;
  prop->arch.hasThreadFenceSystem = 1;
  prop->arch.hasSyncThreadsExt = 1;
  prop->arch.hasSurfaceFuncs = 1;
  prop->arch.has3dGrid = 1;
  prop->arch.hasDynamicParallelism = 1;
  return hipSuccess;
}

/// HIP 6 names the versioned entry point explicitly; same function here.
inline hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_tR0600* prop, int deviceId) {
  return hipGetDeviceProperties(prop, deviceId);
}

inline hipError_t hipDeviceGetName(char* name, int len, hipDevice_t device) {
  if (name == nullptr || len <= 0) return hipErrorInvalidValue;
  cudaDeviceProp p{};
  const cudaError_t e = cudaGetDeviceProperties(&p, device);
  if (e != cudaSuccess) return hip_on_cuda::detail::map(e);
  const size_t n = std::min(static_cast<size_t>(len) - 1, std::strlen(p.name));
  std::memcpy(name, p.name, n);
  name[n] = '\0';
  return hipSuccess;
}

inline hipError_t hipDeviceGetUuid(hipUUID* uuid, hipDevice_t device) {
  if (uuid == nullptr) return hipErrorInvalidValue;
  cudaDeviceProp p{};
  const cudaError_t e = cudaGetDeviceProperties(&p, device);
  if (e != cudaSuccess) return hip_on_cuda::detail::map(e);
  std::memcpy(uuid->bytes, p.uuid.bytes, sizeof uuid->bytes);
  return hipSuccess;
}

inline hipError_t hipDeviceTotalMem(size_t* bytes, hipDevice_t device) {
  if (bytes == nullptr) return hipErrorInvalidValue;
  cudaDeviceProp p{};
  const cudaError_t e = cudaGetDeviceProperties(&p, device);
  if (e != cudaSuccess) return hip_on_cuda::detail::map(e);
  *bytes = p.totalGlobalMem;
  return hipSuccess;
}

inline hipError_t hipDeviceComputeCapability(int* major, int* minor, hipDevice_t device) {
  if (major == nullptr || minor == nullptr) return hipErrorInvalidValue;
  cudaError_t e = cudaDeviceGetAttribute(major, cudaDevAttrComputeCapabilityMajor, device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(minor, cudaDevAttrComputeCapabilityMinor, device);
  return hip_on_cuda::detail::map(e);
}

inline hipError_t hipDeviceGetPCIBusId(char* pciBusId, int len, int device) {
  return hip_on_cuda::detail::map(cudaDeviceGetPCIBusId(pciBusId, len, device));
}

inline hipError_t hipDeviceGetByPCIBusId(int* device, const char* pciBusId) {
  return hip_on_cuda::detail::map(cudaDeviceGetByPCIBusId(device, pciBusId));
}

// ---------------------------------------------------------------------------------------
// Limits, priorities, caches
// ---------------------------------------------------------------------------------------

inline hipError_t hipDeviceGetLimit(size_t* pValue, enum hipLimit_t limit) {
  if (limit < hipLimitStackSize || limit >= hipLimitRange) return hipErrorUnsupportedLimit;
  return hip_on_cuda::detail::map(cudaDeviceGetLimit(pValue, static_cast<cudaLimit>(limit)));
}

inline hipError_t hipDeviceSetLimit(enum hipLimit_t limit, size_t value) {
  if (limit < hipLimitStackSize || limit >= hipLimitRange) return hipErrorUnsupportedLimit;
  return hip_on_cuda::detail::map(cudaDeviceSetLimit(static_cast<cudaLimit>(limit), value));
}

/// Stream priorities: lower numbers are higher priority, on AMD and NVIDIA alike.
inline hipError_t hipDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  return hip_on_cuda::detail::map(
      cudaDeviceGetStreamPriorityRange(leastPriority, greatestPriority));
}

inline hipError_t hipDeviceGetCacheConfig(hipFuncCache_t* cacheConfig) {
  if (cacheConfig == nullptr) return hipErrorInvalidValue;
  cudaFuncCache c = cudaFuncCachePreferNone;
  const cudaError_t e = cudaDeviceGetCacheConfig(&c);
  if (e == cudaSuccess) *cacheConfig = static_cast<hipFuncCache_t>(c);
  return hip_on_cuda::detail::map(e);
}

inline hipError_t hipDeviceSetCacheConfig(hipFuncCache_t cacheConfig) {
  return hip_on_cuda::detail::map(
      cudaDeviceSetCacheConfig(static_cast<cudaFuncCache>(cacheConfig)));
}

/// Shared-memory bank size. Fixed at four bytes on every GPU CUDA 12 supports (the CUDA
/// calls are deprecated no-ops), so this reports four bytes and accepts any valid value.
inline hipError_t hipDeviceGetSharedMemConfig(hipSharedMemConfig* pConfig) {
  if (pConfig == nullptr) return hipErrorInvalidValue;
  *pConfig = hipSharedMemBankSizeFourByte;
  return hipSuccess;
}

inline hipError_t hipDeviceSetSharedMemConfig(hipSharedMemConfig config) {
  return (config >= hipSharedMemBankSizeDefault && config <= hipSharedMemBankSizeEightByte)
             ? hipSuccess
             : hipErrorInvalidValue;
}

// ---------------------------------------------------------------------------------------
// Peer access
// ---------------------------------------------------------------------------------------

inline hipError_t hipDeviceCanAccessPeer(int* canAccessPeer, int deviceId, int peerDeviceId) {
  return hip_on_cuda::detail::map(cudaDeviceCanAccessPeer(canAccessPeer, deviceId, peerDeviceId));
}

inline hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags) {
  return hip_on_cuda::detail::map(cudaDeviceEnablePeerAccess(peerDeviceId, flags));
}

inline hipError_t hipDeviceDisablePeerAccess(int peerDeviceId) {
  return hip_on_cuda::detail::map(cudaDeviceDisablePeerAccess(peerDeviceId));
}

/// HIP numbers the P2P attributes from 0, CUDA from 1.
inline hipError_t hipDeviceGetP2PAttribute(int* value, hipDeviceP2PAttr attr, int srcDevice,
                                           int dstDevice) {
  cudaDeviceP2PAttr cuda_attr;
  switch (attr) {
    case hipDevP2PAttrPerformanceRank:
      cuda_attr = cudaDevP2PAttrPerformanceRank;
      break;
    case hipDevP2PAttrAccessSupported:
      cuda_attr = cudaDevP2PAttrAccessSupported;
      break;
    case hipDevP2PAttrNativeAtomicSupported:
      cuda_attr = cudaDevP2PAttrNativeAtomicSupported;
      break;
    case hipDevP2PAttrHipArrayAccessSupported:
      cuda_attr = cudaDevP2PAttrCudaArrayAccessSupported;
      break;
    default:
      return hipErrorInvalidValue;
  }
  return hip_on_cuda::detail::map(
      cudaDeviceGetP2PAttribute(value, cuda_attr, srcDevice, dstDevice));
}

#endif  // HIP_ON_CUDA_DEVICE_H
