/// \file lessons/04_occupancy/sweep.hpp
/// \brief Lesson 04's sweep: one kernel at every block size and blocks-per-CU count of
/// interest, with the launches the lesson derives from occupancy marked in the table.
#pragma once

#include <algorithm>
#include <set>

#include "hip_lessons/device.hpp"
#include "occupancy_calculator.hpp"
#include "problems.hpp"

namespace occupancy {

namespace hl = hip_lessons;

/// The rates the speed checks compare, from a timed sweep.
struct SweepResult {
  double occupancy_rate = 0.0;   // the occupancy grid at --block
  double one_per_cu_rate = 0.0;  // one block per CU at --block
  double best_rate = 0.0;
};

/// Runs \p kernel at block sizes 64..1024 (plus \p chosen_block, --block, and \p potential, the
/// API's best) with 1..32 blocks per CU (plus the API's count), and with one element per thread;
/// every launch is checked. The occupancy grid and one block per CU at --block are marked.
/// Prints and records the table sweep_<kernel>; returns the rates when the runs were timed.
inline std::optional<SweepResult> sweep(hl::Report& report, Problem& p, Kernel kernel,
                                        int chosen_block, std::pair<int, int> potential,
                                        const Limits& limits, const hipFuncAttributes& attributes) {
  struct Row {
    int block;
    unsigned int grid;
    std::optional<int> per_cu;  // empty: one element per thread
    std::string roles;
    std::optional<double> rate, ms;
  };
  std::vector<Row> rows;
  const int max_block = std::min(limits.max_threads_per_block, attributes.maxThreadsPerBlock);
  std::set<int> blocks = {chosen_block};
  if (potential.first > 0) blocks.insert(potential.first);
  for (const int b : {64, 128, 256, 512, 1024}) {
    if (b % limits.warp_size == 0 && b <= max_block) blocks.insert(b);
  }
  for (const int block : blocks) {
    const int api = max_active_blocks(kernel, block);
    const bool chosen = block == chosen_block;
    std::set<int> per_cu = {1, 2, 4, 8, 16, 32};
    if (api > 0) per_cu.insert(api);
    for (const int m : per_cu) {
      const auto grid = static_cast<unsigned int>(m * limits.compute_units);
      std::string roles = chosen && m == api ? "occupancy grid, " : "";
      if (chosen && m == 1) roles += "one block per CU, ";
      if (block == potential.first && static_cast<int>(grid) == potential.second) {
        roles += "max potential, ";
      }
      rows.push_back({block, grid, m, roles, {}, {}});
    }
    // The usual launch, one element per thread, where it fits HIP's 2^32 work-item limit.
    const std::size_t grid = (p.size() + block - 1) / block;
    if (grid * block < (std::size_t{1} << 32)) {
      rows.push_back(
          {block, static_cast<unsigned int>(grid), {}, "one element per thread, ", {}, {}});
    }
  }
  for (Row& r : rows) {
    r.ms = p.run(report, kernel, r.grid, static_cast<unsigned int>(r.block));
    r.rate = rate(kernel, p.size(), r.ms);
  }
  const auto best = std::max_element(rows.begin(), rows.end(), [](const Row& x, const Row& y) {
    return x.rate.value_or(0.0) < y.rate.value_or(0.0);
  });
  if (best->rate) best->roles += "best, ";
  const std::string cu = hl::kComputeUnitName;
  const bool memory_bound = kernel == Kernel::kTriad;
  hl::ResultTable t(
      hl::format("sweep_{}", name(kernel)),
      hl::format("Sweep: {} ({}-bound), N = {} (occupancy grid = API blocks per {} x {})",
                 name(kernel), memory_bound ? "memory" : "compute", p.size(), cu,
                 limits.compute_units),
      {"block", hl::Column("blocks per " + cu, "", 1), "grid", hl::Column("median", "ms", 4),
       hl::Column(memory_bound ? "TB/s" : "TFLOP/s", "", 3), hl::Column("% of best", "", 1),
       "choice"});
  SweepResult result;
  for (const Row& r : rows) {
    const auto has = [&](const char* role) { return r.roles.find(role) != std::string::npos; };
    if (has("occupancy grid")) result.occupancy_rate = r.rate.value_or(0.0);
    if (has("one block per CU")) result.one_per_cu_rate = r.rate.value_or(0.0);
    std::optional<double> of_best;
    if (r.rate) of_best = 100.0 * *r.rate / *best->rate;
    t.row({r.block, r.per_cu ? hl::Cell(*r.per_cu) : hl::Cell(1.0 * r.grid / limits.compute_units),
           r.grid, r.ms, r.rate, of_best,
           r.roles.substr(0, std::max<std::size_t>(r.roles.size(), 2) - 2)});
  }
  report.table(t);
  if (!best->rate) return std::nullopt;
  result.best_rate = *best->rate;
  const auto record = [&](const char* what, double value) {
    report.measurement(hl::format("{}_{}_{}", name(kernel), what, memory_bound ? "tbps" : "tflops"),
                       value);
  };
  record("occupancy", result.occupancy_rate);
  record("one_block_per_cu", result.one_per_cu_rate);
  record("best", result.best_rate);
  return result;
}

}  // namespace occupancy
