// Lesson 08's host logic: the settings per platform, the victim's percentiles, the children's
// trace lines and what the lesson reads from the moment of the victim's last launch.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "tenants.hpp"

namespace hl = hip_lessons;
using sharing::TenantBlock;

TEST(Settings, EachPlatformHasItsOwnWayToPartitionProcesses) {
  const auto keys = [](hl::Platform p) {
    std::vector<std::string> k;
    for (const sharing::Setting& s : sharing::settings(p)) k.push_back(s.key);
    return k;
  };
  EXPECT_EQ(
      keys(hl::Platform::kNvidia),
      (std::vector<std::string>{"one_process_plain", "one_process_priority",
                                "one_process_partition", "two_processes", "mps", "mps_limited"}));
  EXPECT_EQ(
      keys(hl::Platform::kAmd),
      (std::vector<std::string>{"one_process_plain", "one_process_priority",
                                "one_process_partition", "two_processes", "per_process_mask"}));
}

TEST(Percentiles, NearestRank) {
  std::vector<double> us;
  for (int i = 100; i >= 1; --i) us.push_back(i);  // 1..100, in any order
  const sharing::Latencies l = sharing::percentiles(us);
  EXPECT_EQ(l.p50, 50);
  EXPECT_EQ(l.p99, 99);
  EXPECT_EQ(l.max, 100);
  EXPECT_EQ(sharing::percentiles({7}).p99, 7);
  EXPECT_THROW(sharing::percentiles({}), std::invalid_argument);
}

TEST(BlockLines, RoundTripAndRefuseMalformedLines) {
  const TenantBlock b{"aggressor", 41, 900, 17, 1800000000000000123, 1800000000000020456};
  const std::string output = "noise\n" + sharing::block_line(b) + "\n@result victim_correct=1\n";
  const auto blocks = sharing::parse_block_lines(output);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].tenant, "aggressor");
  EXPECT_EQ(blocks[0].launch, 41u);
  EXPECT_EQ(blocks[0].block, 900u);
  EXPECT_EQ(blocks[0].unit, 17u);
  EXPECT_EQ(blocks[0].start_ns, 1800000000000000123);  // whole nanoseconds of a large clock
  EXPECT_EQ(blocks[0].end_ns, 1800000000000020456);
  EXPECT_THROW(sharing::parse_block_lines("@block victim 0 0 3 20 10\n"), std::runtime_error);
  EXPECT_THROW(sharing::parse_block_lines("@block victim 0 0 3 x 10\n"), std::runtime_error);
  EXPECT_THROW(sharing::parse_block_lines("@block victim 3 10 20\n"), std::runtime_error);
}

// A victim (launch 199) that started 4 us after the aggressor block on its unit ended, beside
// two aggressor rounds (7 and 8) of two blocks each; round 7's other block ran on unit 6.
std::vector<TenantBlock> waited() {
  const std::int64_t t = 1800000000000000000;
  return {{"aggressor", 7, 0, 5, t, t + 2000000},
          {"aggressor", 7, 1, 6, t, t + 1990000},
          {"victim", 199, 0, 5, t + 2004000, t + 2024000},
          {"aggressor", 8, 0, 5, t + 2030000, t + 4030000},
          {"aggressor", 8, 1, 6, t + 2001000, t + 4001000}};
}

TEST(Moment, TheVictimWaitedForASlotOnItsUnit) {
  const auto gap = sharing::waited_for_a_slot_us(waited());
  ASSERT_TRUE(gap.has_value());
  EXPECT_DOUBLE_EQ(*gap, 4.0);
  EXPECT_FALSE(sharing::aggressor_beside_victim(waited()));  // round 8 on unit 6 is not beside
  auto beside = waited();
  beside.push_back({"aggressor", 9, 0, 5, beside[2].start_ns + 1000, beside[2].end_ns + 5000});
  ASSERT_TRUE(sharing::aggressor_beside_victim(beside).has_value());
  EXPECT_FALSE(sharing::waited_for_a_slot_us({{"aggressor", 1, 0, 5, 0, 10}}));  // no victim
}

TEST(Moment, ScheduleHasWholeLaunchesInStartOrderFromTheEarliestBlock) {
  const hl::Schedule s = sharing::moment(waited());
  ASSERT_EQ(s.blocks().size(), 5u);
  EXPECT_DOUBLE_EQ(s.span_us(), 4030.0);
  EXPECT_EQ(s.device_clock_origin_ns(), std::optional<std::int64_t>(1800000000000000000));
  const auto spans = s.launches();  // round 7, round 8 (from its unit-6 block), the victim
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_DOUBLE_EQ(spans.at(0).span.end, 2000.0);
  EXPECT_DOUBLE_EQ(spans.at(1).span.start, 2001.0);
  EXPECT_DOUBLE_EQ(spans.at(1).span.end, 4030.0);
  EXPECT_DOUBLE_EQ(spans.at(2).span.start, 2004.0);
  for (const hl::TracedBlock& b : s.blocks()) EXPECT_EQ(b.stream, b.launch == 2 ? 0 : 1);
}

