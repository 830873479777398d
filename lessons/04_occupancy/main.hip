/// \file lessons/04_occupancy/main.hip
/// \brief Lesson 04: size a grid-stride launch from occupancy, and compute occupancy yourself.
/// The steps are the README's Application flow.
#include <hip/hip_runtime.h>

#include <set>
#include <tuple>

#include "hip_lessons/lesson.hpp"
#include "hip_lessons/streams.hpp"
#include "hip_lessons/timeline.hpp"
#include "hip_lessons/traced_run.hpp"
#include "kernels.hpp"
#include "occupancy_calculator.hpp"

namespace hl = hip_lessons;
using occupancy::address;
using occupancy::Kernel;

namespace {

const std::string kCu = hl::kComputeUnitName;

// What step 1 finds, and the later steps size their launches with.
struct Sizing {
  occupancy::Limits limits;
  occupancy::Calculator calc;
  int block;                                       // --block
  int max_blocks = 0;                              // the API's triad blocks per CU at --block
  std::map<Kernel, hipFuncAttributes> attributes;  // hipFuncGetAttributes
  int cus() const { return limits.compute_units; }
  // That many blocks on every CU (with the API's maxBlocks: every block resident at once).
  unsigned int grid(int per_cu) const { return static_cast<unsigned int>(per_cu * cus()); }
  // A comparison the calculator cannot make (architecture, HIP release) is a skip, with reason.
  void compare(hl::StepResult& step, std::string name, bool agree, std::string why = "") const {
    if (calc.models())
      step.check(name, agree, why);
    else
      step.skip(name, calc.why_not());
  }
};

// Records a launch's comparison with its host reference in the step; returns its time.
std::optional<double> checked(hl::StepResult& step, const occupancy::Outcome& outcome) {
  step.check_match(outcome.check, outcome.mismatch, outcome.elements);
  return outcome.ms;
}

//! [budgets]
// A budget HIP on AMD refuses up to 5.7 (hipErrorInvalidValue, answered from 6.0): not reported.
std::optional<int> reported(hipDeviceAttribute_t attribute, int device) {
  int value = 0;
  if (hipDeviceGetAttribute(&value, attribute, device) == hipSuccess) return value;
  (void)hipGetLastError();  // the refusal is also this thread's last error: clear it
  return std::nullopt;
}
//! [budgets]

// The budgets of one CU, and the HIP release whose occupancy rules the calculator applies.
Sizing read_budgets(const hl::Device& device, int block) {
  occupancy::Limits l;
  const std::string arch = device.props.gcnArchName;  // from hipGetDeviceProperties
  l.arch = arch.substr(0, arch.find(':'));
  const int d = device.index;
  int value = 0;
  HIP_CHECK(hipDeviceGetAttribute(&l.major, hipDeviceAttributeComputeCapabilityMajor, d));
  HIP_CHECK(hipDeviceGetAttribute(&l.minor, hipDeviceAttributeComputeCapabilityMinor, d));
  HIP_CHECK(hipDeviceGetAttribute(&l.compute_units, hipDeviceAttributeMultiprocessorCount, d));
  HIP_CHECK(hipDeviceGetAttribute(&l.warp_size, hipDeviceAttributeWarpSize, d));
  HIP_CHECK(hipDeviceGetAttribute(&l.max_threads_per_cu,
                                  hipDeviceAttributeMaxThreadsPerMultiProcessor, d));
  HIP_CHECK(
      hipDeviceGetAttribute(&l.max_threads_per_block, hipDeviceAttributeMaxThreadsPerBlock, d));
  HIP_CHECK(hipDeviceGetAttribute(&l.regs_per_block, hipDeviceAttributeMaxRegistersPerBlock, d));
  HIP_CHECK(hipDeviceGetAttribute(&value, hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, d));
  l.shared_per_cu = static_cast<std::size_t>(value);
  HIP_CHECK(hipDeviceGetAttribute(&value, hipDeviceAttributeMaxSharedMemoryPerBlock, d));
  l.shared_per_block = static_cast<std::size_t>(value);
  l.regs_per_cu = reported(hipDeviceAttributeMaxRegistersPerMultiprocessor, d);
  l.max_blocks_per_cu = reported(hipDeviceAttributeMaxBlocksPerMultiProcessor, d);
  l.reserved_shared_per_block = reported(hipDeviceAttributeReservedSharedMemPerBlock, d);
  int runtime = 0;  // HIP's occupancy answer on AMD changed between releases
  HIP_CHECK(hipRuntimeGetVersion(&runtime));
  return Sizing{l, occupancy::Calculator(l, runtime), block, 0, {}};
}

//! [article_grid]
// The article sized its grid-stride launch with
//     grid = (N + 256 * maxBlocks - 1) / (256 * maxBlocks)
// treating maxBlocks (from hipOccupancyMaxActiveBlocksPerMultiprocessor) as a device-wide
// count. It is per CU: the grid that makes every block resident at once is maxBlocks x CUs.
unsigned int article_grid(std::size_t n, int block, int max_blocks_per_cu) {
  const auto per_block = static_cast<std::size_t>(block) * max_blocks_per_cu;
  return static_cast<unsigned int>(std::max<std::size_t>(1, (n + per_block - 1) / per_block));
}
//! [article_grid]

// 1. Per kernel, blocks of 1..32 whole warps (3, 6, 12, 20 exercise the rounding).
hl::StepResult residency_budgets(const hl::Device& device, Sizing& s) {
  hl::StepResult step("1. The budgets of one " + kCu + ", what each kernel uses, what fits");
  const occupancy::Limits& l = s.limits;
  const std::string warp = hl::kWarpName;
  hl::ResultTable limits("device_limits", "Residency budgets of one " + kCu + ", " + l.arch,
                         {"budget", "value"});
  limits.row({kCu + "s (a full grid is blocks per " + kCu + " x this)", l.compute_units})
      .row({warp + " slots", l.max_threads_per_cu / l.warp_size})
      .row({"registers (-: not reported, as by AMD up to HIP 5.7)", l.regs_per_cu})
      .row({"shared memory (bytes)", l.shared_per_cu})
      .row({"shared memory per block (bytes, without opt-in)", l.shared_per_block})
      .row({"reserved shared memory per block (AMD, HIP >= 6.0: 0)", l.reserved_shared_per_block})
      .row({"blocks (AMD, HIP >= 6.0: threads per CU / largest block, not a cap)",
            l.max_blocks_per_cu});
  const bool own = s.calc.models();
  step.facts(device.facts()).table(limits);
  for (const Kernel k : occupancy::kKernels) {
    hipFuncAttributes& a = s.attributes[k];
    HIP_CHECK(hipFuncGetAttributes(&a, address(k)));
    const std::string name = occupancy::name(k);
    hl::ResultTable t(
        "occupancy." + name,
        hl::format("Resident blocks per {}: {} ({} registers, {} static shared bytes, {} spill "
                   "bytes per thread, at most {} threads per block)",
                   kCu, name, a.numRegs, a.sharedSizeBytes, a.localSizeBytes, a.maxThreadsPerBlock),
        {"block", warp + "s per block", "by slots", "by registers", "by shared memory",
         "by block cap", "calculator", "API", hl::Column("occupancy", "%", 1), "limited by"});
    std::string differs;  // the first block size where the two differ
    for (const int warps : {1, 2, 3, 4, 6, 8, 12, 16, 20, 32}) {
      const int block = warps * l.warp_size;
      if (block > std::min(l.max_threads_per_block, a.maxThreadsPerBlock)) break;
      int api = 0;
      HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&api, address(k), block, 0));
      const occupancy::Prediction p = s.calc.predict(a, block, 0);  // nothing when not modelled
      if (p.blocks != api && differs.empty())
        differs = hl::format("block {}: calculator {}, API {}", block, p.blocks, api);
      t.row({block, warps, p.by_slots, p.by_registers, p.by_shared, p.by_block_cap,
             own ? hl::Cell(p.blocks) : hl::Cell(), api, s.calc.occupancy_percent(api, block),
             own ? p.limiter : "not modelled"});
    }
    s.compare(step.table(t),
              "own occupancy calculation = hipOccupancyMaxActiveBlocksPerMultiprocessor, " + name,
              differs.empty(), differs);
    if (k != Kernel::kTriad && k != Kernel::kFmaChain) continue;  // the swept kernels
    int block = 0, grid = 0;
    HIP_CHECK(hipOccupancyMaxPotentialBlockSize(&grid, &block, address(k), 0, 0));
    const auto [own_block, own_grid] = s.calc.max_potential(a, 0);
    s.compare(step, "own choice = hipOccupancyMaxPotentialBlockSize, " + name,
              own_block == block && own_grid == grid,
              hl::format("API block {}, grid {}; calculator block {}, grid {}", block, grid,
                         own_block, own_grid));
  }
  HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&s.max_blocks, address(Kernel::kTriad),
                                                         s.block, 0));
  return step.fact("max_blocks_per_cu", s.max_blocks).fact("occupancy_grid", s.grid(s.max_blocks));
}

