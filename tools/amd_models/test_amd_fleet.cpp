/// \file tools/amd_models/test_amd_fleet.cpp
/// \brief Every AMD GPU of the simulated fleet (fleet.tsv) x HIP 5.2, 5.7, 6.2, 7.x x an
/// environment (none, ROC_GLOBAL_CU_MASK, HSA_CU_MASK, HIP_VISIBLE_DEVICES,
/// GPU_ENABLE_WGP_MODE=0, DEBUG_CLR_AQL_BARRIER_OPT=1) runs each lesson's AMD decisions with the
/// lesson's default options: the functions the binaries call, fed with what HIP would report
/// there (hl::describe_amd_device(), as amd_mask_device() is). Each cell must come out as "runs,
/// every enforced check able to pass, no mask the driver model says hangs" or as a skip or
/// refusal that names its reason; a default refused where a valid one exists fails. What the
/// hardware does comes from the fleet's rows and the driver model (cu_mask_map.hpp,
/// hip_queue_mask.hpp), never from the rules under test.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "amd_residency.hpp"
#include "cu_partition.hpp"
#include "fleet.hpp"
#include "hip_lessons/amd_cu_masks.hpp"
#include "hip_lessons/errors.hpp"
#include "hip_lessons/format.hpp"
#include "hip_queue_mask.hpp"
#include "one_queue_traces.hpp"
#include "tenants.hpp"

namespace hl = hip_lessons;
using amd_models::FleetGpu;

