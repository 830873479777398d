/// \file textures.h
/// \brief Texture objects and arrays of the hip_on_cuda layer (hipCreateTextureObject,
/// hipMallocArray, hipMemcpy2DToArray, hipCreateChannelDesc, ...).
///
/// The descriptors are HIP's own structs (HIP 6.0's field names and enum types, AMD's
/// amd_driver_types.h / amd_texture_types.h), translated field by field into CUDA's at each
/// call, so that `desc.addressMode[0] = hipAddressModeClamp` compiles as it does on AMD; the
/// enum numbers are CUDA's (checked below). Handles are CUDA's, as in HIP's own NVIDIA path:
/// hipArray_t is cudaArray_t and hipTextureObject_t is cudaTextureObject_t (an integer here,
/// a pointer on AMD: portable code initialises it with 0, not nullptr).
///
/// Device side: because hipTextureObject_t is cudaTextureObject_t, the fetch templates are
/// CUDA's (texture_indirect_functions.h, brought in by cuda_runtime.h): `tex1Dfetch<T>(obj,
/// i)`, `tex2D<T>(obj, x, y)` and their relatives read the same as HIP's.
#ifndef HIP_ON_CUDA_TEXTURES_H
#define HIP_ON_CUDA_TEXTURES_H

#include <channel_descriptor.h>
#include <cuda_runtime_api.h>

#include "hip/hip_on_cuda/errors.h"
#include "hip/hip_on_cuda/memory.h"

typedef cudaTextureObject_t hipTextureObject_t;  ///< CUDA's handle (HIP's NVIDIA path)
typedef struct cudaArray hipArray;               ///< as in HIP's NVIDIA path
typedef cudaArray_t hipArray_t;
typedef cudaArray_const_t hipArray_const_t;
typedef struct cudaMipmappedArray hipMipmappedArray;
typedef cudaMipmappedArray_t hipMipmappedArray_t;
typedef cudaMipmappedArray_const_t hipMipmappedArray_const_t;

// hipMallocArray flags (HIP's values, which are CUDA's).
#define hipArrayDefault 0x00
#define hipArrayLayered 0x01
#define hipArraySurfaceLoadStore 0x02
#define hipArrayCubemap 0x04
#define hipArrayTextureGather 0x08

// Texture types (HIP's values, which are CUDA's).
#define hipTextureType1D 0x01
#define hipTextureType2D 0x02
#define hipTextureType3D 0x03
#define hipTextureTypeCubemap 0x0C
#define hipTextureType1DLayered 0xF1
#define hipTextureType2DLayered 0xF2
#define hipTextureTypeCubemapLayered 0xFC

typedef enum hipChannelFormatKind {
  hipChannelFormatKindSigned = 0,
  hipChannelFormatKindUnsigned = 1,
  hipChannelFormatKindFloat = 2,
  hipChannelFormatKindNone = 3
} hipChannelFormatKind;

/// Bits per channel (x, y, z, w) and their kind.
typedef struct hipChannelFormatDesc {
  int x;
  int y;
  int z;
  int w;
  enum hipChannelFormatKind f;
} hipChannelFormatDesc;

typedef enum hipResourceType {
  hipResourceTypeArray = 0x00,
  hipResourceTypeMipmappedArray = 0x01,
  hipResourceTypeLinear = 0x02,
  hipResourceTypePitch2D = 0x03
} hipResourceType;

