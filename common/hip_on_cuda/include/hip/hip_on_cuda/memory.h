/// \file memory.h
/// \brief Memory management of the hip_on_cuda layer: device, pinned and managed
/// allocation, copies, memsets, stream-ordered allocation and memory pools.
///
/// Where CUDA 13 changed a signature (cudaMemPrefetchAsync and cudaMemAdvise take a
/// cudaMemLocation instead of a device number) the HIP signature stays and the layer
/// builds the location, guarded by CUDART_VERSION so CUDA 12 keeps its own form.
/// hipMemsetD16/D32 have no runtime-API counterpart and go to the driver through
/// driver.h.
#ifndef HIP_ON_CUDA_MEMORY_H
#define HIP_ON_CUDA_MEMORY_H

#include <type_traits>

#include "hip/hip_on_cuda/driver.h"

static_assert(hipMemcpyHostToHost == static_cast<int>(cudaMemcpyHostToHost) &&
                  hipMemcpyHostToDevice == static_cast<int>(cudaMemcpyHostToDevice) &&
                  hipMemcpyDeviceToHost == static_cast<int>(cudaMemcpyDeviceToHost) &&
                  hipMemcpyDeviceToDevice == static_cast<int>(cudaMemcpyDeviceToDevice) &&
                  hipMemcpyDefault == static_cast<int>(cudaMemcpyDefault),
              "hipMemcpyKind and cudaMemcpyKind must agree");
static_assert(hipHostMallocDefault == cudaHostAllocDefault &&
                  hipHostMallocPortable == cudaHostAllocPortable &&
                  hipHostMallocMapped == cudaHostAllocMapped &&
                  hipHostMallocWriteCombined == cudaHostAllocWriteCombined,
              "hipHostMalloc* and cudaHostAlloc* flags must agree");
static_assert(hipHostRegisterDefault == cudaHostRegisterDefault &&
                  hipHostRegisterPortable == cudaHostRegisterPortable &&
                  hipHostRegisterMapped == cudaHostRegisterMapped &&
                  hipHostRegisterIoMemory == cudaHostRegisterIoMemory &&
                  hipHostRegisterReadOnly == cudaHostRegisterReadOnly,
              "hipHostRegister* and cudaHostRegister* flags must agree");
static_assert(hipMemAttachGlobal == cudaMemAttachGlobal && hipMemAttachHost == cudaMemAttachHost &&
                  hipMemAttachSingle == cudaMemAttachSingle,
              "hipMemAttach* and cudaMemAttach* flags must agree");
static_assert(hipMemAdviseSetReadMostly == static_cast<int>(cudaMemAdviseSetReadMostly) &&
                  hipMemAdviseUnsetReadMostly == static_cast<int>(cudaMemAdviseUnsetReadMostly) &&
                  hipMemAdviseSetPreferredLocation ==
                      static_cast<int>(cudaMemAdviseSetPreferredLocation) &&
                  hipMemAdviseUnsetPreferredLocation ==
                      static_cast<int>(cudaMemAdviseUnsetPreferredLocation) &&
                  hipMemAdviseSetAccessedBy == static_cast<int>(cudaMemAdviseSetAccessedBy) &&
                  hipMemAdviseUnsetAccessedBy == static_cast<int>(cudaMemAdviseUnsetAccessedBy),
              "hipMemoryAdvise and cudaMemoryAdvise must agree");
static_assert(hipMemRangeAttributeReadMostly == static_cast<int>(cudaMemRangeAttributeReadMostly) &&
                  hipMemRangeAttributePreferredLocation ==
                      static_cast<int>(cudaMemRangeAttributePreferredLocation) &&
                  hipMemRangeAttributeAccessedBy ==
                      static_cast<int>(cudaMemRangeAttributeAccessedBy) &&
                  hipMemRangeAttributeLastPrefetchLocation ==
                      static_cast<int>(cudaMemRangeAttributeLastPrefetchLocation),
              "hipMemRangeAttribute and cudaMemRangeAttribute must agree");