TEST(Moment, TheTimelineRowsShowTheVictimsUnitOnly) {
  const auto rows = sharing::rows_around_victim(waited(), "plain", 10.0);
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(rows[0].busy.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].busy[0].start, 10.0);
  EXPECT_EQ(rows[1].busy.size(), 2u);  // rounds 7 and 8 on unit 5; not their unit-6 blocks
}

// The parent's order to the aggressor: the victim's block as its trace line, or "stop".
TEST(Orders, TheVictimsBlockTravelsToTheAggressor) {
  const auto victim = sharing::parse_block_lines(
      sharing::block_line({"victim", 199, 0, 5, 1800000000000002004, 1800000000000002024}));
  ASSERT_EQ(victim.size(), 1u);
  EXPECT_EQ(victim[0].unit, 5u);
  EXPECT_EQ(victim[0].start_ns, 1800000000000002004);
  EXPECT_EQ(victim[0].end_ns, 1800000000000002024);
  EXPECT_TRUE(sharing::parse_block_lines("stop").empty());
  EXPECT_TRUE(sharing::parse_block_lines("beside 5 x").empty());
}

// A setting's outcome as its children report it.
sharing::Outcome reported(const std::string& victim, std::vector<TenantBlock> moment = {}) {
  sharing::Outcome o;
  o.victim.outcome.exit_code = o.aggressor.outcome.exit_code = 0;
  o.victim.values = hl::parse_result("@result victim_correct=1 " + victim + "\n");
  o.aggressor.values =
      hl::parse_result("@result aggressor_correct=1 blocks_per_s=1000 blocks=1056\n");
  o.moment = std::move(moment);
  return o;
}

TEST(Reported, NumbersAreReadFromTheResultLineAndNaNWhenAbsentOrNotANumber) {
  sharing::Outcome o = reported("p50_us=30.5 p99_us=x");
  EXPECT_DOUBLE_EQ(o.victim.number("p50_us"), 30.5);
  EXPECT_TRUE(std::isnan(o.victim.number("p99_us")));
  EXPECT_TRUE(std::isnan(o.victim.number("max_us")));
  EXPECT_EQ(o.victim.text("victim_correct"), "1");
}

// Step 4's verdicts: speed checks by name (passed or not) and schedule checks and skips.
std::map<std::string, std::string> verdicts(const hl::StepResult& step) {
  std::map<std::string, std::string> found;
  for (const hl::StepResult::Entry& e : step.entries()) {
    using Kind = hl::StepResult::Kind;
    if (e.kind == Kind::kSpeed) {
      found[e.detail + ": " + e.name] = e.speed->passes(e.value) ? "ok" : "FAIL";
    }
    if (e.kind == Kind::kSchedule) found[e.name.substr(0, 30)] = e.passed ? "ok" : "FAIL";
    if (e.kind == Kind::kSkip) found[e.name.substr(0, 30)] = "skip";
  }
  return found;
}

