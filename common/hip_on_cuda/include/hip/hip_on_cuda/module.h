/// \file module.h
/// \brief Module API of the hip_on_cuda layer: code objects loaded at run time
/// (hipModuleLoad*, hipModuleGetFunction, hipModuleGetGlobal, hipModuleLaunchKernel,
/// hipModuleOccupancy*, hipFuncGetAttribute).
///
/// As in HIP's own NVIDIA path, these are the CUDA driver's module calls (cuModuleLoad,
/// cuLaunchKernel, ...) and the handles are the driver's: hipModule_t is CUmodule,
/// hipFunction_t is CUfunction. The driver functions are fetched at first use through
/// cudaGetDriverEntryPointByVersion (driver.h) and kept, so nothing links libcuda and a
/// launch does not pay for the lookup. <cuda.h> is included for its types only.
///
/// On NVIDIA a module is a cubin, a fatbin (`nvcc -fatbin` / `-cubin`) or PTX text; on
/// AMD a code object (`hipcc --genco`). Driver calls need a current context: each call
/// first makes the device's primary context current (as the runtime's calls do), so
/// modules belong to the current device's primary context. Driver results are mapped to
/// HIP errors (HIP uses the driver's numbers); the runtime's last error does not see
/// them.
#ifndef HIP_ON_CUDA_MODULE_H
#define HIP_ON_CUDA_MODULE_H

#include <cuda.h>

#include "hip/hip_on_cuda/driver.h"
#include "hip/hip_on_cuda/errors.h"

typedef CUmodule hipModule_t;      ///< the driver's module handle, as in HIP's NVIDIA path
typedef CUfunction hipFunction_t;  ///< the driver's function handle

/// JIT options of hipModuleLoadDataEx (HIP 6.0's names; the numbers are CUjit_option's).
typedef enum hipJitOption {
  hipJitOptionMaxRegisters = 0,
  hipJitOptionThreadsPerBlock,
  hipJitOptionWallTime,
  hipJitOptionInfoLogBuffer,
  hipJitOptionInfoLogBufferSizeBytes,
  hipJitOptionErrorLogBuffer,
  hipJitOptionErrorLogBufferSizeBytes,
  hipJitOptionOptimizationLevel,
  hipJitOptionTargetFromContext,
  hipJitOptionTarget,
  hipJitOptionFallbackStrategy,
  hipJitOptionGenerateDebugInfo,
  hipJitOptionLogVerbose,
  hipJitOptionGenerateLineInfo,
  hipJitOptionCacheMode,
  hipJitOptionSm3xOpt,
  hipJitOptionFastCompile,
  hipJitOptionNumOptions
} hipJitOption;

static_assert(hipJitOptionMaxRegisters == static_cast<int>(CU_JIT_MAX_REGISTERS) &&
                  hipJitOptionInfoLogBuffer == static_cast<int>(CU_JIT_INFO_LOG_BUFFER) &&
                  hipJitOptionInfoLogBufferSizeBytes ==
                      static_cast<int>(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES) &&
                  hipJitOptionErrorLogBuffer == static_cast<int>(CU_JIT_ERROR_LOG_BUFFER) &&
                  hipJitOptionGenerateLineInfo == static_cast<int>(CU_JIT_GENERATE_LINE_INFO) &&
                  hipJitOptionFastCompile == static_cast<int>(CU_JIT_FAST_COMPILE),
              "hipJitOption and CUjit_option must agree");

/// Kernel attributes of hipFuncGetAttribute (HIP's names; CUfunction_attribute's numbers).
typedef enum hipFunction_attribute {
  HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
  HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
  HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,
  HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
  HIP_FUNC_ATTRIBUTE_NUM_REGS,
  HIP_FUNC_ATTRIBUTE_PTX_VERSION,
  HIP_FUNC_ATTRIBUTE_BINARY_VERSION,
  HIP_FUNC_ATTRIBUTE_CACHE_MODE_CA,
  HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
  HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
  HIP_FUNC_ATTRIBUTE_MAX
} hipFunction_attribute;

static_assert(HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ==
                      static_cast<int>(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) &&
                  HIP_FUNC_ATTRIBUTE_NUM_REGS == static_cast<int>(CU_FUNC_ATTRIBUTE_NUM_REGS) &&
                  HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT ==
                      static_cast<int>(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT),
              "hipFunction_attribute and CUfunction_attribute must agree");

