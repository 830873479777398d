/// \file lessons/04_occupancy/test_occupancy_calculator.hip
/// \brief Unit test of lesson 04's occupancy calculator: hand-built device limits and kernel
/// attributes, and the runtime's answers worked out by hand from the sources named beside them
/// (CUDA 13.0's cuda_occupancy.h for sm_90; HIP's hip_platform.cpp and rocdevice.cpp per
/// release for AMD). No HIP runtime call, no GPU.
#include <cstdio>
#include <string>
#include <utility>

#include "occupancy_calculator.hpp"

namespace {

namespace hl = hip_lessons;

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
                   std::size_t dynamic_shared, int blocks, const std::string& limiter,
                   const std::string& where = "") {
  const occupancy::Prediction p = calc.predict(a, block, dynamic_shared);
  expect(p.blocks == blocks && p.limiter == limiter,
         hl::format("{}{} registers, block {}, {} dynamic shared bytes: {} blocks by {} "
                    "(got {} by {})",
                    where, a.numRegs, block, dynamic_shared, blocks, limiter, p.blocks, p.limiter));
}

constexpr hl::Platform kNvidia = hl::Platform::kNvidia;
constexpr hl::Platform kAmd = hl::Platform::kAmd;
// What hipRuntimeGetVersion reports: CUDA 13.0's 13000; HIP_VERSION on AMD, major x 10^7 +
// minor x 10^5 + a build number (HIP 5.2.3: 50221153).
constexpr int kCuda13 = 13000;
constexpr int hip(int major, int minor) { return major * 10000000 + minor * 100000 + 21153; }
constexpr int kHip54 = hip(5, 4), kHip55 = hip(5, 5), kHip60 = hip(6, 0), kHip61 = hip(6, 1),
              kHip62 = hip(6, 2);

// An AMD device as the occupancy code sees it: the CU count only scales the grid.
occupancy::Limits amd(const char* arch, int compute_units, int warp_size) {
  occupancy::Limits l;
  l.arch = arch;
  l.compute_units = compute_units;
  l.warp_size = warp_size;
  l.max_threads_per_cu = 2048;
  l.max_threads_per_block = 1024;
  l.shared_per_cu = l.shared_per_block = 65536;
  return l;
}

void nvidia_sm90() {
  // NVIDIA H200 (sm_90), as the lesson's Expected output lists it.
  occupancy::Limits h200{"sm_90", 9, 0, 132, 32, 2048, 1024, 65536, 233472, 49152, 65536, 32, 1024};
  const occupancy::Calculator sm90(h200, kCuda13, kNvidia);
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
  expect(!occupancy::Calculator(other, kCuda13, kNvidia).models(), "sm_80 is not modelled");
  other = h200;
  other.max_blocks_per_cu.reset();
  expect(!occupancy::Calculator(other, kCuda13, kNvidia).models(),
         "no blocks per SM: not modelled");
  expect(!occupancy::Calculator(h200, kHip62, kAmd).models() &&
             !occupancy::Calculator(amd("gfx90a", 104, 64), kCuda13, kNvidia).models(),
         "each platform models only its own architecture");
}

void isa_versions() {
  const auto is = [](const char* arch, int major, int minor, int stepping) {
    const std::optional<occupancy::IsaVersion> v = occupancy::isa_version(arch);
    expect(v && v->major == major && v->minor == minor && v->stepping == stepping,
           hl::format("{} is ISA {}.{}.{}", arch, major, minor, stepping));
  };
  is("gfx906", 9, 0, 6);
  is("gfx90a", 9, 0, 10);  // the stepping is a hex digit
  is("gfx942", 9, 4, 2);
  is("gfx1151", 11, 5, 1);
  is("gfx1201", 12, 0, 1);
  for (const char* name : {"sm_90", "gfx9", "gfx90z", "gfxa00", "gfx12-generic"})
    expect(!occupancy::isa_version(name), hl::format("{} is not a gfx target name", name));
}