typedef enum hipResourceViewFormat {
  hipResViewFormatNone = 0x00,
  hipResViewFormatUnsignedChar1 = 0x01,
  hipResViewFormatUnsignedChar2 = 0x02,
  hipResViewFormatUnsignedChar4 = 0x03,
  hipResViewFormatSignedChar1 = 0x04,
  hipResViewFormatSignedChar2 = 0x05,
  hipResViewFormatSignedChar4 = 0x06,
  hipResViewFormatUnsignedShort1 = 0x07,
  hipResViewFormatUnsignedShort2 = 0x08,
  hipResViewFormatUnsignedShort4 = 0x09,
  hipResViewFormatSignedShort1 = 0x0a,
  hipResViewFormatSignedShort2 = 0x0b,
  hipResViewFormatSignedShort4 = 0x0c,
  hipResViewFormatUnsignedInt1 = 0x0d,
  hipResViewFormatUnsignedInt2 = 0x0e,
  hipResViewFormatUnsignedInt4 = 0x0f,
  hipResViewFormatSignedInt1 = 0x10,
  hipResViewFormatSignedInt2 = 0x11,
  hipResViewFormatSignedInt4 = 0x12,
  hipResViewFormatHalf1 = 0x13,
  hipResViewFormatHalf2 = 0x14,
  hipResViewFormatHalf4 = 0x15,
  hipResViewFormatFloat1 = 0x16,
  hipResViewFormatFloat2 = 0x17,
  hipResViewFormatFloat4 = 0x18,
  hipResViewFormatUnsignedBlockCompressed1 = 0x19,
  hipResViewFormatUnsignedBlockCompressed2 = 0x1a,
  hipResViewFormatUnsignedBlockCompressed3 = 0x1b,
  hipResViewFormatUnsignedBlockCompressed4 = 0x1c,
  hipResViewFormatSignedBlockCompressed4 = 0x1d,
  hipResViewFormatUnsignedBlockCompressed5 = 0x1e,
  hipResViewFormatSignedBlockCompressed5 = 0x1f,
  hipResViewFormatUnsignedBlockCompressed6H = 0x20,
  hipResViewFormatSignedBlockCompressed6H = 0x21,
  hipResViewFormatUnsignedBlockCompressed7 = 0x22
} hipResourceViewFormat;

enum hipTextureAddressMode {
  hipAddressModeWrap = 0,
  hipAddressModeClamp = 1,
  hipAddressModeMirror = 2,
  hipAddressModeBorder = 3
};

enum hipTextureFilterMode { hipFilterModePoint = 0, hipFilterModeLinear = 1 };

enum hipTextureReadMode { hipReadModeElementType = 0, hipReadModeNormalizedFloat = 1 };

/// What a texture object reads: an array, a mipmapped array, linear or pitched memory.
typedef struct hipResourceDesc {
  enum hipResourceType resType;
  union {
    struct {
      hipArray_t array;
    } array;
    struct {
      hipMipmappedArray_t mipmap;
    } mipmap;
    struct {
      void* devPtr;
      struct hipChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void* devPtr;
      struct hipChannelFormatDesc desc;
      size_t width;
      size_t height;
      size_t pitchInBytes;
    } pitch2D;
  } res;
} hipResourceDesc;

/// How a texture object reads (HIP's fields; CUDA's disableTrilinearOptimization and
/// seamlessCubemap are 0).
typedef struct hipTextureDesc {
  enum hipTextureAddressMode addressMode[3];
  enum hipTextureFilterMode filterMode;
  enum hipTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  enum hipTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
} hipTextureDesc;

/// A reinterpretation of a texture's resource (optional argument).
struct hipResourceViewDesc {
  enum hipResourceViewFormat format;
  size_t width;
  size_t height;
  size_t depth;
  unsigned int firstMipmapLevel;
  unsigned int lastMipmapLevel;
  unsigned int firstLayer;
  unsigned int lastLayer;
};

static_assert(hipArrayDefault == cudaArrayDefault && hipArrayLayered == cudaArrayLayered &&
                  hipArraySurfaceLoadStore == cudaArraySurfaceLoadStore &&
                  hipArrayCubemap == cudaArrayCubemap &&
                  hipArrayTextureGather == cudaArrayTextureGather,
              "hipArray* and cudaArray* flags must agree");
static_assert(hipTextureType1D == cudaTextureType1D && hipTextureType2D == cudaTextureType2D &&
                  hipTextureType3D == cudaTextureType3D &&
                  hipTextureTypeCubemap == cudaTextureTypeCubemap &&
                  hipTextureType1DLayered == cudaTextureType1DLayered &&
                  hipTextureType2DLayered == cudaTextureType2DLayered &&
                  hipTextureTypeCubemapLayered == cudaTextureTypeCubemapLayered,
              "hipTextureType* and cudaTextureType* must agree");
static_assert(hipChannelFormatKindSigned == static_cast<int>(cudaChannelFormatKindSigned) &&
                  hipChannelFormatKindUnsigned == static_cast<int>(cudaChannelFormatKindUnsigned) &&
                  hipChannelFormatKindFloat == static_cast<int>(cudaChannelFormatKindFloat) &&
                  hipChannelFormatKindNone == static_cast<int>(cudaChannelFormatKindNone),
              "hipChannelFormatKind and cudaChannelFormatKind must agree");
