/// \file lessons/04_occupancy/main.hip
/// \brief Lesson 04: size a grid from occupancy, and compute occupancy yourself.
///
/// The story (the README's Application flow has the same numbers):
///  1. The options: --block must be whole warps and fit the device; bad values exit 2 first.
///  2. The per-CU budgets that decide how many blocks can be resident at once (device_limits.hpp).
///  3. What each kernel uses of them (hipFuncGetAttributes; device_limits.hpp).
///  4. The lesson's occupancy calculator (occupancy_calculator.hpp) against the runtime's
///     hipOccupancyMaxActiveBlocksPerMultiprocessor and hipOccupancyMaxPotentialBlockSize.
///  5. The article's grid formula against maxBlocks x CUs: maxBlocks is per CU.
///  6. Dynamic shared memory lowers residency, as the API predicts.
///  7. Registers lower it too; __launch_bounds__ caps them, at the price of spills.
///  8. A sweep over block size and blocks per CU, for a memory-bound and a compute-bound kernel.
///  9. Where the occupancy-sized launch lands: against the best launch, and one block per CU.
/// 10. The occupancy grids traced block by block: the most blocks one CU held at once must equal
///     the API's prediction, and tracing costs little (residency_trace.hpp).
/// Every launch runs on a poisoned output, compared element by element with a host reference.
/// --check runs steps 5-8 and 10 untimed, at sizes that catch guard bugs; the others time them.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "device_limits.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/lesson.hpp"
#include "hip_lessons/streams.hpp"
#include "kernels.hpp"
#include "occupancy_calculator.hpp"
#include "problems.hpp"
#include "residency_trace.hpp"
#include "sweep.hpp"

namespace hl = hip_lessons;
using occupancy::Kernel;
using occupancy::SweepResult;

namespace {

const std::string kCu = hl::kComputeUnitName;

// What the steps share: the device's budgets, the calculator built on them, each kernel's
// attributes and best block size, and the occupancy-sized launch of the triad.
struct Setup {
  occupancy::Limits limits;
  occupancy::Calculator calc;
  std::array<hipFuncAttributes, 4> attributes;
  unsigned int block;                              // --block
  std::array<std::pair<int, int>, 4> potential{};  // hipOccupancyMaxPotentialBlockSize
  int max_blocks = 0;                              // the API's triad blocks per CU at --block