namespace {

const std::vector<FleetGpu>& fleet() {
  static const std::vector<FleetGpu> gpus = amd_models::read_fleet(HIP_LESSONS_FLEET_TSV);
  return gpus;
}

/// HIP_VERSION of the releases the fleet runs: 5.2.3, 5.7.0, 6.2.2 and a 7.x.
constexpr int kReleases[] = {50221153, 50731921, 60241134, 70200000};

enum class Env { kNone, kGlobalMask, kHsaCuMask, kHipVisible, kCuMode, kBarrierOpt };
constexpr Env kEnvs[] = {Env::kNone,       Env::kGlobalMask, Env::kHsaCuMask,
                         Env::kHipVisible, Env::kCuMode,     Env::kBarrierOpt};

/// One cell: a GPU, a release, an environment, as the process sees them.
struct Cell {
  const FleetGpu* gpu;
  int hip_version;
  Env env;
  std::map<std::string, std::string> vars;  ///< the environment
  std::string name;
  int rocr_gpu = 0;  ///< ROCr's index of the GPU the lesson uses (--device 0)
};

const char* lookup(const char* name, const void* context) {
  const auto& vars = *static_cast<const std::map<std::string, std::string>*>(context);
  const auto found = vars.find(name);
  return found == vars.end() ? nullptr : found->second.c_str();
}

bool wgp_mode(const Cell& c) {
  return c.gpu->wgp && hl::hip_counts_wgps(lookup("GPU_ENABLE_WGP_MODE", &c.vars), c.hip_version);
}

/// What HIP reports as physical units (hipDeviceAttributePhysicalMultiProcessorCount): CUs, or
/// WGPs in WGP mode (ROCm/clr rocm-6.2.2 rocdevice.cpp:1196, maxComputeUnits_ halved).
int hip_physical_units(const Cell& c) { return wgp_mode(c) ? c.gpu->cus / 2 : c.gpu->cus; }

std::vector<Cell> cells() {
  std::vector<Cell> all;
  for (const FleetGpu& gpu : fleet()) {
    for (const int release : kReleases) {
      for (const Env env : kEnvs) {
        Cell c{&gpu, release, env, {}, "", 0};
        std::string what = "no variable";
        if (env == Env::kGlobalMask) {
          // The lower half of HIP's digits (on RDNA in WGP mode, every WGP: the README's 0xffff).
          const int digits = gpu.cus / 4;  // HIP reads CUs / 4 digits (WGP mode too)
          c.vars["ROC_GLOBAL_CU_MASK"] = "0x" + std::string(std::max(1, digits / 2), 'f');
        } else if (env == Env::kHsaCuMask) {
          c.vars["HSA_CU_MASK"] = hl::format("0:0-{}", gpu.cus / 2 - 1);
        } else if (env == Env::kHipVisible) {
          c.vars["HIP_VISIBLE_DEVICES"] = "1";
          c.rocr_gpu = 1;
        } else if (env == Env::kCuMode) {
          c.vars["GPU_ENABLE_WGP_MODE"] = "0";
        } else if (env == Env::kBarrierOpt) {
          c.vars["DEBUG_CLR_AQL_BARRIER_OPT"] = "1";
        }
        for (const auto& [name, value] : c.vars) what = name + "=" + value;
        c.name = hl::format("{} ({}), HIP {}, {}", gpu.shape, gpu.arch, release, what);
        all.push_back(c);
      }
    }
  }
  return all;
}

/// The device as the lesson sees it: describe_amd_device(), as amd_mask_device() calls it.
hl::AmdMaskDevice seen(const Cell& c) {
  return hl::describe_amd_device(c.gpu->arch + ":sramecc+:xnack-", c.hip_version,
                                 hip_physical_units(c), c.gpu->hip7_xccs, 0, lookup, &c.vars);
}

/// HSA_CU_MASK's CUs of the GPU in use, as ROCr applies them (from the cell, not the rules).
std::optional<hl::CuMask> hsa_truth(const Cell& c) {
  if (c.env != Env::kHsaCuMask) return std::nullopt;
  return hl::cu_mask_range(0, c.gpu->cus / 2);
}

/// What a queue of a stream with HIP bits \p mask runs on, or why it does not run as asked.
struct Ran {
  std::string problem;
  amd_models::DriverPlacement placement;
};

Ran run_stream(const Cell& c, const hl::AmdMaskDevice& device, const hl::CuMask& mask) {
  Ran ran;
  const amd_models::QueueMask queue =
      amd_models::hip_stream_queue_mask(device, mask, c.gpu->cus, hsa_truth(c));
  if (!queue.created) {
    ran.problem = "the queue is refused: " + queue.why;
    return ran;
  }
  ran.placement = amd_models::driver_placement(c.gpu->topology, queue.cu_ids);
  for (int x = 0; x < c.gpu->topology.xccs; ++x) {
    if (ran.placement.per_xcc[x] == 0) {
      ran.problem = hl::format("XCC {} gets no CU: the queue hangs", x);
    }
  }
  return ran;
}

/// CUs of one unit HIP reports.
int cus_per_unit(const hl::AmdMaskDevice& device) { return device.wgp_mode ? 2 : 1; }

/// The CUs every queue of the process may use (the whole-device run's): the global mask's bits
/// on the device, widened as HIP widens them, inside HSA_CU_MASK.
amd_models::DriverPlacement whole_device(const Cell& c, const hl::AmdMaskDevice& device) {
  hl::CuMask all = hl::cu_mask_range(0, c.gpu->cus);
  if (device.global_mask) {
    all = amd_models::hip_stream_queue_mask(device, *device.global_mask, c.gpu->cus, std::nullopt)
              .cu_ids;
  }
  if (const auto hsa = hsa_truth(c)) {
    for (std::size_t w = 0; w < all.words.size(); ++w) all.words[w] &= hsa->words[w];
  }
  return amd_models::driver_placement(c.gpu->topology, all);
}

/// multiProcessorCount as HIP reports it: ROC_GLOBAL_CU_MASK's bits (halved in WGP mode,
/// ROCm/clr rocm-6.2.2 rocdevice.cpp:3433-3434), else the physical units.
int multiprocessor_count(const hl::AmdMaskDevice& device) {
  if (!device.global_mask) return device.physical_units;
  return device.wgp_mode ? device.global_mask->count() / 2 : device.global_mask->count();
}

/// How a cell came out: "runs", "skip: ...", "refused: ...", or "FAIL: ...".
struct Outcome {
  std::string text;
  bool failed() const { return text.rfind("FAIL", 0) == 0; }
};

Outcome fail(const std::string& why) { return {"FAIL: " + why}; }

/// Whether some --partition k would plan two partitions (lesson 06) on \p device.
bool some_lesson06_partition_fits(const hl::AmdMaskDevice& device) {
  for (int k = 1; k <= device.physical_units * 2; ++k) {
    try {
      hl::plan_partitions(device, {k, k});
      return true;
    } catch (const std::runtime_error&) {
    }
  }
  return false;
}

bool some_lesson08_split_fits(const hl::AmdMaskDevice& device) {
  for (int k = 1; k <= device.physical_units * 2; ++k) {
    try {
      sharing::amd_split(device, k);
      return true;
    } catch (const std::runtime_error&) {
    }
  }
  return false;
}

// Lesson 06's AMD --scaling-tolerance (its CMakeLists.txt), passed in by this test's CMake.
constexpr double kScalingTolerance = HIP_LESSONS_06_SCALING_TOLERANCE;

double worst_se_ratio = 0;  // NEW-6: the largest slowest-engine / ideal time ratio seen
std::string worst_se_cell;

/// Lesson 06 with its defaults: --partition not given, steps 1-3.
Outcome lesson06(const Cell& c) {
  hl::AmdMaskDevice device;
  int k = 0;
  cu_masking::PartitionRules rules;
  try {
    device = seen(c);
    k = cu_masking::partition_size(0, device);
    rules = cu_masking::amd_partition_rules(device);  // partition_rules()
    hl::plan_partitions(device, {k, k});              // checked_partition_rules()
    if (2 * cu_masking::expected_grant(rules, k) > rules.units) {
      throw hl::UsageError(hl::format("two partitions of {} do not fit in {}", k, rules.units));
    }
  } catch (const hl::SkipError& skip) {
    return {std::string("skip: ") + skip.what()};
  } catch (const hl::UsageError& refusal) {
    if (some_lesson06_partition_fits(device)) {
      return fail(hl::format("the default --partition {} is refused ({}) where a valid size exists",
                             k, refusal.what()));
    }
    return {std::string("refused: ") + refusal.what()};
  }
  // Step 2's N: the whole device's units, which must be the CUs the whole-device run gets.
  const int reported = multiprocessor_count(device);
  const int n = cu_masking::whole_device_units(device, reported);
  const amd_models::DriverPlacement whole = whole_device(c, device);
  if (n * cus_per_unit(device) != whole.cus) {
    return fail(
        hl::format("step 2 takes N = {} units, but the whole-device run gets {} CUs "
                   "({} per unit): the scaling check compares with the wrong ideal",
                   n, whole.cus, cus_per_unit(device)));
  }
  for (const std::vector<int>& request : cu_masking::partition_requests(rules, k)) {
    const std::vector<hl::CuMask> masks = hl::plan_partitions(device, request);
    std::vector<amd_models::DriverPlacement> placed;
    for (std::size_t i = 0; i < masks.size(); ++i) {
      const Ran ran = run_stream(c, device, masks[i]);
      if (!ran.problem.empty())
        return fail(hl::format("partition {}: {}", masks[i].ids(), ran.problem));
      if (ran.placement.cus != request[i] * cus_per_unit(device)) {
        return fail(
            hl::format("a partition of {} units gets {} CUs", request[i], ran.placement.cus));
      }
      // Step 2 judges time on k units against N/k: with work split evenly over the shader
      // engines that have CUs, the slowest engine sets the pace (the README's premise).
      int engines = 0, thinnest = 1 << 30;
      for (const int n_se : ran.placement.per_se) {
        if (n_se > 0) ++engines, thinnest = std::min(thinnest, n_se);
      }
      const double ratio = static_cast<double>(ran.placement.cus) / (engines * thinnest);
      if (ratio > worst_se_ratio) worst_se_ratio = ratio, worst_se_cell = c.name;
      if (ratio - 1 > kScalingTolerance) {
        return fail(
            hl::format("partition {} runs at its thinnest engine's pace, {:.3} x the "
                       "ideal, past the scaling tolerance {}",
                       masks[i].ids(), ratio, kScalingTolerance));
      }
      placed.push_back(ran.placement);
    }
    if (placed.size() == 2) {
      for (const std::string& id : placed[0].ids) {
        if (std::binary_search(placed[1].ids.begin(), placed[1].ids.end(), id)) {
          return fail("the side-by-side partitions share CU " + id);
        }
      }
    }
  }
  return {hl::format("runs (--partition {})", k)};
}

/// Lesson 08 with its defaults: --partition not given, the one-process split and the
/// per-process HSA_CU_MASK setting.
Outcome lesson08(const Cell& c) {
  hl::AmdMaskDevice device;
  int k = 0;
  std::array<hl::CuMask, 2> split;
  try {
    device = seen(c);
    k = sharing::partition_size(0, device);
    split = sharing::amd_split(device, k);  // plan_amd_partitions(), split_the_gpu()
  } catch (const hl::SkipError& skip) {
    return {std::string("skip: ") + skip.what()};
  } catch (const hl::UsageError& refusal) {
    if (some_lesson08_split_fits(device)) {
      return fail(hl::format("the default --partition {} is refused ({}) where a valid one exists",
                             k, refusal.what()));
    }
    return {std::string("refused: ") + refusal.what()};
  }
  // The aggressor's grid (kernels.hpp aggressor_blocks()): blocks per unit x grid_units(), with
  // multiProcessorCount as HIP reports it. In the unprotected settings its stream may use every
  // CU the whole-device run gets; a grid counting fewer units leaves the victim free ones.
  const int reported = multiprocessor_count(device);
  const int grid = hl::grid_units(device, reported);
  const amd_models::DriverPlacement whole = whole_device(c, device);
  if (grid * cus_per_unit(device) != whole.cus) {
    return fail(
        hl::format("the aggressor's grid counts {} units ({} CUs), but its queue may use {} CUs",
                   grid, grid * cus_per_unit(device), whole.cus));
  }
  const Ran victim = run_stream(c, device, split[0]);
  const Ran aggressor = run_stream(c, device, split[1]);
  if (!victim.problem.empty()) return fail("the victim's stream: " + victim.problem);
  if (!aggressor.problem.empty()) return fail("the aggressor's stream: " + aggressor.problem);
  for (const std::string& id : victim.placement.ids) {
    if (std::binary_search(aggressor.placement.ids.begin(), aggressor.placement.ids.end(), id)) {
      return fail("victim and aggressor share CU " + id);
    }
  }
  std::string per_process = "per-process masks";
  try {
    const std::array<std::string, 2> values = sharing::per_process_cu_masks(device, 0, k);
    for (int side = 0; side < 2; ++side) {
      const std::string& value = values[side];
      const int gpu = std::stoi(value.substr(0, value.find(':')));
      if (gpu != c.rocr_gpu) {
        return fail(
            hl::format("HSA_CU_MASK={} names ROCr's GPU {}, but the lesson runs on "
                       "ROCr's GPU {}: the GPU in use is not masked",
                       value, gpu, c.rocr_gpu));
      }
      const hl::CuMask ids = hl::parse_cu_list("HSA_CU_MASK", value.substr(value.find(':') + 1));
      const amd_models::QueueMask queue = amd_models::default_queue_mask(device, c.gpu->cus, ids);
      if (!queue.why.empty()) return fail(value + ": " + queue.why);
      const amd_models::DriverPlacement placed =
          amd_models::driver_placement(c.gpu->topology, queue.cu_ids);
      const amd_models::DriverPlacement& expected =
          side == 0 ? victim.placement : aggressor.placement;
      if (placed.ids != expected.ids) return fail(value + " does not give the split's CUs");
    }
  } catch (const hl::SkipError& skip) {
    per_process = std::string("per-process setting skipped: ") + skip.what();
  }
  return {hl::format("runs (--partition {}; {})", k, per_process)};
}

/// Lesson 04 step 4: the triad (256 threads, few registers, no LDS) at its occupancy grid,
/// traced. What HIP predicts is its own slot count; what a CU holds is the hardware's.
Outcome lesson04(const Cell& c) {
  const int block = 256, wave = 64, waves_per_block = block / wave;
  const int predicted = 4 * c.gpu->hip_waves / waves_per_block;
  const int hardware = 4 * c.gpu->hardware_waves / waves_per_block;
  const occupancy::ResidencyBound bound =
      occupancy::residency_bound(c.gpu->arch, predicted, block, wave);
  if (bound.skip) {
    if (bound.skip->empty()) return fail("a skip without a reason");
    return {"skip: " + *bound.skip};
  }
  if (!bound.holds(hardware)) {
    return fail(hl::format("step 4 wants {} to {} blocks on one CU, the hardware holds {}",
                           bound.least, bound.most, hardware));
  }
  return {"runs"};
}

/// Lesson 05 step 2 on AMD: 16 chains of 2 kernels breadth-first through one queue. With every
/// packet's barrier bit, one kernel at a time; with DEBUG_CLR_AQL_BARRIER_OPT on, each stream's
/// first kernel goes without it, and all 16 may start at once.
Outcome lesson05(const Cell& c) {
  const int chains = 16;
  const bool opt = c.env == Env::kBarrierOpt;
  std::vector<hl::TracedBlock> depth_blocks, breadth_blocks;
  for (int chain = 0; chain < chains; ++chain) {
    for (int step = 0; step < 2; ++step) {
      const double start = (chain * 2 + step) * 100.0;
      depth_blocks.push_back({"step", chain * 2 + step, chain, 0, 0, start, start + 100});
      const double bstart = opt && step == 0 ? 0.0 : (step * chains + chain) * 100.0 + 100.0;
      breadth_blocks.push_back({"step", step * chains + chain, chain, 0, 0, bstart, bstart + 100});
    }
  }
  const auto verdicts = queue_env::one_queue_rule(
      hl::Schedule(depth_blocks), hl::Schedule(breadth_blocks), chains, 2, 100.0,
      hl::Platform::kAmd, lookup("DEBUG_CLR_AQL_BARRIER_OPT", &c.vars));
  for (const hl::Verdict& v : verdicts) {
    if (v.held && !*v.held) return fail(v.name + ": " + v.detail);
    if (!v.held && v.detail.empty()) return fail(v.name + ": a skip without a reason");
  }
  return {"runs"};
}

}  // namespace