static_assert(hipMemoryTypeUnregistered == static_cast<int>(cudaMemoryTypeUnregistered) &&
                  hipMemoryTypeHost == static_cast<int>(cudaMemoryTypeHost) &&
                  hipMemoryTypeDevice == static_cast<int>(cudaMemoryTypeDevice) &&
                  hipMemoryTypeManaged == static_cast<int>(cudaMemoryTypeManaged),
              "hipMemoryType and cudaMemoryType must agree");
static_assert(
    hipMemPoolReuseFollowEventDependencies ==
            static_cast<int>(cudaMemPoolReuseFollowEventDependencies) &&
        hipMemPoolReuseAllowOpportunistic == static_cast<int>(cudaMemPoolReuseAllowOpportunistic) &&
        hipMemPoolReuseAllowInternalDependencies ==
            static_cast<int>(cudaMemPoolReuseAllowInternalDependencies) &&
        hipMemPoolAttrReleaseThreshold == static_cast<int>(cudaMemPoolAttrReleaseThreshold) &&
        hipMemPoolAttrReservedMemCurrent == static_cast<int>(cudaMemPoolAttrReservedMemCurrent) &&
        hipMemPoolAttrReservedMemHigh == static_cast<int>(cudaMemPoolAttrReservedMemHigh) &&
        hipMemPoolAttrUsedMemCurrent == static_cast<int>(cudaMemPoolAttrUsedMemCurrent) &&
        hipMemPoolAttrUsedMemHigh == static_cast<int>(cudaMemPoolAttrUsedMemHigh),
    "hipMemPoolAttr and cudaMemPoolAttr must agree");
static_assert(hipMemLocationTypeInvalid == static_cast<int>(cudaMemLocationTypeInvalid) &&
                  hipMemLocationTypeDevice == static_cast<int>(cudaMemLocationTypeDevice),
              "hipMemLocationType and cudaMemLocationType must agree");
static_assert(hipMemAccessFlagsProtNone == static_cast<int>(cudaMemAccessFlagsProtNone) &&
                  hipMemAccessFlagsProtRead == static_cast<int>(cudaMemAccessFlagsProtRead) &&
                  hipMemAccessFlagsProtReadWrite ==
                      static_cast<int>(cudaMemAccessFlagsProtReadWrite),
              "hipMemAccessFlags and cudaMemAccessFlags must agree");
static_assert(hipMemAllocationTypePinned == static_cast<int>(cudaMemAllocationTypePinned),
              "hipMemAllocationType and cudaMemAllocationType must agree");
static_assert(hipMemHandleTypeNone == static_cast<int>(cudaMemHandleTypeNone) &&
                  hipMemHandleTypePosixFileDescriptor ==
                      static_cast<int>(cudaMemHandleTypePosixFileDescriptor) &&
                  hipMemHandleTypeWin32 == static_cast<int>(cudaMemHandleTypeWin32) &&
                  hipMemHandleTypeWin32Kmt == static_cast<int>(cudaMemHandleTypeWin32Kmt),
              "hipMemAllocationHandleType and cudaMemAllocationHandleType must agree");

