/// \file tools/compiler_occupancy/compiler_occupancy_probes.hip
/// \brief Kernels whose resources are set on purpose, so that the compiler check
/// (compiler_occupancy_check.hip) exercises every occupancy rule on every AMD target: a VGPR
/// count on each side of the granules, AGPRs in the unified file, SGPRs across gfx9's table,
/// LDS with workgroups of one, two, three and eight waves, and launch bounds.
///
/// Compiled only for the check, device code only; never launched. An inline-asm clobber of
/// register vN (sN, aN) makes the compiler count N + 1 of them, as LLVM's own occupancy test
/// (llvm/test/CodeGen/AMDGPU/occupancy-levels.ll) does.
#include <hip/hip_runtime.h>

#define HL_STRINGIFY(x) #x

// N + 1 VGPRs, workgroups of up to 1024 threads (the default) or of BOUND threads.
#define HL_VGPR_PROBE(n)                                                   \
  __global__ void vgprs_##n(int* out) {                                    \
    asm volatile("" ::: HL_STRINGIFY(v##n));                               \
    out[threadIdx.x] = 1;                                                  \
  }                                                                        \
  __global__ void __launch_bounds__(256) vgprs_##n##_block_256(int* out) { \
    asm volatile("" ::: HL_STRINGIFY(v##n));                               \
    out[threadIdx.x] = 1;                                                  \
  }                                                                        \
  __global__ void __launch_bounds__(32) vgprs_##n##_block_32(int* out) {   \
    asm volatile("" ::: HL_STRINGIFY(v##n));                               \
    out[threadIdx.x] = 1;                                                  \
  }

HL_VGPR_PROBE(23)
HL_VGPR_PROBE(31)
HL_VGPR_PROBE(39)
HL_VGPR_PROBE(63)
HL_VGPR_PROBE(71)
HL_VGPR_PROBE(83)
HL_VGPR_PROBE(99)
HL_VGPR_PROBE(127)
HL_VGPR_PROBE(167)
HL_VGPR_PROBE(255)

// N + 1 SGPRs (plus those VCC, flat scratch and XNACK take), in one-wave workgroups so that
// only the SGPRs limit.
#define HL_SGPR_PROBE(n)                                      \
  __global__ void __launch_bounds__(64) sgprs_##n(int* out) { \
    asm volatile("" ::: HL_STRINGIFY(s##n));                  \
    out[threadIdx.x] = 1;                                     \
  }

HL_SGPR_PROBE(69)
HL_SGPR_PROBE(77)
HL_SGPR_PROBE(83)
HL_SGPR_PROBE(87)
HL_SGPR_PROBE(95)
HL_SGPR_PROBE(99)

// BYTES of LDS in workgroups of up to BOUND threads.
#define HL_LDS_PROBE(bytes, bound)                                                 \
  __global__ void __launch_bounds__(bound) lds_##bytes##_block_##bound(int* out) { \
    __shared__ volatile char buffer[bytes];                                        \
    buffer[threadIdx.x % (bytes)] = 1;                                             \
    __syncthreads();                                                               \
    out[threadIdx.x] = buffer[(threadIdx.x + 1) % (bytes)];                        \
  }

HL_LDS_PROBE(6552, 1024)
HL_LDS_PROBE(8252, 32)
HL_LDS_PROBE(8252, 64)
HL_LDS_PROBE(8252, 96)
HL_LDS_PROBE(8252, 128)
HL_LDS_PROBE(8252, 192)
HL_LDS_PROBE(8252, 256)
HL_LDS_PROBE(8252, 512)
HL_LDS_PROBE(20000, 128)
HL_LDS_PROBE(40000, 256)
HL_LDS_PROBE(40000, 1024)
HL_LDS_PROBE(65536, 64)

// AGPRs exist on gfx908 (a file of their own) and gfx90a and later (one file with the VGPRs).
#if defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || \
    defined(__gfx942__) || defined(__gfx950__)
__global__ void agprs_32_vgprs_41(int* out) {
  asm volatile("" ::: "v40", "a31");
  out[threadIdx.x] = 1;
}
__global__ void agprs_96_vgprs_64(int* out) {
  asm volatile("" ::: "v63", "a95");
  out[threadIdx.x] = 1;
}
__global__ void agprs_200_vgprs_100(int* out) {
  asm volatile("" ::: "v99", "a199");
  out[threadIdx.x] = 1;
}
#endif