// HIP 6.2 (ROCm/clr rocm-6.2.2: rocdevice.cpp's table, hip_platform.cpp's model).
void hip_62() {
  // AMD MI210 (gfx90a): 104 CUs, 64-thread wavefronts, 64 KiB of LDS, 8 waves per SIMD counted.
  const occupancy::Calculator gfx90a(amd("gfx90a", 104, 64), kHip62, kAmd);
  expect(gfx90a.models() && gfx90a.slots() == 32, "gfx90a is modelled, 32 wave slots per CU");
  // 71 VGPRs round to 72: 512 / 72 = 7 waves per SIMD, 28 per CU, 7 blocks of 4 waves.
  expect_blocks(gfx90a, kernel(71), 256, 0, 7, "registers");
  expect_blocks(gfx90a, kernel(64), 256, 0, 8, "slots + registers");
  // 81 VGPRs are allocated as 88: 512 / 88 = 5 waves per SIMD, 5 blocks of 4 waves.
  expect_blocks(gfx90a, kernel(81), 256, 0, 5, "registers");
  expect_blocks(gfx90a, kernel(16), 256, 16 * 1024, 4, "shared memory");
  // HIP compares the block with the device's largest (1024), not the kernel's (256).
  expect_blocks(gfx90a, kernel(16, 256), 512, 0, 4, "slots");
  expect_blocks(gfx90a, kernel(16), 2048, 0, 0, "");
  expect(gfx90a.max_potential(kernel(16), 0) == std::pair<int, int>{1024, 208},
         "gfx90a max potential: 1024 threads, 2 blocks per CU x 104");

  // MI300X (gfx942): 304 CUs, from 6.1 the same 512-entry file as gfx90a.
  const occupancy::Calculator gfx942(amd("gfx942", 304, 64), kHip62, kAmd);
  expect(gfx942.models() && gfx942.slots() == 32, "gfx942 is modelled, 32 wave slots per CU");
  expect_blocks(gfx942, kernel(128), 256, 0, 4, "registers");  // 512 / 128 = 4 waves
  expect_blocks(gfx942, kernel(16), 256, 48 * 1024, 1, "shared memory");
  expect(gfx942.max_potential(kernel(16), 0) == std::pair<int, int>{1024, 608},
         "gfx942 max potential: 1024 threads, 2 blocks per CU x 304");

  // RX 7900 XTX (gfx1100), WGP mode: 48 WGPs of 4 SIMD32s, 16 waves per SIMD: 64 slots. The
  // file is 1536 in granules of 24, but HIP's alignUp masks with 23: 100 VGPRs count as
  // (100 + 23) & ~23 = 104, so 1536 / 104 = 14 waves, 56 per WGP, 7 blocks of 8 waves (a true
  // rounding to 120 would give 12 waves and 6 blocks).
  const occupancy::Calculator gfx1100(amd("gfx1100", 48, 32), kHip62, kAmd);
  expect(gfx1100.models() && gfx1100.slots() == 64, "gfx1100 is modelled, 64 wave slots per WGP");
  expect_blocks(gfx1100, kernel(24), 256, 0, 8, "slots");  // 24 counts as 40: 38 waves
  expect_blocks(gfx1100, kernel(100), 256, 0, 7, "registers");
  expect_blocks(gfx1100, kernel(128), 256, 0, 6, "registers");  // 151 & ~23 = 128: 12 waves
  // LDS: the runtime divides the 64 KiB group segment; the WGP has 128 KiB.
  expect_blocks(gfx1100, kernel(16), 256, 40000, 1, "shared memory");
  expect(gfx1100.max_potential(kernel(100), 0) == std::pair<int, int>{1024, 48},
         "gfx1100 max potential of a 100-VGPR kernel: 1792 threads fit, 1024 per block, 1 x 48");
  // wave64 on gfx10+: HIP halves the file and the granule (768, 12): (100 + 11) & ~11 = 100,
  // 7 waves, 7 blocks of 4 waves.
  expect_blocks(occupancy::Calculator(amd("gfx1100", 48, 64), kHip62, kAmd), kernel(100), 256, 0, 7,
                "registers", "gfx1100 wave64, HIP 6.2: ");

  // RX 9070 (gfx1201): no gfx12 row in 6.2, so the "gfx<=8" default, 256 in granules of 4:
  // 128 VGPRs give 2 waves, 1 block of 8 waves (the hardware holds 5).
  const occupancy::Calculator gfx1201(amd("gfx1201", 32, 32), kHip62, kAmd);
  expect_blocks(gfx1201, kernel(128), 256, 0, 1, "registers", "gfx1201, HIP 6.2: ");
  // Strix Halo (gfx1151): 6.2's row is gfx1100's file.
  expect_blocks(occupancy::Calculator(amd("gfx1151", 20, 32), kHip62, kAmd), kernel(100), 256, 0, 7,
                "registers", "gfx1151, HIP 6.2: ");
  // Radeon VII (gfx906): the runtime counts 8 waves per SIMD (the hardware has 10).
  expect_blocks(occupancy::Calculator(amd("gfx906", 60, 64), kHip62, kAmd), kernel(24), 256, 0, 8,
                "slots");
}