static_assert(hipResourceTypeArray == static_cast<int>(cudaResourceTypeArray) &&
                  hipResourceTypeMipmappedArray ==
                      static_cast<int>(cudaResourceTypeMipmappedArray) &&
                  hipResourceTypeLinear == static_cast<int>(cudaResourceTypeLinear) &&
                  hipResourceTypePitch2D == static_cast<int>(cudaResourceTypePitch2D),
              "hipResourceType and cudaResourceType must agree");
static_assert(hipResViewFormatNone == static_cast<int>(cudaResViewFormatNone) &&
                  hipResViewFormatSignedInt4 == static_cast<int>(cudaResViewFormatSignedInt4) &&
                  hipResViewFormatFloat4 == static_cast<int>(cudaResViewFormatFloat4) &&
                  hipResViewFormatUnsignedBlockCompressed7 ==
                      static_cast<int>(cudaResViewFormatUnsignedBlockCompressed7),
              "hipResourceViewFormat and cudaResourceViewFormat must agree");
static_assert(hipAddressModeWrap == static_cast<int>(cudaAddressModeWrap) &&
                  hipAddressModeClamp == static_cast<int>(cudaAddressModeClamp) &&
                  hipAddressModeMirror == static_cast<int>(cudaAddressModeMirror) &&
                  hipAddressModeBorder == static_cast<int>(cudaAddressModeBorder) &&
                  hipFilterModePoint == static_cast<int>(cudaFilterModePoint) &&
                  hipFilterModeLinear == static_cast<int>(cudaFilterModeLinear) &&
                  hipReadModeElementType == static_cast<int>(cudaReadModeElementType) &&
                  hipReadModeNormalizedFloat == static_cast<int>(cudaReadModeNormalizedFloat),
              "hipTexture*Mode and cudaTexture*Mode must agree");

