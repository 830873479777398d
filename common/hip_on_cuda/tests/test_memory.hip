// HIP API test: memory allocation, copies and memsets.
//
// Host part: HIP's values of hipMemcpyKind and the allocation flags. GPU part: random
// data round-trips through device, pinned, mapped, registered, pitched, managed and
// stream-ordered memory and through a __device__ symbol; memsets of 8/16/32-bit words
// reach every element. Outputs are poisoned first; the first mismatch is reported.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "check.h"

static_assert(hipMemcpyHostToHost == 0 && hipMemcpyHostToDevice == 1 &&
                  hipMemcpyDeviceToHost == 2 && hipMemcpyDeviceToDevice == 3 &&
                  hipMemcpyDefault == 4,
              "hipMemcpyKind");
static_assert(hipHostMallocDefault == 0 && hipHostMallocPortable == 1 && hipHostMallocMapped == 2 &&
                  hipHostMallocWriteCombined == 4,
              "hipHostMalloc flags");
static_assert(hipHostRegisterDefault == 0 && hipHostRegisterPortable == 1 &&
                  hipHostRegisterMapped == 2,
              "hipHostRegister flags");
static_assert(hipMemAttachGlobal == 1 && hipMemAttachHost == 2 && hipMemAttachSingle == 4,
              "hipMemAttach flags");
static_assert(hipMemAdviseSetReadMostly == 1 && hipMemAdviseUnsetAccessedBy == 6,
              "hipMemoryAdvise");
static_assert(hipCpuDeviceId == -1 && hipInvalidDeviceId == -2, "special device ids");

namespace {

constexpr unsigned kSeed = 20261202u;
constexpr int kSymbolWords = 64;

__device__ int g_symbol[kSymbolWords];

__global__ void add_one(int* data, int n) {
  const int i = static_cast<int>(hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x);
  if (i < n) data[i] += 1;
}

std::vector<int> random_ints(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-1000000, 1000000);
  std::vector<int> v(n);
  for (int& x : v) x = dist(rng);
  return v;
}

/// Index of the first element where `got` differs from `want`, or -1.
template <typename T>
long first_mismatch(const T* got, const T* want, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want[i]) return static_cast<long>(i);
  return -1;
}

template <typename T>
bool check_same(const T* got, const T* want, size_t n, const std::string& what) {
  const long at = first_mismatch(got, want, n);
  return CHECK(at < 0,
               what + (at < 0 ? std::string() : hip_api_test::fmt(" (first mismatch at %ld)", at)));
}

template <typename T>
bool check_all(const std::vector<T>& got, T want, const std::string& what) {
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want) {
      return hip_api_test::record(false, what,
                                  hip_api_test::fmt("element %zu is 0x%llx, expected 0x%llx", i,
                                                    static_cast<unsigned long long>(got[i]),
                                                    static_cast<unsigned long long>(want)));
    }
  }
  return hip_api_test::record(true, what, "");
}