// The fleet's rows are the data the cells run on: every row is read and self-consistent.
TEST(Fleet, EveryRowIsReadAndItsCountsAddUp) {
  ASSERT_GE(fleet().size(), 16u);
  for (const FleetGpu& gpu : fleet()) {
    int per_xcc = 0;
    for (const int n : gpu.topology.active_cus) per_xcc += n;
    EXPECT_EQ(per_xcc * gpu.topology.xccs, gpu.cus) << gpu.shape;
    EXPECT_EQ(static_cast<int>(gpu.topology.active_cus.size()),
              gpu.topology.shader_engines * gpu.topology.arrays_per_engine)
        << gpu.shape;
    EXPECT_FALSE(gpu.source.empty()) << gpu.shape;
  }
}

// Golden values quoted from the sources (fleet.tsv's columns): the CU counts of AMD's spec page
// and LLVM's waves per SIMD, pinned here so that an edit of the data shows.
TEST(Fleet, GoldenValuesFromTheSources) {
  std::map<std::string, const FleetGpu*> by;
  for (const FleetGpu& gpu : fleet()) by[gpu.shape] = &gpu;
  EXPECT_EQ(by.at("MI300X SPX")->cus, 304);  // "304 (38 per XCD)"
  EXPECT_EQ(by.at("MI300A SPX")->cus, 228);  // "228 (38 per XCD)"
  EXPECT_EQ(by.at("MI355X SPX")->cus, 256);  // "256 (32 per XCD)"
  EXPECT_EQ(by.at("MI250X GCD")->cus, 110);  // "220 (110 per GCD)"
  EXPECT_EQ(by.at("RX 9070 XT")->cus, 64);
  EXPECT_EQ(by.at("MI50 / Radeon VII")->hardware_waves, 10);  // !isGFX10Plus: 10
  EXPECT_EQ(by.at("MI210")->hardware_waves, 8);               // isGFX90A: 8
  EXPECT_EQ(by.at("RX 6900 XT")->hardware_waves, 16);         // hasGFX10_3Insts: 16
  // Lesson 04's rule reads the hardware's slots from the arch; the fleet's rows say them too.
  for (const FleetGpu& gpu : fleet()) {
    EXPECT_EQ(occupancy::hardware_waves_per_simd(*occupancy::isa_version(gpu.arch)),
              gpu.hardware_waves)
        << gpu.shape;
  }
}