// 2. The article's grid against maxBlocks x CUs, at N and at the N where the article's grid is
// one block per CU.
hl::StepResult grid_from_max_blocks(const Sizing& s, occupancy::Problem& p) {
  hl::StepResult step("2. The article's grid against maxBlocks x " + kCu + "s");
  hl::ResultTable article(
      "article_grid", "The article's grid against maxBlocks x " + kCu + "s (triad)",
      {"N", "formula", "grid", "blocks per " + kCu, "resident rounds",
       hl::Column("elements per thread", "", 1), hl::Column("median", "ms", 4), "TB/s"});
  const std::size_t n = p.count(Kernel::kTriad);
  const auto full = static_cast<unsigned int>(s.max_blocks * s.cus());  // maxBlocks x CUs
  for (const std::size_t m : std::set<std::size_t>{std::min<std::size_t>(n, s.block * full), n}) {
    for (const bool article_formula : {true, false}) {
      //! [occupancy_launch]
      // maxBlocks (step 1, hipOccupancyMaxActiveBlocksPerMultiprocessor) is per CU: the full grid,
      // maxBlocks x CUs, has every block resident at once; the grid-stride loop covers any m.
      const unsigned int grid = article_formula ? article_grid(m, s.block, s.max_blocks) : full;
      const auto ms = checked(step, p.verify(Kernel::kTriad, m, grid, s.block, 0, [&] {
        hipLaunchKernelGGL(occupancy::triad, dim3(grid), dim3(s.block), 0, p.stream, p.x.data(),
                           p.c.data(), p.y.data(), m, hl::BlockTrace{});
      }));
      //! [occupancy_launch]
      article.row({m,
                   article_formula ? "ceil(N / (block x maxBlocks))" : "maxBlocks x " + kCu + "s",
                   grid, 1.0 * grid / s.cus(), 1.0 * grid / full, 1.0 * m / grid / s.block, ms,
                   occupancy::rate(Kernel::kTriad, m, ms)});
    }
  }
  return step.fact("elements", n).table(article);
}

