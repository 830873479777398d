/// \file tools/amd_models/test_amd_cu_mask_rules.cpp
/// \brief Every AMD CU mask the lessons build, on every GPU shape they name, under HIP releases
/// from 5.2 to 7.x, checked against models of what HIP and ROCr do with it (hip_queue_mask.hpp)
/// and where the kernel driver puts its bits (cu_mask_map.hpp): no XCC left without a CU (the
/// queue would hang), no partitions that overlap, the units a lesson reports equal to the CUs
/// the driver enables, no mask HIP or ROCr refuses or quietly changes. And the reverse: what
/// the rules refuse, the models show to be wrong.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cu_mask_map.hpp"
#include "cu_partition.hpp"
#include "gpu_shapes.hpp"
#include "hip_lessons/amd_cu_masks.hpp"
#include "hip_lessons/environment.hpp"
#include "hip_lessons/errors.hpp"
#include "hip_queue_mask.hpp"
#include "tenants.hpp"

namespace hl = hip_lessons;
using amd_models::GpuShape;

namespace {

/// One shape under one HIP release and WGP setting.
struct Scenario {
  const GpuShape* shape;
  hl::AmdMaskDevice device;
  std::string name;
};

std::vector<Scenario> scenarios() {
  std::vector<Scenario> all;
  for (const GpuShape& shape : amd_models::gpu_shapes()) {
    for (const int version : {50200000, 50600000, 50731921, 60200000, 70200000}) {
      for (const bool wgp : {true, false}) {
        if (!wgp && !shape.topology.wgp_pairs) continue;  // WGP mode exists on gfx10+ only
        all.push_back({&shape, shape.device(version, wgp),
                       hl::format("{}, HIP {}, WGP mode {}", shape.topology.name, version,
                                  wgp && shape.topology.wgp_pairs ? "on" : "off")});
      }
    }
  }
  return all;
}

/// Where the driver puts a queue's CU IDs: the CUs enabled, and how many on each XCC.
struct Placement {
  std::set<std::tuple<int, int, int, int>> cus;  // (XCC, SE, SA, CU)
  std::vector<int> per_xcc;
};

Placement place(const amd_models::GpuTopology& topology, const hl::CuMask& cu_ids) {
  const std::vector<amd_models::CuLocation> map = amd_models::driver_cu_mask_map(topology);
  Placement placement;
  placement.per_xcc.assign(topology.xccs, 0);
  for (int bit = 0; bit < static_cast<int>(map.size()); ++bit) {
    if (!cu_ids.has(bit)) continue;
    const amd_models::CuLocation& c = map[bit];
    // On gfx10+ either bit of a pair enables the WGP: both of its CUs.
    for (int cu = c.cu; cu < c.cu + (topology.wgp_pairs ? 2 : 1); ++cu) {
      if (placement.cus.insert({c.xcc, c.se, c.sa, cu}).second) ++placement.per_xcc[c.xcc];
    }
  }
  return placement;
}

/// CUs per unit HIP reports: a WGP is two.
int cus_per_unit(const hl::AmdMaskDevice& device) { return device.wgp_mode ? 2 : 1; }

/// What a stream made with HIP bits \p mask runs on, or why it would not run as the lesson says:
/// HIP or ROCr refuses or changes the mask, an XCC gets no CU, or the CUs enabled are not
/// \p units units' worth.
struct Outcome {
  std::string problem;  // empty: runs on exactly `placement`
  Placement placement;
};

Outcome run_stream(const Scenario& s, const hl::CuMask& mask, int units) {
  Outcome out;
  const amd_models::QueueMask queue =
      amd_models::hip_stream_queue_mask(s.device, mask, s.shape->cus(), std::nullopt);
  if (!queue.created) {
    out.problem = "queue refused: " + queue.why;
    return out;
  }
  out.placement = place(s.shape->topology, queue.cu_ids);
  for (int xcc = 0; xcc < s.shape->topology.xccs; ++xcc) {
    if (out.placement.per_xcc[xcc] == 0) {
      out.problem = hl::format("XCC {} has no CU: its workgroups never run", xcc);
      return out;
    }
  }
  const int enabled = static_cast<int>(out.placement.cus.size());
  if (enabled != units * cus_per_unit(s.device)) {
    out.problem = hl::format("{} CUs enabled for {} units reported", enabled, units);
  }
  return out;
}

bool disjoint(const Placement& a, const Placement& b) {
  for (const auto& cu : a.cus) {
    if (b.cus.count(cu)) return false;
  }
  return true;
}

}  // namespace