// The release thresholds (hip_thresholds.tsv) are data apart from the rule and the model; each
// must change behaviour exactly between "before" and "first", in the rule and in the model.
TEST(Thresholds, RuleAndModelChangeWhereTheSourceDoes) {
  const std::vector<amd_models::Threshold> all =
      amd_models::read_thresholds(HIP_LESSONS_THRESHOLDS_TSV);
  ASSERT_EQ(all.size(), 2u);
  const FleetGpu* rdna = nullptr;
  for (const FleetGpu& gpu : fleet()) rdna = gpu.wgp && !rdna ? &gpu : rdna;
  ASSERT_TRUE(rdna);
  for (const amd_models::Threshold& t : all) {
    for (const int version : {t.before, t.first}) {
      const bool has = version >= t.first;
      std::map<std::string, std::string> none;
      const Cell c{rdna, version, Env::kNone, none, "", 0};
      const hl::AmdMaskDevice device = seen(c);
      if (t.name == "wgp_bit_is_a_wgp") {
        // The rule: one HIP bit per WGP; the model: HIP sets both CUs of a bit.
        EXPECT_EQ(hl::mask_layout(device).cus_per_bit, has ? 2 : 1) << t.source << " @" << version;
        const amd_models::QueueMask queue = amd_models::hip_stream_queue_mask(
            device, hl::cu_mask_range(0, 1), rdna->cus, std::nullopt);
        EXPECT_EQ(queue.created && queue.cu_ids.count() == 2, has)
            << t.source << " @" << version << ": " << queue.why;
      } else if (t.name == "rocr_refuses_half_wgp") {
        hl::AmdMaskDevice cu_mode = device;
        cu_mode.wgp_mode = false;  // HIP bits are CUs: one bit is half a WGP
        const amd_models::QueueMask queue = amd_models::hip_stream_queue_mask(
            cu_mode, hl::cu_mask_range(0, 1), rdna->cus, std::nullopt);
        EXPECT_EQ(!queue.created, has) << t.source << " @" << version;
      } else {
        ADD_FAILURE() << "no check for threshold " << t.name;
      }
    }
  }
}

