// hip_on_cuda layer test: every declared function family compiles, and the layer's
// tables are consistent. Needs no GPU.
//
// Compile-time part: takes the address of every HIP function the layer declares (with
// the exact HIP signature where a name is overloaded), uses the HIP types and flag
// macros, and uses the kernel-side names in a kernel. Run-time part (host only): every
// HIP error code has its own name and a text, the HIP -> CUDA -> HIP error mapping
// round-trips, and every HIP device attribute has a route (except HIP's unused slots).
//
// This file is specific to the layer (it uses hipCUDAErrorTohipError and the layer's
// internals); on AMD's HIP it is not built.
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

#if !defined(HIP_LESSONS_HIP_ON_CUDA)
#error "header_coverage.hip tests the hip_on_cuda layer; build it only when the layer is in use"
#endif

namespace {

std::vector<std::uintptr_t>& addresses() {
  static std::vector<std::uintptr_t> a;
  return a;
}

template <typename F>
void take(F* f) {
  addresses().push_back(reinterpret_cast<std::uintptr_t>(f));
}

#define TAKE(fn) take(&fn)
#define TAKE_AS(signature, fn) take(static_cast<signature>(&fn))

__global__ void kernel_side(int* out, float* fout) {
  HIP_DYNAMIC_SHARED(int, dyn)
  const unsigned i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
  const unsigned y = hipThreadIdx_y + hipBlockIdx_y + hipBlockDim_y + hipGridDim_y;
  const unsigned z = hipThreadIdx_z + hipBlockIdx_z + hipBlockDim_z + hipGridDim_z + hipGridDim_x;
  dyn[hipThreadIdx_x] = static_cast<int>(i + y + z);
  __syncthreads();
  int v = dyn[hipThreadIdx_x];
  v += __shfl(v, 0) + __shfl_up(v, 1) + __shfl_down(v, 1) + __shfl_xor(v, 1);
  v += __shfl(v, 0, 16) + __shfl_down(v, 1, 16);
  v += static_cast<int>(__ballot(v > 0) & 1ull) + __any(v > 0) + __all(v > 0);
  v += static_cast<int>(__lane_id()) + warpSize + static_cast<int>(__clock() & 1) +
       static_cast<int>(__clock64() & 1);
  unsafeAtomicAdd(fout, 1.0f);
  safeAtomicAdd(fout + 1, 1.0f);
  out[i] = v;
}

/// The texture fetches are CUDA's templates over hipTextureObject_t (= cudaTextureObject_t).
__global__ void texture_side(hipTextureObject_t texture, float* out) {
  out[0] = tex2D<float>(texture, 0.5f, 0.5f) + tex1Dfetch<float>(texture, 1);
  tex2D<float>(out + 1, texture, 1.5f, 0.5f);
}

template <int N>
__global__ __launch_bounds__(N) void templated(int* out) {
  out[hipThreadIdx_x] = N;
}

__device__ int g_symbol[4];

void take_all_functions() {
  // errors
  TAKE(hipCUDAErrorTohipError);
  TAKE(hipErrorToCudaError);
  TAKE(hipGetErrorName);
  TAKE(hipGetErrorString);
  TAKE(hipGetLastError);
  TAKE(hipPeekAtLastError);
  // device
  TAKE(hipInit);
  TAKE(hipGetDeviceCount);
  TAKE(hipDeviceGet);
  TAKE(hipSetDevice);
  TAKE(hipGetDevice);
  TAKE(hipDeviceSynchronize);
  TAKE(hipDeviceReset);
  TAKE(hipSetDeviceFlags);
  TAKE(hipGetDeviceFlags);
  TAKE(hipDeviceGetAttribute);
  TAKE(hipGetDeviceProperties);
  TAKE(hipGetDevicePropertiesR0600);
  TAKE(hipDeviceGetName);
  TAKE(hipDeviceGetUuid);
  TAKE(hipDeviceTotalMem);
  TAKE(hipDeviceComputeCapability);
  TAKE(hipDeviceGetPCIBusId);
  TAKE(hipDeviceGetByPCIBusId);
  TAKE(hipDeviceGetLimit);
  TAKE(hipDeviceSetLimit);
  TAKE(hipDeviceGetStreamPriorityRange);
  TAKE(hipDeviceGetCacheConfig);
  TAKE(hipDeviceSetCacheConfig);
  TAKE(hipDeviceGetSharedMemConfig);
  TAKE(hipDeviceSetSharedMemConfig);
  TAKE(hipDeviceCanAccessPeer);
  TAKE(hipDeviceEnablePeerAccess);
  TAKE(hipDeviceDisablePeerAccess);
  TAKE(hipDeviceGetP2PAttribute);
  // memory
  TAKE_AS(hipError_t(*)(void**, size_t), hipMalloc);
  TAKE_AS(hipError_t(*)(float**, size_t), hipMalloc<float>);
  TAKE(hipMallocPitch);
  TAKE(hipFree);
  TAKE(hipMemGetInfo);
  TAKE_AS(hipError_t(*)(void**, size_t, unsigned int), hipHostMalloc);
  TAKE_AS(hipError_t(*)(int**, size_t, unsigned int), hipHostMalloc<int>);
  TAKE(hipHostFree);
  TAKE(hipMallocHost);
  TAKE(hipFreeHost);
  TAKE(hipHostRegister);
  TAKE(hipHostUnregister);
  TAKE(hipHostGetDevicePointer);
  TAKE(hipHostGetFlags);
  TAKE(hipMemcpy);
  TAKE(hipMemcpyAsync);
  TAKE(hipMemcpyWithStream);
  TAKE(hipMemcpyHtoD);
  TAKE(hipMemcpyDtoH);
  TAKE(hipMemcpyDtoD);
  TAKE(hipMemcpyHtoDAsync);
  TAKE(hipMemcpyDtoHAsync);
  TAKE(hipMemcpyDtoDAsync);
  TAKE(hipMemcpy2D);
  TAKE(hipMemcpy2DAsync);
  TAKE(hipMemcpyPeer);
  TAKE(hipMemcpyPeerAsync);
  TAKE_AS(hipError_t(*)(const void*, const void*, size_t, size_t, hipMemcpyKind),
          hipMemcpyToSymbol);
  TAKE_AS(hipError_t(*)(const void*, const void*, size_t, size_t, hipMemcpyKind, hipStream_t),
          hipMemcpyToSymbolAsync);
  TAKE_AS(hipError_t(*)(void*, const void*, size_t, size_t, hipMemcpyKind), hipMemcpyFromSymbol);
  TAKE_AS(hipError_t(*)(void*, const void*, size_t, size_t, hipMemcpyKind, hipStream_t),
          hipMemcpyFromSymbolAsync);
  TAKE_AS(hipError_t(*)(void**, const void*), hipGetSymbolAddress);
  TAKE_AS(hipError_t(*)(size_t*, const void*), hipGetSymbolSize);
  TAKE(hipMemset);
  TAKE(hipMemsetAsync);
  TAKE(hipMemsetD8);
  TAKE(hipMemsetD8Async);
  TAKE(hipMemsetD16);
  TAKE(hipMemsetD16Async);
  TAKE(hipMemsetD32);
  TAKE(hipMemsetD32Async);
  TAKE(hipMemset2D);
  TAKE(hipMemset2DAsync);
  TAKE_AS(hipError_t(*)(void**, size_t, unsigned int), hipMallocManaged);
  TAKE(hipMemPrefetchAsync);
  TAKE(hipMemAdvise);
  TAKE(hipMemRangeGetAttribute);
  TAKE(hipStreamAttachMemAsync);
  TAKE(hipPointerGetAttributes);
  TAKE_AS(hipError_t(*)(void**, size_t, hipStream_t), hipMallocAsync);
  TAKE_AS(hipError_t(*)(void**, size_t, hipMemPool_t, hipStream_t), hipMallocAsync);
  TAKE(hipFreeAsync);
  TAKE_AS(hipError_t(*)(void**, size_t, hipMemPool_t, hipStream_t), hipMallocFromPoolAsync);
  TAKE(hipDeviceGetDefaultMemPool);
  TAKE(hipDeviceGetMemPool);
  TAKE(hipDeviceSetMemPool);
  TAKE(hipMemPoolCreate);
  TAKE(hipMemPoolDestroy);
  TAKE(hipMemPoolTrimTo);
  TAKE(hipMemPoolSetAttribute);
  TAKE(hipMemPoolGetAttribute);
  TAKE(hipMemPoolSetAccess);
  TAKE(hipMemPoolGetAccess);
  // streams
  TAKE(hipStreamCreate);
  TAKE(hipStreamCreateWithFlags);
  TAKE(hipStreamCreateWithPriority);
  TAKE(hipStreamGetPriority);
  TAKE(hipStreamGetFlags);
#if CUDART_VERSION >= 12080
  TAKE(hipStreamGetDevice);
#endif
  TAKE(hipStreamDestroy);
  TAKE(hipStreamQuery);
  TAKE(hipStreamSynchronize);
  TAKE(hipStreamWaitEvent);
  TAKE(hipStreamAddCallback);
  TAKE(hipLaunchHostFunc);
  // events
  TAKE(hipEventCreate);
  TAKE(hipEventCreateWithFlags);
  TAKE(hipEventRecord);
  TAKE(hipEventQuery);
  TAKE(hipEventSynchronize);
  TAKE(hipEventElapsedTime);
  TAKE(hipEventDestroy);
  // launch
  TAKE(hipLaunchKernel);
  TAKE_AS(hipError_t(*)(const void*, dim3, dim3, void**, unsigned int, hipStream_t),
          hipLaunchCooperativeKernel);
  TAKE(hipFuncGetAttributes);
  TAKE(hipFuncSetAttribute);
  TAKE(hipFuncSetCacheConfig);
  TAKE(hipFuncSetSharedMemConfig);
  // occupancy
  TAKE_AS(hipError_t(*)(int*, const void*, int, size_t),
          hipOccupancyMaxActiveBlocksPerMultiprocessor);
  TAKE_AS(hipError_t(*)(int*, const void*, int, size_t, unsigned int),
          hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags);
  TAKE_AS(hipError_t(*)(int*, int*, const void*, size_t, int), hipOccupancyMaxPotentialBlockSize);
  // graphs
  TAKE(hipStreamBeginCapture);
  TAKE(hipStreamEndCapture);
  TAKE(hipStreamIsCapturing);
  TAKE(hipStreamGetCaptureInfo);
  TAKE(hipStreamGetCaptureInfo_v2);
  TAKE(hipStreamUpdateCaptureDependencies);
  TAKE(hipThreadExchangeStreamCaptureMode);
  TAKE(hipGraphCreate);
  TAKE(hipGraphDestroy);
  TAKE(hipGraphClone);
  TAKE(hipGraphGetNodes);
  TAKE(hipGraphGetRootNodes);
  TAKE(hipGraphGetEdges);
  TAKE(hipGraphNodeGetType);
  TAKE(hipGraphNodeGetDependencies);
  TAKE(hipGraphNodeGetDependentNodes);
  TAKE(hipGraphAddDependencies);
  TAKE(hipGraphRemoveDependencies);
  TAKE(hipGraphDestroyNode);
  TAKE(hipGraphAddKernelNode);
  TAKE(hipGraphKernelNodeGetParams);
  TAKE(hipGraphKernelNodeSetParams);
  TAKE(hipGraphExecKernelNodeSetParams);
  TAKE(hipGraphAddEmptyNode);
  TAKE(hipGraphAddHostNode);
  TAKE(hipGraphAddMemsetNode);
  TAKE(hipGraphAddMemcpyNode1D);
  TAKE(hipGraphAddChildGraphNode);
  TAKE(hipGraphAddEventRecordNode);
  TAKE(hipGraphAddEventWaitNode);
  TAKE(hipGraphInstantiate);
  TAKE(hipGraphInstantiateWithFlags);
  TAKE(hipGraphLaunch);
  TAKE(hipGraphUpload);
  TAKE(hipGraphExecDestroy);
  TAKE(hipGraphExecUpdate);
  // module (driver API through entry points)
  TAKE(hipModuleLoad);
  TAKE(hipModuleLoadData);
  TAKE(hipModuleLoadDataEx);
  TAKE(hipModuleUnload);
  TAKE(hipModuleGetFunction);
  TAKE(hipModuleGetGlobal);
  TAKE(hipModuleLaunchKernel);
  TAKE(hipFuncGetAttribute);
  TAKE(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor);
  TAKE(hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags);
  TAKE(hipModuleOccupancyMaxPotentialBlockSize);
  TAKE(hipModuleOccupancyMaxPotentialBlockSizeWithFlags);
  // textures and arrays
  TAKE_AS(hipChannelFormatDesc(*)(int, int, int, int, hipChannelFormatKind), hipCreateChannelDesc);
  TAKE_AS(hipChannelFormatDesc(*)(), hipCreateChannelDesc<float>);
  TAKE(hipGetChannelDesc);
  TAKE(hipMallocArray);
  TAKE(hipFreeArray);
  TAKE(hipMemcpy2DToArray);
  TAKE(hipMemcpy2DToArrayAsync);
  TAKE(hipMemcpy2DFromArray);
  TAKE(hipMemcpy2DFromArrayAsync);
  TAKE(hipMemcpyToArray);
  TAKE(hipMemcpyFromArray);
  TAKE(hipCreateTextureObject);
  TAKE(hipDestroyTextureObject);
  TAKE(hipGetTextureObjectResourceDesc);
  TAKE(hipGetTextureObjectTextureDesc);
  TAKE(hipGetTextureObjectResourceViewDesc);
  // versions
  TAKE(hipRuntimeGetVersion);
  TAKE(hipDriverGetVersion);
}

/// Compiles (not run): the C++ conveniences and templates with real kernels/symbols.
[[maybe_unused]] void instantiate_templates(hipStream_t stream) {
  int* p = nullptr;
  int grid = 0;
  int block = 0;
  int blocks = 0;
  void* args[] = {&p};
  hip_api_test::ignore(hipMalloc(&p, 16));
  hip_api_test::ignore(hipHostMalloc(&p, 16));
  hip_api_test::ignore(hipMallocManaged(&p, 16));
  hip_api_test::ignore(hipMallocAsync(&p, 16, stream));
  hip_api_test::ignore(hipMallocFromPoolAsync(&p, 16, nullptr, stream));
  hip_api_test::ignore(hipMemcpyToSymbol(g_symbol, p, sizeof g_symbol));
  hip_api_test::ignore(hipMemcpyToSymbol(HIP_SYMBOL(g_symbol), p, sizeof g_symbol));
  hip_api_test::ignore(hipMemcpyFromSymbol(p, g_symbol, sizeof g_symbol));
  hip_api_test::ignore(
      hipMemcpyToSymbolAsync(g_symbol, p, sizeof g_symbol, 0, hipMemcpyHostToDevice, stream));
  hip_api_test::ignore(
      hipMemcpyFromSymbolAsync(p, g_symbol, sizeof g_symbol, 0, hipMemcpyDeviceToHost, stream));
  void* address = nullptr;
  size_t size = 0;
  hip_api_test::ignore(hipGetSymbolAddress(&address, g_symbol));
  hip_api_test::ignore(hipGetSymbolSize(&size, g_symbol));
  hip_api_test::ignore(hipOccupancyMaxPotentialBlockSize(&grid, &block, kernel_side));
  hip_api_test::ignore(
      hipOccupancyMaxPotentialBlockSizeWithFlags(&grid, &block, templated<64>, 0, 0, 0));
  hip_api_test::ignore(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel_side, 128, 0));
  hip_api_test::ignore(
      hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, kernel_side, 128, 0, 0));
  hip_api_test::ignore(
      hipLaunchCooperativeKernel(templated<32>, dim3(1), dim3(32), args, 0, stream));
  hipLaunchKernelGGL(kernel_side, dim3(1), dim3(64), 64 * sizeof(int), stream, p, nullptr);
  hipLaunchKernelGGL(HIP_KERNEL_NAME(templated<128>), dim3(1), dim3(128), 0, stream, p);
  hipLaunchKernelGGL(texture_side, dim3(1), dim3(1), 0, stream, hipTextureObject_t{0}, nullptr);
  hip_api_test::ignore(hipMallocArray(nullptr, nullptr, 16));
  hip_api_test::ignore(hipMemcpy2DToArrayAsync(nullptr, 0, 0, p, 16, 16, 1, hipMemcpyHostToDevice));
  templated<32><<<1, 32, 0, stream>>>(p);
}

