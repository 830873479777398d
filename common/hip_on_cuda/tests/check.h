/// \file check.h
/// \brief Tiny check-and-report helpers shared by the HIP API tests.
///
/// The tests use only the portable HIP API, so the same source builds against AMD's HIP
/// (hipcc) and against the hip_on_cuda layer (nvcc -x cu). Each check prints one line,
/// "ok   <what>" or "FAIL <what>: <detail>"; finish() returns 0 when all passed and 1
/// otherwise; require_gpu() turns "no usable GPU" into the skip exit code 77.
#ifndef HIP_API_TESTS_CHECK_H
#define HIP_API_TESTS_CHECK_H

#include <hip/hip_runtime.h>

#include <cstdarg>
#include <cstdio>
#include <string>

namespace hip_api_test {

constexpr int kExitSkip = 77;

struct Tally {
  int passed = 0;
  int failed = 0;
};

inline Tally& tally() {
  static Tally t;
  return t;
}

#if defined(__GNUC__)
#define HIP_API_TEST_PRINTF_LIKE __attribute__((format(printf, 1, 2)))
#else
#define HIP_API_TEST_PRINTF_LIKE
#endif

/// printf into a std::string (for check names and details).
inline std::string fmt(const char* format, ...) HIP_API_TEST_PRINTF_LIKE;
inline std::string fmt(const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return buffer;
}

inline bool record(bool ok, const std::string& what, const std::string& detail) {
  if (ok) {
    ++tally().passed;
    std::printf("ok   %s\n", what.c_str());
  } else {
    ++tally().failed;
    std::printf("FAIL %s: %s\n", what.c_str(), detail.c_str());
  }
  std::fflush(stdout);
  return ok;
}

inline std::string describe(hipError_t e) {
  return fmt("%s (%d, \"%s\")", hipGetErrorName(e), static_cast<int>(e), hipGetErrorString(e));
}

/// Passes when `e` is `expected`.
inline bool check_error(hipError_t e, hipError_t expected, const std::string& what) {
  return record(e == expected, what,
                fmt("got %s, expected %s", describe(e).c_str(), hipGetErrorName(expected)));
}

inline bool check_hip(hipError_t e, const std::string& what) {
  return check_error(e, hipSuccess, what);
}

/// Passes when `actual == expected` (integers, compared as long long); prints both on
/// failure.
template <typename A, typename B>
inline bool check_eq(const A& actual, const B& expected, const std::string& what) {
  const long long a = static_cast<long long>(actual);
  const long long b = static_cast<long long>(expected);
  return record(a == b, what, fmt("got %lld, expected %lld", a, b));
}

/// Consumes a result on clean-up paths where a failure has already been reported.
inline void ignore(hipError_t) {}

/// Returns -1 when a GPU is there (go on). Otherwise prints the skip line and returns
/// 77, unless a check before this point failed, in which case the run is a failure.
inline int require_gpu() {
  int count = 0;
  const hipError_t e = hipGetDeviceCount(&count);
  if (e == hipSuccess && count > 0) return -1;
  ignore(hipGetLastError());
  if (tally().failed > 0) {
    std::printf("no GPU, and %d host-side check(s) failed\n", tally().failed);
    return 1;
  }
  std::printf("skipped: no GPU (%s)\n", e == hipSuccess ? "0 devices" : hipGetErrorName(e));
  return kExitSkip;
}

/// Prints the summary; exit code 0 when every check passed, 1 otherwise.
inline int finish() {
  std::printf("%d passed, %d failed\n", tally().passed, tally().failed);
  return tally().failed == 0 ? 0 : 1;
}

}  // namespace hip_api_test

/// CHECK(condition, what): passes when `condition` is true.
#define CHECK(condition, what) ::hip_api_test::record((condition), (what), "expected " #condition)

/// CHECK_HIP(call, what): passes when `call` returns hipSuccess.
#define CHECK_HIP(call, what) ::hip_api_test::check_hip((call), (what))

/// CHECK_ERROR(call, expected, what): passes when `call` returns `expected`.
#define CHECK_ERROR(call, expected, what) ::hip_api_test::check_error((call), (expected), (what))

/// CHECK_EQ(actual, expected, what): integral comparison that prints both values.
#define CHECK_EQ(actual, expected, what) ::hip_api_test::check_eq((actual), (expected), (what))

#endif  // HIP_API_TESTS_CHECK_H
