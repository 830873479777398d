/// \file lessons/04_occupancy/test_occupancy_calculator.hip
/// \brief Unit test of lesson 04's occupancy calculator: hand-built device limits and kernel
/// attributes, and answers worked out by hand from the rules, for the runtime's model
/// (Calculator) and the compiler's (compiler_waves_per_simd, against the values of LLVM's own
/// occupancy test). No HIP runtime call, no GPU.
#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

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

occupancy::KernelResources resources(int sgprs, int vgprs, int agprs = 0) {
  occupancy::KernelResources k;
  k.sgprs = sgprs;
  k.vgprs = vgprs;
  k.agprs = agprs;
  return k;
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

// The same from a compiler report (SGPRs and AGPRs included).
void expect_resources(const occupancy::Calculator& calc, const occupancy::KernelResources& k,
                      int block, int blocks, const std::string& limiter) {
  const occupancy::Prediction p = calc.predict(k, block, 0);
  expect(
      p.blocks == blocks && p.limiter == limiter,
      hip_lessons::format("{} SGPRs, {} VGPRs, {} AGPRs, block {}: {} blocks by {} (got {} by {})",
                          k.sgprs, k.vgprs, k.agprs, block, blocks, limiter, p.blocks, p.limiter));
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

  // AMD MI210 (gfx90a): 104 CUs, 64-thread wavefronts, 64 KiB of LDS; without the attributes
  // HIP's header marks "CUDA only", as HIP up to 5.7 refuses them (from 6.0 it answers 2 blocks
  // per CU and 0 reserved bytes, which its own occupancy model ignores: README, On AMD).
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

  // MI300X (gfx942): 304 CUs, the same CU rules as gfx90a. AGPRs share the 512-entry file:
  // 40 VGPRs + 32 AGPRs take 72, 7 waves per SIMD.
  const occupancy::Limits mi300x{"gfx942", 9,     4,     304, 64, 2048, 1024,
                                 65536,    65536, 65536, {},  {}, {}};
  const occupancy::Calculator gfx942(mi300x, kAmd);
  expect(gfx942.models() && gfx942.slots() == 32, "gfx942 is modelled, 32 wave slots per CU");
  expect_blocks(gfx942, kernel(128), 256, 0, 4, "registers");  // 512 / 128 = 4 waves
  expect_blocks(gfx942, kernel(16), 256, 48 * 1024, 1, "shared memory");
  expect(gfx942.max_potential(kernel(16), 0) == std::pair<int, int>{1024, 608},
         "gfx942 max potential: 1024 threads, 2 blocks per CU x 304");
  expect_resources(gfx942, resources(32, 40, 32), 256, 7, "registers");
  // SGPRs: the runtime divides 800 by 100 rounded up to 16 (7 waves); the compiler's table
  // gives 100 SGPRs 8 waves. Which one each function answers is the point of this pair.
  expect_resources(gfx942, resources(100, 32), 256, 7, "registers");
  const occupancy::AmdArch& cdna3 = *occupancy::amd_arch("gfx942");
  expect(occupancy::compiler_waves_per_simd(cdna3, resources(100, 32)) == 8 &&
             occupancy::hardware_blocks_per_cu(cdna3, resources(100, 32), 256) == 8,
         "gfx942, 100 SGPRs: the compiler counts 8 waves per SIMD, 8 blocks of 256");
  expect(occupancy::unified_vgprs(cdna3, resources(0, 41, 32)) == 76,
         "gfx942: 41 VGPRs round to 44, then 32 AGPRs: 76 of the unified file");

  // MI355X (gfx950), rules only (LLVM 19 does not know it): 160 KiB of LDS per CU, so a
  // 48 KiB block fits 3 times where gfx942 fits it once.
  const occupancy::Limits mi355x{"gfx950", 9,      5,     256, 64, 2048, 1024,
                                 65536,    163840, 65536, {},  {}, {}};
  expect_blocks(occupancy::Calculator(mi355x, kAmd), kernel(16), 256, 48 * 1024, 3,
                "shared memory");

  // RX 7900 XTX (gfx1100) in WGP mode: HIP reports 48 WGPs of 4 SIMD32s, 32-thread waves, 16
  // waves per SIMD: 64 slots. The VGPR file is 1536 per lane in granules of 24.
  const occupancy::Limits rx7900{"gfx1100", 11,    0,     48, 32, 2048, 1024,
                                 65536,     65536, 65536, {}, {}, {}};
  const occupancy::Calculator gfx1100(rx7900, kAmd);
  expect(gfx1100.models() && gfx1100.slots() == 64, "gfx1100 is modelled, 64 wave slots per WGP");
  expect_blocks(gfx1100, kernel(24), 256, 0, 8, "slots");
  // 100 VGPRs round to 120: 1536 / 120 = 12 waves per SIMD, 48 per WGP, 6 blocks of 8 waves.
  expect_blocks(gfx1100, kernel(100), 256, 0, 6, "registers");
  expect_blocks(gfx1100, kernel(128), 256, 0, 5, "registers");  // 144: 10 waves, 40 per WGP
  // LDS: the runtime divides the 64 KiB group segment; the WGP has 128 KiB.
  expect_blocks(gfx1100, kernel(16), 256, 40000, 1, "shared memory");
  const occupancy::AmdArch& rdna3 = *occupancy::amd_arch("gfx1100");
  expect(occupancy::hardware_blocks_per_cu(rdna3, occupancy::KernelResources{0, 16, 0, 40000},
                                           256) == 3,
         "gfx1100: the hardware holds 3 blocks of 40000 LDS bytes per WGP (128 KiB)");
  expect(gfx1100.max_potential(kernel(100), 0) == std::pair<int, int>{1024, 48},
         "gfx1100 max potential of a 100-VGPR kernel: 1536 threads fit, 1024 per block, 1 x 48");
  // RX 9070 XT (gfx1201): the same 1536-entry file (gfx1030's 1024 would give 4 blocks).
  const occupancy::Limits rx9070{"gfx1201", 12,    0,     32, 32, 2048, 1024,
                                 65536,     65536, 65536, {}, {}, {}};
  expect_blocks(occupancy::Calculator(rx9070, kAmd), kernel(100), 256, 0, 6, "registers");
  occupancy::Limits wave64 = rx9070;
  wave64.warp_size = 64;
  expect(!occupancy::Calculator(wave64, kAmd).models(), "gfx1201 in wave64 is not modelled");
  occupancy::Limits gfx1102 = rx9070;
  gfx1102.arch = "gfx1102";
  expect(!occupancy::Calculator(gfx1102, kAmd).models(), "gfx1102 is not modelled");

  // Radeon VII (gfx906): the runtime counts 8 waves per SIMD, the hardware has 10.
  const occupancy::Limits radeon7{"gfx906", 9,     0,     60, 64, 2560, 1024,
                                  65536,    65536, 65536, {}, {}, {}};
  expect_blocks(occupancy::Calculator(radeon7, kAmd), kernel(24), 256, 0, 8, "slots");
  const occupancy::AmdArch& vega20 = *occupancy::amd_arch("gfx906");
  expect(occupancy::hardware_blocks_per_cu(vega20, resources(0, 24), 256) == 10,
         "gfx906: the hardware holds 10 blocks of 256 with 24 VGPRs");

  // The compiler's waves per SIMD against LLVM's own test (llvm/test/CodeGen/AMDGPU/
  // occupancy-levels.ll: kernels of one wave, so only the registers limit). GFX9 rows apply
  // to gfx906, GFX1030W32 to gfx1030, GFX1100W32 to gfx1100, gfx1151 and gfx1200.
  const std::pair<const char*, std::vector<std::pair<int, int>>> vgpr_tables[] = {
      {"gfx906",
       {{24, 10},
        {28, 9},
        {32, 8},
        {36, 7},
        {40, 6},
        {44, 5},
        {48, 5},
        {56, 4},
        {64, 4},
        {72, 3},
        {84, 3},
        {88, 2},
        {128, 2},
        {144, 1},
        {256, 1}}},
      {"gfx950",
       {{64, 8},
        {72, 7},
        {80, 6},
        {84, 5},
        {96, 5},
        {100, 4},
        {128, 4},
        {144, 3},
        {168, 3},
        {200, 2},
        {256, 2}}},
      {"gfx1030",
       {{64, 16},
        {72, 12},
        {80, 12},
        {84, 10},
        {96, 10},
        {100, 9},
        {112, 9},
        {128, 8},
        {144, 7},
        {168, 5},
        {200, 4},
        {256, 4}}},
      {"gfx1100",
       {{96, 16}, {100, 12}, {112, 12}, {128, 10}, {144, 10}, {168, 9}, {200, 7}, {256, 5}}},
      {"gfx1200", {{100, 12}, {168, 9}, {256, 5}}},
  };
  for (const auto& [arch, table] : vgpr_tables) {
    const occupancy::AmdArch& rules = *occupancy::amd_arch(arch);
    for (const auto& [vgprs, waves] : table) {
      occupancy::KernelResources k = resources(0, vgprs);
      k.max_flat_workgroup_size = 32;
      const int got = occupancy::compiler_waves_per_simd(rules, k);
      expect(got == waves, hip_lessons::format("{}: {} VGPRs allow {} waves per SIMD (got {})",
                                               arch, vgprs, waves, got));
    }
  }
  // Workgroup size and LDS, the same test's used_lds_8252_max_group_size_* kernels.
  const std::tuple<const char*, int, int> lds_table[] = {
      {"gfx906", 32, 2},   {"gfx906", 96, 4},    {"gfx906", 192, 6},   {"gfx906", 256, 7},
      {"gfx906", 512, 10}, {"gfx906", 1024, 8},  {"gfx950", 32, 5},    {"gfx950", 96, 8},
      {"gfx1030", 32, 4},  {"gfx1030", 96, 12},  {"gfx1030", 128, 15}, {"gfx1030", 192, 15},
      {"gfx1100", 32, 4},  {"gfx1100", 128, 15}, {"gfx1100", 1024, 16}};
  for (const auto& [arch, group, waves] : lds_table) {
    occupancy::KernelResources k = resources(0, 1);
    k.lds = 8252;
    k.max_flat_workgroup_size = group;
    const int got = occupancy::compiler_waves_per_simd(*occupancy::amd_arch(arch), k);
    expect(got == waves,
           hip_lessons::format("{}: 8252 LDS bytes, workgroups of {}: {} waves per SIMD (got {})",
                               arch, group, waves, got));
  }
  // SGPRs on gfx9 (what clang 19.1.7 reports, SGPR count with VCC/XNACK included): the table's
  // steps at 80, 88 and 100.
  for (const auto& [sgprs, waves] :
       std::vector<std::pair<int, int>>{{80, 10}, {82, 9}, {88, 9}, {90, 8}, {100, 8}, {102, 7}}) {
    occupancy::KernelResources k = resources(sgprs, 2);
    k.max_flat_workgroup_size = 64;
    expect(occupancy::compiler_waves_per_simd(vega20, k) == waves,
           hip_lessons::format("gfx906: {} SGPRs allow {} waves per SIMD", sgprs, waves));
  }
  // A 1024-thread workgroup without LDS: gfx906's 40 slots hold 2 of 16 waves, so 8 per SIMD.
  expect(occupancy::compiler_waves_per_simd(vega20, resources(10, 2)) == 8,
         "gfx906, 1024-thread workgroups: 8 waves per SIMD, not 10");

  std::printf("%d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
