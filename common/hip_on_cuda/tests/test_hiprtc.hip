// HIP API test: runtime compilation (hiprtc) and running what it compiled.
//
// Host part (no GPU needed; compiles for a named architecture): a program with a syntax error fails
// with HIPRTC_ERROR_COMPILATION and leaves a log naming the error; a valid program with a template
// kernel compiles, the name expression gives a lowered name, code comes back, and the error strings
// exist. GPU part: the program is compiled for the device
// ("--gpu-architecture=" and "--offload-arch=" with hipDeviceProp_t::gcnArchName), loaded
// with hipModuleLoadData, and both kernels (extern "C" by name, the template instance by
// its lowered name) run on random integer-valued inputs; every output is checked exactly.
#include <hip/hip_runtime.h>
#include <hip/hiprtc.h>

#include <random>
#include <string>
#include <vector>

#include "check.h"

namespace {

constexpr unsigned kSeed = 31337u;
constexpr int kCount = 100003;
constexpr int kBlock = 256;

// CUDA-style built-ins (blockIdx, ...) work in HIP kernels on both platforms, and the
// source includes nothing, so it compiles with hiprtc on AMD and NVRTC on NVIDIA.
constexpr char kSource[] = R"(
template <typename T>
__global__ void axpy(const T* x, T* y, T a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void fill(float* y, float value, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = value;
}
)";
constexpr char kBroken[] = "extern \"C\" __global__ void broken(float* y) { y[0] = oops; }\n";
constexpr char kTemplateInstance[] = "axpy<float>";

// The host part names an architecture: HIP 5.2's hiprtc has no default without a GPU.
// On NVIDIA the AMD-style option exercises the layer's translation (sm_75 -> compute_75).
#if defined(__HIP_PLATFORM_AMD__)
constexpr char kOfflineArch[] = "--offload-arch=gfx90a";
#else
constexpr char kOfflineArch[] = "--offload-arch=sm_75";
#endif

#define CHECK_RTC(call, what) CHECK_RTC_RESULT((call), HIPRTC_SUCCESS, what)
#define CHECK_RTC_RESULT(call, expected, what)                                                 \
  do {                                                                                         \
    const hiprtcResult result_ = (call);                                                       \
    ::hip_api_test::record(result_ == (expected), (what),                                      \
                           ::hip_api_test::fmt("got %d (%s), expected %d", int(result_),       \
                                               hiprtcGetErrorString(result_), int(expected))); \
  } while (false)

std::string program_log(hiprtcProgram program) {
  size_t size = 0;
  CHECK_RTC(hiprtcGetProgramLogSize(program, &size), "hiprtcGetProgramLogSize");
  std::string log(size, '\0');
  if (size > 0) CHECK_RTC(hiprtcGetProgramLog(program, &log[0]), "hiprtcGetProgramLog");
  return log;
}

/// Compiles kSource with `options`; returns the code (empty on failure) and the lowered
/// name of the template instance.
std::vector<char> compile(const std::vector<const char*>& options, std::string* lowered,
                          const std::string& what) {
  hiprtcProgram program = nullptr;
  CHECK_RTC(hiprtcCreateProgram(&program, kSource, "axpy.hip", 0, nullptr, nullptr),
            "hiprtcCreateProgram (" + what + ")");
  CHECK_RTC(hiprtcAddNameExpression(program, kTemplateInstance), "hiprtcAddNameExpression");
  const hiprtcResult compiled =
      hiprtcCompileProgram(program, static_cast<int>(options.size()),
                           options.empty() ? nullptr : const_cast<const char**>(options.data()));
  CHECK_RTC(compiled, "hiprtcCompileProgram (" + what + ")");
  if (compiled != HIPRTC_SUCCESS) std::printf("%s\n", program_log(program).c_str());
  std::vector<char> code;
  if (compiled == HIPRTC_SUCCESS) {
    const char* name = nullptr;
    CHECK_RTC(hiprtcGetLoweredName(program, kTemplateInstance, &name), "hiprtcGetLoweredName");
    CHECK(name != nullptr && name[0] != '\0' && std::string(name) != kTemplateInstance,
          hip_api_test::fmt("lowered name of %s is a symbol (%s)", kTemplateInstance,
                            name != nullptr ? name : "null"));
    if (name != nullptr) *lowered = name;
    size_t size = 0;
    CHECK_RTC(hiprtcGetCodeSize(program, &size), "hiprtcGetCodeSize");
    CHECK(size > 0, hip_api_test::fmt("code has %zu bytes", size));
    code.resize(size);
    if (size > 0) CHECK_RTC(hiprtcGetCode(program, code.data()), "hiprtcGetCode");
  }
  CHECK_RTC(hiprtcDestroyProgram(&program), "hiprtcDestroyProgram");
  return code;
}

void host_checks() {
  CHECK(std::string(hiprtcGetErrorString(HIPRTC_ERROR_COMPILATION)).size() > 0,
        "hiprtcGetErrorString(HIPRTC_ERROR_COMPILATION) has a text");
  CHECK_EQ(HIPRTC_ERROR_INTERNAL_ERROR, 11, "HIPRTC_ERROR_INTERNAL_ERROR is 11");

  hiprtcProgram broken = nullptr;
  CHECK_RTC(hiprtcCreateProgram(&broken, kBroken, "broken.hip", 0, nullptr, nullptr),
            "hiprtcCreateProgram (broken source)");
  const char* offline[] = {kOfflineArch};
  CHECK_RTC_RESULT(hiprtcCompileProgram(broken, 1, offline), HIPRTC_ERROR_COMPILATION,
                   "a syntax error is HIPRTC_ERROR_COMPILATION");
  const std::string log = program_log(broken);
  CHECK(log.find("oops") != std::string::npos,
        hip_api_test::fmt("the log names the undefined identifier (%zu bytes)", log.size()));
  CHECK_RTC(hiprtcDestroyProgram(&broken), "hiprtcDestroyProgram (broken)");

  std::string lowered;
  const std::vector<char> code = compile({kOfflineArch}, &lowered, kOfflineArch);
  CHECK(!code.empty(), hip_api_test::fmt("%s compile gives code", kOfflineArch));
}

void check_axpy(hipModule_t module, const std::string& lowered, hipStream_t stream,
                const std::string& what) {
  hipFunction_t fill = nullptr;
  hipFunction_t axpy = nullptr;
  CHECK_HIP(hipModuleGetFunction(&fill, module, "fill"), "hipModuleGetFunction(fill)");
  CHECK_HIP(hipModuleGetFunction(&axpy, module, lowered.c_str()),
            "hipModuleGetFunction(" + lowered + ")");
  if (fill == nullptr || axpy == nullptr) return;

  std::mt19937 rng(kSeed);
  std::uniform_int_distribution<int> value(-1000, 1000);
  std::vector<float> x(kCount);
  for (float& v : x) v = static_cast<float>(value(rng));
  float a = static_cast<float>(value(rng));
  float start = static_cast<float>(value(rng));
  int n = kCount;
  float* d_x = nullptr;
  float* d_y = nullptr;
  CHECK_HIP(hipMalloc(&d_x, kCount * sizeof(float)), "hipMalloc x");
  CHECK_HIP(hipMalloc(&d_y, kCount * sizeof(float)), "hipMalloc y");
  CHECK_HIP(hipMemcpy(d_x, x.data(), kCount * sizeof(float), hipMemcpyHostToDevice), "copy x");
  const unsigned grid = (kCount + kBlock - 1) / kBlock;
  void* fill_args[] = {&d_y, &start, &n};
  CHECK_HIP(hipModuleLaunchKernel(fill, grid, 1, 1, kBlock, 1, 1, 0, stream, fill_args, nullptr),
            "launch fill");
  void* axpy_args[] = {&d_x, &d_y, &a, &n};
  CHECK_HIP(hipModuleLaunchKernel(axpy, grid, 1, 1, kBlock, 1, 1, 0, stream, axpy_args, nullptr),
            "launch " + std::string(kTemplateInstance));
  CHECK_HIP(hipStreamSynchronize(stream), "kernels complete");
  std::vector<float> y(kCount, -1.0f);
  CHECK_HIP(hipMemcpy(y.data(), d_y, kCount * sizeof(float), hipMemcpyDeviceToHost), "copy y");
  long long bad = -1;
  for (int i = 0; i < kCount && bad < 0; ++i)
    if (y[i] != a * x[i] + start) bad = i;
  CHECK(bad < 0, hip_api_test::fmt("%s: y = %g * x + %g for all %d elements (first bad %lld)",
                                   what.c_str(), a, start, kCount, bad));
  CHECK_HIP(hipFree(d_x), "hipFree x");
  CHECK_HIP(hipFree(d_y), "hipFree y");
}

void device_checks(const hipDeviceProp_t& prop, hipStream_t stream) {
  const std::string arch = prop.gcnArchName;
  const std::string forms[] = {"--gpu-architecture=" + arch, "--offload-arch=" + arch};
  for (const std::string& option : forms) {
    std::string lowered;
    const std::vector<char> code = compile({option.c_str()}, &lowered, option);
    if (code.empty()) continue;
    hipModule_t module = nullptr;
    CHECK_HIP(hipModuleLoadData(&module, code.data()), "hipModuleLoadData (" + option + ")");
    if (module == nullptr) continue;
    check_axpy(module, lowered, stream, option);
    CHECK_HIP(hipModuleUnload(module), "hipModuleUnload");
  }
}

}  // namespace

int main() {
  std::printf("seed %u\n", kSeed);
  host_checks();
  const int no_gpu = hip_api_test::require_gpu();
  if (no_gpu >= 0) return no_gpu;
  CHECK_HIP(hipSetDevice(0), "hipSetDevice(0)");
  hipDeviceProp_t prop;
  CHECK_HIP(hipGetDeviceProperties(&prop, 0), "hipGetDeviceProperties");
  hipStream_t stream = nullptr;
  CHECK_HIP(hipStreamCreate(&stream), "hipStreamCreate");
  device_checks(prop, stream);
  CHECK_HIP(hipStreamDestroy(stream), "hipStreamDestroy");
  CHECK_HIP(hipDeviceSynchronize(), "hipDeviceSynchronize");
  CHECK_HIP(hipGetLastError(), "no error left behind");
  return hip_api_test::finish();
}