// Lesson 06: for every --partition the command line takes (those that fit on the device and a
// few past it), the lesson either refuses k before any GPU work or makes partitions that run on
// exactly their units, each XCC with an equal share, the pair of step 3 disjoint.
TEST(Lesson06Masks, EveryPartitionItMakesRunsWhereItSaysOnEveryShape) {
  int plans = 0, refusals = 0;
  for (const Scenario& s : scenarios()) {
    const cu_masking::PartitionRules rules = cu_masking::amd_partition_rules(s.device);
    const hl::MaskLayout layout = hl::mask_layout(s.device);
    for (int k = 1; k <= rules.units + 8; ++k) {
      bool refused = false;
      try {
        hl::plan_partitions(s.device, {k, k});  // checked_partition_rules()
      } catch (const hl::UsageError&) {
        refused = true;
      }
      if (refused) {
        ++refusals;
        // Justified: off the step, or two do not fit.
        EXPECT_TRUE(k % layout.partition_step() != 0 || 2 * k > rules.units)
            << s.name << " k=" << k;
        continue;
      }
      for (const std::vector<int>& request : cu_masking::partition_requests(rules, k)) {
        const std::vector<hl::CuMask> masks = hl::plan_partitions(s.device, request);
        std::vector<Placement> placed;
        for (std::size_t i = 0; i < masks.size(); ++i) {
          EXPECT_EQ(hl::units_of(s.device, masks[i]), request[i]) << s.name << " k=" << k;
          EXPECT_FALSE(hl::cu_mask_problem(s.device, masks[i])) << s.name << " k=" << k;
          const Outcome out = run_stream(s, masks[i], request[i]);
          EXPECT_EQ(out.problem, "") << s.name << " k=" << k << " mask " << masks[i].ids();
          // The same share of every XCC: the work, dealt round-robin, stays even.
          for (const int n : out.placement.per_xcc) EXPECT_EQ(n, out.placement.per_xcc[0]);
          placed.push_back(out.placement);
          ++plans;
        }
        if (placed.size() == 2) {
          EXPECT_TRUE(disjoint(placed[0], placed[1])) << s.name << " k=" << k;
        }
      }
    }
  }
  EXPECT_GT(plans, 1000);
  EXPECT_GT(refusals, 100);
}

// The refusal on multi-XCC devices is needed: the first k bits, as the lesson planned before,
// leave XCCs without a CU for k below the XCC count (a hang) and uneven for other k.
TEST(Lesson06Masks, ContiguousMasksOffTheXccStepHangOrUnbalanceMi300) {
  for (const Scenario& s : scenarios()) {
    if (s.shape->topology.xccs == 1) continue;
    const int xccs = s.shape->topology.xccs;
    for (int k = 1; k < 4 * xccs; ++k) {
      if (k % xccs == 0) continue;
      const Outcome out = run_stream(s, hl::cu_mask_range(0, k), k);
      bool even = true;
      for (const int n : out.placement.per_xcc) even = even && n == out.placement.per_xcc[0];
      EXPECT_TRUE(k < xccs ? out.problem.find("has no CU") != std::string::npos : !even)
          << s.name << " k=" << k;
    }
  }
}