void device_round_trip(size_t n) {
  const std::vector<int> input = random_ints(n, kSeed);
  std::vector<int> output(n, -7);  // poisoned
  const size_t bytes = n * sizeof(int);
  int* a = nullptr;
  int* b = nullptr;
  CHECK_HIP(hipMalloc(&a, bytes), "hipMalloc (typed pointer)");
  CHECK_HIP(hipMalloc(reinterpret_cast<void**>(&b), bytes), "hipMalloc (void**)");
  CHECK_HIP(hipMemcpy(a, input.data(), bytes, hipMemcpyHostToDevice), "hipMemcpy HtoD");
  CHECK_HIP(hipMemcpy(b, a, bytes, hipMemcpyDeviceToDevice), "hipMemcpy DtoD");
  CHECK_HIP(hipMemcpy(output.data(), b, bytes, hipMemcpyDeviceToHost), "hipMemcpy DtoH");
  check_same(output.data(), input.data(), n, hip_api_test::fmt("%zu random ints round-trip", n));

  std::fill(output.begin(), output.end(), -7);
  CHECK_HIP(hipMemcpy(output.data(), a, bytes, hipMemcpyDefault),
            "hipMemcpy with hipMemcpyDefault");
  check_same(output.data(), input.data(), n, "hipMemcpyDefault infers the direction");

  // Memsets of each width.
  std::vector<unsigned char> bytes_out(bytes, 0);
  CHECK_HIP(hipMemset(a, 0xab, bytes), "hipMemset");
  CHECK_HIP(hipMemcpy(bytes_out.data(), a, bytes, hipMemcpyDeviceToHost),
            "copy back after hipMemset");
  check_all(bytes_out, static_cast<unsigned char>(0xab), "hipMemset sets every byte");

  CHECK_HIP(hipMemsetD8(a, 0x5c, bytes), "hipMemsetD8");
  CHECK_HIP(hipMemcpy(bytes_out.data(), a, bytes, hipMemcpyDeviceToHost),
            "copy back after hipMemsetD8");
  check_all(bytes_out, static_cast<unsigned char>(0x5c), "hipMemsetD8 sets every byte");

  std::vector<unsigned short> shorts(n * 2, 0);
  CHECK_HIP(hipMemsetD16(a, 0xbeef, n * 2), "hipMemsetD16");
  CHECK_HIP(hipMemcpy(shorts.data(), a, bytes, hipMemcpyDeviceToHost),
            "copy back after hipMemsetD16");
  check_all(shorts, static_cast<unsigned short>(0xbeef), "hipMemsetD16 sets every 16-bit word");

  CHECK_HIP(hipMemsetD32(a, 0x12345678, n), "hipMemsetD32");
  CHECK_HIP(hipMemcpy(output.data(), a, bytes, hipMemcpyDeviceToHost),
            "copy back after hipMemsetD32");
  check_all(output, 0x12345678, "hipMemsetD32 sets every 32-bit word");

  hipStream_t stream = nullptr;
  CHECK_HIP(hipStreamCreate(&stream), "hipStreamCreate");
  CHECK_HIP(hipMemsetD32Async(b, -2, n, stream), "hipMemsetD32Async");
  CHECK_HIP(hipMemsetAsync(a, 0, bytes, stream), "hipMemsetAsync");
  CHECK_HIP(hipMemcpyAsync(output.data(), b, bytes, hipMemcpyDeviceToHost, stream),
            "hipMemcpyAsync DtoH");
  CHECK_HIP(hipStreamSynchronize(stream), "hipStreamSynchronize");
  check_all(output, -2, "hipMemsetD32Async then async copy, in stream order");
  CHECK_HIP(hipStreamDestroy(stream), "hipStreamDestroy");

  size_t free_bytes = 0;
  size_t total_bytes = 0;
  CHECK_HIP(hipMemGetInfo(&free_bytes, &total_bytes), "hipMemGetInfo");
  CHECK(free_bytes > 0 && free_bytes <= total_bytes,
        hip_api_test::fmt("free %zu MiB <= total %zu MiB", free_bytes >> 20, total_bytes >> 20));

  CHECK_HIP(hipFree(a), "hipFree");
  CHECK_HIP(hipFree(b), "hipFree");
  CHECK_HIP(hipFree(nullptr), "hipFree(nullptr) is a no-op");
}

void pinned_and_mapped(size_t n) {
  const size_t bytes = n * sizeof(int);
  const std::vector<int> input = random_ints(n, kSeed + 1);
  int* pinned = nullptr;
  int* device = nullptr;
  hipStream_t stream = nullptr;
  CHECK_HIP(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), "hipStreamCreateWithFlags");
  CHECK_HIP(hipHostMalloc(&pinned, bytes, hipHostMallocDefault), "hipHostMalloc (default)");
  CHECK_HIP(hipMalloc(&device, bytes), "hipMalloc");
  if (pinned == nullptr || device == nullptr) return;
  std::memcpy(pinned, input.data(), bytes);
  CHECK_HIP(hipMemcpyAsync(device, pinned, bytes, hipMemcpyHostToDevice, stream),
            "hipMemcpyAsync HtoD (pinned)");
  CHECK_HIP(hipStreamSynchronize(stream), "hipStreamSynchronize");
  std::memset(pinned, 0xff, bytes);  // poison
  CHECK_HIP(hipMemcpyAsync(pinned, device, bytes, hipMemcpyDeviceToHost, stream),
            "hipMemcpyAsync DtoH (pinned)");
  CHECK_HIP(hipStreamSynchronize(stream), "hipStreamSynchronize");
  check_same(pinned, input.data(), n, "pinned buffer round-trips asynchronously");
  unsigned int flags = 99;
  CHECK_HIP(hipHostGetFlags(&flags, pinned), "hipHostGetFlags");
  CHECK_HIP(hipHostFree(pinned), "hipHostFree");

  // Mapped (zero-copy) memory: a kernel writes host memory through its device pointer.
  int* mapped = nullptr;
  CHECK_HIP(hipHostMalloc(&mapped, bytes, hipHostMallocMapped), "hipHostMalloc (mapped)");
  if (mapped != nullptr) {
    std::memcpy(mapped, input.data(), bytes);
    void* mapped_device = nullptr;
    CHECK_HIP(hipHostGetDevicePointer(&mapped_device, mapped, 0), "hipHostGetDevicePointer");
    const int block = 256;
    hipLaunchKernelGGL(add_one, dim3((static_cast<unsigned>(n) + block - 1) / block), dim3(block),
                       0, stream, static_cast<int*>(mapped_device), static_cast<int>(n));
    CHECK_HIP(hipGetLastError(), "kernel on mapped memory launched");
    CHECK_HIP(hipStreamSynchronize(stream), "kernel on mapped memory finished");
    std::vector<int> want(input);
    for (int& x : want) x += 1;
    check_same(mapped, want.data(), n, "kernel writes are visible in mapped host memory");
    CHECK_HIP(hipHostFree(mapped), "hipHostFree (mapped)");
  }

  // Registered pageable memory.
  std::vector<int> pageable(input);
  if (CHECK_HIP(hipHostRegister(pageable.data(), bytes, hipHostRegisterDefault),
                "hipHostRegister")) {
    CHECK_HIP(hipMemcpyAsync(device, pageable.data(), bytes, hipMemcpyHostToDevice, stream),
              "hipMemcpyAsync from registered memory");
    CHECK_HIP(hipStreamSynchronize(stream), "hipStreamSynchronize");
    std::fill(pageable.begin(), pageable.end(), -7);
    CHECK_HIP(hipMemcpyAsync(pageable.data(), device, bytes, hipMemcpyDeviceToHost, stream),
              "hipMemcpyAsync into registered memory");
    CHECK_HIP(hipStreamSynchronize(stream), "hipStreamSynchronize");
    check_same(pageable.data(), input.data(), n, "registered buffer round-trips");
    CHECK_HIP(hipHostUnregister(pageable.data()), "hipHostUnregister");
  }
  CHECK_HIP(hipFree(device), "hipFree");
  CHECK_HIP(hipStreamDestroy(stream), "hipStreamDestroy");
}