// The matrix: every GPU x release x environment, each lesson's AMD decisions.
TEST(Fleet, EveryGpuRunsEveryLessonsDefaultsOrSaysWhyNot) {
  int ran = 0, skipped = 0, refused = 0, total = 0;
  std::map<std::string, int> by_lesson;
  for (const Cell& c : cells()) {
    for (const auto& [lesson, outcome] :
         std::vector<std::pair<std::string, Outcome>>{{"lesson04", lesson04(c)},
                                                      {"lesson05", lesson05(c)},
                                                      {"lesson06", lesson06(c)},
                                                      {"lesson08", lesson08(c)}}) {
      ++total;
      EXPECT_FALSE(outcome.failed()) << lesson << " on " << c.name << ": " << outcome.text;
      if (outcome.text.rfind("runs", 0) == 0) ++ran, ++by_lesson[lesson];
      if (outcome.text.rfind("skip", 0) == 0) ++skipped;
      if (outcome.text.rfind("refused", 0) == 0) ++refused;
      if (std::getenv("HIP_LESSONS_FLEET_VERBOSE")) {
        std::printf("%s | %s | %s\n", lesson.c_str(), c.name.c_str(), outcome.text.c_str());
      }
    }
  }
  std::printf(
      "fleet: %zu GPUs x %zu releases x %zu environments x 4 lessons = %d cells: %d run, "
      "%d skip, %d refused; worst slowest-engine ratio %.3f (%s)\n",
      fleet().size(), std::size(kReleases), std::size(kEnvs), total, ran, skipped, refused,
      worst_se_ratio, worst_se_cell.c_str());
  EXPECT_EQ(total, static_cast<int>(fleet().size() * std::size(kReleases) * std::size(kEnvs) * 4));
  // NEW-6: lesson 06's AMD scaling tolerance leaves at least 25% headroom over the worst shape:
  // a partition at its thinnest engine's pace deviates worst_se_ratio - 1 from the ideal.
  EXPECT_GE(kScalingTolerance, 1.25 * (worst_se_ratio - 1))
      << "worst " << worst_se_ratio << " (" << worst_se_cell << ")";
  // Every GPU of the fleet holds the defaults (8 to 12 units, twice) many times over, and every
  // environment of the matrix leaves at least half of it: a refusal here is a default refused
  // where the driver model says one runs (the rules' own "no valid size" is no judge of that).
  EXPECT_EQ(refused, 0);
  // Most cells run: a matrix of skips would prove nothing.
  EXPECT_GT(by_lesson["lesson06"], static_cast<int>(fleet().size()) * 12);
  EXPECT_GT(by_lesson["lesson08"], static_cast<int>(fleet().size()) * 12);
}