namespace hip_on_cuda {
namespace detail {

inline cudaMemcpyKind to_cuda(hipMemcpyKind kind) { return static_cast<cudaMemcpyKind>(kind); }

inline cudaMemLocation to_cuda(const hipMemLocation& location) {
  cudaMemLocation l{};
  l.type = static_cast<cudaMemLocationType>(location.type);
  l.id = location.id;
  return l;
}

#if CUDART_VERSION >= 12020
/// HIP names places by device number, hipCpuDeviceId meaning the host.
inline cudaMemLocation location_of_device(int device) {
  cudaMemLocation l{};
  if (device == hipCpuDeviceId) {
    l.type = cudaMemLocationTypeHost;
    l.id = 0;
  } else {
    l.type = cudaMemLocationTypeDevice;
    l.id = device;
  }
  return l;
}
#endif

/// cuMemsetD16/D32 (and their Async forms) through the driver entry point. A null
/// stream is the driver's legacy default stream, whatever --default-stream says.
template <typename Value>
inline hipError_t driver_memset(const char* sync_name, const char* async_name, void* dst,
                                Value value, size_t count, hipStream_t stream, bool async) {
  hipError_t e = make_primary_context_current();
  if (e != hipSuccess) return e;
  const auto address = static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(dst));
  if (async) {
    using Fn = int (*)(unsigned long long, Value, size_t, cudaStream_t);
    Fn fn = nullptr;
    e = driver_entry_point(async_name, &fn);
    return e != hipSuccess ? e : map_driver_result(fn(address, value, count, stream));
  }
  using Fn = int (*)(unsigned long long, Value, size_t);
  Fn fn = nullptr;
  e = driver_entry_point(sync_name, &fn);
  return e != hipSuccess ? e : map_driver_result(fn(address, value, count));
}

}  // namespace detail
}  // namespace hip_on_cuda

// ---------------------------------------------------------------------------------------
// Device memory
// ---------------------------------------------------------------------------------------

inline hipError_t hipMalloc(void** ptr, size_t size) {
  return hip_on_cuda::detail::map(cudaMalloc(ptr, size));
}

inline hipError_t hipMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  return hip_on_cuda::detail::map(cudaMallocPitch(ptr, pitch, width, height));
}

inline hipError_t hipFree(void* ptr) { return hip_on_cuda::detail::map(cudaFree(ptr)); }

inline hipError_t hipMemGetInfo(size_t* free, size_t* total) {
  return hip_on_cuda::detail::map(cudaMemGetInfo(free, total));
}

// ---------------------------------------------------------------------------------------
// Pinned host memory
// ---------------------------------------------------------------------------------------

/// Pinned host allocation. hipHostMallocCoherent / NonCoherent are 0 here (CUDA pinned
/// memory is coherent), so they pass through harmlessly.
inline hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags) {
  return hip_on_cuda::detail::map(cudaHostAlloc(ptr, size, flags));
}

inline hipError_t hipHostFree(void* ptr) { return hip_on_cuda::detail::map(cudaFreeHost(ptr)); }

/// Deprecated in HIP in favour of hipHostMalloc; kept for older code.
inline hipError_t hipMallocHost(void** ptr, size_t size) {
  return hip_on_cuda::detail::map(cudaMallocHost(ptr, size));
}

/// Deprecated in HIP in favour of hipHostFree; kept for older code.
inline hipError_t hipFreeHost(void* ptr) { return hip_on_cuda::detail::map(cudaFreeHost(ptr)); }

inline hipError_t hipHostRegister(void* hostPtr, size_t sizeBytes, unsigned int flags) {
  return hip_on_cuda::detail::map(cudaHostRegister(hostPtr, sizeBytes, flags));
}

inline hipError_t hipHostUnregister(void* hostPtr) {
  return hip_on_cuda::detail::map(cudaHostUnregister(hostPtr));
}

inline hipError_t hipHostGetDevicePointer(void** devPtr, void* hstPtr, unsigned int flags) {
  return hip_on_cuda::detail::map(cudaHostGetDevicePointer(devPtr, hstPtr, flags));
}

inline hipError_t hipHostGetFlags(unsigned int* flagsPtr, void* hostPtr) {
  return hip_on_cuda::detail::map(cudaHostGetFlags(flagsPtr, hostPtr));
}

// ---------------------------------------------------------------------------------------
// Copies
// ---------------------------------------------------------------------------------------

inline hipError_t hipMemcpy(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind) {
  return hip_on_cuda::detail::map(
      cudaMemcpy(dst, src, sizeBytes, hip_on_cuda::detail::to_cuda(kind)));
}