// 3. What lowers maxBlocks: dynamic shared memory (reserved, used or not), registers (capped by
// __launch_bounds__ at the price of spills). The register kernels also run at one per CU.
hl::StepResult lower_max_blocks(const Sizing& s, occupancy::Problem& p) {
  hl::StepResult step("3. What lowers maxBlocks: dynamic shared memory, registers");
  hl::ResultTable t("lower_residency", "What lowers maxBlocks: dynamic shared memory, registers",
                    {"kernel", "block", "dynamic shared bytes", "registers per thread",
                     "spill bytes per thread", "calculator", "API", hl::Column("occupancy", "%", 1),
                     "grid", hl::Column("median", "ms", 4)});
  const int bounded = occupancy::kBoundedBlock, hint = occupancy::kLaunchBoundsHint;
  std::map<Kernel, int> api;
  bool agree = true;
  std::vector<std::tuple<Kernel, int, std::size_t>> cases;  // kernel, block, dynamic shared
  for (const int kib : {0, 8, 16, 32, 48}) cases.emplace_back(Kernel::kTriad, s.block, kib * 1024);
  cases.emplace_back(Kernel::kRegistersUnbounded, bounded, 0);
  cases.emplace_back(Kernel::kRegistersBounded, bounded, 0);
  for (const auto& [kernel, block, shared] : cases) {
    const hipFuncAttributes& a = s.attributes.at(kernel);
    if (shared + a.sharedSizeBytes > s.limits.shared_per_block) continue;
    HIP_CHECK(
        hipOccupancyMaxActiveBlocksPerMultiprocessor(&api[kernel], address(kernel), block, shared));
    std::optional<int> own;  // the calculator's answer, where it models this device
    if (s.calc.models()) own = s.calc.predict(a, block, shared).blocks;
    agree = agree && (!own || *own == api[kernel]);
    const unsigned int grid = s.grid(std::max(api[kernel], 1));
    const std::optional<double> ms = checked(step, p.run(kernel, grid, block, shared));
    if (kernel != Kernel::kTriad) checked(step, p.run(kernel, s.cus(), block));
    t.row({occupancy::name(kernel), block, shared, a.numRegs, a.localSizeBytes, own, api[kernel],
           s.calc.occupancy_percent(api[kernel], block), grid, ms});
  }
  s.compare(step.table(t), "own occupancy calculation = API, dynamic shared memory and registers",
            agree);
  const std::string promise = hl::format(
      "__launch_bounds__({}, {}) gives >= {} resident blocks per {}", bounded, hint, hint, kCu);
#if defined(__HIP_PLATFORM_AMD__)  // there the second number asks for waves per SIMD
  return step.skip(promise, "on AMD it means waves per SIMD (amdgpu_waves_per_eu), not blocks");
#else  // CUDA's: a promise the compiler keeps by capping registers, so the API must agree
  return step.check(promise, api[Kernel::kRegistersBounded] >= hint,
                    hl::format("API {}, unbounded {}", api[Kernel::kRegistersBounded],
                               api[Kernel::kRegistersUnbounded]));
#endif
}

