// HIP API test: error codes, names, strings and the last-error state.
//
// Host part (no GPU needed): numeric values of hipError_t equal HIP's, names and
// strings. GPU part: invalid calls return the HIP code HIP documents, and
// hipGetLastError / hipPeekAtLastError follow the runtime's last-error state.
#include <cstring>
#include <string>

#include "check.h"

// HIP's numbers, the same on AMD and on the hip_on_cuda layer.
static_assert(hipSuccess == 0, "hipSuccess");
static_assert(hipErrorInvalidValue == 1, "hipErrorInvalidValue");
static_assert(hipErrorOutOfMemory == 2 && hipErrorMemoryAllocation == 2, "hipErrorOutOfMemory");
static_assert(hipErrorNotInitialized == 3 && hipErrorInitializationError == 3, "NotInitialized");
static_assert(hipErrorDeinitialized == 4, "hipErrorDeinitialized");
static_assert(hipErrorInvalidConfiguration == 9, "hipErrorInvalidConfiguration");
static_assert(hipErrorInvalidPitchValue == 12, "hipErrorInvalidPitchValue");
static_assert(hipErrorInvalidSymbol == 13, "hipErrorInvalidSymbol");
static_assert(hipErrorInvalidDevicePointer == 17, "hipErrorInvalidDevicePointer");
static_assert(hipErrorInvalidMemcpyDirection == 21, "hipErrorInvalidMemcpyDirection");
static_assert(hipErrorInsufficientDriver == 35, "hipErrorInsufficientDriver");
static_assert(hipErrorInvalidDeviceFunction == 98, "hipErrorInvalidDeviceFunction");
static_assert(hipErrorNoDevice == 100, "hipErrorNoDevice");
static_assert(hipErrorInvalidDevice == 101, "hipErrorInvalidDevice");
static_assert(hipErrorInvalidImage == 200, "hipErrorInvalidImage");
static_assert(hipErrorInvalidContext == 201, "hipErrorInvalidContext");
static_assert(hipErrorNoBinaryForGpu == 209, "hipErrorNoBinaryForGpu");
static_assert(hipErrorInvalidHandle == 400 && hipErrorInvalidResourceHandle == 400,
              "InvalidHandle");
static_assert(hipErrorNotFound == 500, "hipErrorNotFound");
static_assert(hipErrorNotReady == 600, "hipErrorNotReady");
static_assert(hipErrorIllegalAddress == 700, "hipErrorIllegalAddress");
static_assert(hipErrorLaunchOutOfResources == 701, "hipErrorLaunchOutOfResources");
static_assert(hipErrorLaunchFailure == 719, "hipErrorLaunchFailure");
static_assert(hipErrorCooperativeLaunchTooLarge == 720, "hipErrorCooperativeLaunchTooLarge");
static_assert(hipErrorNotSupported == 801, "hipErrorNotSupported");
static_assert(hipErrorStreamCaptureUnsupported == 900, "hipErrorStreamCaptureUnsupported");
static_assert(hipErrorStreamCaptureInvalidated == 901, "hipErrorStreamCaptureInvalidated");
static_assert(hipErrorGraphExecUpdateFailure == 910, "hipErrorGraphExecUpdateFailure");
static_assert(hipErrorUnknown == 999, "hipErrorUnknown");
static_assert(hipErrorRuntimeMemory == 1052 && hipErrorRuntimeOther == 1053, "HSA codes");

// The legacy anonymous enum of hip_runtime_api.h, numbered 0..3 by enumeration: only the
// first two share their number with the hipError_t namesake.
static_assert(HIP_SUCCESS == 0 && HIP_SUCCESS == static_cast<int>(hipSuccess), "HIP_SUCCESS");
static_assert(HIP_ERROR_INVALID_VALUE == 1 &&
                  HIP_ERROR_INVALID_VALUE == static_cast<int>(hipErrorInvalidValue),
              "HIP_ERROR_INVALID_VALUE");
static_assert(HIP_ERROR_NOT_INITIALIZED == 2, "HIP_ERROR_NOT_INITIALIZED");
static_assert(HIP_ERROR_LAUNCH_OUT_OF_RESOURCES == 3, "HIP_ERROR_LAUNCH_OUT_OF_RESOURCES");