// --cu-mask: the rules refuse a mask exactly when the models show it would not run as asked
// (refused by ROCr, an XCC without CUs, a bit past the device, or outside the global mask).
TEST(CuMaskOption, RefusedExactlyWhenTheModelsShowAProblem) {
  std::mt19937 random(20261205);
  int refused = 0, accepted = 0;
  for (Scenario s : scenarios()) {
    const hl::MaskLayout layout = hl::mask_layout(s.device);
    for (const bool with_global : {false, true}) {
      s.device.global_mask = std::nullopt;
      if (with_global) {
        s.device.global_mask = hl::cu_mask_range(layout.bits / 2, layout.bits - layout.bits / 2);
      }
      for (int trial = 0; trial < 600; ++trial) {
        const double density = std::array<double, 4>{0.01, 0.05, 0.3, 0.9}[trial % 4];
        std::bernoulli_distribution bit_is_set(density);
        hl::CuMask mask;
        for (int b = 0; b < layout.bits + 4; ++b) {
          if (bit_is_set(random)) mask.set(b);
        }
        if (trial % 3 == 0) {  // whole pairs, which RDNA's rules accept more often
          for (int b = 0; b + 1 < layout.bits; b += 2) {
            if (mask.has(b)) mask.set(b + 1);
          }
        }
        bool beyond = false, outside = false;
        for (int b = 0; b < hl::kMaxMaskBits; ++b) {
          beyond = beyond || (mask.has(b) && b >= layout.bits);
          outside =
              outside || (mask.has(b) && s.device.global_mask && !s.device.global_mask->has(b));
        }
        const Outcome out = run_stream(s, mask, hl::units_of(s.device, mask));
        const bool model_says_bad = mask.count() == 0 || beyond || outside || !out.problem.empty();
        const auto problem = hl::cu_mask_problem(s.device, mask);
        EXPECT_EQ(problem.has_value(), model_says_bad)
            << s.name << (with_global ? " (global mask)" : "") << ": " << mask.ids()
            << " rule: " << problem.value_or("none") << "; model: " << out.problem;
        (problem ? refused : accepted)++;
      }
    }
  }
  EXPECT_GT(refused, 1000);
  EXPECT_GT(accepted, 1000);
}

// ROC_GLOBAL_CU_MASK: partitions are planned inside its bits, so HIP's AND leaves them as they
// are; they run on exactly their units.
TEST(GlobalCuMask, PartitionsStayInsideIt) {
  for (Scenario s : scenarios()) {
    const hl::MaskLayout layout = hl::mask_layout(s.device);
    const int digits = (s.device.wgp_mode ? 2 : 1) * s.device.physical_units / 4;
    for (const std::string& text :
         {std::string("0x") + std::string(std::max(1, digits / 2), 'f'), std::string(digits, '5'),
          std::string(digits / 2, 'c') + std::string(digits / 2, '0')}) {
      s.device.global_mask =
          hl::hip_global_cu_mask(text, s.device.physical_units, s.device.wgp_mode);
      if (!s.device.global_mask) continue;  // HIP dropped it (every CU)
      // A global mask that starves an XCC or splits a WGP breaks every queue: refused.
      // Its bits on the device (past it, ROCr drops them; on RDNA in WGP mode HIP reads a CU's
      // worth of digits for each WGP, so half of them are past it).
      hl::AmdMaskDevice unmasked = s.device;
      unmasked.global_mask = std::nullopt;
      hl::CuMask on_device;
      for (int b = 0; b < layout.bits; ++b) {
        if (s.device.global_mask->has(b)) on_device.set(b);
      }
      const Outcome whole = run_stream(s, on_device, hl::units_of(unmasked, on_device));
      if (!whole.problem.empty()) {
        EXPECT_THROW(hl::mask_layout(s.device), hl::UsageError) << s.name << " " << text;
        continue;
      }
      const cu_masking::PartitionRules rules = cu_masking::amd_partition_rules(s.device);
      for (int k = layout.partition_step(); 2 * k <= rules.units; k += layout.partition_step()) {
        for (const hl::CuMask& mask : hl::plan_partitions(s.device, {k, k})) {
          const amd_models::QueueMask queue =
              amd_models::hip_stream_queue_mask(s.device, mask, s.shape->cus(), std::nullopt);
          ASSERT_TRUE(queue.created) << s.name << " " << text;
          EXPECT_EQ(queue.cu_ids, hl::cu_ids_of(s.device, mask)) << s.name << " " << text;
          EXPECT_EQ(run_stream(s, mask, k).problem, "") << s.name << " " << text << " k=" << k;
        }
      }
    }
  }
}