// 4. Each kernel at blocks of 64..1024 threads (and --block) with 1..32 blocks per CU (and the
// API's count): the occupancy grid should be as fast as the best, far faster than one per CU.
hl::StepResult sweep_launches(const Sizing& s, occupancy::Problem& p, const hl::SpeedCheck& vs_best,
                              const hl::SpeedCheck& vs_one) {
  hl::StepResult step("4. Block size x blocks per " + kCu + ": where the occupancy grid lands");
  for (const Kernel kernel : {Kernel::kTriad, Kernel::kFmaChain}) {
    const std::string name = occupancy::name(kernel);
    const bool memory = kernel == Kernel::kTriad;
    hl::ResultTable t("sweep_" + name, "Sweep: " + name + (memory ? ", memory-bound" : ""),
                      {"block", "blocks per " + kCu, "grid", hl::Column("median", "ms", 4),
                       memory ? "TB/s" : "TFLOP/s", "launch"});
    std::optional<double> occupancy, one_block_per_cu, best;
    const std::size_t n = p.count(kernel);
    for (const int block : std::set<int>{64, 128, 256, 512, 1024, s.block}) {
      if (block % s.limits.warp_size || block > s.attributes.at(kernel).maxThreadsPerBlock)
        continue;
      int api = 0;
      HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&api, address(kernel), block, 0));
      const bool chosen = block == s.block;
      for (const int m : std::set<int>{1, 2, 4, 8, 16, 32, std::max(api, 1)}) {
        const std::optional<double> ms = checked(step, p.run(kernel, s.grid(m), block));
        const std::optional<double> rate = occupancy::rate(kernel, n, ms);
        if (chosen && m == api) occupancy = rate;
        if (chosen && m == 1) one_block_per_cu = rate;
        best = std::max(best, rate);
        t.row({block, m, s.grid(m), ms, rate,
               chosen && m == api ? "occupancy grid"
               : chosen && m == 1 ? "one per " + kCu
                                  : ""});
      }
    }
    const std::string unit = memory ? "_tbps" : "_tflops";
    step.table(t)
        .measurement(name + "_occupancy" + unit, occupancy)
        .measurement(name + "_one_block_per_cu" + unit, one_block_per_cu)
        .measurement(name + "_best" + unit, best);
    if (!occupancy) continue;  // untimed (timed, every launch has a rate)
    step.speed(vs_best, *occupancy / *best, name);
    if (!memory) continue;
    step.speed(vs_one, *occupancy / *one_block_per_cu, name)
        .summary(hl::format("occupancy grid {} x {} (block {}): triad {:.2} TB/s = {:.2} x best, "
                            "{:.2} x one block per {}",
                            s.max_blocks, s.cus(), s.block, *occupancy, *occupancy / *best,
                            *occupancy / *one_block_per_cu, kCu));
  }
  return step;
}