// hipModuleLaunchKernel's `extra` markers. HIP's NVIDIA path defines them as the
// driver's CU_LAUNCH_PARAM_* (END is 0 here, 3 on AMD): code that uses the names is
// portable, code that hard-codes numbers is not.
#define HIP_LAUNCH_PARAM_BUFFER_POINTER CU_LAUNCH_PARAM_BUFFER_POINTER
#define HIP_LAUNCH_PARAM_BUFFER_SIZE CU_LAUNCH_PARAM_BUFFER_SIZE
#define HIP_LAUNCH_PARAM_END CU_LAUNCH_PARAM_END

namespace hip_on_cuda {
namespace detail {

/// A driver function looked up once (first use) and kept for the process.
template <typename Fn>
struct DriverFunction {
  Fn fn = nullptr;
  hipError_t status = hipErrorNotSupported;
};

template <typename Fn>
inline DriverFunction<Fn> look_up_driver_function(const char* name) {
  DriverFunction<Fn> f;
  f.status = driver_entry_point(name, &f.fn);
  return f;
}

/// Calls driver function `name` (of type `decltype(&symbol)`) with the remaining
/// arguments and returns its CUresult mapped to a HIP error; the lookup happens once per
/// call site. With `with_context`, the current device's primary context is made current
/// first (loading needs one; the launch path skips it, as HIP's NVIDIA path does, so
/// that a launch costs what cuLaunchKernel costs).
#define HIP_ON_CUDA_DRIVER_CALL(with_context, symbol, name, ...)                        \
  do {                                                                                  \
    using Fn = decltype(&symbol);                                                       \
    static const ::hip_on_cuda::detail::DriverFunction<Fn> driver_function =            \
        ::hip_on_cuda::detail::look_up_driver_function<Fn>(name);                       \
    if (driver_function.status != hipSuccess) return driver_function.status;            \
    if (with_context) {                                                                 \
      const hipError_t context = ::hip_on_cuda::detail::make_primary_context_current(); \
      if (context != hipSuccess) return context;                                        \
    }                                                                                   \
    return ::hip_on_cuda::detail::map_driver_result(                                    \
        static_cast<int>(driver_function.fn(__VA_ARGS__)));                             \
  } while (false)

}  // namespace detail
}  // namespace hip_on_cuda

/// Loads a code object file (cubin, fatbin or PTX on NVIDIA) into the current device.
inline hipError_t hipModuleLoad(hipModule_t* module, const char* fname) {
  if (module == nullptr || fname == nullptr) return hipErrorInvalidValue;
  HIP_ON_CUDA_DRIVER_CALL(true, cuModuleLoad, "cuModuleLoad", module, fname);
}

/// Loads a code object from memory (the image is not needed after the call).
inline hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
  if (module == nullptr || image == nullptr) return hipErrorInvalidValue;
  HIP_ON_CUDA_DRIVER_CALL(true, cuModuleLoadData, "cuModuleLoadData", module, image);
}

/// hipModuleLoadData with JIT options (they matter on NVIDIA when the image holds PTX;
/// AMD ignores them).
inline hipError_t hipModuleLoadDataEx(hipModule_t* module, const void* image,
                                      unsigned int numOptions, hipJitOption* options,
                                      void** optionValues) {
  if (module == nullptr || image == nullptr) return hipErrorInvalidValue;
  HIP_ON_CUDA_DRIVER_CALL(true, cuModuleLoadDataEx, "cuModuleLoadDataEx", module, image, numOptions,
                          reinterpret_cast<CUjit_option*>(options), optionValues);
}

inline hipError_t hipModuleUnload(hipModule_t module) {
  HIP_ON_CUDA_DRIVER_CALL(true, cuModuleUnload, "cuModuleUnload", module);
}

/// The kernel `kname` of a module; a C++ kernel needs its mangled name (or extern "C").
inline hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module,
                                       const char* kname) {
  if (function == nullptr || kname == nullptr) return hipErrorInvalidValue;
  HIP_ON_CUDA_DRIVER_CALL(true, cuModuleGetFunction, "cuModuleGetFunction", function, module,
                          kname);
}

namespace hip_on_cuda {
namespace detail {

inline hipError_t module_get_global(CUdeviceptr* dptr, size_t* bytes, hipModule_t hmod,
                                    const char* name) {
  HIP_ON_CUDA_DRIVER_CALL(true, cuModuleGetGlobal, "cuModuleGetGlobal", dptr, bytes, hmod, name);
}

}  // namespace detail
}  // namespace hip_on_cuda