TEST(CompareSettings, ChecksWhatMustProtectTheVictimAndWhatCannot) {
  const std::int64_t t = 1800000000000000000;
  const std::map<std::string, sharing::Outcome> outcomes = {
      {"alone", reported("p50_us=30 p99_us=40 max_us=50")},
      {"one_process_plain", reported("p50_us=2000 p99_us=2400 max_us=2500", waited())},
      {"one_process_priority", reported("p50_us=33 p99_us=2400 max_us=2500")},
      // Partitioned at 1.2x alone: passes (it would fail the unprotected bound); no aggressor
      // block on the victim's SM.
      {"one_process_partition",
       reported("p50_us=31 p99_us=48 max_us=50",
                {{"victim", 19, 0, 3, t, t + 20000}, {"aggressor", 2, 0, 9, t, t + 2000000}})},
      // Time-sliced, yet only 2.5x alone: the unprotected check fails.
      {"two_processes", reported("p50_us=90 p99_us=100 max_us=110")},
      // MPS at 50%, but its p99 is 4x alone: the partitioned check fails.
      {"mps_limited", reported("p50_us=31 p99_us=160 max_us=170")}};
  const hl::SpeedCheck partitioned = hl::at_most("partitioned", "--max-partitioned-p99", 3.0);
  const hl::SpeedCheck shared = hl::at_least("shared", "--min-shared-p99", 5.0);
  hl::TraceFile traces;
  const hl::StepResult step = sharing::compare_settings(outcomes, hl::Platform::kNvidia, 200, 2000,
                                                        true, partitioned, shared, traces);
  const std::map<std::string, std::string> expected = {
      // Each setting under its bound's declared name, the setting as the label.
      {"one process, two streams: shared", "ok"},
      {"one process, partitioned: partitioned", "ok"},
      {"two processes, time-sliced: shared", "FAIL"},
      {"MPS, aggressor at 50% of SMs: partitioned", "FAIL"},
      {"one process, two streams: the ", "ok"},  // it waited 4 us for a slot on its SM
      {"one process, partitioned: no a", "ok"}};
  EXPECT_EQ(verdicts(step), expected);
  ASSERT_EQ(traces.runs().size(), 2u);  // the two moments traced
  EXPECT_EQ(traces.runs()[0].first, "one process, two streams");
  ASSERT_TRUE(step.summary().has_value());
  EXPECT_NE(step.summary()->find("time-sliced 90 / 100 us"), std::string::npos);

  // Untimed (--check): no speed verdicts; on AMD the SM check is a skip (a shared __smid()).
  const hl::StepResult amd = sharing::compare_settings(outcomes, hl::Platform::kAmd, 20, 2000,
                                                       false, partitioned, shared, traces);
  EXPECT_EQ(verdicts(amd),
            (std::map<std::string, std::string>{{"one process, two streams: the ", "ok"},
                                                {"one process, partitioned: no a", "skip"}}));
}

TEST(Environments, MpsForBothTheVariableForTheAggressorAndAMaskEach) {
  const std::vector<hl::EnvSetting> client = {{"CUDA_MPS_PIPE_DIRECTORY", std::string("/tmp/p")}};
  for (const sharing::Setting& s : sharing::settings(hl::Platform::kNvidia)) {
    if (!s.aggressor_at_half) continue;
    const auto [victim, aggressor] = sharing::environments(s, client);
    ASSERT_EQ(victim.size(), 1u);
    ASSERT_EQ(aggressor.size(), 2u);
    EXPECT_EQ(aggressor[1].name, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
    EXPECT_EQ(*aggressor[1].value, "50");
  }
  // MI210 (gfx90a, 104 CUs): CUs 0-7 and the rest. RX 7900 XTX in WGP mode (HIP 6.2): 8 WGPs are
  // CUs 0-15, HSA_CU_MASK counting CUs.
  const hl::AmdMaskDevice mi210{"gfx90a", 60200000, false, 104, 1, std::nullopt};
  const hl::AmdMaskDevice rx7900{"gfx1100", 60200000, true, 48, 1, std::nullopt};
  EXPECT_EQ(sharing::per_process_cu_masks(mi210, 1, 8),
            (std::array<std::string, 2>{"1:0-7", "1:8-103"}));
  EXPECT_EQ(sharing::per_process_cu_masks(rx7900, 0, 8),
            (std::array<std::string, 2>{"0:0-15", "0:16-95"}));
  for (const sharing::Setting& s : sharing::settings(hl::Platform::kAmd)) {
    if (!s.cu_mask_each) continue;
    const auto [victim, aggressor] =
        sharing::environments(s, {}, sharing::per_process_cu_masks(mi210, 1, 8));
    ASSERT_EQ(victim.size(), 1u);
    EXPECT_EQ(victim[0].name, "HSA_CU_MASK");
    EXPECT_EQ(*victim[0].value, "1:0-7");  // ROCr's HSA_CU_MASK: GPU 1, CUs 0-7
    EXPECT_EQ(*aggressor[0].value, "1:8-103");
  }
}

TEST(AmdSplit, RefusesWhatTheRulesRefuseAndAGlobalMaskForProcesses) {
  const hl::AmdMaskDevice mi300x{"gfx942", 60200000, false, 304, 8, std::nullopt};
  EXPECT_EQ(sharing::amd_split(mi300x, 8)[0].ids(), "0-7");
  try {
    sharing::amd_split(mi300x, 5);
    ADD_FAILURE() << "--partition 5 accepted on an MI300X";
  } catch (const hl::UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("--partition 5: "), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("nearest valid size is 8"), std::string::npos);
  }
  EXPECT_THROW(sharing::amd_split(mi300x, 304), hl::UsageError);  // nothing for the aggressor
  hl::AmdMaskDevice global = mi300x;
  global.global_mask = hl::cu_mask_range(0, 152);
  EXPECT_THROW(sharing::per_process_cu_masks(global, 0, 8), hl::SkipError);
}