inline hipError_t hipMemcpyAsync(void* dst, const void* src, size_t sizeBytes, hipMemcpyKind kind,
                                 hipStream_t stream = nullptr) {
  return hip_on_cuda::detail::map(
      cudaMemcpyAsync(dst, src, sizeBytes, hip_on_cuda::detail::to_cuda(kind), stream));
}

/// Copy ordered in `stream` that returns when it is done (HIP extension of hipMemcpy).
inline hipError_t hipMemcpyWithStream(void* dst, const void* src, size_t sizeBytes,
                                      hipMemcpyKind kind, hipStream_t stream) {
  cudaError_t e = cudaMemcpyAsync(dst, src, sizeBytes, hip_on_cuda::detail::to_cuda(kind), stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  return hip_on_cuda::detail::map(e);
}

inline hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void* src, size_t sizeBytes) {
  return hipMemcpy(dst, src, sizeBytes, hipMemcpyHostToDevice);
}
inline hipError_t hipMemcpyDtoH(void* dst, hipDeviceptr_t src, size_t sizeBytes) {
  return hipMemcpy(dst, src, sizeBytes, hipMemcpyDeviceToHost);
}
inline hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes) {
  return hipMemcpy(dst, src, sizeBytes, hipMemcpyDeviceToDevice);
}
inline hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void* src, size_t sizeBytes,
                                     hipStream_t stream) {
  return hipMemcpyAsync(dst, src, sizeBytes, hipMemcpyHostToDevice, stream);
}
inline hipError_t hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, size_t sizeBytes,
                                     hipStream_t stream) {
  return hipMemcpyAsync(dst, src, sizeBytes, hipMemcpyDeviceToHost, stream);
}
inline hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes,
                                     hipStream_t stream) {
  return hipMemcpyAsync(dst, src, sizeBytes, hipMemcpyDeviceToDevice, stream);
}

inline hipError_t hipMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, hipMemcpyKind kind) {
  return hip_on_cuda::detail::map(
      cudaMemcpy2D(dst, dpitch, src, spitch, width, height, hip_on_cuda::detail::to_cuda(kind)));
}

inline hipError_t hipMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                                   size_t width, size_t height, hipMemcpyKind kind,
                                   hipStream_t stream = nullptr) {
  return hip_on_cuda::detail::map(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height,
                                                    hip_on_cuda::detail::to_cuda(kind), stream));
}

inline hipError_t hipMemcpyPeer(void* dst, int dstDeviceId, const void* src, int srcDeviceId,
                                size_t sizeBytes) {
  return hip_on_cuda::detail::map(cudaMemcpyPeer(dst, dstDeviceId, src, srcDeviceId, sizeBytes));
}

inline hipError_t hipMemcpyPeerAsync(void* dst, int dstDeviceId, const void* src, int srcDevice,
                                     size_t sizeBytes, hipStream_t stream = nullptr) {
  return hip_on_cuda::detail::map(
      cudaMemcpyPeerAsync(dst, dstDeviceId, src, srcDevice, sizeBytes, stream));
}

// Symbols: `symbol` is the address of a __device__ / __constant__ variable, which is
// what HIP_SYMBOL(x) gives on NVIDIA (&x). The templates below also accept the
// variable itself (AMD style, HIP_SYMBOL(x) == x); they step aside for pointers so
// that `&x` always means the const void* form.

inline hipError_t hipMemcpyToSymbol(const void* symbol, const void* src, size_t sizeBytes,
                                    size_t offset = 0, hipMemcpyKind kind = hipMemcpyHostToDevice) {
  return hip_on_cuda::detail::map(
      cudaMemcpyToSymbol(symbol, src, sizeBytes, offset, hip_on_cuda::detail::to_cuda(kind)));
}

inline hipError_t hipMemcpyToSymbolAsync(const void* symbol, const void* src, size_t sizeBytes,
                                         size_t offset, hipMemcpyKind kind,
                                         hipStream_t stream = nullptr) {
  return hip_on_cuda::detail::map(cudaMemcpyToSymbolAsync(
      symbol, src, sizeBytes, offset, hip_on_cuda::detail::to_cuda(kind), stream));
}

