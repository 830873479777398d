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

// Under MPS with a thread percentage the aggressor's unit ids do not name the victim's units:
// no aggressor row, rather than one that shows blocks of some other unit.
TEST(Moment, NoAggressorRowWhereUnitIdsAreNotComparable) {
  for (const sharing::Setting& s : sharing::settings(hl::Platform::kNvidia)) {
    EXPECT_EQ(sharing::unit_ids_comparable(s), std::string(s.key) != "mps_limited") << s.key;
  }
  const auto rows = sharing::rows_around_victim(waited(), "MPS 50%", 10.0, false);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].label, "MPS 50% victim");
  EXPECT_EQ(rows[0].busy.size(), 1u);
}

// The rounds beside the victim: on its unit from three aggressor blocks before it to one after,
// or anywhere while it ran; whole rounds; none without a victim.
TEST(MomentOf, TakesTheAggressorRoundsBesideTheVictimsBlock) {
  const std::int64_t t = 1800000000000000000, block = 2000000;  // 2 ms aggressor blocks
  const std::vector<TenantBlock> victim = {
      {"victim", 0, 0, 5, t + 10 * block, t + 10 * block + 20000}};
  const std::vector<TenantBlock> aggressor = {
      {"aggressor", 1, 0, 5, t, t + block},                      // on its unit, too early
      {"aggressor", 6, 0, 5, t + 6 * block, t + 7 * block},      // on its unit, 3 blocks before
      {"aggressor", 6, 1, 9, t + 6 * block, t + 7 * block},      // the same round elsewhere
      {"aggressor", 9, 0, 2, t + 9 * block, t + 11 * block},     // elsewhere, while it ran
      {"aggressor", 13, 0, 5, t + 12 * block, t + 13 * block}};  // after the window
  const std::vector<TenantBlock> moment = sharing::moment_of(victim, aggressor, block);
  std::vector<unsigned> rounds;
  for (const TenantBlock& b : moment) rounds.push_back(b.tenant == "victim" ? 1000 : b.launch);
  EXPECT_EQ(rounds, (std::vector<unsigned>{1000, 6, 6, 9}));
  EXPECT_TRUE(sharing::moment_of({}, aggressor, block).empty());
}

// What a child sends (hl::schedule_lines) comes back as the moment: the victim's block in
// absolute nanoseconds of the device clock, and the aggressor rounds beside it.
TEST(MomentSent, ChildrenSendTheirRunsAndTheParentChoosesTheRounds) {
  const std::int64_t origin = 1800000000000000000;
  const hl::Schedule victim({{"victim_kernel", 0, 0, 0, 5, 4000.0, 4020.0}}, origin);
  const hl::Schedule aggressor({{"aggressor_kernel", 0, 1, 0, 5, 0.0, 2000.0},
                                {"aggressor_kernel", 1, 1, 0, 5, 2002.0, 4002.0},
                                {"aggressor_kernel", 7, 1, 0, 5, 90000.0, 92000.0}},
                               origin);
  std::string output = "noise\n";
  for (const auto& line : hl::schedule_lines("victim", victim)) output += line + "\n";
  for (const auto& line : hl::schedule_lines("aggressor", aggressor)) output += line + "\n";
  output += "@result victim_correct=1\n";
  const std::vector<TenantBlock> moment = sharing::moment_sent(output, 2000.0);
  ASSERT_EQ(moment.size(), 3u);  // the victim, rounds 0 and 1; not round 7
  EXPECT_EQ(moment[0].tenant, "victim");
  EXPECT_EQ(moment[0].start_ns, origin + 4000000);
  EXPECT_EQ(moment[0].end_ns, origin + 4020000);
  EXPECT_EQ(moment[2].launch, 1u);
  EXPECT_TRUE(sharing::moment_sent("@result victim_correct=1\n", 2000.0).empty());
  EXPECT_THROW(sharing::moment_sent("@schedule victim - 0 2\n", 2000.0), std::runtime_error);
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

TEST(TenantChecks, BothTenantsRanAndComputedTheHostsValues) {
  sharing::Outcome good = reported("p50_us=30 p99_us=40 max_us=50");
  for (const hl::Verdict& v : sharing::tenant_checks("alone", good)) EXPECT_EQ(v.held, true);
  sharing::Outcome died = good;
  died.aggressor.outcome.exit_code = 1;
  died.aggressor.outcome.output = "error: HIP call failed\n";
  const std::vector<hl::Verdict> verdicts = sharing::tenant_checks("plain", died);
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_EQ(verdicts[0].held, true);
  EXPECT_EQ(verdicts[1].held, false);
  EXPECT_EQ(verdicts[1].name, "plain: the aggressor's kernels computed the host's values");
  EXPECT_NE(verdicts[1].detail.find("exit 1"), std::string::npos) << verdicts[1].detail;
  sharing::Outcome wrong = good;
  wrong.victim.values = hl::parse_result("@result victim_correct=0 p50_us=30\n");
  EXPECT_EQ(sharing::tenant_checks("plain", wrong)[0].held, false);
}

TEST(BesideAlone, RatiosOverTheTenantsAlone) {
  const sharing::Outcome alone = reported("p50_us=30 p99_us=40 max_us=50");
  sharing::Outcome plain = reported("p50_us=2000 p99_us=2400 max_us=2500");
  plain.aggressor.values =
      hl::parse_result("@result aggressor_correct=1 blocks_per_s=900 blocks=1056\n");
  const sharing::BesideAlone b = sharing::beside_alone(plain, alone);
  EXPECT_DOUBLE_EQ(b.p50_x, 2000.0 / 30.0);
  EXPECT_DOUBLE_EQ(b.p99_x, 60.0);
  EXPECT_DOUBLE_EQ(b.aggressor_pct, 90.0);
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