// 5. The triad at its occupancy grid and at twice it, and the FMA chain at its occupancy grid,
// traced. A block's record starts after it became resident and ends before it leaves: a trace
// sees at most the truth, so fewer than predicted means it never saw the device full.
hl::StepResult trace_residency(hl::TraceFile& traces, const Sizing& s, occupancy::Problem& p,
                               const hl::SpeedCheck& overhead) {
  hl::StepResult step("5. The occupancy grids traced block by block");
  for (const auto& [kernel, waves] : {std::pair{Kernel::kTriad, 1}, std::pair{Kernel::kTriad, 2},
                                      std::pair{Kernel::kFmaChain, 1}}) {
    int predicted = 0;
    HIP_CHECK(
        hipOccupancyMaxActiveBlocksPerMultiprocessor(&predicted, address(kernel), s.block, 0));
    const unsigned int grid = s.grid(std::max(predicted, 1) * waves);
    const std::string run = hl::format("{}, {} x occupancy grid (grid {} x block {})",
                                       occupancy::name(kernel), waves, grid, s.block);
    hl::TracedRun traced(traces, run, grid);
    const std::optional<double> traced_ms = checked(
        step, p.run(kernel, grid, s.block, 0, 0, traced.reserve(occupancy::name(kernel), grid, 0)));
    const hl::Schedule schedule = traced.finish();
    step.figure(hl::timeline("Blocks resident per " + kCu + " over time (the first 8): " + run,
                             hl::rows_by_unit(schedule, 8), schedule.span_us(),
                             hl::TimelineStyle::kCount));
    const std::string check = "most blocks resident on one " + kCu +
                              " at once = hipOccupancyMaxActiveBlocksPerMultiprocessor, " + run;
    int measured = 0;  // the most blocks one unit held at once
    for (const auto& [unit, most] : schedule.peak_blocks_per_unit())
      measured = std::max(measured, most);
    const occupancy::ResidencyBound bound =
        occupancy::residency_bound(s.limits.arch, predicted, s.block, s.limits.warp_size);
    if (bound.skip)
      step.skip(check, *bound.skip);
    else
      step.schedule_check(
          check, bound.holds(measured),
          hl::format("predicted {}, measured {}{}", predicted, measured, bound.note));
    if (kernel == Kernel::kTriad && waves == 1 && traced_ms)  // the same launch, untraced
      step.speed(overhead, *traced_ms / *checked(step, p.run(kernel, grid, s.block)));
  }
  return step;
}

}  // namespace

int main(int argc, char** argv) {
  hl::LessonCli cli("lesson04_occupancy", "Lesson 04: size grid-stride launches from occupancy",
                    std::int64_t{1} << 26);
  std::int64_t block_option = 256;
  cli.add_block_size(block_option, hl::BlockRule::kWholeWarps);
  const hl::SpeedCheck& vs_best =
      cli.add_speed_check(hl::at_least("occupancy grid / best of sweep", "--min-occupancy-vs-best",
                                       HIP_LESSONS_04_MIN_OCCUPANCY_VS_BEST));
  const hl::SpeedCheck& vs_one = cli.add_speed_check(
      hl::at_least("occupancy grid / one block per CU", "--min-vs-one-block-per-cu",
                   HIP_LESSONS_04_MIN_VS_ONE_BLOCK_PER_CU));
  const hl::SpeedCheck& trace_cost = cli.add_speed_check(hl::at_most(
      "traced / untraced triad", "--max-trace-overhead", HIP_LESSONS_04_MAX_TRACE_OVERHEAD));
  cli.add_trace_output();

  return hl::run_lesson(cli, argc, argv, [&](hl::Lesson& lesson) {
    const hl::CommonOptions& options = lesson.options;
    const hl::Device device = hl::open_device(options.device);
    Sizing s = read_budgets(device, static_cast<int>(hl::checked_block_size(
                                        device, block_option, hl::BlockRule::kWholeWarps)));
    lesson.report.step(residency_budgets(device, s));  // 1.

    const hl::GpuStream stream;  // every launch is timed on it, or run once by --check
    const hl::RunOrTime runs(options);
    // --check: off-by-one guards (1, 255, 257), loops of several rounds (2^20 + 3).
    for (const std::size_t n : hl::per_mode<std::size_t>(
             options, options.size, {1, 255, 257, (std::size_t{1} << 20) + 3})) {
      occupancy::Problem p(n, options.seed, stream, runs);
      lesson.report.step(grid_from_max_blocks(s, p));             // 2.
      lesson.report.step(lower_max_blocks(s, p));                 // 3.
      lesson.report.step(sweep_launches(s, p, vs_best, vs_one));  // 4.
    }
    // 2^24 triad elements (201 MB, about 55 us on an H200) at least: a wave's blocks overlap.
    occupancy::Problem traced(std::max<std::size_t>(1 << 24, runs.timed() ? options.size : 0),
                              options.seed + 20, stream, runs);
    lesson.report.step(trace_residency(lesson.traces, s, traced, trace_cost));  // 5.
  });
}