inline hipError_t hipMemcpyFromSymbol(void* dst, const void* symbol, size_t sizeBytes,
                                      size_t offset = 0,
                                      hipMemcpyKind kind = hipMemcpyDeviceToHost) {
  return hip_on_cuda::detail::map(
      cudaMemcpyFromSymbol(dst, symbol, sizeBytes, offset, hip_on_cuda::detail::to_cuda(kind)));
}

inline hipError_t hipMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t sizeBytes,
                                           size_t offset, hipMemcpyKind kind,
                                           hipStream_t stream = nullptr) {
  return hip_on_cuda::detail::map(cudaMemcpyFromSymbolAsync(
      dst, symbol, sizeBytes, offset, hip_on_cuda::detail::to_cuda(kind), stream));
}

inline hipError_t hipGetSymbolAddress(void** devPtr, const void* symbol) {
  return hip_on_cuda::detail::map(cudaGetSymbolAddress(devPtr, symbol));
}

inline hipError_t hipGetSymbolSize(size_t* size, const void* symbol) {
  return hip_on_cuda::detail::map(cudaGetSymbolSize(size, symbol));
}

template <typename T, typename = std::enable_if_t<!std::is_pointer<T>::value>>
inline hipError_t hipMemcpyToSymbol(const T& symbol, const void* src, size_t sizeBytes,
                                    size_t offset = 0, hipMemcpyKind kind = hipMemcpyHostToDevice) {
  return hipMemcpyToSymbol(static_cast<const void*>(&symbol), src, sizeBytes, offset, kind);
}

template <typename T, typename = std::enable_if_t<!std::is_pointer<T>::value>>
inline hipError_t hipMemcpyToSymbolAsync(const T& symbol, const void* src, size_t sizeBytes,
                                         size_t offset, hipMemcpyKind kind,
                                         hipStream_t stream = nullptr) {
  return hipMemcpyToSymbolAsync(static_cast<const void*>(&symbol), src, sizeBytes, offset, kind,
                                stream);
}

template <typename T, typename = std::enable_if_t<!std::is_pointer<T>::value>>
inline hipError_t hipMemcpyFromSymbol(void* dst, const T& symbol, size_t sizeBytes,
                                      size_t offset = 0,
                                      hipMemcpyKind kind = hipMemcpyDeviceToHost) {
  return hipMemcpyFromSymbol(dst, static_cast<const void*>(&symbol), sizeBytes, offset, kind);
}

template <typename T, typename = std::enable_if_t<!std::is_pointer<T>::value>>
inline hipError_t hipMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t sizeBytes,
                                           size_t offset, hipMemcpyKind kind,
                                           hipStream_t stream = nullptr) {
  return hipMemcpyFromSymbolAsync(dst, static_cast<const void*>(&symbol), sizeBytes, offset, kind,
                                  stream);
}

template <typename T, typename = std::enable_if_t<!std::is_pointer<T>::value>>
inline hipError_t hipGetSymbolAddress(void** devPtr, const T& symbol) {
  return hipGetSymbolAddress(devPtr, static_cast<const void*>(&symbol));
}

template <typename T, typename = std::enable_if_t<!std::is_pointer<T>::value>>
inline hipError_t hipGetSymbolSize(size_t* size, const T& symbol) {
  return hipGetSymbolSize(size, static_cast<const void*>(&symbol));
}

// ---------------------------------------------------------------------------------------
// Memsets
// ---------------------------------------------------------------------------------------

inline hipError_t hipMemset(void* dst, int value, size_t sizeBytes) {
  return hip_on_cuda::detail::map(cudaMemset(dst, value, sizeBytes));
}

inline hipError_t hipMemsetAsync(void* dst, int value, size_t sizeBytes,
                                 hipStream_t stream = nullptr) {
  return hip_on_cuda::detail::map(cudaMemsetAsync(dst, value, sizeBytes, stream));
}