/// Uses the HIP types and flag macros; returns a value built from all of them so that
/// nothing is "set but not used".
long long use_types_and_macros() {
  hipDeviceProp_t prop{};
  prop.gcnArchName[0] = 's';
  prop.arch.hasWarpShuffle = 1;
  const hipDeviceProp_tR0600 alias = prop;
  hipPointerAttribute_t pointer{};
  pointer.type = hipMemoryTypeManaged;
  hipKernelNodeParams kernel{};
  kernel.sharedMemBytes = 3;
  hipMemsetParams memset_params{};
  memset_params.elementSize = 4;
  hipHostNodeParams host{};
  host.userData = &prop;
  hipMemPoolProps pool{};
  pool.allocType = hipMemAllocationTypePinned;
  pool.location.type = hipMemLocationTypeDevice;
  hipMemAccessDesc access{};
  access.flags = hipMemAccessFlagsProtReadWrite;
  hipFuncAttributes func{};
  func.maxDynamicSharedSizeBytes = 5;
  hipUUID uuid{};
  uuid.bytes[0] = 6;
  const hipDeviceptr_t device_pointer = &uuid;
  const unsigned flags[] = {hipStreamDefault,
                            hipStreamNonBlocking,
                            hipEventDefault,
                            hipEventBlockingSync,
                            hipEventDisableTiming,
                            hipEventInterprocess,
                            hipEventReleaseToDevice,
                            hipEventReleaseToSystem,
                            hipHostMallocDefault,
                            hipHostMallocPortable,
                            hipHostMallocMapped,
                            hipHostMallocWriteCombined,
                            hipHostMallocCoherent,
                            hipHostMallocNonCoherent,
                            hipHostRegisterDefault,
                            hipHostRegisterPortable,
                            hipHostRegisterMapped,
                            hipHostRegisterIoMemory,
                            hipHostRegisterReadOnly,
                            hipMemAttachGlobal,
                            hipMemAttachHost,
                            hipMemAttachSingle,
                            hipDeviceScheduleAuto,
                            hipDeviceScheduleSpin,
                            hipDeviceScheduleYield,
                            hipDeviceScheduleBlockingSync,
                            hipDeviceScheduleMask,
                            hipDeviceMapHost,
                            hipDeviceLmemResizeToMax,
                            hipOccupancyDefault,
                            hipOccupancyDisableCachingOverride,
                            HIP_SUCCESS,
                            HIP_ERROR_INVALID_VALUE,
                            HIP_ERROR_NOT_INITIALIZED,
                            HIP_ERROR_LAUNCH_OUT_OF_RESOURCES,
                            hipJitOptionInfoLogBuffer,
                            hipJitOptionNumOptions,
                            HIP_FUNC_ATTRIBUTE_NUM_REGS,
                            HIP_FUNC_ATTRIBUTE_MAX};
  const void* launch_markers[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, HIP_LAUNCH_PARAM_BUFFER_SIZE,
                                  HIP_LAUNCH_PARAM_END};
  hipResourceDesc resource{};
  resource.resType = hipResourceTypePitch2D;
  resource.res.pitch2D.desc = hipCreateChannelDesc(8, 8, 8, 8, hipChannelFormatKindUnsigned);
  resource.res.pitch2D.pitchInBytes = 7;
  hipTextureDesc sampling{};
  sampling.addressMode[2] = hipAddressModeBorder;
  sampling.filterMode = hipFilterModeLinear;
  sampling.readMode = hipReadModeNormalizedFloat;
  hipResourceViewDesc view{};
  view.format = hipResViewFormatFloat4;
  const hipArray_t no_array = nullptr;
  const hipArray_const_t no_const_array = no_array;
  const hipMipmappedArray_t no_mipmap = nullptr;
  const hipTextureObject_t no_texture = 0;
  const unsigned texture_flags[] = {
      hipArrayDefault,         hipArrayLayered,         hipArraySurfaceLoadStore,
      hipArrayCubemap,         hipArrayTextureGather,   hipTextureType1D,
      hipTextureType2D,        hipTextureType3D,        hipTextureTypeCubemap,
      hipTextureType1DLayered, hipTextureType2DLayered, hipTextureTypeCubemapLayered};
  const hipModule_t no_module = nullptr;
  const hipFunction_t no_function = nullptr;
  long long sum = alias.gcnArchName[0] + alias.arch.hasWarpShuffle + pointer.type +
                  kernel.sharedMemBytes + memset_params.elementSize + (host.userData != nullptr) +
                  pool.allocType + pool.location.type + access.flags +
                  func.maxDynamicSharedSizeBytes + uuid.bytes[0] + (device_pointer != nullptr) +
                  static_cast<long long>(reinterpret_cast<std::uintptr_t>(hipStreamPerThread)) +
                  hipCpuDeviceId + hipInvalidDeviceId;
  for (unsigned f : flags) sum += f;
  for (const void* m : launch_markers)
    sum += static_cast<long long>(reinterpret_cast<std::uintptr_t>(m));
  sum += (no_module == nullptr) + (no_function == nullptr);
  for (unsigned f : texture_flags) sum += f;
  sum += resource.resType + resource.res.pitch2D.desc.w + resource.res.pitch2D.desc.f +
         static_cast<long long>(resource.res.pitch2D.pitchInBytes) + sampling.addressMode[2] +
         sampling.filterMode + sampling.readMode + view.format + (no_array == nullptr) +
         (no_const_array == nullptr) + (no_mipmap == nullptr) + static_cast<long long>(no_texture);
  return sum;
}

}  // namespace

