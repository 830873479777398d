// HIP API test: texture objects, arrays and channel descriptors.
//
// Host part: HIP's enum values, and the channel descriptors hipCreateChannelDesc builds
// (hipCreateChannelDesc<float>() is {32, 0, 0, 0, hipChannelFormatKindFloat}). GPU part: a
// random 2-D float array goes into a hipArray (hipMallocArray, hipMemcpy2DToArray), comes
// back through hipMemcpy2DFromArray and through tex2D on a texture object (point filtering,
// unnormalized coordinates, each texel sampled at its centre x + 0.5, y + 0.5); the same data
// in linear memory is read through tex1Dfetch. Every element is compared bit for bit with
// the host input; outputs are poisoned first and the first mismatch is reported. The
// texture object gives back its resource and texture descriptors; a null resource
// descriptor is hipErrorInvalidValue.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "check.h"

static_assert(hipChannelFormatKindSigned == 0 && hipChannelFormatKindUnsigned == 1 &&
                  hipChannelFormatKindFloat == 2 && hipChannelFormatKindNone == 3,
              "hipChannelFormatKind");
static_assert(hipResourceTypeArray == 0 && hipResourceTypeMipmappedArray == 1 &&
                  hipResourceTypeLinear == 2 && hipResourceTypePitch2D == 3,
              "hipResourceType");
static_assert(hipAddressModeWrap == 0 && hipAddressModeClamp == 1 && hipAddressModeMirror == 2 &&
                  hipAddressModeBorder == 3,
              "hipTextureAddressMode");
static_assert(hipFilterModePoint == 0 && hipFilterModeLinear == 1, "hipTextureFilterMode");
static_assert(hipReadModeElementType == 0 && hipReadModeNormalizedFloat == 1, "hipTextureReadMode");
static_assert(hipArrayDefault == 0 && hipArrayLayered == 1 && hipArraySurfaceLoadStore == 2 &&
                  hipArrayCubemap == 4 && hipArrayTextureGather == 8,
              "hipArray flags");
static_assert(hipTextureType1D == 1 && hipTextureType2D == 2 && hipTextureType3D == 3,
              "hipTextureType");

