/// \file tools/compiler_occupancy/test_occupancy_models.hip
/// \brief Unit test of occupancy_models.hpp: LLVM 19's occupancy against the values of LLVM's
/// own test, the hardware's SGPR rule and HIP's SGPR charge against the numbers of the pull
/// requests that established them, worked out by hand. No HIP runtime call, no GPU.
#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hip_lessons/format.hpp"
#include "occupancy_models.hpp"

namespace {

namespace co = compiler_occupancy;
namespace hl = hip_lessons;

int failures = 0;

void expect(bool ok, const std::string& what) {
  std::printf("%s  %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

co::KernelResources resources(int sgprs, int vgprs, int agprs = 0) {
  co::KernelResources k;
  k.sgprs = sgprs;
  k.vgprs = vgprs;
  k.agprs = agprs;
  return k;
}

const co::AmdArch& arch(const char* name) { return *co::amd_arch(name); }

// The compiler's waves per SIMD against LLVM's own test (llvm/test/CodeGen/AMDGPU/
// occupancy-levels.ll: kernels of one wave, so only the registers limit). GFX9 rows apply to
// gfx906, GFX1030W32 to gfx1030, GFX1100W32 to gfx1100 and gfx1200.
void llvm_vgpr_tables() {
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
  for (const auto& [name, table] : vgpr_tables) {
    for (const auto& [vgprs, waves] : table) {
      co::KernelResources k = resources(0, vgprs);
      k.max_flat_workgroup_size = 32;
      const int got = co::compiler_waves_per_simd(arch(name), k);
      expect(got == waves,
             hl::format("{}: {} VGPRs allow {} waves per SIMD (got {})", name, vgprs, waves, got));
    }
  }
  // Workgroup size and LDS, the same test's used_lds_8252_max_group_size_* kernels.
  const std::tuple<const char*, int, int> lds_table[] = {
      {"gfx906", 32, 2},   {"gfx906", 96, 4},    {"gfx906", 192, 6},   {"gfx906", 256, 7},
      {"gfx906", 512, 10}, {"gfx906", 1024, 8},  {"gfx950", 32, 5},    {"gfx950", 96, 8},
      {"gfx1030", 32, 4},  {"gfx1030", 96, 12},  {"gfx1030", 128, 15}, {"gfx1030", 192, 15},
      {"gfx1100", 32, 4},  {"gfx1100", 128, 15}, {"gfx1100", 1024, 16}};
  for (const auto& [name, group, waves] : lds_table) {
    co::KernelResources k = resources(0, 1);
    k.lds = 8252;
    k.max_flat_workgroup_size = group;
    const int got = co::compiler_waves_per_simd(arch(name), k);
    expect(got == waves,
           hl::format("{}: 8252 LDS bytes, workgroups of {}: {} waves per SIMD (got {})", name,
                      group, waves, got));
  }
  // A 1024-thread workgroup without LDS: gfx906's 40 slots hold 2 of 16 waves, so 8 per SIMD.
  expect(co::compiler_waves_per_simd(arch("gfx906"), resources(10, 2)) == 8,
         "gfx906, 1024-thread workgroups: 8 waves per SIMD, not 10");
}

// SGPRs on gfx9: LLVM 19's table (what clang 19.1.7 reports, the count with VCC and XNACK)
// against the hardware under ROCm, alignUp(n, 16) + 16 of 800 (second check of N1).
void sgpr_rules() {
  const co::AmdArch& vega20 = arch("gfx906");
  const co::AmdArch& cdna3 = arch("gfx942");
  for (const auto& [sgprs, waves] :
       std::vector<std::pair<int, int>>{{80, 10}, {82, 9}, {88, 9}, {90, 8}, {100, 8}, {102, 7}}) {
    co::KernelResources k = resources(sgprs, 2);
    k.max_flat_workgroup_size = 64;
    expect(co::compiler_waves_per_simd(vega20, k) == waves,
           hl::format("gfx906: LLVM 19 lets {} SGPRs have {} waves per SIMD", sgprs, waves));
  }
  // 100 SGPRs take 112 + 16 = 128: 6 waves (7 without the trap handler; 8 cannot fit: 8 x 112
  // = 896 > 800). LLVM 19 says 8.
  expect(co::hardware_waves_by_sgprs(cdna3, 100) == 6 && co::llvm19_waves_by_sgprs(cdna3, 100) == 8,
         "gfx942, 100 SGPRs: the hardware holds 6 waves per SIMD, LLVM 19 counts 8");
  // llvm-project PR 201342: "80 and 81 SGPRs reported the same occupancy and hid the cliff".
  expect(
      co::hardware_waves_by_sgprs(vega20, 80) == 8 && co::hardware_waves_by_sgprs(vega20, 81) == 7,
      "gfx906: 80 SGPRs take 96 (8 waves), 81 take 112 (7 waves)");
  // rocm-systems PR 11038 review: 104 SGPRs consume 128, six waves per SIMD on CDNA3.
  expect(co::hardware_waves_by_sgprs(cdna3, 104) == 6, "gfx942: 104 SGPRs, 6 waves per SIMD");
  expect(co::hardware_waves_by_sgprs(arch("gfx1100"), 106) == 16,
         "gfx1100: every wave has its own SGPRs, they do not limit");
  // The blocks: 32 VGPRs allow 16 waves (8 counted), so the SGPRs decide: 4 SIMDs x 6 / 4.
  expect(co::hardware_blocks_per_cu(cdna3, resources(100, 32), 256) == 6,
         "gfx942, 100 SGPRs: the hardware holds 6 blocks of 256");
  expect(co::unified_vgprs(cdna3, resources(0, 41, 32)) == 76,
         "gfx942: 41 VGPRs round to 44, then 32 AGPRs: 76 of the unified file");
  // The hardware against HIP's LDS count on RDNA: 3 blocks of 40000 bytes per WGP (128 KiB).
  expect(
      co::hardware_blocks_per_cu(arch("gfx1100"), co::KernelResources{0, 16, 0, 40000}, 256) == 3,
      "gfx1100: the hardware holds 3 blocks of 40000 LDS bytes per WGP (128 KiB)");
  expect(co::hardware_blocks_per_cu(vega20, resources(0, 24), 256) == 10,
         "gfx906: the hardware holds 10 blocks of 256 with 24 VGPRs");
}

// HIP's SGPR charge: up to 6.2 (clr rocm-6.2.2 hip_platform.cpp) 800 / alignUp(n, 16); from
// rocm-systems PR 10618 plus the trap handler's 16. Its measurement on gfx942: a 92-SGPR kernel
// of one-wave blocks, "the runtime reported 32 blocks/CU, the hardware fit 28".
void hip_sgpr_charge() {
  const co::AmdArch& cdna3 = arch("gfx942");
  expect(co::hip_sgpr_waves(cdna3, 100, co::HipSgprCharge::kGranuleOnly) == 7 &&
             co::hip_sgpr_waves(cdna3, 100, co::HipSgprCharge::kTrapReserve) == 6,
         "gfx942, 100 SGPRs: HIP 6.2 counts 800 / 112 = 7 waves, PR 10618 800 / 128 = 6");
  std::string why_not;
  const occupancy::IsaVersion isa = *occupancy::isa_version("gfx942");
  const occupancy::HipAmdModel hip62{isa, 64, *occupancy::hip_vgpr_file({6, 2}, isa, 64, why_not)};
  co::KernelResources pr_kernel = resources(92, 32);
  const int before =
      co::hip_blocks_per_cu(hip62, cdna3, pr_kernel, 64, co::HipSgprCharge::kGranuleOnly);
  const int after =
      co::hip_blocks_per_cu(hip62, cdna3, pr_kernel, 64, co::HipSgprCharge::kTrapReserve);
  expect(before == 32 && after == 28 && co::hardware_blocks_per_cu(cdna3, pr_kernel, 64) == 28,
         hl::format("gfx942, 92 SGPRs, blocks of 64: HIP 6.2 32, PR 10618 28, the hardware 28 "
                    "(got {}, {})",
                    before, after));
  expect(co::hip_blocks_per_cu(hip62, cdna3, resources(100, 32), 256,
                               co::HipSgprCharge::kGranuleOnly) == 7,
         "gfx942, 100 SGPRs, blocks of 256: HIP 6.2 answers 7");
  expect(co::hip_sgpr_waves(arch("gfx1100"), 106, co::HipSgprCharge::kTrapReserve) ==
             occupancy::kUnlimited,
         "gfx1100: HIP's SGPR count does not limit");
}

void architecture_rows() {
  expect(co::amd_arch("gfx1201") == co::amd_arch("gfx1100") &&
             co::amd_arch("gfx1151") == co::amd_arch("gfx1100"),
         "gfx1151 and gfx1201 share gfx1100's row");
  expect(co::amd_arch("gfx1102") == nullptr && co::amd_arch("gfx110") == nullptr &&
             co::amd_arch("gfx90") == nullptr,
         "unchecked targets and prefixes have no row");
}

}  // namespace

int main() {
  llvm_vgpr_tables();
  sgpr_rules();
  hip_sgpr_charge();
  architecture_rows();
  std::printf("%d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