int main() {
  take_all_functions();
  std::printf("types and macros in use (checksum %lld)\n", use_types_and_macros());
  std::printf("%zu HIP functions of the layer referenced\n", addresses().size());
  CHECK(addresses().size() > 150, "every function family is referenced");

  // Every HIP error code: own name, a text, and a consistent CUDA round trip.
  const hipError_t codes[] = {hipSuccess,
                              hipErrorInvalidValue,
                              hipErrorOutOfMemory,
                              hipErrorNotInitialized,
                              hipErrorDeinitialized,
                              hipErrorProfilerDisabled,
                              hipErrorProfilerNotInitialized,
                              hipErrorProfilerAlreadyStarted,
                              hipErrorProfilerAlreadyStopped,
                              hipErrorInvalidConfiguration,
                              hipErrorInvalidPitchValue,
                              hipErrorInvalidSymbol,
                              hipErrorInvalidDevicePointer,
                              hipErrorInvalidMemcpyDirection,
                              hipErrorInsufficientDriver,
                              hipErrorMissingConfiguration,
                              hipErrorPriorLaunchFailure,
                              hipErrorInvalidDeviceFunction,
                              hipErrorNoDevice,
                              hipErrorInvalidDevice,
                              hipErrorInvalidImage,
                              hipErrorInvalidContext,
                              hipErrorContextAlreadyCurrent,
                              hipErrorMapFailed,
                              hipErrorUnmapFailed,
                              hipErrorArrayIsMapped,
                              hipErrorAlreadyMapped,
                              hipErrorNoBinaryForGpu,
                              hipErrorAlreadyAcquired,
                              hipErrorNotMapped,
                              hipErrorNotMappedAsArray,
                              hipErrorNotMappedAsPointer,
                              hipErrorECCNotCorrectable,
                              hipErrorUnsupportedLimit,
                              hipErrorContextAlreadyInUse,
                              hipErrorPeerAccessUnsupported,
                              hipErrorInvalidKernelFile,
                              hipErrorInvalidGraphicsContext,
                              hipErrorInvalidSource,
                              hipErrorFileNotFound,
                              hipErrorSharedObjectSymbolNotFound,
                              hipErrorSharedObjectInitFailed,
                              hipErrorOperatingSystem,
                              hipErrorInvalidHandle,
                              hipErrorIllegalState,
                              hipErrorNotFound,
                              hipErrorNotReady,
                              hipErrorIllegalAddress,
                              hipErrorLaunchOutOfResources,
                              hipErrorLaunchTimeOut,
                              hipErrorPeerAccessAlreadyEnabled,
                              hipErrorPeerAccessNotEnabled,
                              hipErrorSetOnActiveProcess,
                              hipErrorContextIsDestroyed,
                              hipErrorAssert,
                              hipErrorHostMemoryAlreadyRegistered,
                              hipErrorHostMemoryNotRegistered,
                              hipErrorLaunchFailure,
                              hipErrorCooperativeLaunchTooLarge,
                              hipErrorNotSupported,
                              hipErrorStreamCaptureUnsupported,
                              hipErrorStreamCaptureInvalidated,
                              hipErrorStreamCaptureMerge,
                              hipErrorStreamCaptureUnmatched,
                              hipErrorStreamCaptureUnjoined,
                              hipErrorStreamCaptureIsolation,
                              hipErrorStreamCaptureImplicit,
                              hipErrorCapturedEvent,
                              hipErrorStreamCaptureWrongThread,
                              hipErrorGraphExecUpdateFailure,
                              hipErrorUnknown,
                              hipErrorRuntimeMemory,
                              hipErrorRuntimeOther,
                              hipErrorTbd};
  int unnamed = 0;
  int textless = 0;
  int bad_round_trip = 0;
  int with_cuda_twin = 0;
  for (hipError_t e : codes) {
    const char* name = hipGetErrorName(e);
    if (std::strncmp(name, "hip", 3) != 0 ||
        (e != hipErrorUnknown && std::strcmp(name, "hipErrorUnknown") == 0)) {
      ++unnamed;
      std::printf("  code %d has no name of its own (%s)\n", static_cast<int>(e), name);
    }
    const char* text = hipGetErrorString(e);
    if (text == nullptr || text[0] == '\0') ++textless;
    const cudaError_t twin = hipErrorToCudaError(e);
    if (twin != cudaErrorUnknown || e == hipErrorUnknown) {
      ++with_cuda_twin;
      if (hipCUDAErrorTohipError(twin) != e) {
        ++bad_round_trip;
        std::printf("  %s -> cudaError %d -> %s\n", name, static_cast<int>(twin),
                    hipGetErrorName(hipCUDAErrorTohipError(twin)));
      }
    }
  }
  CHECK_EQ(unnamed, 0,
           hip_api_test::fmt("all %zu HIP error codes have their own name",
                             sizeof codes / sizeof codes[0]));
  CHECK_EQ(textless, 0, "all HIP error codes have a text");
  CHECK_EQ(bad_round_trip, 0,
           hip_api_test::fmt("HIP -> CUDA -> HIP round trip holds for the %d codes CUDA also has",
                             with_cuda_twin));
  CHECK(with_cuda_twin >= 65, hip_api_test::fmt("%d HIP codes have a CUDA twin", with_cuda_twin));
  CHECK(std::strcmp(hipGetErrorName(static_cast<hipError_t>(4242)), "hipErrorUnknown") == 0,
        "an undefined code is named hipErrorUnknown");

  // Driver results (module API): HIP numbers its errors as the driver does, so a driver
  // code either maps to the HIP code of the same number or is folded (never renumbered).
  int renumbered = 0;
  for (hipError_t e : codes) {
    const hipError_t mapped = hip_on_cuda::detail::map_driver_result(static_cast<int>(e));
    if (mapped != e && mapped != hipErrorUnknown) {
      ++renumbered;
      std::printf("  driver code %d -> %s\n", static_cast<int>(e), hipGetErrorName(mapped));
    }
  }
  CHECK_EQ(renumbered, 0, "driver codes map to the HIP code with their number");
  const hipError_t driver_twins[] = {hipErrorFileNotFound,
                                     hipErrorNotFound,
                                     hipErrorInvalidImage,
                                     hipErrorNoBinaryForGpu,
                                     hipErrorInvalidKernelFile,
                                     hipErrorInvalidHandle,
                                     hipErrorInvalidContext,
                                     hipErrorLaunchOutOfResources,
                                     hipErrorCooperativeLaunchTooLarge};
  int untranslated = 0;
  for (hipError_t e : driver_twins)
    if (hip_on_cuda::detail::map_driver_result(static_cast<int>(e)) != e) ++untranslated;
  CHECK_EQ(untranslated, 0, "module-loading driver errors keep their HIP meaning");
  CHECK(hip_on_cuda::detail::map_driver_result(34) == hipErrorInsufficientDriver,
        "CUDA_ERROR_STUB_LIBRARY is hipErrorInsufficientDriver");
  const cudaError_t texture_errors[] = {cudaErrorInvalidTexture, cudaErrorInvalidTextureBinding,
                                        cudaErrorInvalidChannelDescriptor,
                                        cudaErrorInvalidFilterSetting, cudaErrorInvalidNormSetting};
  int texture_unmapped = 0;
  for (cudaError_t e : texture_errors)
    if (hipCUDAErrorTohipError(e) != hipErrorInvalidValue) ++texture_unmapped;
  CHECK_EQ(texture_unmapped, 0, "CUDA's texture-argument errors are hipErrorInvalidValue");

  // Texture descriptors survive the HIP -> CUDA -> HIP translation field by field.
  hipResourceDesc pitched{};
  pitched.resType = hipResourceTypePitch2D;
  pitched.res.pitch2D.devPtr = &pitched;
  pitched.res.pitch2D.desc = hipCreateChannelDesc(16, 16, 0, 0, hipChannelFormatKindSigned);
  pitched.res.pitch2D.width = 11;
  pitched.res.pitch2D.height = 13;
  pitched.res.pitch2D.pitchInBytes = 512;
  const cudaResourceDesc cuda_pitched = hip_on_cuda::detail::to_cuda(pitched);
  const hipResourceDesc back = hip_on_cuda::detail::from_cuda(cuda_pitched);
  const auto& p2d = back.res.pitch2D;
  CHECK(cuda_pitched.resType == cudaResourceTypePitch2D &&
            cuda_pitched.res.pitch2D.desc.f == cudaChannelFormatKindSigned &&
            cuda_pitched.res.pitch2D.pitchInBytes == 512 && back.resType == pitched.resType &&
            p2d.devPtr == &pitched && p2d.desc.x == 16 && p2d.desc.y == 16 && p2d.desc.z == 0 &&
            p2d.desc.w == 0 && p2d.desc.f == hipChannelFormatKindSigned && p2d.width == 11 &&
            p2d.height == 13 && p2d.pitchInBytes == 512,
        "a pitch-2D resource descriptor round-trips through CUDA's");
  hipTextureDesc sampling{};
  sampling.addressMode[0] = hipAddressModeWrap;
  sampling.addressMode[1] = hipAddressModeMirror;
  sampling.addressMode[2] = hipAddressModeBorder;
  sampling.filterMode = hipFilterModeLinear;
  sampling.readMode = hipReadModeNormalizedFloat;
  sampling.sRGB = 1;
  sampling.borderColor[3] = 0.25f;
  sampling.normalizedCoords = 1;
  sampling.maxAnisotropy = 4;
  sampling.mipmapFilterMode = hipFilterModeLinear;
  sampling.mipmapLevelBias = 0.5f;
  sampling.minMipmapLevelClamp = 1.0f;
  sampling.maxMipmapLevelClamp = 3.0f;
  const cudaTextureDesc cuda_sampling = hip_on_cuda::detail::to_cuda(sampling);
  const hipTextureDesc sampling_back = hip_on_cuda::detail::from_cuda(cuda_sampling);
  // hipTextureDesc is all 4-byte fields (no padding), so bytes compare.
  CHECK(cuda_sampling.addressMode[1] == cudaAddressModeMirror &&
            cuda_sampling.readMode == cudaReadModeNormalizedFloat &&
            cuda_sampling.maxAnisotropy == 4 && cuda_sampling.seamlessCubemap == 0 &&
            std::memcmp(&sampling_back, &sampling, sizeof sampling) == 0,
        "a texture descriptor round-trips through CUDA's");
  const hipChannelFormatDesc float_channel = hipCreateChannelDesc<float>();
  CHECK(float_channel.x == 32 && float_channel.y == 0 && float_channel.w == 0 &&
            float_channel.f == hipChannelFormatKindFloat,
        "hipCreateChannelDesc<float>() is {32, 0, 0, 0, Float}");

  // Every attribute of HIP 6.0 has a route, except HIP's own unused slots.
  using Route = hip_on_cuda::detail::AttributeRoute;
  int unrouted = 0;
  auto check_range = [&](int first, int last) {
    for (int a = first; a <= last; ++a) {
      const auto attr = static_cast<hipDeviceAttribute_t>(a);
      const bool unused = attr == hipDeviceAttributeUnused1 || attr == hipDeviceAttributeUnused2 ||
                          attr == hipDeviceAttributeUnused3 || attr == hipDeviceAttributeUnused4 ||
                          attr == hipDeviceAttributeUnused5;
      const bool invalid = hip_on_cuda::detail::route_attribute(attr).kind == Route::kInvalid;
      if (invalid != unused) {
        ++unrouted;
        std::printf("  attribute %d: %s\n", a, unused ? "unused slot is routed" : "no route");
      }
    }
  };
  check_range(hipDeviceAttributeCudaCompatibleBegin,
              hipDeviceAttributeMemoryPoolSupportedHandleTypes);
  check_range(hipDeviceAttributeAmdSpecificBegin, hipDeviceAttributeWallClockRate);
  CHECK_EQ(unrouted, 0,
           "every HIP 6.0 device attribute is answered (unused slots are InvalidValue)");
  CHECK(hip_on_cuda::detail::route_attribute(hipDeviceAttributeWarpSize).value ==
            static_cast<int>(cudaDevAttrWarpSize),
        "hipDeviceAttributeWarpSize (87) becomes cudaDevAttrWarpSize (10)");

  // Without a GPU the layer reports HIP codes, never crashes, and zeroes the count.
  int count = -1;
  const hipError_t e = hipGetDeviceCount(&count);
  std::printf("hipGetDeviceCount: %s, count %d\n", hipGetErrorName(e), count);
  CHECK(e == hipSuccess || count == 0, "a failing hipGetDeviceCount reports 0 devices");
  hip_api_test::ignore(hipGetLastError());
  return hip_api_test::finish();
}