// The audit's cases, by name (NEW-2, NEW-3, NEW-4, NEW-7).
TEST(Fleet, TheAuditsCases) {
  std::map<std::string, const FleetGpu*> by;
  for (const FleetGpu& gpu : fleet()) by[gpu.shape] = &gpu;
  {  // NEW-2: MI300A in SPX plans its default partition: 12 CUs, 2 per XCC.
    const Cell c{by.at("MI300A SPX"), 60241134, Env::kNone, {}, "", 0};
    EXPECT_EQ(cu_masking::partition_size(0, seen(c)), 12);
    EXPECT_EQ(sharing::partition_size(0, seen(c)), 12);
    EXPECT_EQ(cu_masking::partition_size(8, seen(c)), 8);  // given: the user's, refused later
  }
  {  // NEW-3: MI300X SPX, ROC_GLOBAL_CU_MASK=0xfeff: XCC 0 has one CU; no split leaves both
     // sides a CU there, so lesson 08 refuses rather than hang the aggressor's queue.
    Cell c{
        by.at("MI300X SPX"), 60241134, Env::kGlobalMask, {{"ROC_GLOBAL_CU_MASK", "0xfeff"}}, "", 0};
    EXPECT_THROW(sharing::amd_split(seen(c), 8), hl::UsageError);
    EXPECT_EQ(lesson08(c).text.rfind("refused", 0), 0u) << lesson08(c).text;
  }
  {  // NEW-4: RX 7900 XTX, HIP 6.2, ROC_GLOBAL_CU_MASK=0xffff: 16 WGPs, HIP reports 8.
    Cell c{by.at("RX 7900 XTX"),
           60241134,
           Env::kGlobalMask,
           {{"ROC_GLOBAL_CU_MASK", "0xffff"}},
           "",
           0};
    EXPECT_EQ(cu_masking::whole_device_units(seen(c), 8), 16);
    EXPECT_EQ(hl::grid_units(seen(c), 8), 16);          // lesson 08's aggressor grid counts 16 WGPs
    EXPECT_EQ(hl::grid_units(std::nullopt, 132), 132);  // NVIDIA: multiProcessorCount
  }
  {  // NEW-7: HIP_VISIBLE_DEVICES=1, --device 0: HSA_CU_MASK must name ROCr's GPU 1.
    Cell c{by.at("MI210"), 60241134, Env::kHipVisible, {{"HIP_VISIBLE_DEVICES", "1"}}, "", 1};
    EXPECT_EQ(sharing::per_process_cu_masks(seen(c), 0, 8)[0].substr(0, 2), "1:");
    c.vars["HIP_VISIBLE_DEVICES"] = "GPU-4b2c";
    EXPECT_THROW(sharing::per_process_cu_masks(seen(c), 0, 8), hl::SkipError);
  }
}

