/// \file lessons/04_occupancy/occupancy_tables.hip
/// \brief Prints the occupancy tables of docs/pages/amd_targets.md from occupancy_calculator.hpp
/// (the rules per architecture, and what they give for a few kernels), each between
/// "<!-- generated: NAME -->" and "<!-- end: NAME -->"; the docs.amd_targets_tables test
/// compares them with the page. Host code only.
#include <cstdio>
#include <string>

#include "occupancy_calculator.hpp"

namespace {

void begin(const char* name) { std::printf("<!-- generated: %s -->\n", name); }
void end(const char* name) { std::printf("<!-- end: %s -->\n", name); }

const char* agprs(occupancy::AgprFile file) {
  switch (file) {
    case occupancy::AgprFile::kSeparate:
      return "own file of 256";
    case occupancy::AgprFile::kUnified:
      return "share the 512";
    case occupancy::AgprFile::kNone:
      break;
  }
  return "none";
}

void rules_table() {
  begin("occupancy_rules");
  std::printf(
      "| target | GPUs | wave | SIMDs per CU | waves per SIMD (HIP counts) | VGPRs per lane, "
      "granule | AGPRs | SGPRs limit | LDS per CU (HIP divides) | workgroups per CU |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (const occupancy::AmdArch& a : occupancy::kAmdArchs) {
    const bool rdna = a.wave_size == 32;
    std::printf("| %s | %s | %d | %d%s | %d (%d) | %d, %d | %s | %s | %zu KiB%s (%zu KiB) | %d |\n",
                a.name, a.gpus, a.wave_size, a.simds_per_cu, rdna ? " per WGP" : "",
                a.max_waves_per_simd, a.hip_max_waves_per_simd, a.vgprs_per_simd, a.vgpr_granule,
                agprs(a.agprs), a.sgprs_shared ? "800 shared" : "no", a.lds_per_cu >> 10,
                rdna ? " per WGP" : "", a.hip_lds_per_cu >> 10, a.workgroups_per_cu);
  }
  end("occupancy_rules");
}

// Kernels of 256-thread blocks: waves per SIMD the compiler reports, blocks per CU the
// hardware holds, blocks per CU HIP's runtime answers.
void examples_table() {
  begin("occupancy_examples");
  struct Example {
    const char* what;
    int sgprs, vgprs, agprs;
    std::size_t lds;
  };
  const Example examples[] = {{"24 VGPRs", 16, 24, 0, 0},
                              {"100 VGPRs", 16, 100, 0, 0},
                              {"64 VGPRs + 64 AGPRs", 16, 64, 64, 0},
                              {"100 SGPRs", 100, 32, 0, 0},
                              {"40000 LDS bytes", 16, 24, 0, 40000}};
  std::printf("| target |");
  for (const Example& e : examples) std::printf(" %s |", e.what);
  std::printf("\n|---|");
  for (std::size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); ++i) std::printf("---|");
  std::printf("\n");
  for (const occupancy::AmdArch& a : occupancy::kAmdArchs) {
    occupancy::Limits limits;
    limits.arch = a.name;
    limits.warp_size = a.wave_size;
    limits.max_threads_per_block = 1024;
    limits.compute_units = 1;
    const occupancy::Calculator runtime(limits, hip_lessons::Platform::kAmd);
    std::printf("| %s |", a.name);
    for (const Example& e : examples) {
      occupancy::KernelResources k;
      k.sgprs = e.sgprs;
      k.vgprs = e.vgprs;
      k.agprs = a.agprs == occupancy::AgprFile::kNone ? 0 : e.agprs;
      k.lds = e.lds;
      k.max_flat_workgroup_size = 256;
      std::printf(" %d / %d / %d |", occupancy::compiler_waves_per_simd(a, k),
                  occupancy::hardware_blocks_per_cu(a, k, 256), runtime.predict(k, 256, 0).blocks);
    }
    std::printf("\n");
  }
  end("occupancy_examples");
}

}  // namespace

int main() {
  rules_table();
  examples_table();
  return 0;
}
