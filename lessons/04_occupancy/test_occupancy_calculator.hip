/// \file lessons/04_occupancy/test_occupancy_calculator.hip
/// \brief Unit test of lesson 04's occupancy calculator: hand-built device limits and kernel
/// attributes, and answers worked out by hand from the rules. No HIP runtime call, no GPU.
#include <cstdio>
#include <string>
#include <utility>

#include "occupancy_calculator.hpp"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  std::printf("%s  %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

hipFuncAttributes kernel(int registers, int max_threads = 1024, std::size_t static_shared = 0) {
  hipFuncAttributes a{};
  a.numRegs = registers;
  a.maxThreadsPerBlock = max_threads;
  a.sharedSizeBytes = static_shared;
  return a;
}

// One prediction: resident blocks and the budgets that set them.
void expect_blocks(const occupancy::Calculator& calc, const hipFuncAttributes& a, int block,
                   std::size_t dynamic_shared, int blocks, const std::string& limiter) {
  const occupancy::Prediction p = calc.predict(a, block, dynamic_shared);
  expect(
      p.blocks == blocks && p.limiter == limiter,
      hip_lessons::format("{} registers, block {}, {} dynamic shared bytes: {} blocks by {} "
                          "(got {} by {})",
                          a.numRegs, block, dynamic_shared, blocks, limiter, p.blocks, p.limiter));
}

}  // namespace

int main() {
  constexpr hip_lessons::Platform kNvidia = hip_lessons::Platform::kNvidia;
  constexpr hip_lessons::Platform kAmd = hip_lessons::Platform::kAmd;
  // NVIDIA H200 (sm_90), as the lesson's Expected output lists it.
  occupancy::Limits h200{"sm_90", 9, 0, 132, 32, 2048, 1024, 65536, 233472, 49152, 65536, 32, 1024};
  const occupancy::Calculator sm90(h200, kNvidia);
  expect(sm90.models() && sm90.slots() == 64, "sm_90 is modelled, 64 warp slots per SM");
  // 64 warp slots / 8 warps; 32 registers x 2048 threads is exactly the register file.
  expect_blocks(sm90, kernel(32), 256, 0, 8, "slots + registers");
  expect_blocks(sm90, kernel(14), 256, 0, 8, "slots");  // the triad on the H200
  // 128 registers x 32 threads = 4096 per warp; a quarter of the file (16384) holds 4 warps.
  expect_blocks(sm90, kernel(128), 256, 0, 2, "registers");
  // 72 registers round to 2304 per warp: 7 warps per quarter, 28 per SM, 3 blocks of 8.
  expect_blocks(sm90, kernel(72, 896), 256, 0, 3, "registers");
  expect_blocks(sm90, kernel(14, 896), 1024, 0, 0, "");  // above the kernel's largest block
  // 36 registers x 32 = 1152, allocated as 1280: 12 warps per quarter, 48 per SM, 12 blocks of 4.
  expect_blocks(sm90, kernel(36), 128, 0, 12, "registers");
  expect_blocks(sm90, kernel(14), 32, 0, 32, "block cap");
  expect_blocks(sm90, kernel(14), 64, 0, 32, "slots + block cap");
  // Shared memory: (48 KiB + 1 KiB reserved) per block, 228 KiB per SM: 4 blocks. 100 KiB is
  // more than a block may use without the opt-in, so no block fits.
  expect_blocks(sm90, kernel(32), 256, 48 * 1024, 4, "shared memory");
  expect_blocks(sm90, kernel(32), 256, 16 * 1024, 8, "slots + registers");
  expect_blocks(sm90, kernel(32), 256, 100 * 1024, 0, "shared memory");
  expect(sm90.max_potential(kernel(14), 0) == std::pair<int, int>{1024, 264},
         "sm_90 max potential of a light kernel: 1024 threads, 2 blocks per SM x 132");
  expect(sm90.occupancy_percent(5, 384) == 93.75, "5 blocks of 12 warps fill 60 of 64 slots");

  occupancy::Limits other = h200;
  other.major = 8;
  expect(!occupancy::Calculator(other, kNvidia).models(), "sm_80 is not modelled");
  other = h200;
  other.max_blocks_per_cu.reset();
  expect(!occupancy::Calculator(other, kNvidia).models(), "no blocks per SM: not modelled");

  // AMD MI210 (gfx90a): 104 CUs, 64-thread wavefronts, 64 KiB of LDS; the attributes HIP's
  // header marks "CUDA only" are not reported.
  occupancy::Limits mi210{"gfx90a", 9, 0, 104, 64, 2048, 1024, 65536, 65536, 65536, {}, {}, {}};
  const occupancy::Calculator gfx90a(mi210, kAmd);
  expect(gfx90a.models() && gfx90a.slots() == 32, "gfx90a is modelled, 32 wave slots per CU");
  // 71 VGPRs round to 72: 512 / 72 = 7 waves per SIMD, 28 per CU, 7 blocks of 4 waves.
  expect_blocks(gfx90a, kernel(71), 256, 0, 7, "registers");
  expect_blocks(gfx90a, kernel(64), 256, 0, 8, "slots + registers");
  // 81 VGPRs are allocated as 88: 512 / 88 = 5 waves per SIMD, 5 blocks of 4 waves.
  expect_blocks(gfx90a, kernel(81), 256, 0, 5, "registers");
  expect_blocks(gfx90a, kernel(16), 256, 16 * 1024, 4, "shared memory");
  expect(gfx90a.max_potential(kernel(16), 0) == std::pair<int, int>{1024, 208},
         "gfx90a max potential: 1024 threads, 2 blocks per CU x 104");
  expect(!occupancy::Calculator(mi210, kNvidia).models() &&
             !occupancy::Calculator(h200, kAmd).models(),
         "each platform models only its own architecture");

  std::printf("%d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