namespace hip_on_cuda {
namespace detail {

inline cudaChannelFormatDesc to_cuda(const hipChannelFormatDesc& d) {
  cudaChannelFormatDesc c{};
  c.x = d.x;
  c.y = d.y;
  c.z = d.z;
  c.w = d.w;
  c.f = static_cast<cudaChannelFormatKind>(d.f);
  return c;
}

/// CUDA-only kinds (NV12, normalized and block-compressed formats) keep their number.
inline hipChannelFormatDesc from_cuda(const cudaChannelFormatDesc& c) {
  hipChannelFormatDesc d{};
  d.x = c.x;
  d.y = c.y;
  d.z = c.z;
  d.w = c.w;
  d.f = static_cast<hipChannelFormatKind>(c.f);
  return d;
}

/// Copies the union member that `resType` selects; an unknown type is passed on for CUDA
/// to refuse.
inline cudaResourceDesc to_cuda(const hipResourceDesc& d) {
  cudaResourceDesc c{};
  c.resType = static_cast<cudaResourceType>(d.resType);
  switch (d.resType) {
    case hipResourceTypeArray:
      c.res.array.array = d.res.array.array;
      break;
    case hipResourceTypeMipmappedArray:
      c.res.mipmap.mipmap = d.res.mipmap.mipmap;
      break;
    case hipResourceTypeLinear:
      c.res.linear.devPtr = d.res.linear.devPtr;
      c.res.linear.desc = to_cuda(d.res.linear.desc);
      c.res.linear.sizeInBytes = d.res.linear.sizeInBytes;
      break;
    case hipResourceTypePitch2D:
      c.res.pitch2D.devPtr = d.res.pitch2D.devPtr;
      c.res.pitch2D.desc = to_cuda(d.res.pitch2D.desc);
      c.res.pitch2D.width = d.res.pitch2D.width;
      c.res.pitch2D.height = d.res.pitch2D.height;
      c.res.pitch2D.pitchInBytes = d.res.pitch2D.pitchInBytes;
      break;
  }
  return c;
}

inline hipResourceDesc from_cuda(const cudaResourceDesc& c) {
  hipResourceDesc d{};
  d.resType = static_cast<hipResourceType>(c.resType);
  switch (c.resType) {
    case cudaResourceTypeArray:
      d.res.array.array = c.res.array.array;
      break;
    case cudaResourceTypeMipmappedArray:
      d.res.mipmap.mipmap = c.res.mipmap.mipmap;
      break;
    case cudaResourceTypeLinear:
      d.res.linear.devPtr = c.res.linear.devPtr;
      d.res.linear.desc = from_cuda(c.res.linear.desc);
      d.res.linear.sizeInBytes = c.res.linear.sizeInBytes;
      break;
    case cudaResourceTypePitch2D:
      d.res.pitch2D.devPtr = c.res.pitch2D.devPtr;
      d.res.pitch2D.desc = from_cuda(c.res.pitch2D.desc);
      d.res.pitch2D.width = c.res.pitch2D.width;
      d.res.pitch2D.height = c.res.pitch2D.height;
      d.res.pitch2D.pitchInBytes = c.res.pitch2D.pitchInBytes;
      break;
  }
  return d;
}

inline cudaTextureDesc to_cuda(const hipTextureDesc& d) {
  cudaTextureDesc c{};
  for (int i = 0; i < 3; ++i)
    c.addressMode[i] = static_cast<cudaTextureAddressMode>(d.addressMode[i]);
  c.filterMode = static_cast<cudaTextureFilterMode>(d.filterMode);
  c.readMode = static_cast<cudaTextureReadMode>(d.readMode);
  c.sRGB = d.sRGB;
  for (int i = 0; i < 4; ++i) c.borderColor[i] = d.borderColor[i];
  c.normalizedCoords = d.normalizedCoords;
  c.maxAnisotropy = d.maxAnisotropy;
  c.mipmapFilterMode = static_cast<cudaTextureFilterMode>(d.mipmapFilterMode);
  c.mipmapLevelBias = d.mipmapLevelBias;
  c.minMipmapLevelClamp = d.minMipmapLevelClamp;
  c.maxMipmapLevelClamp = d.maxMipmapLevelClamp;
  return c;
}

inline hipTextureDesc from_cuda(const cudaTextureDesc& c) {
  hipTextureDesc d{};
  for (int i = 0; i < 3; ++i)
    d.addressMode[i] = static_cast<hipTextureAddressMode>(c.addressMode[i]);
  d.filterMode = static_cast<hipTextureFilterMode>(c.filterMode);
  d.readMode = static_cast<hipTextureReadMode>(c.readMode);
  d.sRGB = c.sRGB;
  for (int i = 0; i < 4; ++i) d.borderColor[i] = c.borderColor[i];
  d.normalizedCoords = c.normalizedCoords;
  d.maxAnisotropy = c.maxAnisotropy;
  d.mipmapFilterMode = static_cast<hipTextureFilterMode>(c.mipmapFilterMode);
  d.mipmapLevelBias = c.mipmapLevelBias;
  d.minMipmapLevelClamp = c.minMipmapLevelClamp;
  d.maxMipmapLevelClamp = c.maxMipmapLevelClamp;
  return d;
}

inline cudaResourceViewDesc to_cuda(const hipResourceViewDesc& d) {
  cudaResourceViewDesc c{};
  c.format = static_cast<cudaResourceViewFormat>(d.format);
  c.width = d.width;
  c.height = d.height;
  c.depth = d.depth;
  c.firstMipmapLevel = d.firstMipmapLevel;
  c.lastMipmapLevel = d.lastMipmapLevel;
  c.firstLayer = d.firstLayer;
  c.lastLayer = d.lastLayer;
  return c;
}

inline hipResourceViewDesc from_cuda(const cudaResourceViewDesc& c) {
  hipResourceViewDesc d{};
  d.format = static_cast<hipResourceViewFormat>(c.format);
  d.width = c.width;
  d.height = c.height;
  d.depth = c.depth;
  d.firstMipmapLevel = c.firstMipmapLevel;
  d.lastMipmapLevel = c.lastMipmapLevel;
  d.firstLayer = c.firstLayer;
  d.lastLayer = c.lastLayer;
  return d;
}

}  // namespace detail
}  // namespace hip_on_cuda

// ---------------------------------------------------------------------------------------
// Channel descriptors
// ---------------------------------------------------------------------------------------