namespace {

void check_names_and_strings() {
  struct Named {
    hipError_t code;
    const char* name;
  };
  const Named named[] = {
      {hipSuccess, "hipSuccess"},
      {hipErrorInvalidValue, "hipErrorInvalidValue"},
      {hipErrorOutOfMemory, "hipErrorOutOfMemory"},
      {hipErrorInvalidDevice, "hipErrorInvalidDevice"},
      {hipErrorNoDevice, "hipErrorNoDevice"},
      {hipErrorNotReady, "hipErrorNotReady"},
      {hipErrorInvalidConfiguration, "hipErrorInvalidConfiguration"},
      {hipErrorLaunchFailure, "hipErrorLaunchFailure"},
      {hipErrorStreamCaptureUnsupported, "hipErrorStreamCaptureUnsupported"},
      {hipErrorUnknown, "hipErrorUnknown"},
  };
  for (const Named& n : named) {
    const char* got = hipGetErrorName(n.code);
    CHECK(got != nullptr && std::strcmp(got, n.name) == 0,
          hip_api_test::fmt("hipGetErrorName(%d) is \"%s\" (got \"%s\")", static_cast<int>(n.code),
                            n.name, got != nullptr ? got : "(null)"));
    const char* text = hipGetErrorString(n.code);
    CHECK(text != nullptr && text[0] != '\0',
          hip_api_test::fmt("hipGetErrorString(%s) is a non-empty text: \"%s\"", n.name,
                            text != nullptr ? text : "(null)"));
  }
  CHECK(std::strcmp(hipGetErrorString(hipErrorInvalidValue),
                    hipGetErrorString(hipErrorOutOfMemory)) != 0,
        "different errors have different strings");
}

#if defined(HIP_LESSONS_HIP_ON_CUDA)
// The layer's own translation table (not part of the portable API).
void check_layer_mapping() {
  struct Pair {
    cudaError_t cuda;
    hipError_t hip;
  };
  const Pair pairs[] = {
      {cudaSuccess, hipSuccess},
      {cudaErrorInvalidValue, hipErrorInvalidValue},
      {cudaErrorMemoryAllocation, hipErrorOutOfMemory},
      {cudaErrorInitializationError, hipErrorNotInitialized},
      {cudaErrorInsufficientDriver, hipErrorInsufficientDriver},
      {cudaErrorNoDevice, hipErrorNoDevice},
      {cudaErrorInvalidDevice, hipErrorInvalidDevice},
      {cudaErrorInvalidResourceHandle, hipErrorInvalidHandle},
      {cudaErrorNotReady, hipErrorNotReady},
      {cudaErrorIllegalAddress, hipErrorIllegalAddress},
      {cudaErrorLaunchFailure, hipErrorLaunchFailure},
      {cudaErrorInvalidConfiguration, hipErrorInvalidConfiguration},
      {cudaErrorStreamCaptureInvalidated, hipErrorStreamCaptureInvalidated},
      {cudaErrorUnknown, hipErrorUnknown},
      {static_cast<cudaError_t>(123456), hipErrorUnknown},
  };
  for (const Pair& p : pairs) {
    CHECK_ERROR(hipCUDAErrorTohipError(p.cuda), p.hip,
                hip_api_test::fmt("cudaError %d maps to %s", static_cast<int>(p.cuda),
                                  hipGetErrorName(p.hip)));
  }
}
#endif

}  // namespace

int main() {
  check_names_and_strings();
#if defined(HIP_LESSONS_HIP_ON_CUDA)
  check_layer_mapping();
#endif

  const int no_gpu = hip_api_test::require_gpu();
  if (no_gpu >= 0) return no_gpu;

  int count = 0;
  CHECK_HIP(hipGetDeviceCount(&count), "hipGetDeviceCount");
  CHECK_HIP(hipGetLastError(), "last error is clear at start");

  // An invalid device: HIP says hipErrorInvalidDevice, and the last error remembers it
  // until hipGetLastError reads it.
  CHECK_ERROR(hipSetDevice(count), hipErrorInvalidDevice, "hipSetDevice(count) is InvalidDevice");
  CHECK_ERROR(hipPeekAtLastError(), hipErrorInvalidDevice, "hipPeekAtLastError sees it");
  CHECK_ERROR(hipPeekAtLastError(), hipErrorInvalidDevice, "hipPeekAtLastError does not clear");
  CHECK_ERROR(hipGetLastError(), hipErrorInvalidDevice, "hipGetLastError returns it");
  CHECK_HIP(hipGetLastError(), "hipGetLastError cleared it");

  CHECK_ERROR(hipSetDevice(-1), hipErrorInvalidDevice, "hipSetDevice(-1) is InvalidDevice");
  hip_api_test::ignore(hipGetLastError());
  CHECK_HIP(hipSetDevice(0), "hipSetDevice(0) after the errors");

  // Sample helpers test results against the legacy names (as ints: GCC warns when two
  // different enums are compared).
  CHECK_EQ(static_cast<int>(hipSetDevice(0)), HIP_SUCCESS, "hipSetDevice(0) == HIP_SUCCESS");
  CHECK_EQ(static_cast<int>(hipMemcpy(nullptr, nullptr, 16, hipMemcpyDeviceToHost)),
           HIP_ERROR_INVALID_VALUE, "hipMemcpy from/to null == HIP_ERROR_INVALID_VALUE");
  hip_api_test::ignore(hipGetLastError());

  hipDeviceProp_t prop;
  CHECK_ERROR(hipGetDeviceProperties(&prop, count), hipErrorInvalidDevice,
              "hipGetDeviceProperties(count) is InvalidDevice");
  hip_api_test::ignore(hipGetLastError());

  // Out of memory: far more than any GPU has.
  void* huge = nullptr;
  const size_t too_much = size_t{1} << 60;
  CHECK_ERROR(hipMalloc(&huge, too_much), hipErrorOutOfMemory,
              "hipMalloc(2^60 bytes) is OutOfMemory");
  CHECK(huge == nullptr, "failed hipMalloc leaves the pointer null");
  hip_api_test::ignore(hipGetLastError());

  // Invalid arguments.
  CHECK_ERROR(hipMemcpy(nullptr, nullptr, 16, hipMemcpyDeviceToHost), hipErrorInvalidValue,
              "hipMemcpy from/to null is InvalidValue");
  hip_api_test::ignore(hipGetLastError());
  hipStream_t stream = nullptr;
  CHECK_HIP(hipStreamCreate(&stream), "hipStreamCreate");
  CHECK_HIP(hipStreamDestroy(stream), "hipStreamDestroy");

  CHECK_HIP(hipDeviceSynchronize(), "device is still healthy (no sticky error)");
  CHECK_HIP(hipGetLastError(), "last error is clear at the end");
  return hip_api_test::finish();
}