// ROCr's index of HIP's device (HIP_VISIBLE_DEVICES before CUDA_VISIBLE_DEVICES; the first
// invalid entry ends the list; a UUID cannot be mapped here) and HSA_CU_MASK's set for it.
TEST(RocrIndex, HipsVisibleDevicesListRocrsIndices) {
  EXPECT_EQ(hl::rocr_gpu_index(0, nullptr, nullptr), 0);
  EXPECT_EQ(hl::rocr_gpu_index(1, "3,2", nullptr), 2);
  EXPECT_EQ(hl::rocr_gpu_index(0, "", "5"), 5);  // an empty HIP_VISIBLE_DEVICES is not read
  EXPECT_EQ(hl::rocr_gpu_index(1, "3,x,2", nullptr), std::nullopt);  // the list ends at x
  EXPECT_EQ(hl::rocr_gpu_index(0, "GPU-4b2c", nullptr), std::nullopt);
  EXPECT_EQ(hl::hsa_cu_mask_for("0:0-7;1:8-15", 1)->ids(), "8-15");
  EXPECT_EQ(hl::hsa_cu_mask_for("0,2:0x0f", 2)->ids(), "0-3");
  EXPECT_EQ(hl::hsa_cu_mask_for("0:0-7", 1), std::nullopt);
  EXPECT_THROW(hl::hsa_cu_mask_for("0:0-7;0:8-15", 0), hl::SkipError);  // ROCr drops set 2
}