// The releases before: hipamd 4.5-5.4 (hip_platform.cpp's own numbers), ROCclr/clr 5.5-6.1.
void earlier_releases() {
  // gfx942 up to 6.0: only gfx940 of the gfx94x has the 512-entry file, gfx942 gets 256 in
  // granules of 4: 128 VGPRs give 2 waves, 2 blocks of 4 waves (6.1: 4).
  expect_blocks(occupancy::Calculator(amd("gfx942", 304, 64), kHip60, kAmd), kernel(128), 256, 0, 2,
                "registers", "gfx942, HIP 6.0: ");
  expect_blocks(occupancy::Calculator(amd("gfx940", 228, 64), kHip60, kAmd), kernel(128), 256, 0, 4,
                "registers", "gfx940, HIP 6.0: ");
  expect_blocks(occupancy::Calculator(amd("gfx942", 304, 64), kHip61, kAmd), kernel(128), 256, 0, 4,
                "registers", "gfx942, HIP 6.1: ");
  // gfx1030: hipamd up to 5.4 counts 1024 in granules of 8 on every gfx10+, the table from 5.5
  // granules of 16: 68 VGPRs are 72 (14 waves, 7 blocks of 8 waves), then 80 (12 waves, 6).
  expect_blocks(occupancy::Calculator(amd("gfx1030", 40, 32), kHip54, kAmd), kernel(68), 256, 0, 7,
                "registers", "gfx1030, HIP 5.4: ");
  expect_blocks(occupancy::Calculator(amd("gfx1030", 40, 32), kHip55, kAmd), kernel(68), 256, 0, 6,
                "registers", "gfx1030, HIP 5.5: ");
  // GPU_ENABLE_WGP_MODE=0: up to 5.4 HIP counts the device's 2 SIMDs per CU (14 waves on 2
  // SIMDs of 32 lanes: 3 blocks of 8 waves); from 5.5 the kernel's WGP mode, 4 (as above).
  expect_blocks(occupancy::Calculator(amd("gfx1030", 40, 32), kHip54, kAmd, "0"), kernel(68), 256,
                0, 3, "registers", "gfx1030, HIP 5.4, GPU_ENABLE_WGP_MODE=0: ");
  expect_blocks(occupancy::Calculator(amd("gfx1030", 40, 32), kHip55, kAmd, "0"), kernel(68), 256,
                0, 6, "registers", "gfx1030, HIP 5.5, GPU_ENABLE_WGP_MODE=0: ");
  // gfx1100 under hipamd: 1024 in granules of 8, wave32 and wave64 alike: 100 VGPRs are 104,
  // 9 waves: 4 blocks of 8 waves (wave32), 9 blocks of 4 waves (wave64).
  expect_blocks(occupancy::Calculator(amd("gfx1100", 48, 32), kHip54, kAmd), kernel(100), 256, 0, 4,
                "registers", "gfx1100, HIP 5.4: ");
  expect_blocks(occupancy::Calculator(amd("gfx1100", 48, 64), kHip54, kAmd), kernel(100), 256, 0, 9,
                "registers", "gfx1100 wave64, HIP 5.4: ");
  expect_blocks(occupancy::Calculator(amd("gfx90a", 104, 64), kHip54, kAmd), kernel(71), 256, 0, 7,
                "registers", "gfx90a, HIP 5.4: ");
  // gfx1151 is listed from HIP 6.0, but its VGPR row only from 6.2: no answer to model.
  const occupancy::Calculator strix61(amd("gfx1151", 20, 32), kHip61, kAmd);
  expect(!strix61.models() && strix61.why_not().find("no VGPR row") != std::string::npos,
         "gfx1151 on HIP 6.1 is not modelled: " + strix61.why_not());
}

// Releases whose occupancy code was not read are not modelled, with the reason.
void unread_releases() {
  for (const hl::RuntimeVersion release :
       {hl::RuntimeVersion{6, 3}, hl::RuntimeVersion{7, 1}, hl::RuntimeVersion{4, 3}}) {
    const occupancy::Calculator calc(amd("gfx942", 304, 64), hip(release.major, release.minor),
                                     kAmd);
    expect(
        !calc.models() && calc.why_not().find("is not one of the releases") != std::string::npos,
        hl::format("HIP {}.{} is not modelled: {}", release.major, release.minor, calc.why_not()));
  }
  expect(!occupancy::Calculator(amd("sm_90", 132, 32), kHip62, kAmd).models(),
         "an AMD build does not model a name that is no gfx target");
}

}  // namespace

int main() {
  nvidia_sm90();
  isa_versions();
  hip_62();
  earlier_releases();
  unread_releases();
  std::printf("%d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