inline hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w,
                                                 hipChannelFormatKind f) {
  hipChannelFormatDesc d{};
  d.x = x;
  d.y = y;
  d.z = z;
  d.w = w;
  d.f = f;
  return d;
}

/// The descriptor of element type T: CUDA's cudaCreateChannelDesc<T>() translated, as in
/// HIP's NVIDIA path. For char, short, int, float and their 1-, 2- and 4-vectors this is what
/// current HIP's AMD header says (ROCm/clr amd_channel_descriptor.h; HIP 5.2's called the
/// uchar1..4 descriptors Signed, a bug fixed since). 3-vectors have their own descriptor here;
/// HIP's AMD header leaves them to the generic case under GCC-compatible compilers. `long`
/// types, on LP64, and unknown types: {0, 0, 0, 0, hipChannelFormatKindNone} on both (HIP 5.2's
/// AMD header gave `long` 64-bit channels).
template <typename T>
inline hipChannelFormatDesc hipCreateChannelDesc() {
  return hip_on_cuda::detail::from_cuda(cudaCreateChannelDesc<T>());
}

/// The channel descriptor an array was allocated with.
inline hipError_t hipGetChannelDesc(hipChannelFormatDesc* desc, hipArray_const_t array) {
  if (desc == nullptr) return hipErrorInvalidValue;
  cudaChannelFormatDesc c{};
  const hipError_t e = hip_on_cuda::detail::map(cudaGetChannelDesc(&c, array));
  if (e == hipSuccess) *desc = hip_on_cuda::detail::from_cuda(c);
  return e;
}

// ---------------------------------------------------------------------------------------
// Arrays
// ---------------------------------------------------------------------------------------

/// A 1D (height 0) or 2D array of `width` x `height` elements of `desc`'s format.
inline hipError_t hipMallocArray(hipArray_t* array, const hipChannelFormatDesc* desc, size_t width,
                                 size_t height = 0, unsigned int flags = hipArrayDefault) {
  if (desc == nullptr) return hipErrorInvalidValue;
  const cudaChannelFormatDesc c = hip_on_cuda::detail::to_cuda(*desc);
  return hip_on_cuda::detail::map(cudaMallocArray(array, &c, width, height, flags));
}

inline hipError_t hipFreeArray(hipArray_t array) {
  return hip_on_cuda::detail::map(cudaFreeArray(array));
}

/// Copies `height` rows of `width` bytes (pitch `spitch`) into the array at column
/// `wOffset` (bytes) and row `hOffset`.
inline hipError_t hipMemcpy2DToArray(hipArray_t dst, size_t wOffset, size_t hOffset,
                                     const void* src, size_t spitch, size_t width, size_t height,
                                     hipMemcpyKind kind) {
  return hip_on_cuda::detail::map(cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width,
                                                      height, hip_on_cuda::detail::to_cuda(kind)));
}

inline hipError_t hipMemcpy2DToArrayAsync(hipArray_t dst, size_t wOffset, size_t hOffset,
                                          const void* src, size_t spitch, size_t width,
                                          size_t height, hipMemcpyKind kind,
                                          hipStream_t stream = nullptr) {
  return hip_on_cuda::detail::map(
      cudaMemcpy2DToArrayAsync(dst, wOffset, hOffset, src, spitch, width, height,
                               hip_on_cuda::detail::to_cuda(kind), stream));
}

/// Copies `height` rows of `width` bytes from the array at column `wOffset` (bytes) and
/// row `hOffset` to `dst` (pitch `dpitch`).
inline hipError_t hipMemcpy2DFromArray(void* dst, size_t dpitch, hipArray_const_t src,
                                       size_t wOffset, size_t hOffset, size_t width, size_t height,
                                       hipMemcpyKind kind) {
  return hip_on_cuda::detail::map(cudaMemcpy2DFromArray(
      dst, dpitch, src, wOffset, hOffset, width, height, hip_on_cuda::detail::to_cuda(kind)));
}

inline hipError_t hipMemcpy2DFromArrayAsync(void* dst, size_t dpitch, hipArray_const_t src,
                                            size_t wOffset, size_t hOffset, size_t width,
                                            size_t height, hipMemcpyKind kind,
                                            hipStream_t stream = nullptr) {
  return hip_on_cuda::detail::map(
      cudaMemcpy2DFromArrayAsync(dst, dpitch, src, wOffset, hOffset, width, height,
                                 hip_on_cuda::detail::to_cuda(kind), stream));
}