void pitched_2d() {
  const size_t width = 1000;  // elements per row
  const size_t height = 37;
  const size_t row_bytes = width * sizeof(int);
  const std::vector<int> input = random_ints(width * height, kSeed + 2);
  std::vector<int> output(width * height, -7);
  void* device = nullptr;
  size_t pitch = 0;
  if (!CHECK_HIP(hipMallocPitch(&device, &pitch, row_bytes, height), "hipMallocPitch")) return;
  CHECK(pitch >= row_bytes, hip_api_test::fmt("pitch %zu >= row %zu bytes", pitch, row_bytes));
  CHECK_HIP(
      hipMemcpy2D(device, pitch, input.data(), row_bytes, row_bytes, height, hipMemcpyHostToDevice),
      "hipMemcpy2D HtoD");
  CHECK_HIP(hipMemcpy2D(output.data(), row_bytes, device, pitch, row_bytes, height,
                        hipMemcpyDeviceToHost),
            "hipMemcpy2D DtoH");
  check_same(output.data(), input.data(), input.size(), "2D pitched copy round-trips");
  CHECK_HIP(hipFree(device), "hipFree (pitched)");
}

void symbols() {
  const std::vector<int> input = random_ints(kSymbolWords, kSeed + 3);
  std::vector<int> output(kSymbolWords, -7);
  const size_t bytes = kSymbolWords * sizeof(int);
  CHECK_HIP(hipMemcpyToSymbol(HIP_SYMBOL(g_symbol), input.data(), bytes, 0, hipMemcpyHostToDevice),
            "hipMemcpyToSymbol");
  CHECK_HIP(
      hipMemcpyFromSymbol(output.data(), HIP_SYMBOL(g_symbol), bytes, 0, hipMemcpyDeviceToHost),
      "hipMemcpyFromSymbol");
  check_same(output.data(), input.data(), kSymbolWords, "__device__ symbol round-trips");
  void* address = nullptr;
  size_t size = 0;
  CHECK_HIP(hipGetSymbolAddress(&address, HIP_SYMBOL(g_symbol)), "hipGetSymbolAddress");
  CHECK_HIP(hipGetSymbolSize(&size, HIP_SYMBOL(g_symbol)), "hipGetSymbolSize");
  CHECK_EQ(size, bytes, "symbol size");
  if (address != nullptr) {
    std::fill(output.begin(), output.end(), -7);
    CHECK_HIP(hipMemcpy(output.data(), address, bytes, hipMemcpyDeviceToHost),
              "copy from symbol address");
    check_same(output.data(), input.data(), kSymbolWords, "symbol address holds the data");
  }
}