  const hipFuncAttributes& of(Kernel k) const { return attributes[static_cast<int>(k)]; }
  int cus() const { return limits.compute_units; }
};

// A comparison the calculator cannot make on this architecture is a skip with the reason,
// never a pass; the JSON records it as a fact.
void check_or_skip(hl::Report& report, const Setup& s, const std::string& name, bool agree,
                   const std::string& detail = "") {
  if (s.calc.models()) {
    report.check(name, agree, detail);
  } else {
    report.note(hl::format("check   skip  {}: {}", name, s.calc.why_not()));
    report.fact("skipped: " + name, s.calc.why_not());
  }
}

// 4. For one kernel: each budget's answer, the smallest, and the runtime's, for block sizes of
// 1..32 whole warps (3, 6, 12, 20 are not powers of two: they exercise the rounding). For the
// kernels the sweep runs, also the runtime's best (block, grid), which it returns.
std::pair<int, int> compare_with_runtime(hl::Report& report, const Setup& s, Kernel kernel) {
  const hipFuncAttributes& a = s.of(kernel);
  const std::string name = occupancy::name(kernel);
  hl::ResultTable t("occupancy." + name,
                    hl::format("Resident blocks per {}: {} ({} registers, {} static shared bytes)",
                               kCu, name, a.numRegs, a.sharedSizeBytes),
                    {"block", "dynamic shared bytes", std::string(hl::kWarpName) + "s per block",
                     "by slots", "by registers", "by shared memory", "by block cap", "calculator",
                     "API", hl::Column("occupancy", "%", 1), "limited by"});
  const bool own = s.calc.models();
  int sizes = 0, differ = 0;
  std::string first;
  for (const int warps : {1, 2, 3, 4, 6, 8, 12, 16, 20, 32}) {
    const int block = warps * s.limits.warp_size;
    if (block > std::min(s.limits.max_threads_per_block, a.maxThreadsPerBlock)) break;
    ++sizes;
    const int api = occupancy::max_active_blocks(kernel, block);
    const occupancy::Prediction p = own ? s.calc.predict(a, block, 0) : occupancy::Prediction{};
    if (own && p.blocks != api && differ++ == 0) {
      first = hl::format("block {}: calculator {}, API {}", block, p.blocks, api);
    }
    const std::string limiter = p.blocks == api ? p.limiter : p.limiter + "  <- DIFFERS";
    t.row({block, 0, warps, occupancy::limit(p.by_slots), occupancy::limit(p.by_registers),
           occupancy::limit(p.by_shared), occupancy::limit(p.by_block_cap),
           own ? hl::Cell(p.blocks) : hl::Cell(), api, s.calc.occupancy_percent(api, block),
           own ? limiter : "not modelled"});
  }
  report.table(t);
  check_or_skip(report, s,
                hl::format("own occupancy calculation = "
                           "hipOccupancyMaxActiveBlocksPerMultiprocessor, {}, {} block size(s)",
                           name, sizes),
                differ == 0, differ == 0 ? "" : hl::format("{} differ, {}", differ, first));
  if (kernel != Kernel::kTriad && kernel != Kernel::kFmaChain) return {};  // not swept
  int grid = 0, best = 0;
  HIP_CHECK(hipOccupancyMaxPotentialBlockSize(&grid, &best, occupancy::address(kernel), 0, 0));
  const auto [own_block, own_grid] = own ? s.calc.max_potential(a, 0) : std::pair<int, int>{};
  check_or_skip(report, s, "own choice = hipOccupancyMaxPotentialBlockSize, " + name,
                own_block == best && own_grid == grid,
                hl::format("API block {}, grid {}; calculator block {}, grid {}", best, grid,
                           own_block, own_grid));
  return {best, grid};
}

//! [article_grid]
// The article sized its grid-stride launch with
//     grid = (N + 256 * maxBlocks - 1) / (256 * maxBlocks)
// treating maxBlocks (from hipOccupancyMaxActiveBlocksPerMultiprocessor) as a device-wide
// count. It is per CU: the grid that makes every block resident at once is maxBlocks x CUs.
unsigned int article_grid(std::size_t n, unsigned int block, int max_blocks_per_cu) {
  const std::size_t per_block =
      static_cast<std::size_t>(block) * static_cast<std::size_t>(max_blocks_per_cu);
  return static_cast<unsigned int>(std::max<std::size_t>(1, (n + per_block - 1) / per_block));
}

unsigned int occupancy_grid(int max_blocks_per_cu, int compute_units) {
  return static_cast<unsigned int>(max_blocks_per_cu * compute_units);
}
//! [article_grid]

// 5. Both formulas at N and at the N where the article's grid is one block per CU.
void compare_article_grid(hl::Report& report, const Setup& s, occupancy::Problem& p) {
  const std::size_t small =
      std::min<std::size_t>(p.size(), std::size_t{s.block} * s.max_blocks * s.cus());
  const unsigned int full = occupancy_grid(s.max_blocks, s.cus());
  const std::string title = hl::format(
      "The article's grid against maxBlocks x CUs (triad, block {}, maxBlocks = {} per {})",
      s.block, s.max_blocks, kCu);
  hl::ResultTable t(
      "article_grid", title,
      {"N", "formula", "grid", "blocks per " + kCu, "resident rounds",
       hl::Column("elements per thread", "", 1), hl::Column("median", "ms", 4), "TB/s"});
  for (const std::size_t n : std::set<std::size_t, std::greater<>>{p.size(), small}) {
    for (const bool article : {true, false}) {
      const unsigned int grid = article ? article_grid(n, s.block, s.max_blocks) : full;
      const std::optional<double> ms = p.run(report, Kernel::kTriad, grid, s.block, 0, n);
      t.row({n, article ? "ceil(N / (block x maxBlocks))" : "maxBlocks x CUs", grid,
             1.0 * grid / s.cus(), 1.0 * grid / full, 1.0 * n / (1.0 * grid * s.block), ms,
             occupancy::rate(Kernel::kTriad, n, ms)});
    }
  }
  report.table(t);
  report.note(hl::format(
      "The article's grid grows with N and ignores the device: at N = {} it launches one block per "
      "{} (1/{} of the resident capacity); for large N it launches many rounds of blocks,\nwhich "
      "works, but only because the grid-stride loop also covers any grid.",
      small, kCu, s.max_blocks));
}

// 6. Dynamic shared memory is reserved for every block, used or not, so fewer blocks fit.
void dynamic_shared_memory(hl::Report& report, const Setup& s, occupancy::Problem& p) {
  const std::string title = hl::format(
      "Dynamic shared memory per block lowers residency (triad, block {}; the kernel does not even "
      "use it)",
      s.block);
  hl::ResultTable t("dynamic_shared", title,
                    {"dynamic shared bytes", "calculator", "API", hl::Column("occupancy", "%", 1),
                     "grid", hl::Column("median", "ms", 4), "TB/s"});
  const hipFuncAttributes& triad = s.of(Kernel::kTriad);
  const int block = static_cast<int>(s.block);
  bool agree = true;
  int sizes = 0;
  for (const std::size_t kib : {0, 8, 16, 32, 48}) {
    const std::size_t bytes = kib * 1024;
    if (bytes + triad.sharedSizeBytes > s.limits.shared_per_block) break;  // the sizes grow
    ++sizes;
    const int api = occupancy::max_active_blocks(Kernel::kTriad, block, bytes);
    std::optional<int> own;
    if (s.calc.models()) own = s.calc.predict(triad, block, bytes).blocks;
    agree = agree && (!own || *own == api);
    const unsigned int grid = occupancy_grid(std::max(api, 1), s.cus());
    const std::optional<double> ms = p.run(report, Kernel::kTriad, grid, s.block, bytes);
    t.row({bytes, own, api, s.calc.occupancy_percent(api, block), grid, ms,
           occupancy::rate(Kernel::kTriad, p.size(), ms)});
  }
  report.table(t);
  check_or_skip(
      report, s,
      hl::format(
          "own occupancy calculation = API with dynamic shared memory, triad, block {}, {} sizes",
          s.block, sizes),
      agree);
}

// 7. The same body with and without __launch_bounds__, each at its occupancy grid and, for the
// longest grid-stride loop, at one block per CU.
void register_pressure(hl::Report& report, const Setup& s, occupancy::Problem& p) {
  const int block = occupancy::kBoundedBlock, hint = occupancy::kLaunchBoundsHint;
  hl::ResultTable t(
      "register_pressure",
      hl::format("Registers per thread lower residency; __launch_bounds__({}, {}) caps them", block,
                 hint),
      {"kernel", "registers per thread", "spill bytes per thread", "API blocks",
       hl::Column("occupancy", "%", 1), "grid", hl::Column("median", "ms", 4), "x unbounded"});
  std::optional<double> unbounded_ms;
  int api[2] = {};
  for (const Kernel k : {Kernel::kRegistersUnbounded, Kernel::kRegistersBounded}) {
    const bool bounded = k == Kernel::kRegistersBounded;
    api[bounded] = occupancy::max_active_blocks(k, block);
    const unsigned int grid = occupancy_grid(std::max(api[bounded], 1), s.cus());
    const std::optional<double> ms = p.run(report, k, grid, block);
    p.run(report, k, static_cast<unsigned int>(s.cus()), block);
    if (!bounded) unbounded_ms = ms;
    t.row({occupancy::name(k), s.of(k).numRegs, s.of(k).localSizeBytes, api[bounded],
           s.calc.occupancy_percent(api[bounded], block), grid, ms,
           ms ? std::optional<double>(*unbounded_ms / *ms) : std::nullopt});
  }
  report.table(t);
#if defined(__HIP_PLATFORM_AMD__)
  report.note(
      hl::format("On AMD the second __launch_bounds__ number ({}) is the minimum waves per SIMD, a "
                 "target for the register allocation; the API shows the result.",
                 hint));
#else
  // CUDA's second number is a promise the compiler keeps by capping registers: that many
  // blocks of 256 threads fit by registers, so the API must predict at least that many.
  report.check(hl::format("__launch_bounds__({}, {}) gives >= {} resident blocks per SM (API)",
                          block, hint, hint),
               api[1] >= hint, hl::format("API says {}, unbounded {}", api[1], api[0]));
#endif
  report.note(
      "More resident blocks is not automatically faster: the capped kernel may spill values to "
      "memory (spill bytes above), and that traffic costs time.");
}

// 9. A correctly sized grid should be as fast as the best launch of the sweep, and far faster
// than one block per CU. Each declared check is reported for the kernel it measures.
void report_speed(hl::Report& report, const Setup& s, const SweepResult& memory,
                  const SweepResult& compute, const hl::SpeedCheck& vs_best,
                  const hl::SpeedCheck& vs_one) {
  const auto of = [](hl::SpeedCheck check, const char* kernel) {
    check.name = kernel + (": " + check.name);
    return check;
  };
  const double triad_vs_best = memory.occupancy_rate / memory.best_rate;
  const double triad_vs_one = memory.occupancy_rate / memory.one_per_cu_rate;
  report.note("");
  report.speed(of(vs_best, "triad"), triad_vs_best);
  report.speed(of(vs_best, "fma_chain"), compute.occupancy_rate / compute.best_rate);
  report.speed(of(vs_one, "triad"), triad_vs_one);
  report.summary(hl::format(
      "occupancy grid {} x {} (block {}): triad {:.2} TB/s = {:.2} x best, {:.2} x one block per "
      "{}",
      s.max_blocks, s.cus(), s.block, memory.occupancy_rate, triad_vs_best, triad_vs_one, kCu));
}

}  // namespace

