/// \file lessons/05_queue_env/test_one_queue_traces.cpp
/// \brief Unit tests of what lesson 05's step 2 makes of the one-queue traces
/// (one_queue_traces.hpp): their timelines and the rule they are checked against. No GPU needed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "one_queue_traces.hpp"

namespace hl = hip_lessons;
namespace qe = queue_env;

namespace {

// Two chains of two 100 us steps as one queue runs them depth-first: chain 1's first step
// starts with chain 0's last (launch numbers are the issue order).
hl::Schedule depth_first() {
  return hl::Schedule({{"step 0", 0, 0, 0, 5, 0, 100},
                       {"step 1", 1, 0, 0, 6, 102, 202},
                       {"step 0", 2, 1, 0, 7, 103, 203},
                       {"step 1", 3, 1, 0, 5, 205, 305}});
}

// The same chains breadth-first with the first steps side by side.
hl::Schedule breadth_first() {
  return hl::Schedule({{"step 0", 0, 0, 0, 5, 0, 100},
                       {"step 0", 1, 1, 0, 6, 1, 101},
                       {"step 1", 2, 0, 0, 7, 102, 202},
                       {"step 1", 3, 1, 0, 5, 103, 203}});
}

// One kernel at a time, as a queue whose every packet carries the barrier bit runs them.
hl::Schedule one_at_a_time() {
  return hl::Schedule({{"step 0", 0, 0, 0, 5, 0, 100},
                       {"step 0", 1, 1, 0, 6, 100, 200},
                       {"step 1", 2, 0, 0, 7, 200, 300},
                       {"step 1", 3, 1, 0, 5, 300, 400}});
}

// Each verdict as "ok", "FAIL" or "skip".
std::vector<std::string> outcomes(const std::vector<hl::Verdict>& verdicts) {
  std::vector<std::string> found;
  for (const hl::Verdict& v : verdicts) found.push_back(!v.held ? "skip" : *v.held ? "ok" : "FAIL");
  return found;
}

}  // namespace

TEST(OneQueueRule, TracesThatFollowTheRulePass) {
  const auto verdicts =
      qe::one_queue_rule(depth_first(), breadth_first(), 2, 2, 100.0, hl::Platform::kNvidia);
  // depth-first at most 2, the span bound (2 x 1 + 1) x 100 us, breadth-first at least 2.
  EXPECT_EQ(outcomes(verdicts), (std::vector<std::string>{"ok", "ok", "ok"}));
  EXPECT_EQ(verdicts[0].name,
            "one queue, depth-first: at most 2 kernels at once (previous chain's last, next "
            "chain's first)");
  EXPECT_NE(verdicts[1].name.find("= 300 us"), std::string::npos) << verdicts[1].name;
  EXPECT_NE(verdicts[2].name.find("at least min(chains, 3) = 2"), std::string::npos);
  // Only the rule that needs kernels at once is a schedule check (shown, not enforced, under
  // compute-sanitizer).
  EXPECT_FALSE(verdicts[0].needs_overlap || verdicts[1].needs_overlap);
  EXPECT_TRUE(verdicts[2].needs_overlap);
}

TEST(OneQueueRule, ThreeKernelsAtOnceOrAShortSpanBreakTheDepthFirstRule) {
  // Chain 2's first step runs beside chain 0's last and chain 1's first: three at once, and
  // the run ends before (3 x 1 + 1) x 100 us.
  const hl::Schedule crowded({{"step 0", 0, 0, 0, 5, 0, 100},
                              {"step 1", 1, 0, 0, 6, 102, 202},
                              {"step 0", 2, 1, 0, 7, 103, 203},
                              {"step 1", 3, 1, 0, 5, 205, 305},
                              {"step 0", 4, 2, 0, 8, 150, 250},
                              {"step 1", 5, 2, 0, 9, 252, 352}});
  const auto verdicts =
      qe::one_queue_rule(crowded, breadth_first(), 3, 2, 100.0, hl::Platform::kNvidia);
  EXPECT_EQ(outcomes(verdicts)[0], "FAIL");  // at most 2 at once
  EXPECT_EQ(outcomes(verdicts)[1], "FAIL");  // span >= 400 us
  EXPECT_EQ(verdicts[0].detail.rfind("ran at once: ", 0), 0u) << verdicts[0].detail;
}

TEST(OneQueueRule, BreadthFirstMustOverlapOnNvidiaAndMustNotCrowdOnAmd) {
  // Breadth-first run one kernel at a time: fine on AMD (barrier bit), a failure on NVIDIA.
  const auto nvidia =
      qe::one_queue_rule(depth_first(), one_at_a_time(), 2, 2, 100.0, hl::Platform::kNvidia);
  EXPECT_EQ(outcomes(nvidia).back(), "FAIL");
  const auto amd =
      qe::one_queue_rule(depth_first(), one_at_a_time(), 2, 2, 100.0, hl::Platform::kAmd);
  EXPECT_EQ(outcomes(amd), (std::vector<std::string>{"ok", "ok", "ok"}));
  EXPECT_EQ(amd.back().name,
            "one queue, breadth-first: at most 2 kernels at once (barrier bit; from source)");
  EXPECT_FALSE(amd.back().needs_overlap);
  // Three chains' first steps side by side, as NVIDIA runs them, break the AMD rule.
  const hl::Schedule three_at_once({{"step 0", 0, 0, 0, 5, 0, 100},
                                    {"step 0", 1, 1, 0, 6, 1, 101},
                                    {"step 0", 2, 2, 0, 7, 2, 102}});
  EXPECT_EQ(
      outcomes(qe::one_queue_rule(depth_first(), three_at_once, 3, 2, 100.0, hl::Platform::kAmd))
          .back(),
      "FAIL");
}

TEST(OneQueueRule, ChainsOfOneKernelSkipTheDepthFirstRule) {
  const hl::Schedule singles({{"step 0", 0, 0, 0, 5, 0, 100}, {"step 0", 1, 1, 0, 6, 1, 101}});
  const auto verdicts = qe::one_queue_rule(singles, singles, 2, 1, 100.0, hl::Platform::kNvidia);
  EXPECT_EQ(outcomes(verdicts), (std::vector<std::string>{"skip", "ok"}));
  EXPECT_EQ(verdicts[0].detail, "chains of one kernel are independent: it needs >= 2");
}

TEST(OneQueueTimelines, OneRowPerChainOnOneTimeAxis) {
  const auto figures = qe::one_queue_timelines("Q=1", depth_first(), breadth_first(), 2);
  ASSERT_EQ(figures.size(), 2u);
  EXPECT_EQ(figures[0].title, "Q=1, depth-first: each chain waits for the one before it");
  EXPECT_EQ(figures[1].title, "Q=1, breadth-first: the chains run side by side");
  for (const hl::Figure& f : figures) {
    EXPECT_NE(f.text.find("chain 0"), std::string::npos) << f.text;
    EXPECT_NE(f.text.find("chain 1"), std::string::npos) << f.text;
    EXPECT_EQ(f.text.find("chain 2"), std::string::npos) << f.text;
  }
}

TEST(OneQueueTimelines, AtMostSixteenChainsAreDrawn) {
  std::vector<hl::TracedBlock> blocks;
  for (int c = 0; c < 20; ++c) blocks.push_back({"step 0", c, c, 0, 1, 0.0, 100.0});
  const hl::Schedule wide(blocks);
  const auto figures = qe::one_queue_timelines("Q=1", wide, wide, 20);
  EXPECT_NE(figures[0].text.find("chain 15"), std::string::npos);
  EXPECT_EQ(figures[0].text.find("chain 16"), std::string::npos);
}