inline hipError_t hipMemsetD8(hipDeviceptr_t dest, unsigned char value, size_t count) {
  return hip_on_cuda::detail::map(cudaMemset(dest, value, count));
}

inline hipError_t hipMemsetD8Async(hipDeviceptr_t dest, unsigned char value, size_t count,
                                   hipStream_t stream = nullptr) {
  return hip_on_cuda::detail::map(cudaMemsetAsync(dest, value, count, stream));
}

/// Sets `count` 16-bit words (cuMemsetD16 through the driver entry point).
inline hipError_t hipMemsetD16(hipDeviceptr_t dest, unsigned short value, size_t count) {
  return hip_on_cuda::detail::driver_memset("cuMemsetD16", "cuMemsetD16Async", dest, value, count,
                                            nullptr, false);
}

inline hipError_t hipMemsetD16Async(hipDeviceptr_t dest, unsigned short value, size_t count,
                                    hipStream_t stream = nullptr) {
  return hip_on_cuda::detail::driver_memset("cuMemsetD16", "cuMemsetD16Async", dest, value, count,
                                            stream, true);
}

/// Sets `count` 32-bit words (cuMemsetD32 through the driver entry point).
inline hipError_t hipMemsetD32(hipDeviceptr_t dest, int value, size_t count) {
  return hip_on_cuda::detail::driver_memset("cuMemsetD32", "cuMemsetD32Async", dest,
                                            static_cast<unsigned int>(value), count, nullptr,
                                            false);
}

inline hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int value, size_t count,
                                    hipStream_t stream = nullptr) {
  return hip_on_cuda::detail::driver_memset("cuMemsetD32", "cuMemsetD32Async", dst,
                                            static_cast<unsigned int>(value), count, stream, true);
}

inline hipError_t hipMemset2D(void* dst, size_t pitch, int value, size_t width, size_t height) {
  return hip_on_cuda::detail::map(cudaMemset2D(dst, pitch, value, width, height));
}

inline hipError_t hipMemset2DAsync(void* dst, size_t pitch, int value, size_t width, size_t height,
                                   hipStream_t stream = nullptr) {
  return hip_on_cuda::detail::map(cudaMemset2DAsync(dst, pitch, value, width, height, stream));
}

// ---------------------------------------------------------------------------------------
// Managed (unified) memory
// ---------------------------------------------------------------------------------------

inline hipError_t hipMallocManaged(void** dev_ptr, size_t size,
                                   unsigned int flags = hipMemAttachGlobal) {
  return hip_on_cuda::detail::map(cudaMallocManaged(dev_ptr, size, flags));
}

/// Migrates managed memory to `device` (hipCpuDeviceId: the host). CUDA 13 takes a
/// cudaMemLocation plus flags instead of the device number.
inline hipError_t hipMemPrefetchAsync(const void* dev_ptr, size_t count, int device,
                                      hipStream_t stream = nullptr) {
#if CUDART_VERSION >= 13000
  return hip_on_cuda::detail::map(cudaMemPrefetchAsync(
      dev_ptr, count, hip_on_cuda::detail::location_of_device(device), 0, stream));
#else
  return hip_on_cuda::detail::map(cudaMemPrefetchAsync(dev_ptr, count, device, stream));
#endif
}

/// Usage advice for managed memory. CUDA 13 takes a cudaMemLocation for `device`.
inline hipError_t hipMemAdvise(const void* dev_ptr, size_t count, hipMemoryAdvise advice,
                               int device) {
  const auto cuda_advice = static_cast<cudaMemoryAdvise>(advice);
#if CUDART_VERSION >= 13000
  return hip_on_cuda::detail::map(
      cudaMemAdvise(dev_ptr, count, cuda_advice, hip_on_cuda::detail::location_of_device(device)));
#else
  return hip_on_cuda::detail::map(cudaMemAdvise(dev_ptr, count, cuda_advice, device));
#endif
}

