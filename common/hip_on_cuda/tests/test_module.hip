// HIP API test: the module API on a code object built by the project.
//
// GPU part: module_kernels.hip, compiled at build time into a code object (fatbin on
// NVIDIA, hipcc --genco on AMD), is loaded three ways (hipModuleLoad from the file,
// hipModuleLoadData and hipModuleLoadDataEx from memory). Its kernel y = a * x + bias
// (bias a module __device__ global, set through hipModuleGetGlobal) runs on random
// integer-valued inputs, launched with kernel parameters and with a packed `extra`
// buffer at the block size hipModuleOccupancyMaxPotentialBlockSize picks; every output
// is checked exactly. hipFuncGetAttribute and the module occupancy calls give sane
// values; a missing kernel and a missing file give HIP's errors.
//
// The code object's path: argv[1], else HIP_API_TEST_MODULE_FILE (set by CMake).
#include <cmath>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

#include "check.h"

#ifndef HIP_API_TEST_MODULE_FILE
#define HIP_API_TEST_MODULE_FILE "hip_api_test_module_kernels.co"
#endif

namespace {

constexpr unsigned kSeed = 7071u;
constexpr int kCount = (1 << 20) + 123;  // not a multiple of any block size
constexpr char kKernel[] = "module_axpb";
constexpr char kGlobal[] = "module_bias";

std::vector<char> read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Sets the module's `module_bias` through hipModuleGetGlobal.
void set_bias(hipModule_t module, float bias, const char* which) {
  hipDeviceptr_t address = nullptr;
  size_t bytes = 0;
  CHECK_HIP(hipModuleGetGlobal(&address, &bytes, module, kGlobal),
            hip_api_test::fmt("hipModuleGetGlobal(%s) in the %s module", kGlobal, which));
  CHECK_EQ(bytes, sizeof(float), hip_api_test::fmt("%s is one float", kGlobal));
  CHECK(address != nullptr, hip_api_test::fmt("%s has a device address", kGlobal));
  if (address != nullptr && bytes == sizeof(float))
    CHECK_HIP(hipMemcpyHtoD(address, &bias, sizeof bias),
              hip_api_test::fmt("hipMemcpyHtoD to %s", kGlobal));
}

/// Checks y == a * x + bias exactly (integer-valued floats: no rounding anywhere).
void check_output(const float* d_y, const std::vector<float>& x, float a, float bias,
                  const char* how) {
  std::vector<float> y(x.size(), -1.0f);
  CHECK_HIP(hipMemcpy(y.data(), d_y, y.size() * sizeof(float), hipMemcpyDeviceToHost),
            "copy back y");
  long long bad = -1;
  for (size_t i = 0; i < x.size() && bad < 0; ++i)
    if (y[i] != a * x[i] + bias) bad = static_cast<long long>(i);
  CHECK(bad < 0, hip_api_test::fmt("%s: y = %g * x + %g for all %zu elements (first bad %lld)", how,
                                   a, bias, x.size(), bad));
}

void run(const char* path, const hipDeviceProp_t& prop, hipStream_t stream) {
  const std::vector<char> image = read_file(path);
  CHECK(!image.empty(), hip_api_test::fmt("code object %s is readable", path));
  if (image.empty()) return;

  // 1. Load from the file, find the kernel, ask about it.
  hipModule_t from_file = nullptr;
  CHECK_HIP(hipModuleLoad(&from_file, path), "hipModuleLoad(file)");
  hipFunction_t axpb = nullptr;
  CHECK_HIP(hipModuleGetFunction(&axpb, from_file, kKernel), "hipModuleGetFunction");
  if (axpb == nullptr) return;
  int max_threads = 0;
  int registers = -1;
  CHECK_HIP(hipFuncGetAttribute(&max_threads, HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, axpb),
            "hipFuncGetAttribute(MAX_THREADS_PER_BLOCK)");
  CHECK(max_threads >= 64 && max_threads <= prop.maxThreadsPerBlock,
        hip_api_test::fmt("kernel's max block %d is in [64, %d]", max_threads,
                          prop.maxThreadsPerBlock));
  CHECK_HIP(hipFuncGetAttribute(&registers, HIP_FUNC_ATTRIBUTE_NUM_REGS, axpb),
            "hipFuncGetAttribute(NUM_REGS)");
  CHECK(registers >= 0, hip_api_test::fmt("kernel uses %d registers", registers));

  int grid_for_occupancy = 0;
  int block = 0;
  CHECK_HIP(hipModuleOccupancyMaxPotentialBlockSize(&grid_for_occupancy, &block, axpb, 0, 0),
            "hipModuleOccupancyMaxPotentialBlockSize");
  CHECK(block > 0 && block <= max_threads,
        hip_api_test::fmt("suggested block %d is in (0, %d]", block, max_threads));
  CHECK(grid_for_occupancy >= prop.multiProcessorCount,
        hip_api_test::fmt("suggested grid %d covers the %d CUs", grid_for_occupancy,
                          prop.multiProcessorCount));
  if (block <= 0) return;
  int per_cu = 0;
  CHECK_HIP(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, axpb, block, 0),
            "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor");
  CHECK(per_cu > 0, hip_api_test::fmt("%d blocks of %d fit on a CU", per_cu, block));

