/// \file tools/compiler_occupancy/occupancy_tables.hip
/// \brief Prints the occupancy tables of docs/pages/amd_targets.md from occupancy_models.hpp
/// and lesson 04's occupancy_calculator.hpp (the hardware's rules per architecture, HIP's VGPR
/// file per release, and what each gives for a few kernels), each between
/// "<!-- generated: NAME -->" and "<!-- end: NAME -->"; the docs.amd_targets_tables.occupancy
/// test compares them with the page. Host code only.
#include <cstdio>
#include <optional>
#include <string>

#include "hip_lessons/format.hpp"
#include "occupancy_models.hpp"

namespace {

namespace co = compiler_occupancy;
namespace hl = hip_lessons;

void begin(const char* name) { std::printf("<!-- generated: %s -->\n", name); }
void end(const char* name) { std::printf("<!-- end: %s -->\n", name); }

const char* agprs(co::AgprFile file) {
  switch (file) {
    case co::AgprFile::kSeparate:
      return "own file of 256";
    case co::AgprFile::kUnified:
      return "share the 512";
    case co::AgprFile::kNone:
      break;
  }
  return "none";
}

void rules_table() {
  begin("occupancy_rules");
  std::printf(
      "| targets | GPUs | wave | SIMDs per CU | waves per SIMD | VGPRs per lane, granule | AGPRs "
      "| SGPRs a wave takes | LDS per CU | workgroups per CU |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (const co::AmdArch& a : co::kAmdArchs) {
    const bool rdna = a.wave_size == 32;
    std::printf("| %s | %s | %d | %d%s | %d | %d, %d | %s | %s | %zu KiB%s | %d |\n", a.targets,
                a.gpus, a.wave_size, a.simds_per_cu, rdna ? " per WGP" : "", a.max_waves_per_simd,
                a.vgprs_per_simd, a.vgpr_granule, agprs(a.agprs),
                a.sgprs_shared ? "alignUp(n, 16) + 16, of 800" : "its own", a.lds_per_cu >> 10,
                rdna ? " per WGP" : "", a.workgroups_per_cu);
  }
  end("occupancy_rules");
}

// The first HIP release whose ISA table (rocclr/device/device.cpp: ROCclr up to 5.6, clr from
// 5.6) lists a target: a release without it never runs its occupancy code for that GPU.
// gfx950 is in none of the releases read (up to 6.2.2).
std::optional<hl::RuntimeVersion> first_listing(const std::string& target) {
  if (target == "gfx942") return hl::RuntimeVersion{5, 7};
  if (target == "gfx1100") return hl::RuntimeVersion{5, 3};
  if (target == "gfx1151") return hl::RuntimeVersion{6, 0};
  if (target == "gfx1200" || target == "gfx1201") return hl::RuntimeVersion{6, 2};
  if (target == "gfx950") return std::nullopt;
  return occupancy::kFirstHipRead;
}

// HIP's VGPR file for a target in a release ("-": the release does not list the target).
std::string hip_vgpr_cell(const std::string& target, hl::RuntimeVersion release) {
  const std::optional<hl::RuntimeVersion> first = first_listing(target);
  if (!first || release < *first) return "-";
  std::string why_not;
  const auto file = occupancy::hip_vgpr_file(release, *occupancy::isa_version(target),
                                             co::amd_arch(target)->wave_size, why_not);
  return file ? hl::format("{}, {}", file->vgprs, file->granule) : "no row";
}

void hip_rules_table() {
  begin("occupancy_hip_releases");
  const hl::RuntimeVersion last_of_range[] = {{5, 4}, {6, 0}, {6, 1}, {6, 2}};
  std::printf(
      "| target | HIP 4.5 to 5.4 | HIP 5.5 to 6.0 | HIP 6.1 | HIP 6.2 | development sources, "
      "2025 on (ISA metadata) |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const char* target : {"gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100",
                             "gfx1151", "gfx1201"}) {
    std::printf("| %s |", target);
    for (const hl::RuntimeVersion release : last_of_range)
      std::printf(" %s |", hip_vgpr_cell(target, release).c_str());
    const co::AmdArch& a = *co::amd_arch(target);  // the compiler's numbers
    std::printf(" %d, %d |\n", a.vgprs_per_simd, a.vgpr_granule);
  }
  end("occupancy_hip_releases");
}

// Kernels of 256-thread blocks: waves per SIMD LLVM 19 reports, blocks per CU the hardware
// holds under ROCm, blocks per CU HIP 6.2's runtime answers.
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
  std::printf("| targets |");
  for (const Example& e : examples) std::printf(" %s |", e.what);
  std::printf("\n|---|");
  for (std::size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); ++i) std::printf("---|");
  std::printf("\n");
  for (const co::AmdArch& a : co::kAmdArchs) {
    const occupancy::IsaVersion isa = *occupancy::isa_version(a.name);
    std::string why_not;
    const auto file = occupancy::hip_vgpr_file({6, 2}, isa, a.wave_size, why_not);
    const bool listed = first_listing(a.name).has_value();
    std::printf("| %s |", a.targets);
    for (const Example& e : examples) {
      co::KernelResources k;
      k.sgprs = e.sgprs;
      k.vgprs = e.vgprs;
      k.agprs = a.agprs == co::AgprFile::kNone ? 0 : e.agprs;
      k.lds = e.lds;
      k.max_flat_workgroup_size = 256;
      std::string hip = "-";
      if (listed && file) {
        const occupancy::HipAmdModel model{isa, a.wave_size, *file, a.group_segment};
        hip = std::to_string(
            co::hip_blocks_per_cu(model, a, k, 256, co::HipSgprCharge::kGranuleOnly));
      }
      std::printf(" %d / %d / %s |", co::compiler_waves_per_simd(a, k),
                  co::hardware_blocks_per_cu(a, k, 256), hip.c_str());
    }
    std::printf("\n");
  }
  end("occupancy_examples");
}

}  // namespace

int main() {
  rules_table();
  hip_rules_table();
  examples_table();
  return 0;
}