inline hipError_t hipMemRangeGetAttribute(void* data, size_t data_size,
                                          hipMemRangeAttribute attribute, const void* dev_ptr,
                                          size_t count) {
  return hip_on_cuda::detail::map(cudaMemRangeGetAttribute(
      data, data_size, static_cast<cudaMemRangeAttribute>(attribute), dev_ptr, count));
}

inline hipError_t hipStreamAttachMemAsync(hipStream_t stream, void* dev_ptr, size_t length = 0,
                                          unsigned int flags = hipMemAttachSingle) {
  return hip_on_cuda::detail::map(cudaStreamAttachMemAsync(stream, dev_ptr, length, flags));
}

inline hipError_t hipPointerGetAttributes(hipPointerAttribute_t* attributes, const void* ptr) {
  if (attributes == nullptr) return hipErrorInvalidValue;
  cudaPointerAttributes a{};
  const cudaError_t e = cudaPointerGetAttributes(&a, ptr);
  if (e != cudaSuccess) return hip_on_cuda::detail::map(e);
  attributes->type = static_cast<hipMemoryType>(a.type);
  attributes->device = a.device;
  attributes->devicePointer = a.devicePointer;
  attributes->hostPointer = a.hostPointer;
  attributes->isManaged = a.type == cudaMemoryTypeManaged ? 1 : 0;
  attributes->allocationFlags = 0;
  return hipSuccess;
}

// ---------------------------------------------------------------------------------------
// Stream-ordered allocation and memory pools
// ---------------------------------------------------------------------------------------

inline hipError_t hipMallocAsync(void** dev_ptr, size_t size, hipStream_t stream) {
  return hip_on_cuda::detail::map(cudaMallocAsync(dev_ptr, size, stream));
}

inline hipError_t hipFreeAsync(void* dev_ptr, hipStream_t stream) {
  return hip_on_cuda::detail::map(cudaFreeAsync(dev_ptr, stream));
}

inline hipError_t hipMallocFromPoolAsync(void** dev_ptr, size_t size, hipMemPool_t mem_pool,
                                         hipStream_t stream) {
  return hip_on_cuda::detail::map(cudaMallocFromPoolAsync(dev_ptr, size, mem_pool, stream));
}

inline hipError_t hipDeviceGetDefaultMemPool(hipMemPool_t* mem_pool, int device) {
  return hip_on_cuda::detail::map(cudaDeviceGetDefaultMemPool(mem_pool, device));
}

inline hipError_t hipDeviceGetMemPool(hipMemPool_t* mem_pool, int device) {
  return hip_on_cuda::detail::map(cudaDeviceGetMemPool(mem_pool, device));
}

inline hipError_t hipDeviceSetMemPool(int device, hipMemPool_t mem_pool) {
  return hip_on_cuda::detail::map(cudaDeviceSetMemPool(device, mem_pool));
}

inline hipError_t hipMemPoolCreate(hipMemPool_t* mem_pool, const hipMemPoolProps* pool_props) {
  if (pool_props == nullptr) return hipErrorInvalidValue;
  cudaMemPoolProps p{};
  p.allocType = static_cast<cudaMemAllocationType>(pool_props->allocType);
  p.handleTypes = static_cast<cudaMemAllocationHandleType>(pool_props->handleTypes);
  p.location = hip_on_cuda::detail::to_cuda(pool_props->location);
  p.win32SecurityAttributes = pool_props->win32SecurityAttributes;
  return hip_on_cuda::detail::map(cudaMemPoolCreate(mem_pool, &p));
}

inline hipError_t hipMemPoolDestroy(hipMemPool_t mem_pool) {
  return hip_on_cuda::detail::map(cudaMemPoolDestroy(mem_pool));
}

inline hipError_t hipMemPoolTrimTo(hipMemPool_t mem_pool, size_t min_bytes_to_hold) {
  return hip_on_cuda::detail::map(cudaMemPoolTrimTo(mem_pool, min_bytes_to_hold));
}