/// Device address and size of the `__device__` variable `name` of a module. Either output
/// may be null. hipDeviceptr_t is a pointer in this layer, the driver's CUdeviceptr an
/// integer: converted.
inline hipError_t hipModuleGetGlobal(hipDeviceptr_t* dptr, size_t* bytes, hipModule_t hmod,
                                     const char* name) {
  if (name == nullptr) return hipErrorInvalidValue;
  CUdeviceptr address = 0;
  const hipError_t e = hip_on_cuda::detail::module_get_global(dptr != nullptr ? &address : nullptr,
                                                              bytes, hmod, name);
  if (e == hipSuccess && dptr != nullptr)
    *dptr = reinterpret_cast<hipDeviceptr_t>(static_cast<uintptr_t>(address));
  return e;
}

/// Launches a module kernel: arguments either in `kernelParams` (one pointer per
/// parameter) or packed in `extra` (HIP_LAUNCH_PARAM_BUFFER_POINTER, buffer,
/// HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END).
inline hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX,
                                        unsigned int gridDimY, unsigned int gridDimZ,
                                        unsigned int blockDimX, unsigned int blockDimY,
                                        unsigned int blockDimZ, unsigned int sharedMemBytes,
                                        hipStream_t stream, void** kernelParams, void** extra) {
  HIP_ON_CUDA_DRIVER_CALL(false, cuLaunchKernel, "cuLaunchKernel", f, gridDimX, gridDimY, gridDimZ,
                          blockDimX, blockDimY, blockDimZ, sharedMemBytes, stream, kernelParams,
                          extra);
}

/// One attribute of a module kernel (registers, static shared memory, max block, ...).
inline hipError_t hipFuncGetAttribute(int* value, hipFunction_attribute attrib,
                                      hipFunction_t hfunc) {
  if (value == nullptr) return hipErrorInvalidValue;
  HIP_ON_CUDA_DRIVER_CALL(false, cuFuncGetAttribute, "cuFuncGetAttribute", value,
                          static_cast<CUfunction_attribute>(attrib), hfunc);
}

inline hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks,
                                                                     hipFunction_t f, int blockSize,
                                                                     size_t dynSharedMemPerBlk) {
  if (numBlocks == nullptr) return hipErrorInvalidValue;
  HIP_ON_CUDA_DRIVER_CALL(false, cuOccupancyMaxActiveBlocksPerMultiprocessor,
                          "cuOccupancyMaxActiveBlocksPerMultiprocessor", numBlocks, f, blockSize,
                          dynSharedMemPerBlk);
}

inline hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* numBlocks, hipFunction_t f, int blockSize, size_t dynSharedMemPerBlk, unsigned int flags) {
  if (numBlocks == nullptr) return hipErrorInvalidValue;
  HIP_ON_CUDA_DRIVER_CALL(false, cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,
                          "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", numBlocks, f,
                          blockSize, dynSharedMemPerBlk, flags);
}

/// Block size with the highest occupancy for a module kernel and the smallest grid that
/// reaches it (the driver's search; dynamic shared memory fixed per block).
inline hipError_t hipModuleOccupancyMaxPotentialBlockSize(int* gridSize, int* blockSize,
                                                          hipFunction_t f,
                                                          size_t dynSharedMemPerBlk,
                                                          int blockSizeLimit) {
  if (gridSize == nullptr || blockSize == nullptr) return hipErrorInvalidValue;
  HIP_ON_CUDA_DRIVER_CALL(false, cuOccupancyMaxPotentialBlockSize,
                          "cuOccupancyMaxPotentialBlockSize", gridSize, blockSize, f, nullptr,
                          dynSharedMemPerBlk, blockSizeLimit);
}

inline hipError_t hipModuleOccupancyMaxPotentialBlockSizeWithFlags(int* gridSize, int* blockSize,
                                                                   hipFunction_t f,
                                                                   size_t dynSharedMemPerBlk,
                                                                   int blockSizeLimit,
                                                                   unsigned int flags) {
  if (gridSize == nullptr || blockSize == nullptr) return hipErrorInvalidValue;
  HIP_ON_CUDA_DRIVER_CALL(false, cuOccupancyMaxPotentialBlockSizeWithFlags,
                          "cuOccupancyMaxPotentialBlockSizeWithFlags", gridSize, blockSize, f,
                          nullptr, dynSharedMemPerBlk, blockSizeLimit, flags);
}

#endif  // HIP_ON_CUDA_MODULE_H