  // 2. Random integer-valued inputs; launch with kernel parameters.
  std::mt19937 rng(kSeed);
  std::uniform_int_distribution<int> value(-1000, 1000);
  std::vector<float> x(kCount);
  for (float& v : x) v = static_cast<float>(value(rng));
  const float a = static_cast<float>(value(rng) | 1);
  const float bias_file = static_cast<float>(value(rng));
  const float bias_memory = bias_file + 17.0f;
  float* d_x = nullptr;
  float* d_y = nullptr;
  CHECK_HIP(hipMalloc(&d_x, kCount * sizeof(float)), "hipMalloc x");
  CHECK_HIP(hipMalloc(&d_y, kCount * sizeof(float)), "hipMalloc y");
  CHECK_HIP(hipMemcpy(d_x, x.data(), kCount * sizeof(float), hipMemcpyHostToDevice), "copy x");
  set_bias(from_file, bias_file, "file");

  const unsigned grid = static_cast<unsigned>((kCount + block - 1) / block);
  int n = kCount;
  float scale = a;
  void* params[] = {&d_x, &d_y, &scale, &n};
  CHECK_HIP(hipModuleLaunchKernel(axpb, grid, 1, 1, static_cast<unsigned>(block), 1, 1, 0, stream,
                                  params, nullptr),
            hip_api_test::fmt("hipModuleLaunchKernel(kernelParams), %u x %d", grid, block));
  CHECK_HIP(hipStreamSynchronize(stream), "kernel completes");
  check_output(d_y, x, a, bias_file, "file module, kernelParams");

  // 3. Load the same image from memory: a second module with its own global; launch
  //    with the arguments packed in `extra`.
  hipModule_t from_memory = nullptr;
  CHECK_HIP(hipModuleLoadData(&from_memory, image.data()), "hipModuleLoadData");
  hipFunction_t axpb_memory = nullptr;
  CHECK_HIP(hipModuleGetFunction(&axpb_memory, from_memory, kKernel),
            "hipModuleGetFunction (memory module)");
  set_bias(from_memory, bias_memory, "memory");
  struct {
    const float* x;
    float* y;
    float a;
    int n;
  } packed{d_x, d_y, a, kCount};
  size_t packed_size = sizeof packed;
  void* extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &packed, HIP_LAUNCH_PARAM_BUFFER_SIZE,
                   &packed_size, HIP_LAUNCH_PARAM_END};
  CHECK_HIP(hipMemset(d_y, 0, kCount * sizeof(float)), "clear y");
  if (axpb_memory != nullptr) {
    CHECK_HIP(hipModuleLaunchKernel(axpb_memory, grid, 1, 1, static_cast<unsigned>(block), 1, 1, 0,
                                    stream, nullptr, extra),
              "hipModuleLaunchKernel(extra)");
    CHECK_HIP(hipStreamSynchronize(stream), "kernel completes");
    check_output(d_y, x, a, bias_memory, "memory module, extra buffer");
  }

  // 4. hipModuleLoadDataEx with log options (used when the driver compiles PTX).
  char info_log[1024] = {};
  hipJitOption options[] = {hipJitOptionInfoLogBuffer, hipJitOptionInfoLogBufferSizeBytes};
  void* option_values[] = {info_log, reinterpret_cast<void*>(sizeof info_log)};
  hipModule_t from_memory_ex = nullptr;
  CHECK_HIP(hipModuleLoadDataEx(&from_memory_ex, image.data(), 2, options, option_values),
            "hipModuleLoadDataEx with info-log options");
  hipFunction_t axpb_ex = nullptr;
  CHECK_HIP(hipModuleGetFunction(&axpb_ex, from_memory_ex, kKernel),
            "hipModuleGetFunction (LoadDataEx module)");

  // 5. What a missing kernel or file gives.
  hipFunction_t missing = nullptr;
  CHECK_ERROR(hipModuleGetFunction(&missing, from_file, "no_such_kernel"), hipErrorNotFound,
              "a missing kernel is hipErrorNotFound");
  hipModule_t no_module = nullptr;
  CHECK_ERROR(hipModuleLoad(&no_module, "/nonexistent/hip_api_test.co"), hipErrorFileNotFound,
              "a missing file is hipErrorFileNotFound");
  hip_api_test::ignore(hipGetLastError());

  CHECK_HIP(hipModuleUnload(from_memory_ex), "hipModuleUnload (LoadDataEx)");
  CHECK_HIP(hipModuleUnload(from_memory), "hipModuleUnload (memory)");
  CHECK_HIP(hipModuleUnload(from_file), "hipModuleUnload (file)");
  CHECK_HIP(hipFree(d_x), "hipFree x");
  CHECK_HIP(hipFree(d_y), "hipFree y");
}

}  // namespace

int main(int argc, char** argv) {
  const int no_gpu = hip_api_test::require_gpu();
  if (no_gpu >= 0) return no_gpu;
  const char* path = argc > 1 ? argv[1] : HIP_API_TEST_MODULE_FILE;
  std::printf("seed %u, code object %s\n", kSeed, path);
  CHECK_HIP(hipSetDevice(0), "hipSetDevice(0)");
  hipDeviceProp_t prop;
  CHECK_HIP(hipGetDeviceProperties(&prop, 0), "hipGetDeviceProperties");
  hipStream_t stream = nullptr;
  CHECK_HIP(hipStreamCreate(&stream), "hipStreamCreate");
  run(path, prop, stream);
  CHECK_HIP(hipStreamDestroy(stream), "hipStreamDestroy");
  CHECK_HIP(hipDeviceSynchronize(), "hipDeviceSynchronize");
  CHECK_HIP(hipGetLastError(), "no error left behind");
  return hip_api_test::finish();
}