// Lesson 08: for every --partition, the one-process split (two CU-masked streams) and the
// two-process one (HSA_CU_MASK in each process, applied by ROCr to every queue, HIP's copy and
// fill kernels too) give the victim exactly its units on every XCC, the aggressor the rest, and
// nothing shared; or the lesson refuses k. A value ROCr would refuse is never sent: ROCr would
// leave that process on every CU, the victim silently unprotected.
TEST(Lesson08Masks, TheVictimsPartitionIsItsOwnInOneProcessAndInTwo) {
  int splits = 0;
  for (const Scenario& s : scenarios()) {
    const int units = cu_masking::amd_partition_rules(s.device).units;
    for (int k = 1; k <= units; ++k) {
      std::array<hl::CuMask, 2> split;
      try {
        split = sharing::amd_split(s.device, k);
      } catch (const hl::UsageError&) {
        EXPECT_TRUE(k % hl::mask_layout(s.device).partition_step() != 0 || k == units)
            << s.name << " k=" << k;
        continue;
      }
      ++splits;
      const Outcome victim = run_stream(s, split[0], k);
      const Outcome aggressor = run_stream(s, split[1], units - k);
      EXPECT_EQ(victim.problem, "") << s.name << " k=" << k;
      EXPECT_EQ(aggressor.problem, "") << s.name << " k=" << k;
      EXPECT_TRUE(disjoint(victim.placement, aggressor.placement)) << s.name << " k=" << k;

      const std::array<std::string, 2> values = sharing::per_process_cu_masks(s.device, 0, k);
      for (int side = 0; side < 2; ++side) {
        // ROCr's parser takes the value (the rules of lesson 01's check of HSA_CU_MASK).
        EXPECT_FALSE(hl::check_environment_value("HSA_CU_MASK", values[side], hl::Platform::kAmd))
            << values[side];
        const hl::CuMask ids = hl::parse_cu_list("HSA_CU_MASK", values[side].substr(2));
        const amd_models::QueueMask queue =
            amd_models::default_queue_mask(s.device, s.shape->cus(), ids);
        EXPECT_EQ(queue.why, "") << s.name << " k=" << k << " " << values[side];
        const Placement placed = place(s.shape->topology, queue.cu_ids);
        const Placement& expected = side == 0 ? victim.placement : aggressor.placement;
        EXPECT_EQ(placed.cus, expected.cus) << s.name << " k=" << k << " " << values[side];
      }
    }
  }
  EXPECT_GT(splits, 300);
}

// The lesson READMEs' exercises suggest masks; none may be one that the rules refuse (and so
// hang or be changed) on a shape whose mask holds it.
TEST(ReadmeMasks, NoExerciseSuggestsAMaskTheRulesRefuse) {
  std::stringstream paths(HIP_LESSONS_MASK_READMES);
  int found = 0;
  for (std::string path; std::getline(paths, path, '|');) {
    std::ifstream readme(path);
    ASSERT_TRUE(readme) << path;
    const std::string text((std::istreambuf_iterator<char>(readme)), {});
    const std::regex option("--cu-mask[ =]([0-9][0-9,-]*[0-9])");
    for (auto m = std::sregex_iterator(text.begin(), text.end(), option);
         m != std::sregex_iterator(); ++m) {
      const hl::CuMask mask = hl::parse_cu_list("--cu-mask", (*m)[1]);
      ++found;
      for (const Scenario& s : scenarios()) {
        int highest = 0;
        for (int b = 0; b < hl::kMaxMaskBits; ++b) highest = mask.has(b) ? b : highest;
        if (highest >= hl::mask_layout(s.device).bits) continue;  // not this GPU's exercise
        EXPECT_FALSE(hl::cu_mask_problem(s.device, mask))
            << path << ": " << mask.ids() << " on " << s.name;
      }
    }
  }
  EXPECT_GT(found, 0) << "no --cu-mask in " << HIP_LESSONS_MASK_READMES;
}