// hipMemcpyToArray / hipMemcpyFromArray are deprecated in HIP, their CUDA counterparts in
// CUDA (since 10.1, still there in 13.0): the warning is the caller's business in HIP, so
// the layer's call of CUDA's deprecated function is kept quiet here (the host compiler
// warns; nvcc's front end does not).
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

/// Copies `count` bytes into the array from column `wOffset` (bytes), row `hOffset` on.
inline hipError_t hipMemcpyToArray(hipArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                   size_t count, hipMemcpyKind kind) {
  return hip_on_cuda::detail::map(
      cudaMemcpyToArray(dst, wOffset, hOffset, src, count, hip_on_cuda::detail::to_cuda(kind)));
}

inline hipError_t hipMemcpyFromArray(void* dst, hipArray_const_t srcArray, size_t wOffset,
                                     size_t hOffset, size_t count, hipMemcpyKind kind) {
  return hip_on_cuda::detail::map(cudaMemcpyFromArray(dst, srcArray, wOffset, hOffset, count,
                                                      hip_on_cuda::detail::to_cuda(kind)));
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

// ---------------------------------------------------------------------------------------
// Texture objects
// ---------------------------------------------------------------------------------------

/// Creates a texture object over `pResDesc`'s resource read as `pTexDesc` says;
/// `pResViewDesc` may be null, the other two may not (as in HIP's AMD runtime).
inline hipError_t hipCreateTextureObject(hipTextureObject_t* pTexObject,
                                         const hipResourceDesc* pResDesc,
                                         const hipTextureDesc* pTexDesc,
                                         const hipResourceViewDesc* pResViewDesc) {
  if (pTexObject == nullptr || pResDesc == nullptr || pTexDesc == nullptr)
    return hipErrorInvalidValue;
  const cudaResourceDesc resource = hip_on_cuda::detail::to_cuda(*pResDesc);
  const cudaTextureDesc texture = hip_on_cuda::detail::to_cuda(*pTexDesc);
  cudaResourceViewDesc view{};
  if (pResViewDesc != nullptr) view = hip_on_cuda::detail::to_cuda(*pResViewDesc);
  return hip_on_cuda::detail::map(cudaCreateTextureObject(
      pTexObject, &resource, &texture, pResViewDesc != nullptr ? &view : nullptr));
}

inline hipError_t hipDestroyTextureObject(hipTextureObject_t textureObject) {
  return hip_on_cuda::detail::map(cudaDestroyTextureObject(textureObject));
}

inline hipError_t hipGetTextureObjectResourceDesc(hipResourceDesc* pResDesc,
                                                  hipTextureObject_t textureObject) {
  if (pResDesc == nullptr) return hipErrorInvalidValue;
  cudaResourceDesc c{};
  const hipError_t e =
      hip_on_cuda::detail::map(cudaGetTextureObjectResourceDesc(&c, textureObject));
  if (e == hipSuccess) *pResDesc = hip_on_cuda::detail::from_cuda(c);
  return e;
}

inline hipError_t hipGetTextureObjectTextureDesc(hipTextureDesc* pTexDesc,
                                                 hipTextureObject_t textureObject) {
  if (pTexDesc == nullptr) return hipErrorInvalidValue;
  cudaTextureDesc c{};
  const hipError_t e = hip_on_cuda::detail::map(cudaGetTextureObjectTextureDesc(&c, textureObject));
  if (e == hipSuccess) *pTexDesc = hip_on_cuda::detail::from_cuda(c);
  return e;
}

inline hipError_t hipGetTextureObjectResourceViewDesc(hipResourceViewDesc* pResViewDesc,
                                                      hipTextureObject_t textureObject) {
  if (pResViewDesc == nullptr) return hipErrorInvalidValue;
  cudaResourceViewDesc c{};
  const hipError_t e =
      hip_on_cuda::detail::map(cudaGetTextureObjectResourceViewDesc(&c, textureObject));
  if (e == hipSuccess) *pResViewDesc = hip_on_cuda::detail::from_cuda(c);
  return e;
}

#endif  // HIP_ON_CUDA_TEXTURES_H
