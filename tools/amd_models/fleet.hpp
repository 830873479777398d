/// \file tools/amd_models/fleet.hpp
/// \brief The simulated fleet (fleet.tsv) and the release thresholds (hip_thresholds.tsv), read
/// from their files: data written from the sources each row names, not from the code under
/// test. Host code only.
#pragma once

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cu_mask_map.hpp"
#include "hip_lessons/amd_cu_masks.hpp"
#include "hip_lessons/format.hpp"

namespace amd_models {

/// One GPU of the fleet, as fleet.tsv describes it.
struct FleetGpu {
  std::string shape, arch;
  GpuTopology topology;  ///< the driver's view: XCCs, SEs, SAs, active CUs per array
  int cus = 0;           ///< active CUs of the device (the spec page's count)
  bool wgp = false;      ///< gfx10+: CUs pair into WGPs
  int hardware_waves = 0, hip_waves = 0;  ///< waves per SIMD: in hardware, in HIP's count
  int hip7_xccs = 0;                      ///< hipDeviceAttributeNumberOfXccs (HIP 7.0+)
  std::string source, layout;
};

/// One release threshold of hip_thresholds.tsv.
struct Threshold {
  std::string name;
  int first = 0, before = 0;  ///< HIP_VERSION of the first release with it, the last without
  std::string source, line;
};

namespace detail {
inline std::vector<std::vector<std::string>> read_tsv(const std::string& path,
                                                      std::size_t columns) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<std::vector<std::string>> rows;
  bool header = true;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, '\t');) fields.push_back(cell);
    if (fields.size() != columns) {
      throw std::runtime_error(path + ": a row of " + std::to_string(fields.size()) +
                               " columns, not " + std::to_string(columns) + ": " + line);
    }
    if (header) {
      header = false;
      continue;
    }
    rows.push_back(fields);
  }
  return rows;
}
}  // namespace detail

inline std::vector<FleetGpu> read_fleet(const std::string& path) {
  std::vector<FleetGpu> fleet;
  for (const auto& f : detail::read_tsv(path, 13)) {
    FleetGpu gpu;
    gpu.shape = f[0];
    gpu.arch = f[1];
    gpu.topology.name = f[0];
    gpu.topology.xccs = std::stoi(f[2]);
    gpu.topology.shader_engines = std::stoi(f[3]);
    gpu.topology.arrays_per_engine = std::stoi(f[4]);
    std::stringstream per_array(f[5]);
    for (std::string n; std::getline(per_array, n, ',');)
      gpu.topology.active_cus.push_back(std::stoi(n));
    gpu.cus = std::stoi(f[6]);
    gpu.wgp = f[7] == "1";
    gpu.topology.wgp_pairs = gpu.wgp;
    gpu.hardware_waves = std::stoi(f[8]);
    gpu.hip_waves = std::stoi(f[9]);
    gpu.hip7_xccs = std::stoi(f[10]);
    gpu.source = f[11];
    gpu.layout = f[12];
    fleet.push_back(gpu);
  }
  return fleet;
}

inline std::vector<Threshold> read_thresholds(const std::string& path) {
  std::vector<Threshold> all;
  for (const auto& f : detail::read_tsv(path, 5)) {
    all.push_back({f[0], std::stoi(f[1]), std::stoi(f[2]), f[3], f[4]});
  }
  return all;
}

}  // namespace amd_models

namespace amd_models {

/// Where the driver puts CU IDs \p cu_ids on \p topology: the CUs enabled (XCC, SE, SA, CU), by
/// XCC and by shader engine (either bit of a pair enables the whole WGP on gfx10+).
struct DriverPlacement {
  int cus = 0;
  std::vector<int> per_xcc;
  std::vector<int> per_se;       ///< index xcc * shader_engines + se
  std::vector<std::string> ids;  ///< "x.se.sa.cu", sorted, for disjointness
};

inline DriverPlacement driver_placement(const GpuTopology& topology,
                                        const hip_lessons::CuMask& cu_ids) {
  const std::vector<CuLocation> map = driver_cu_mask_map(topology);
  DriverPlacement p;
  p.per_xcc.assign(topology.xccs, 0);
  p.per_se.assign(topology.xccs * topology.shader_engines, 0);
  std::vector<std::string> seen;
  for (int bit = 0; bit < static_cast<int>(map.size()); ++bit) {
    if (!cu_ids.has(bit)) continue;
    const CuLocation& c = map[bit];
    for (int cu = c.cu; cu < c.cu + (topology.wgp_pairs ? 2 : 1); ++cu) {
      const std::string id = hip_lessons::format("{}.{}.{}.{}", c.xcc, c.se, c.sa, cu);
      bool known = false;
      for (const std::string& s : seen) known = known || s == id;
      if (known) continue;
      seen.push_back(id);
      ++p.cus;
      ++p.per_xcc[c.xcc];
      ++p.per_se[c.xcc * topology.shader_engines + c.se];
    }
  }
  std::sort(seen.begin(), seen.end());
  p.ids = seen;
  return p;
}

}  // namespace amd_models
