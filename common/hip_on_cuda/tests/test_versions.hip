// HIP API test: versions and platform macros.
//
// Host part: HIP_VERSION is composed as HIP documents, exactly one platform macro is
// set, and on the hip_on_cuda layer its marker and the old __HIP_PLATFORM_NVCC__
// spelling are there. GPU part: runtime and driver versions are reported.
#include "check.h"

static_assert(HIP_VERSION ==
                  HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH,
              "HIP_VERSION composition");
static_assert(HIP_VERSION_MAJOR >= 5, "HIP 5 or newer");
#if defined(__HIP_PLATFORM_AMD__) == defined(__HIP_PLATFORM_NVIDIA__)
#error "exactly one of __HIP_PLATFORM_AMD__ and __HIP_PLATFORM_NVIDIA__ must be defined"
#endif
#if defined(HIP_LESSONS_HIP_ON_CUDA)
static_assert(HIP_LESSONS_HIP_ON_CUDA == 1, "layer marker");
#if !defined(__HIP_PLATFORM_NVCC__)
#error "the hip_on_cuda layer also defines the old __HIP_PLATFORM_NVCC__"
#endif
#endif

int main() {
  std::printf("HIP_VERSION %d (%d.%d.%d), platform %s%s\n", HIP_VERSION, HIP_VERSION_MAJOR,
              HIP_VERSION_MINOR, HIP_VERSION_PATCH,
#if defined(__HIP_PLATFORM_NVIDIA__)
              "NVIDIA",
#else
              "AMD",
#endif
#if defined(HIP_LESSONS_HIP_ON_CUDA)
              " (hip_on_cuda layer)"
#else
              ""
#endif
  );
  CHECK(HIP_VERSION_MAJOR >= 5, hip_api_test::fmt("HIP_VERSION_MAJOR %d >= 5", HIP_VERSION_MAJOR));

  const int no_gpu = hip_api_test::require_gpu();
  if (no_gpu >= 0) return no_gpu;

  int runtime = 0;
  int driver = 0;
  CHECK_HIP(hipRuntimeGetVersion(&runtime), "hipRuntimeGetVersion");
  CHECK_HIP(hipDriverGetVersion(&driver), "hipDriverGetVersion");
  std::printf("runtime version %d, driver version %d\n", runtime, driver);
  CHECK(runtime > 0, hip_api_test::fmt("runtime version %d > 0", runtime));
  CHECK(driver > 0, hip_api_test::fmt("driver version %d > 0", driver));
#if defined(__HIP_PLATFORM_NVIDIA__)
  // On NVIDIA both are CUDA versions (1000 * major + 10 * minor); the driver must be at
  // least as new as the runtime it runs.
  CHECK(runtime >= 12000, hip_api_test::fmt("CUDA runtime %d >= 12.0", runtime));
  CHECK(driver >= runtime, hip_api_test::fmt("CUDA driver %d >= runtime %d", driver, runtime));
#endif
  CHECK_HIP(hipGetLastError(), "no error left behind");
  return hip_api_test::finish();
}