inline hipError_t hipMemPoolSetAttribute(hipMemPool_t mem_pool, hipMemPoolAttr attr, void* value) {
  return hip_on_cuda::detail::map(
      cudaMemPoolSetAttribute(mem_pool, static_cast<cudaMemPoolAttr>(attr), value));
}

inline hipError_t hipMemPoolGetAttribute(hipMemPool_t mem_pool, hipMemPoolAttr attr, void* value) {
  return hip_on_cuda::detail::map(
      cudaMemPoolGetAttribute(mem_pool, static_cast<cudaMemPoolAttr>(attr), value));
}

inline hipError_t hipMemPoolSetAccess(hipMemPool_t mem_pool, const hipMemAccessDesc* desc_list,
                                      size_t count) {
  if (desc_list == nullptr && count != 0) return hipErrorInvalidValue;
  for (size_t i = 0; i < count; ++i) {
    cudaMemAccessDesc d{};
    d.location = hip_on_cuda::detail::to_cuda(desc_list[i].location);
    d.flags = static_cast<cudaMemAccessFlags>(desc_list[i].flags);
    const cudaError_t e = cudaMemPoolSetAccess(mem_pool, &d, 1);
    if (e != cudaSuccess) return hip_on_cuda::detail::map(e);
  }
  return hipSuccess;
}

inline hipError_t hipMemPoolGetAccess(hipMemAccessFlags* flags, hipMemPool_t mem_pool,
                                      hipMemLocation* location) {
  if (flags == nullptr || location == nullptr) return hipErrorInvalidValue;
  cudaMemLocation l = hip_on_cuda::detail::to_cuda(*location);
  cudaMemAccessFlags f = cudaMemAccessFlagsProtNone;
  const cudaError_t e = cudaMemPoolGetAccess(&f, mem_pool, &l);
  if (e == cudaSuccess) *flags = static_cast<hipMemAccessFlags>(f);
  return hip_on_cuda::detail::map(e);
}

// ---------------------------------------------------------------------------------------
// C++ conveniences, as HIP declares them (typed pointers, default flags)
// ---------------------------------------------------------------------------------------

template <class T>
inline hipError_t hipMalloc(T** devPtr, size_t size) {
  return hipMalloc(reinterpret_cast<void**>(devPtr), size);
}

template <class T>
inline hipError_t hipHostMalloc(T** ptr, size_t size, unsigned int flags = hipHostMallocDefault) {
  return hipHostMalloc(reinterpret_cast<void**>(ptr), size, flags);
}

template <class T>
inline hipError_t hipMallocManaged(T** devPtr, size_t size,
                                   unsigned int flags = hipMemAttachGlobal) {
  return hipMallocManaged(reinterpret_cast<void**>(devPtr), size, flags);
}

template <class T>
inline hipError_t hipMallocAsync(T** dev_ptr, size_t size, hipStream_t stream) {
  return hipMallocAsync(reinterpret_cast<void**>(dev_ptr), size, stream);
}

template <class T>
inline hipError_t hipMallocFromPoolAsync(T** dev_ptr, size_t size, hipMemPool_t mem_pool,
                                         hipStream_t stream) {
  return hipMallocFromPoolAsync(reinterpret_cast<void**>(dev_ptr), size, mem_pool, stream);
}

/// HIP's four-argument hipMallocAsync names a pool.
inline hipError_t hipMallocAsync(void** dev_ptr, size_t size, hipMemPool_t mem_pool,
                                 hipStream_t stream) {
  return hipMallocFromPoolAsync(dev_ptr, size, mem_pool, stream);
}

template <class T>
inline hipError_t hipMallocAsync(T** dev_ptr, size_t size, hipMemPool_t mem_pool,
                                 hipStream_t stream) {
  return hipMallocFromPoolAsync(reinterpret_cast<void**>(dev_ptr), size, mem_pool, stream);
}

#endif  // HIP_ON_CUDA_MEMORY_H