void managed(size_t n) {
  int supported = 0;
  CHECK_HIP(hipDeviceGetAttribute(&supported, hipDeviceAttributeManagedMemory, 0),
            "hipDeviceGetAttribute(ManagedMemory)");
  if (!supported) {
    std::printf("note: managed memory not supported, managed checks left out\n");
    return;
  }
  const std::vector<int> input = random_ints(n, kSeed + 4);
  int* data = nullptr;
  if (!CHECK_HIP(hipMallocManaged(&data, n * sizeof(int)), "hipMallocManaged")) return;
  std::memcpy(data, input.data(), n * sizeof(int));
  hipStream_t stream = nullptr;
  CHECK_HIP(hipStreamCreate(&stream), "hipStreamCreate");
  int concurrent = 0;
  CHECK_HIP(hipDeviceGetAttribute(&concurrent, hipDeviceAttributeConcurrentManagedAccess, 0),
            "hipDeviceGetAttribute(ConcurrentManagedAccess)");
  if (concurrent) {
    CHECK_HIP(hipMemAdvise(data, n * sizeof(int), hipMemAdviseSetPreferredLocation, 0),
              "hipMemAdvise(SetPreferredLocation, device 0)");
    CHECK_HIP(hipMemPrefetchAsync(data, n * sizeof(int), 0, stream),
              "hipMemPrefetchAsync to device 0");
  }
  const int block = 256;
  hipLaunchKernelGGL(add_one, dim3((static_cast<unsigned>(n) + block - 1) / block), dim3(block), 0,
                     stream, data, static_cast<int>(n));
  CHECK_HIP(hipGetLastError(), "kernel on managed memory launched");
  if (concurrent) {
    CHECK_HIP(hipMemPrefetchAsync(data, n * sizeof(int), hipCpuDeviceId, stream),
              "hipMemPrefetchAsync to the host (hipCpuDeviceId)");
  }
  CHECK_HIP(hipStreamSynchronize(stream), "hipStreamSynchronize");
  std::vector<int> want(input);
  for (int& x : want) x += 1;
  check_same(data, want.data(), n, "managed memory: host writes, kernel updates, host reads");
  CHECK_HIP(hipStreamDestroy(stream), "hipStreamDestroy");
  CHECK_HIP(hipFree(data), "hipFree (managed)");
}

void stream_ordered(size_t n) {
  int supported = 0;
  CHECK_HIP(hipDeviceGetAttribute(&supported, hipDeviceAttributeMemoryPoolsSupported, 0),
            "hipDeviceGetAttribute(MemoryPoolsSupported)");
  if (!supported) {
    std::printf("note: memory pools not supported, hipMallocAsync checks left out\n");
    return;
  }
  const std::vector<int> input = random_ints(n, kSeed + 5);
  std::vector<int> output(n, -7);
  hipStream_t stream = nullptr;
  CHECK_HIP(hipStreamCreate(&stream), "hipStreamCreate");
  int* data = nullptr;
  CHECK_HIP(hipMallocAsync(reinterpret_cast<void**>(&data), n * sizeof(int), stream),
            "hipMallocAsync");
  CHECK_HIP(hipMemcpyAsync(data, input.data(), n * sizeof(int), hipMemcpyHostToDevice, stream),
            "hipMemcpyAsync into stream-ordered allocation");
  CHECK_HIP(hipMemcpyAsync(output.data(), data, n * sizeof(int), hipMemcpyDeviceToHost, stream),
            "hipMemcpyAsync out of it");
  CHECK_HIP(hipFreeAsync(data, stream), "hipFreeAsync");
  CHECK_HIP(hipStreamSynchronize(stream), "hipStreamSynchronize");
  check_same(output.data(), input.data(), n, "stream-ordered allocation round-trips");
  hipMemPool_t pool = nullptr;
  CHECK_HIP(hipDeviceGetDefaultMemPool(&pool, 0), "hipDeviceGetDefaultMemPool");
  CHECK(pool != nullptr, "default memory pool exists");
  CHECK_HIP(hipStreamDestroy(stream), "hipStreamDestroy");
}

}  // namespace

int main() {
  const int no_gpu = hip_api_test::require_gpu();
  if (no_gpu >= 0) return no_gpu;
  std::printf("seed %u\n", kSeed);
  CHECK_HIP(hipSetDevice(0), "hipSetDevice(0)");
  const size_t n = (size_t{1} << 20) + 3;  // not a multiple of any block size
  device_round_trip(n);
  pinned_and_mapped(n);
  pitched_2d();
  symbols();
  managed(n);
  stream_ordered(n);
  CHECK_HIP(hipDeviceSynchronize(), "hipDeviceSynchronize");
  CHECK_HIP(hipGetLastError(), "no error left behind");
  return hip_api_test::finish();
}
