/// \file lessons/08_sharing_a_gpu/tenants.hpp
/// \brief The settings lesson 08 compares, the victim's latency percentiles, and what the
/// children report (their "@result" line and the traced moment of the victim's last launch).
/// Host code only; unit-tested in test_tenants.cpp.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "hip_lessons/amd_cu_masks.hpp"
#include "hip_lessons/child_process.hpp"
#include "hip_lessons/errors.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/platform.hpp"
#include "hip_lessons/schedule.hpp"
#include "hip_lessons/schedule_lines.hpp"
#include "hip_lessons/step_result.hpp"
#include "hip_lessons/timeline.hpp"

namespace sharing {

namespace hl = hip_lessons;

/// What a setting promises the victim, and so what the lesson checks of it.
enum class Protection {
  kNone,       ///< nothing keeps the aggressor away: the victim's latency must show it
  kPriority,   ///< the victim's stream has the highest priority: shown, not checked
  kPartition,  ///< the victim has compute units of its own: its latency stays near alone
};

/// One way to put the victim and the aggressor on one GPU.
struct Setting {
  const char* key;    ///< JSON key: "one_process_partition"
  const char* label;  ///< the table's and a timeline row's: "split"
  const char* name;   ///< "one process, partitioned"
  bool two_processes;
  Protection protection;
  const char* how;                 ///< the mechanism: "one process, green contexts"
  bool mps = false;                ///< both processes are clients of the lesson's MPS daemon
  bool aggressor_at_half = false;  ///< the aggressor's MPS client gets 50% of the SMs
  bool cu_mask_each = false;       ///< each process gets HSA_CU_MASK (AMD)
};

/// Whether a unit id in the victim's trace and the same id in the aggressor's trace name one
/// compute unit in setting \p s. Not under MPS with a thread percentage: there the aggressor's
/// client saw 66 SMs of the H200's 132 and its trace put 8 blocks of 256 threads on the SM id
/// of the victim's block while it ran, more threads than one SM holds beside the victim's 64
/// (an inference from this project's H200 runs, not NVIDIA documentation).
inline bool unit_ids_comparable(const Setting& s) { return !s.aggressor_at_half; }

/// The settings of this platform, in the order the lesson runs them.
inline std::vector<Setting> settings(hl::Platform platform) {
  std::vector<Setting> all = {
      {"one_process_plain", "plain", "one process, two streams", false, Protection::kNone,
       "one process, two plain streams"},
      {"one_process_priority", "prio", "one process, victim at top priority", false,
       Protection::kPriority, "hipStreamCreateWithPriority(greatest)"},
      {"one_process_partition", "split", "one process, partitioned", false, Protection::kPartition,
       platform == hl::Platform::kAmd ? "one process, CU-masked streams"
                                      : "one process, green contexts"},
      {"two_processes", "sliced", "two processes, time-sliced", true, Protection::kNone,
       "two processes, two contexts"},
  };
  if (platform == hl::Platform::kNvidia) {
    all.push_back({"mps", "MPS", "two processes under MPS", true, Protection::kNone,
                   "two processes, one MPS server", true});
    all.push_back({"mps_limited", "MPS 50%", "MPS, aggressor at 50% of SMs", true,
                   Protection::kPartition, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50", true, true});
  } else {
    all.push_back({"per_process_mask", "CU mask", "two processes, HSA_CU_MASK each", true,
                   Protection::kPartition, "HSA_CU_MASK in each process", false, false, true});
  }
  return all;
}

/// The --setting that makes a one-process child (--role both) run setting \p s.
inline const char* setting_flag(const Setting& s) {
  return s.protection == Protection::kPriority    ? "priority"
         : s.protection == Protection::kPartition ? "partition"
                                                  : "plain";
}

/// AMD: the victim's \p victim_units units and the aggressor's rest, as HIP mask bits planned
/// by the common rules (whole WGPs, the same share of every XCC, inside ROC_GLOBAL_CU_MASK and
/// HSA_CU_MASK). UsageError (exit 2) for a --partition they cannot honour, that leaves the
/// aggressor nothing, or that leaves an XCC without a CU of either side (a global mask with
/// fewer CUs on one XCC: the queue would hang); SkipError where the device's shape is unknown.
inline std::array<hl::CuMask, 2> amd_split(const hl::AmdMaskDevice& amd, int victim_units) {
  std::vector<hl::CuMask> plan;
  try {
    plan = hl::plan_partitions(amd, {victim_units}, /*rest=*/true);
  } catch (const hl::UsageError& refusal) {
    throw hl::UsageError(hl::format("--partition {}: {}", victim_units, refusal.what()));
  }
  if (plan[1].count() == 0) {
    throw hl::UsageError(
        hl::format("--partition {} leaves the aggressor no compute unit", victim_units));
  }
  for (int side = 0; side < 2; ++side) {
    if (const auto problem = hl::cu_mask_problem(amd, plan[side])) {
      throw hl::UsageError(hl::format("--partition {}: the {}'s mask {} cannot be used: {}",
                                      victim_units, side == 0 ? "victim" : "aggressor",
                                      plan[side].ids(), *problem));
    }
  }
  return {plan[0], plan[1]};
}

/// --partition when it is not given (\p option 0): 8 units on NVIDIA (\p amd nothing); on AMD
/// the smallest size of at least 8 that leaves the aggressor units of every XCC
/// (hl::default_partition_units(): 12 on an MI300A in SPX, 6 XCCs). Given, the option.
inline int partition_size(std::int64_t option, const std::optional<hl::AmdMaskDevice>& amd) {
  if (option > 0) return static_cast<int>(option);
  if (!amd) return 8;
  const int k = hl::default_partition_units(*amd, 1, /*leave_rest=*/true);
  try {
    amd_split(*amd, k);
  } catch (const std::runtime_error&) {  // the rest starves an XCC: try the next sizes
    for (int more = k; more <= amd->physical_units * 2; ++more) {
      try {
        amd_split(*amd, more);
        return more;
      } catch (const std::runtime_error&) {
      }
    }
  }
  return k;
}

/// AMD: the HSA_CU_MASK values that give the victim's process and the aggressor's the two sides
/// of amd_split() on HIP's GPU \p gpu, named by ROCr's index of it (AmdMaskDevice::rocr_index;
/// a skip, with the reason, where it is not known). HSA_CU_MASK counts CUs (ROCr flag.cpp), HIP's
/// bits may be WGPs: the values list CU IDs, a WGP's two CUs together (ROCr, from 5.3, refuses half
/// a WGP and then leaves the queue on every CU without a word). Nothing, with the reason, where
/// ROC_GLOBAL_CU_MASK is set: HIP gives every queue that mask, which ROCr would cut down to
/// HSA_CU_MASK and report as reduced, and HIP fails such a queue.
inline std::array<std::string, 2> per_process_cu_masks(const hl::AmdMaskDevice& amd, int gpu,
                                                       int victim_units) {
  if (amd.global_mask) {
    throw hl::SkipError(
        "ROC_GLOBAL_CU_MASK is set: HIP would give every queue that mask, which HSA_CU_MASK cuts "
        "down, and HIP fails a queue whose mask was cut (HSA_STATUS_CU_MASK_REDUCED)");
  }
  // HSA_CU_MASK counts ROCr's GPUs, HIP's --device \p gpu may not (HIP_VISIBLE_DEVICES).
  if (!amd.rocr_index && !amd.rocr_unknown.empty()) throw hl::SkipError(amd.rocr_unknown);
  const int rocr_gpu = amd.rocr_index.value_or(gpu);
  const std::array<hl::CuMask, 2> split = amd_split(amd, victim_units);
  return {hl::hsa_cu_mask_value(rocr_gpu, hl::cu_ids_of(amd, split[0])),
          hl::hsa_cu_mask_value(rocr_gpu, hl::cu_ids_of(amd, split[1]))};
}

/// The environments of a two-process setting's victim and aggressor: \p mps_client for both
/// under MPS, the 50% limit for the aggressor of "mps_limited", and with a CU mask per process
/// (AMD) \p cu_masks, the victim's and the aggressor's HSA_CU_MASK (per_process_cu_masks()).
inline std::pair<std::vector<hl::EnvSetting>, std::vector<hl::EnvSetting>> environments(
    const Setting& s, const std::vector<hl::EnvSetting>& mps_client,
    const std::array<std::string, 2>& cu_masks = {}) {
  std::vector<hl::EnvSetting> victim = mps_client, aggressor = mps_client;
  if (s.aggressor_at_half) aggressor.push_back({"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "50"});
  if (s.cu_mask_each) {
    victim.push_back({"HSA_CU_MASK", cu_masks[0]});
    aggressor.push_back({"HSA_CU_MASK", cu_masks[1]});
  }
  return {victim, aggressor};
}

/// The victim's latencies, in microseconds: median, 99th percentile (nearest rank), worst.
struct Latencies {
  double p50 = 0, p99 = 0, max = 0;
};

/// The percentiles of \p us (nearest rank: the smallest sample with at least p% of the samples
/// at or below it). Throws std::invalid_argument for no samples.
inline Latencies percentiles(std::vector<double> us) {
  if (us.empty()) throw std::invalid_argument("no latency samples");
  std::sort(us.begin(), us.end());
  const auto rank = [&](double p) {
    const auto k = static_cast<std::size_t>(std::ceil(p / 100.0 * us.size()));
    return us[std::max<std::size_t>(k, 1) - 1];
  };
  return {rank(50), rank(99), us.back()};
}

/// One traced block of one tenant, on the device clock.
struct TenantBlock {
  std::string tenant;   ///< "victim" or "aggressor"
  unsigned launch = 0;  ///< the victim's launch, or the aggressor's round
  unsigned block = 0;
  unsigned unit = 0;
  std::int64_t start_ns = 0, end_ns = 0;
};

/// The blocks of \p tenant's traced \p run (a Schedule a child sent with hl::schedule_lines())
/// in whole nanoseconds of the device clock.
inline std::vector<TenantBlock> tenant_blocks(const std::string& tenant, const hl::Schedule& run) {
  const std::int64_t origin = run.device_clock_origin_ns().value_or(0);
  const auto ns = [&](double us) { return origin + std::llround(us * 1000); };
  std::vector<TenantBlock> blocks;
  for (const hl::TracedBlock& b : run.blocks()) {
    blocks.push_back(
        {tenant, static_cast<unsigned>(b.launch), b.block, b.unit, ns(b.start_us), ns(b.end_us)});
  }
  return blocks;
}

/// The moment of a setting's last victim launch: the victim's block (\p victim, one block) and
/// every block of the aggressor rounds in \p aggressor that ran beside it: on its unit from
/// three aggressor blocks (\p block_ns each) before it to one after, or anywhere on the GPU
/// while it ran. Only the victim's block when it sent none.
inline std::vector<TenantBlock> moment_of(const std::vector<TenantBlock>& victim,
                                          const std::vector<TenantBlock>& aggressor,
                                          std::int64_t block_ns) {
  std::vector<TenantBlock> moment = victim;
  if (victim.empty()) return moment;
  const TenantBlock& v = victim.front();
  const std::int64_t from = v.start_ns - 3 * block_ns, to = v.end_ns + block_ns;
  std::set<unsigned> rounds;
  for (const TenantBlock& b : aggressor) {
    if ((b.unit == v.unit && b.end_ns >= from && b.start_ns <= to) ||
        (b.end_ns > v.start_ns && b.start_ns < v.end_ns)) {
      rounds.insert(b.launch);
    }
  }
  for (const TenantBlock& b : aggressor) {
    if (rounds.count(b.launch)) moment.push_back(b);
  }
  return moment;
}

/// The moment a setting's last victim launch ran: the victim's block and every block of the
/// aggressor rounds that ran beside it (Aggressor::finish()), as a schedule (stream 0 victim, 1
/// aggressor; launches numbered in the order they started) whose time 0 is the earliest block.
/// Whole launches, so that a profiler's kernel records can be set beside them.
inline hl::Schedule moment(const std::vector<TenantBlock>& blocks) {
  std::vector<std::pair<std::int64_t, std::pair<std::string, unsigned>>> starts;
  for (const TenantBlock& b : blocks) starts.push_back({b.start_ns, {b.tenant, b.launch}});
  std::sort(starts.begin(), starts.end());
  std::map<std::pair<std::string, unsigned>, int> number;
  for (const auto& [start, key] : starts) number.emplace(key, static_cast<int>(number.size()));
  const std::int64_t origin = starts.empty() ? 0 : starts.front().first;
  std::vector<hl::TracedBlock> traced;
  for (const TenantBlock& b : blocks) {
    traced.push_back({b.tenant, number[{b.tenant, b.launch}], b.tenant == "victim" ? 0 : 1, b.block,
                      b.unit, static_cast<double>(b.start_ns - origin) / 1000.0,
                      static_cast<double>(b.end_ns - origin) / 1000.0});
  }
  return blocks.empty() ? hl::Schedule() : hl::Schedule(std::move(traced), origin);
}

/// Two timeline rows for a moment on the victim's unit, "<label> victim" and "<label> aggr.",
/// with time 0 \p lead_us before the victim's block started, so that every setting's rows line
/// up on it. Only the victim's row where the two tenants' unit ids are not \p comparable
/// (unit_ids_comparable()): an aggressor row there would show blocks on some other unit.
inline std::vector<hl::TimelineRow> rows_around_victim(const std::vector<TenantBlock>& blocks,
                                                       const std::string& label, double lead_us,
                                                       bool comparable = true) {
  std::vector<hl::TimelineRow> rows = {{label + " victim", {}}};
  if (comparable) rows.push_back({label + " aggr.", {}});
  const auto victim = std::find_if(blocks.begin(), blocks.end(),
                                   [](const TenantBlock& b) { return b.tenant == "victim"; });
  if (victim == blocks.end()) return rows;
  for (const TenantBlock& b : blocks) {
    if (b.unit != victim->unit) continue;
    const double from = lead_us + static_cast<double>(b.start_ns - victim->start_ns) / 1000.0;
    const double to = lead_us + static_cast<double>(b.end_ns - victim->start_ns) / 1000.0;
    if (b.tenant != "victim" && !comparable) continue;
    rows[b.tenant == "victim" ? 0 : 1].busy.push_back({std::max(0.0, from), std::max(0.0, to)});
  }
  return rows;
}

/// How long before the victim's block started the last aggressor block on its unit ended
/// (the slot the victim waited for), in us; nothing when no aggressor block on its unit ended
/// before it started.
inline std::optional<double> waited_for_a_slot_us(const std::vector<TenantBlock>& blocks) {
  const auto victim = std::find_if(blocks.begin(), blocks.end(),
                                   [](const TenantBlock& b) { return b.tenant == "victim"; });
  if (victim == blocks.end()) return std::nullopt;
  std::optional<double> gap;
  for (const TenantBlock& b : blocks) {
    if (b.tenant != "aggressor" || b.unit != victim->unit || b.end_ns > victim->start_ns) continue;
    const double us = static_cast<double>(victim->start_ns - b.end_ns) / 1000.0;
    if (!gap || us < *gap) gap = us;
  }
  return gap;
}

/// The first aggressor block that ran on the victim's unit while the victim's block ran.
inline std::optional<TenantBlock> aggressor_beside_victim(const std::vector<TenantBlock>& blocks) {
  const auto victim = std::find_if(blocks.begin(), blocks.end(),
                                   [](const TenantBlock& b) { return b.tenant == "victim"; });
  if (victim == blocks.end()) return std::nullopt;
  for (const TenantBlock& b : blocks) {
    if (b.tenant == "aggressor" && b.unit == victim->unit && b.start_ns < victim->end_ns &&
        b.end_ns > victim->start_ns) {
      return b;
    }
  }
  return std::nullopt;
}

/// What one setting's tenants reported: the victim's run and the aggressor's (the same run when
/// both shared one process), and the moment of the victim's last launch.
struct Outcome {
  hl::ChildRun victim, aggressor;
  std::vector<TenantBlock> moment;
};

/// The moment a setting's children sent (hl::schedule_lines(): the victim's last launch as the
/// run "victim", the aggressor's last rounds as "aggressor"), rounds beside the victim chosen
/// with moment_of() for aggressor blocks of \p aggressor_us.
inline std::vector<TenantBlock> moment_sent(const std::string& output, double aggressor_us) {
  const std::map<std::string, hl::Schedule> runs = hl::read_schedule_lines(output);
  const auto blocks = [&](const char* tenant) {
    const auto run = runs.find(tenant);
    return run == runs.end() ? std::vector<TenantBlock>{} : tenant_blocks(tenant, run->second);
  };
  return moment_of(blocks("victim"), blocks("aggressor"), std::llround(aggressor_us * 1000));
}

/// Runs the aggressor as a child of this program (\p args, then --role aggressor) and, once it
/// says its kernels are queued, the victim (--role victim) or, without \p victim, a pause of
/// 300 ms; then tells the aggressor "stop" and reads the moment both sent (moment_sent()): the
/// aggressor's ring of traced rounds still holds the ones beside the victim's last block.
inline Outcome run_tenants(const std::vector<std::string>& args,
                           const std::vector<hl::EnvSetting>& victim_env,
                           const std::vector<hl::EnvSetting>& aggressor_env, bool victim,
                           double aggressor_us) {
  const auto child = [&](const char* role, const std::vector<hl::EnvSetting>& env, bool input) {
    std::vector<std::string> argv = {hl::self_executable()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--role", role});
    return std::make_unique<hl::ChildProcess>(argv, hl::child_environment(env), input);
  };
  Outcome o;
  auto aggressor = child("aggressor", aggressor_env, true);
  std::string aggressor_said;  // its lines up to "@ready"
  while (const auto line = aggressor->read_line(300.0)) {
    aggressor_said += *line + "\n";
    if (line->rfind("@ready", 0) == 0) break;
  }
  if (aggressor_said.find("@ready") != std::string::npos) {
    if (victim) {
      o.victim.outcome = child("victim", victim_env, false)->finish(300.0);
      o.victim.values = hl::parse_result(o.victim.outcome.output);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    aggressor->write_line("stop");
  }
  o.aggressor.outcome = aggressor->finish(300.0);
  o.aggressor.outcome.output = aggressor_said + o.aggressor.outcome.output;
  o.aggressor.values = hl::parse_result(o.aggressor.outcome.output);
  o.moment = moment_sent(o.victim.outcome.output + o.aggressor.outcome.output, aggressor_us);
  return o;
}

/// A setting's checks: its children ran, and both tenants' outputs match their host references.
inline std::vector<hl::Verdict> tenant_checks(const std::string& setting, const Outcome& r) {
  std::vector<hl::Verdict> verdicts;
  for (const auto& [who, run] :
       {std::pair{"victim", &r.victim}, std::pair{"aggressor", &r.aggressor}}) {
    const bool ok = run->outcome.exit_code == 0 && run->text(std::string(who) + "_correct") == "1";
    verdicts.push_back({hl::format("{}: the {}'s kernels computed the host's values", setting, who),
                        ok, ok ? "" : run->outcome.status() + ": " + run->tail()});
  }
  return verdicts;
}

/// One setting's victim beside its victim alone, and the aggressor's throughput beside its
/// own alone (the table of step 4).
struct BesideAlone {
  double p50_x, p99_x;   ///< the victim's p50 and p99 over alone
  double aggressor_pct;  ///< the aggressor's blocks per second, % of alone
};
inline BesideAlone beside_alone(const Outcome& setting, const Outcome& alone) {
  return {
      setting.victim.number("p50_us") / alone.victim.number("p50_us"),
      setting.victim.number("p99_us") / alone.victim.number("p99_us"),
      100.0 * setting.aggressor.number("blocks_per_s") / alone.aggressor.number("blocks_per_s")};
}

/// The tour's one-line result: the victim's p50 and p99 alone, time-sliced and partitioned in
/// one process.
inline std::string summary_line(std::map<std::string, Outcome> outcomes) {
  const auto p50_p99 = [&](const char* key) {
    const hl::ChildRun& victim = outcomes[key].victim;
    return hl::format("{:.0} / {:.0} us", victim.number("p50_us"), victim.number("p99_us"));
  };
  return "victim p50 / p99: alone " + p50_p99("alone") + ", time-sliced " +
         p50_p99("two_processes") + ", partitioned in one process " +
         p50_p99("one_process_partition");
}

/// Runs one child of this program (\p args, then \p role) that reports for both tenants
/// (--role both --setting ...), or for one (--role victim).
inline Outcome run_child(std::vector<std::string> args, const std::vector<std::string>& role,
                         double aggressor_us) {
  args.insert(args.end(), role.begin(), role.end());
  Outcome o;
  o.victim = o.aggressor = hl::run_self(args, {}, 300.0);
  o.moment = moment_sent(o.victim.outcome.output, aggressor_us);
  return o;
}

}  // namespace sharing
