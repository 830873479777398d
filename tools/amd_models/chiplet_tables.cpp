/// \file tools/amd_models/chiplet_tables.cpp
/// \brief Prints the chiplet and CU-mask tables of docs/pages/amd_targets.md from
/// xcd_dispatch.hpp and cu_mask_map.hpp, each between "<!-- generated: NAME -->" and
/// "<!-- end: NAME -->"; the docs.amd_targets_tables test compares them with the page.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cu_mask_map.hpp"
#include "hip_lessons/format.hpp"
#include "xcd_dispatch.hpp"

namespace {

namespace hl = hip_lessons;
using amd_models::CuLocation;
using amd_models::GpuTopology;

void begin(const char* name) { std::printf("<!-- generated: %s -->\n", name); }
void end(const char* name) { std::printf("<!-- end: %s -->\n", name); }

void xcd_table() {
  begin("xcd_dispatch");
  const int grid = 20;
  std::printf(
      "| workgroup | XCD group (k mod 8) | tile, remap_xcd | tile, remap_xcd_chunked (2) |\n");
  std::printf("|---|---|---|---|\n");
  for (int wg = 0; wg < grid; ++wg) {
    std::printf("| %d | %d | %d | %d |\n", wg, amd_models::xcd_group_of_workgroup(wg),
                amd_models::xcd_local_tile(wg, grid), amd_models::xcd_chunked_tile(wg, grid, 2));
  }
  end("xcd_dispatch");
}

std::string where(const GpuTopology& gpu, const std::optional<CuLocation>& location) {
  if (!location) return "nothing: beyond the device's CUs, ignored";
  const CuLocation& c = *location;
  std::string text = gpu.xccs > 1 ? hl::format("XCC{} ", c.xcc) : "";
  text += hl::format("SE{}", c.se);
  if (gpu.arrays_per_engine > 1) text += hl::format(" SA{}", c.sa);
  text += gpu.wgp_pairs ? hl::format(" WGP{} (CUs {}, {})", c.cu / 2, c.cu, c.cu + 1)
                        : hl::format(" CU{}", c.cu);
  return text;
}

// Masks 0-7 and 0,8,16,...,56 side by side (HIP stream-mask bits; on RDNA each is a WGP).
void mask_table(const char* name, const GpuTopology& gpu, bool hip_pairs) {
  const std::vector<CuLocation> map = amd_models::driver_cu_mask_map(gpu);
  begin(name);
  std::printf("| mask `0-7`: bit | enables | mask `0,8,16,...,56`: bit | enables |\n");
  std::printf("|---|---|---|---|\n");
  for (int i = 0; i < 8; ++i) {
    const int a = amd_models::driver_bits_of_hip_bit(i, hip_pairs)[0];
    const int b = amd_models::driver_bits_of_hip_bit(8 * i, hip_pairs)[0];
    std::printf("| %d | %s | %d | %s |\n", i,
                where(gpu, amd_models::cu_of_driver_bit(map, a)).c_str(), 8 * i,
                where(gpu, amd_models::cu_of_driver_bit(map, b)).c_str());
  }
  end(name);
}

void smid_table() {
  begin("smid");
  std::printf("| architecture | `__smid()` bits, high to low | CU of the example | value |\n");
  std::printf("|---|---|---|---|\n");
  const struct {
    const char* arch;
    const char* layout;
    CuLocation cu;
    bool cu_mode;
  } rows[] = {
      {"gfx906", "SE (2) . CU (4)", {0, 1, 0, 3}, false},
      {"gfx90a", "SE (3) . CU (4)", {0, 5, 0, 12}, false},
      {"gfx942, gfx950", "XCC (4) . SE (2) . CU (4)", {3, 2, 0, 7}, false},
      {"gfx1100 (WGP mode)", "SE (3) . SA (1) . WGP (4)", {0, 3, 1, 6}, false},
      {"gfx1100 (-mcumode)", "SE (3) . SA (1) . WGP (4) . CU (1)", {0, 3, 1, 7}, true},
      {"gfx1201", "SE (4) . SA (1) . WGP (4)", {0, 3, 1, 6}, false},
  };
  for (const auto& r : rows) {
    const std::string arch = std::string(r.arch).substr(0, std::string(r.arch).find_first_of(" ,"));
    std::printf("| %s | %s | XCC%d SE%d SA%d CU%d | %u |\n", r.arch, r.layout, r.cu.xcc, r.cu.se,
                r.cu.sa, r.cu.cu, amd_models::smid_of(arch, r.cu, r.cu_mode));
  }
  end("smid");
}

}  // namespace

int main() {
  xcd_table();
  mask_table("mask_map_mi300x", {"MI300X SPX", 8, 4, 1, {10, 10, 9, 9}, false}, false);
  mask_table("mask_map_mi210", {"MI210-like", 1, 8, 1, std::vector<int>(8, 13), false}, false);
  mask_table("mask_map_rdna3", {"RDNA3-like", 1, 6, 2, std::vector<int>(12, 8), true}, true);
  smid_table();
  return 0;
}