int main(int argc, char** argv) {
  hl::LessonCli cli(
      "lesson04_occupancy",
      "Lesson 04: size grid-stride launches from occupancy, and compute occupancy yourself",
      std::int64_t{1} << 26);
  std::int64_t block_option = 256;
  cli.add_block_size(block_option, hl::BlockRule::kWholeWarps);  // 1. (whole warps of 32)
  const hl::SpeedCheck& vs_best =
      cli.add_speed_check(hl::at_least("occupancy grid / best of sweep", "--min-occupancy-vs-best",
                                       HIP_LESSONS_04_MIN_OCCUPANCY_VS_BEST));
  const hl::SpeedCheck& vs_one = cli.add_speed_check(
      hl::at_least("occupancy grid / one block per CU", "--min-vs-one-block-per-cu",
                   HIP_LESSONS_04_MIN_VS_ONE_BLOCK_PER_CU));
  const hl::SpeedCheck& trace_cost = cli.add_speed_check(hl::at_most(
      "traced / untraced triad", "--max-trace-overhead", HIP_LESSONS_04_MAX_TRACE_OVERHEAD));
  cli.add_trace_output();

  return hl::run_lesson(cli, argc, argv, [&](hl::Report& report) {
    const hl::Device device = hl::open_device(cli.options().device);
    const unsigned int block =  // 1. (this device's warp size and largest block)
        hl::checked_block_size(device, block_option, hl::BlockRule::kWholeWarps);
    report.facts(device.facts());
    const occupancy::Limits limits = occupancy::read_limits(device);  // 2.
    report.table(occupancy::limits_table(limits));
    Setup s{limits, occupancy::Calculator(limits), occupancy::kernel_attributes(report),
            block};  // 3.

    report.note(
        hl::format("\nOccupancy = resident {}s / {} slots per {} ({} here). Blocks become resident "
                   "while every budget has room; the tightest budget sets the count.",
                   hl::kWarpName, hl::kWarpName, kCu, s.calc.slots()));
    if (!s.calc.models()) report.note("calculator: not applicable here: " + s.calc.why_not());
    for (const Kernel k : occupancy::kKernels) {
      s.potential[static_cast<int>(k)] = compare_with_runtime(report, s, k);  // 4.
    }

    s.max_blocks = occupancy::max_active_blocks(Kernel::kTriad, static_cast<int>(block));
    if (s.max_blocks < 1) {
      throw std::runtime_error(
          hl::format("the API fits no block of {} threads of the triad on a {}", block, kCu));
    }
    const unsigned int grid = occupancy_grid(s.max_blocks, s.cus());
    report.note(
        hl::format("\nOccupancy-sized grid-stride launch of the triad: maxBlocks = {} per {} x {} "
                   "= grid {} blocks of {}",
                   s.max_blocks, kCu, s.cus(), grid, block));
    report.fact("occupancy_grid", grid);
    report.fact("max_blocks_per_cu", s.max_blocks);

    const hl::CommonOptions& options = cli.options();
    hl::GpuStream stream;  // timed in the tour and --speed-check, run once under --check:
    const auto plan =
        options.timed() ? std::optional(hl::TimingPlan{3, options.repeat}) : std::nullopt;
    std::optional<SweepResult> memory, compute;
    for (const auto& [n, n_compute] : occupancy::problem_sizes(options)) {
      hl::require_device_memory(3 * (n + n_compute) * sizeof(float), hl::format("--size {}", n));
      report.fact("elements", n);
      occupancy::Problem triad(n, options.seed, plan, stream);
      occupancy::Problem chain(n_compute, options.seed + 10, plan, stream);
      compare_article_grid(report, s, triad);   // 5.
      dynamic_shared_memory(report, s, triad);  // 6.
      register_pressure(report, s, chain);      // 7.
      memory = occupancy::sweep(report, triad, Kernel::kTriad, s.block, s.potential[0], s.limits,
                                s.of(Kernel::kTriad));  // 8.
      compute = occupancy::sweep(report, chain, Kernel::kFmaChain, s.block, s.potential[1],
                                 s.limits, s.of(Kernel::kFmaChain));
    }
    if (memory && compute) report_speed(report, s, *memory, *compute, vs_best, vs_one);    // 9.
    occupancy::see_residency(report, s.limits, block, options, plan, stream, trace_cost);  // 10.
    if (plan) return;  // under --check nothing was timed: the run ends with the checks' summary
    report.summary(report.failures() == 0
                       ? hl::format("calculator and kernels checked; occupancy grid {}", grid)
                       : "checks failed");
  });
}