namespace {

constexpr unsigned kSeed = 20260413u;
constexpr int kWidth = 300;   // not a multiple of the block
constexpr int kHeight = 173;  // nor this
constexpr int kCount = kWidth * kHeight;
constexpr int kBlock2D = 16;
constexpr int kBlock1D = 256;
constexpr float kPoison = -12345.0f;

/// out[y][x] = the texel (x, y), sampled at its centre (point filtering, unnormalized).
__global__ void read_2d(hipTextureObject_t texture, float* out, int width, int height) {
  const int x = static_cast<int>(hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x);
  const int y = static_cast<int>(hipBlockIdx_y * hipBlockDim_y + hipThreadIdx_y);
  if (x < width && y < height) out[y * width + x] = tex2D<float>(texture, x + 0.5f, y + 0.5f);
}

/// out[i] = element i of a linear-memory texture.
__global__ void read_1d(hipTextureObject_t texture, float* out, int n) {
  const int i = static_cast<int>(hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x);
  if (i < n) out[i] = tex1Dfetch<float>(texture, i);
}

std::string describe(const hipChannelFormatDesc& d) {
  return hip_api_test::fmt("{%d, %d, %d, %d, kind %d}", d.x, d.y, d.z, d.w, static_cast<int>(d.f));
}

bool check_desc(const hipChannelFormatDesc& d, int x, int y, int z, int w, hipChannelFormatKind f,
                const std::string& what) {
  const bool ok = d.x == x && d.y == y && d.z == z && d.w == w && d.f == f;
  return hip_api_test::record(
      ok, what,
      hip_api_test::fmt("got %s, expected {%d, %d, %d, %d, kind %d}", describe(d).c_str(), x, y, z,
                        w, static_cast<int>(f)));
}

void channel_descriptors() {
  check_desc(hipCreateChannelDesc<float>(), 32, 0, 0, 0, hipChannelFormatKindFloat,
             "hipCreateChannelDesc<float>() is {32, 0, 0, 0, Float}");
  check_desc(hipCreateChannelDesc<int>(), 32, 0, 0, 0, hipChannelFormatKindSigned,
             "hipCreateChannelDesc<int>() is {32, 0, 0, 0, Signed}");
  // ushort4, not uchar4: HIP 5.2's AMD header calls the uchar1..4 descriptors Signed.
  check_desc(hipCreateChannelDesc<ushort4>(), 16, 16, 16, 16, hipChannelFormatKindUnsigned,
             "hipCreateChannelDesc<ushort4>() is {16, 16, 16, 16, Unsigned}");
  check_desc(hipCreateChannelDesc(16, 16, 0, 0, hipChannelFormatKindUnsigned), 16, 16, 0, 0,
             hipChannelFormatKindUnsigned, "hipCreateChannelDesc(16, 16, 0, 0, Unsigned)");
}

std::vector<float> random_floats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

/// Bit-for-bit comparison of every element; reports the first difference.
void check_exact(const std::vector<float>& got, const std::vector<float>& want,
                 const std::string& what) {
  for (size_t i = 0; i < want.size(); ++i) {
    std::uint32_t g = 0;
    std::uint32_t w = 0;
    std::memcpy(&g, &got[i], sizeof g);
    std::memcpy(&w, &want[i], sizeof w);
    if (g != w) {
      hip_api_test::record(false, what,
                           hip_api_test::fmt("element %zu (x %zu, y %zu) is %.9g, expected %.9g", i,
                                             i % kWidth, i / kWidth, got[i], want[i]));
      return;
    }
  }
  hip_api_test::record(
      true, hip_api_test::fmt("%s: all %zu elements exact", what.c_str(), want.size()), "");
}

hipTextureDesc point_element_desc() {
  hipTextureDesc desc;
  std::memset(&desc, 0, sizeof desc);
  desc.addressMode[0] = hipAddressModeClamp;
  desc.addressMode[1] = hipAddressModeClamp;
  desc.addressMode[2] = hipAddressModeClamp;
  desc.filterMode = hipFilterModePoint;
  desc.readMode = hipReadModeElementType;
  desc.normalizedCoords = 0;
  return desc;
}

/// hipArray -> tex2D, plus the array's own copy back and the object's descriptors.
void array_texture(const std::vector<float>& input, float* d_out) {
  const size_t row_bytes = kWidth * sizeof(float);
  const hipChannelFormatDesc channel = hipCreateChannelDesc<float>();
  hipArray_t array = nullptr;
  CHECK_HIP(hipMallocArray(&array, &channel, kWidth, kHeight),
            hip_api_test::fmt("hipMallocArray %d x %d floats", kWidth, kHeight));
  if (array == nullptr) return;
  hipChannelFormatDesc got_channel = hipCreateChannelDesc(0, 0, 0, 0, hipChannelFormatKindNone);
  CHECK_HIP(hipGetChannelDesc(&got_channel, array), "hipGetChannelDesc");
  check_desc(got_channel, 32, 0, 0, 0, hipChannelFormatKindFloat,
             "the array's channel descriptor is the float one");
  CHECK_HIP(hipMemcpy2DToArray(array, 0, 0, input.data(), row_bytes, row_bytes, kHeight,
                               hipMemcpyHostToDevice),
            "hipMemcpy2DToArray");
  std::vector<float> output(kCount, kPoison);
  CHECK_HIP(hipMemcpy2DFromArray(output.data(), row_bytes, array, 0, 0, row_bytes, kHeight,
                                 hipMemcpyDeviceToHost),
            "hipMemcpy2DFromArray");
  check_exact(output, input, "array round-trip");

  hipResourceDesc resource;
  std::memset(&resource, 0, sizeof resource);
  resource.resType = hipResourceTypeArray;
  resource.res.array.array = array;
  const hipTextureDesc sampling = point_element_desc();
  hipTextureObject_t texture = 0;
  CHECK_HIP(hipCreateTextureObject(&texture, &resource, &sampling, nullptr),
            "hipCreateTextureObject (array, point, unnormalized)");

  CHECK_HIP(hipMemcpy(d_out, std::vector<float>(kCount, kPoison).data(), kCount * sizeof(float),
                      hipMemcpyHostToDevice),
            "poison the output");
  const dim3 block(kBlock2D, kBlock2D);
  const dim3 grid((kWidth + kBlock2D - 1) / kBlock2D, (kHeight + kBlock2D - 1) / kBlock2D);
  hipLaunchKernelGGL(read_2d, grid, block, 0, nullptr, texture, d_out, kWidth, kHeight);
  CHECK_HIP(hipGetLastError(), "read_2d launches");
  CHECK_HIP(hipDeviceSynchronize(), "read_2d completes");
  std::fill(output.begin(), output.end(), kPoison);
  CHECK_HIP(hipMemcpy(output.data(), d_out, kCount * sizeof(float), hipMemcpyDeviceToHost),
            "copy back tex2D output");
  check_exact(output, input, "tex2D<float> at texel centres");

  hipResourceDesc got_resource;
  std::memset(&got_resource, 0, sizeof got_resource);
  CHECK_HIP(hipGetTextureObjectResourceDesc(&got_resource, texture),
            "hipGetTextureObjectResourceDesc");
  CHECK(got_resource.resType == hipResourceTypeArray && got_resource.res.array.array == array,
        "the resource descriptor names the array");
  hipTextureDesc got_sampling;
  std::memset(&got_sampling, 0, sizeof got_sampling);
  got_sampling.filterMode = hipFilterModeLinear;
  CHECK_HIP(hipGetTextureObjectTextureDesc(&got_sampling, texture),
            "hipGetTextureObjectTextureDesc");
  CHECK(got_sampling.filterMode == hipFilterModePoint && got_sampling.normalizedCoords == 0 &&
            got_sampling.readMode == hipReadModeElementType,
        "the texture descriptor says point, unnormalized, element type");

  CHECK_HIP(hipDestroyTextureObject(texture), "hipDestroyTextureObject (array)");
  CHECK_HIP(hipFreeArray(array), "hipFreeArray");
}

/// Linear memory -> tex1Dfetch.
void linear_texture(const std::vector<float>& input, float* d_out) {
  float* d_in = nullptr;
  CHECK_HIP(hipMalloc(&d_in, kCount * sizeof(float)), "hipMalloc linear input");
  CHECK_HIP(hipMemcpy(d_in, input.data(), kCount * sizeof(float), hipMemcpyHostToDevice),
            "copy input to linear memory");
  hipResourceDesc resource;
  std::memset(&resource, 0, sizeof resource);
  resource.resType = hipResourceTypeLinear;
  resource.res.linear.devPtr = d_in;
  resource.res.linear.desc = hipCreateChannelDesc<float>();
  resource.res.linear.sizeInBytes = kCount * sizeof(float);
  const hipTextureDesc sampling = point_element_desc();
  hipTextureObject_t texture = 0;
  CHECK_HIP(hipCreateTextureObject(&texture, &resource, &sampling, nullptr),
            "hipCreateTextureObject (linear)");

  CHECK_HIP(hipMemcpy(d_out, std::vector<float>(kCount, kPoison).data(), kCount * sizeof(float),
                      hipMemcpyHostToDevice),
            "poison the output");
  hipLaunchKernelGGL(read_1d, dim3((kCount + kBlock1D - 1) / kBlock1D), dim3(kBlock1D), 0, nullptr,
                     texture, d_out, kCount);
  CHECK_HIP(hipGetLastError(), "read_1d launches");
  CHECK_HIP(hipDeviceSynchronize(), "read_1d completes");
  std::vector<float> output(kCount, kPoison);
  CHECK_HIP(hipMemcpy(output.data(), d_out, kCount * sizeof(float), hipMemcpyDeviceToHost),
            "copy back tex1Dfetch output");
  check_exact(output, input, "tex1Dfetch<float> on linear memory");

  hipResourceDesc got_resource;
  std::memset(&got_resource, 0, sizeof got_resource);
  CHECK_HIP(hipGetTextureObjectResourceDesc(&got_resource, texture),
            "hipGetTextureObjectResourceDesc (linear)");
  CHECK(got_resource.resType == hipResourceTypeLinear && got_resource.res.linear.devPtr == d_in &&
            got_resource.res.linear.sizeInBytes == kCount * sizeof(float),
        "the resource descriptor names the linear memory and its size");

  CHECK_HIP(hipDestroyTextureObject(texture), "hipDestroyTextureObject (linear)");
  CHECK_HIP(hipFree(d_in), "hipFree linear input");
}

void invalid_arguments() {
  hipTextureObject_t texture = 0;
  const hipTextureDesc sampling = point_element_desc();
  CHECK_ERROR(hipCreateTextureObject(&texture, nullptr, &sampling, nullptr), hipErrorInvalidValue,
              "a null resource descriptor is hipErrorInvalidValue");
  hip_api_test::ignore(hipGetLastError());
}

}  // namespace

int main() {
  channel_descriptors();
  const int no_gpu = hip_api_test::require_gpu();
  if (no_gpu >= 0) return no_gpu;
  std::printf("seed %u, %d x %d floats\n", kSeed, kWidth, kHeight);
  CHECK_HIP(hipSetDevice(0), "hipSetDevice(0)");
  const std::vector<float> input = random_floats(kCount, kSeed);
  float* d_out = nullptr;
  CHECK_HIP(hipMalloc(&d_out, kCount * sizeof(float)), "hipMalloc output");
  if (d_out == nullptr) return hip_api_test::finish();
  array_texture(input, d_out);
  linear_texture(input, d_out);
  invalid_arguments();
  CHECK_HIP(hipFree(d_out), "hipFree output");
  CHECK_HIP(hipDeviceSynchronize(), "hipDeviceSynchronize");
  CHECK_HIP(hipGetLastError(), "no error left behind");
  return hip_api_test::finish();
}
