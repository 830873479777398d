/// \file lessons/05_queue_env/test_chain_traces.cpp
/// \brief Unit tests of lesson 05's step 2 (chain_traces.hpp): the @block lines a one-queue
/// child sends, and the checks of its traces against the one-queue rule. No GPU needed.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "chain_traces.hpp"

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

// A child that ran correctly and sent both traces (or only \p runs of them).
hl::ChildRun one_queue_child(const hl::Schedule& depth, const hl::Schedule& breadth,
                             const std::vector<std::string>& runs = {"depth-first",
                                                                     "breadth-first"}) {
  hl::ChildRun child;
  child.outcome.exit_code = 0;
  child.values["correct"] = "1";
  for (const std::string& run : runs) {
    for (const std::string& line : qe::trace_lines(run, run == "depth-first" ? depth : breadth)) {
      child.outcome.output += line + "\n";
    }
  }
  return child;
}

// The checks step 2 recorded: name -> passed; skips as "skip".
std::vector<std::pair<std::string, std::string>> checks_of(const hl::StepResult& step) {
  std::vector<std::pair<std::string, std::string>> found;
  for (const hl::StepResult::Entry& e : step.entries()) {
    using Kind = hl::StepResult::Kind;
    if (e.kind == Kind::kCheck || e.kind == Kind::kSchedule) {
      found.emplace_back(e.name, e.passed ? "ok" : "FAIL");
    } else if (e.kind == Kind::kSkip) {
      found.emplace_back(e.name, "skip");
    }
  }
  return found;
}

int failures(const hl::StepResult& step) {
  int n = 0;
  for (const auto& [name, result] : checks_of(step)) n += result == "FAIL";
  return n;
}

}  // namespace

TEST(ChainTraces, LinesRoundTripThroughTheChildsOutput) {
  // On the device clock, as a child's traced run is: the parent gets the same origin and the
  // child's reading time, so a profiler's records can be compared with it.
  std::vector<hl::TracedBlock> blocks = depth_first().blocks();
  const hl::Schedule sent(blocks, 1764000000000000000, 5000000000000);
  std::string output = "chains correct\n@result depth_first_ms=5 correct=1\n";
  for (const std::string& line : qe::trace_lines("depth-first", sent)) output += line + "\n";
  for (const std::string& line : qe::trace_lines("breadth-first", sent)) output += line + "\n";
  const auto runs = qe::parse_block_lines(output);
  ASSERT_EQ(runs.size(), 2u);
  const hl::Schedule& got = runs.at("depth-first");
  ASSERT_EQ(got.blocks().size(), sent.blocks().size());
  EXPECT_EQ(got.blocks()[2].kernel, "step 0");
  EXPECT_EQ(got.blocks()[2].stream, 1);
  EXPECT_EQ(got.blocks()[2].unit, 7u);
  EXPECT_DOUBLE_EQ(got.span_us(), 305.0);
  EXPECT_EQ(got.peak_concurrent_launches(), 2);
  EXPECT_EQ(got.device_clock_origin_ns(), sent.device_clock_origin_ns());
  EXPECT_EQ(got.host_read_ns(), 5000000000000);
  EXPECT_EQ(runs.at("breadth-first").blocks().size(), 4u);
  // A run without its clock line cannot be put on the device clock: refused.
  EXPECT_THROW(qe::parse_block_lines(qe::trace_lines("depth-first", sent)[1]), std::runtime_error);
}

TEST(ChainTraces, AMalformedLineIsAnError) {
  EXPECT_THROW(qe::parse_block_lines("@block depth-first 0 0 0 5 1.0\n"), std::runtime_error);
  EXPECT_THROW(qe::parse_block_lines("@block depth-first 0 0 0 5 9.0 1.0 step_0\n"),
               std::runtime_error);  // ends before it starts
  EXPECT_THROW(qe::parse_block_lines("@block depth-first 0 0 0 5 1.0 9.0 step_0 extra\n"),
               std::runtime_error);
  EXPECT_THROW(qe::parse_block_lines("@clock depth-first 17\n"), std::runtime_error);
  EXPECT_TRUE(qe::parse_block_lines("no trace here\n").empty());
}

TEST(ChainTraces, OneQueueTracesThatFollowTheRulePassAndAreKept) {
  hl::TraceFile traces;
  const hl::StepResult step =
      qe::one_queue_block_by_block(one_queue_child(depth_first(), breadth_first()), traces, "Q=1",
                                   2, 2, 100.0, hl::Platform::kNvidia);
  EXPECT_EQ(failures(step), 0);
  // depth-first at most 2, the span bound (2 x 1 + 1) x 100 us, breadth-first at least 2.
  const auto checks = checks_of(step);
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_EQ(checks[0].first,
            "one queue, depth-first: at most 2 kernels at once (previous chain's last, next "
            "chain's first)");
  EXPECT_NE(checks[1].first.find("= 300 us"), std::string::npos) << checks[1].first;
  EXPECT_NE(checks[2].first.find("at least min(chains, 3) = 2"), std::string::npos);
  ASSERT_EQ(traces.runs().size(), 2u);
  EXPECT_EQ(traces.runs()[0].first, "Q=1, depth-first");
  int figures = 0;
  for (const auto& e : step.entries()) figures += e.kind == hl::StepResult::Kind::kFigure;
  EXPECT_EQ(figures, 2);
}

TEST(ChainTraces, ThreeKernelsAtOnceOrAShortSpanBreakTheDepthFirstRule) {
  // Chain 2's first step runs beside chain 0's last and chain 1's first: three at once, and
  // the run ends before (3 x 1 + 1) x 100 us.
  const hl::Schedule crowded({{"step 0", 0, 0, 0, 5, 0, 100},
                              {"step 1", 1, 0, 0, 6, 102, 202},
                              {"step 0", 2, 1, 0, 7, 103, 203},
                              {"step 1", 3, 1, 0, 5, 205, 305},
                              {"step 0", 4, 2, 0, 8, 150, 250},
                              {"step 1", 5, 2, 0, 9, 252, 352}});
  hl::TraceFile traces;
  const hl::StepResult step = qe::one_queue_block_by_block(
      one_queue_child(crowded, breadth_first()), traces, "Q=1", 3, 2, 100.0, hl::Platform::kNvidia);
  const auto checks = checks_of(step);
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_EQ(checks[0].second, "FAIL");  // at most 2 at once
  EXPECT_EQ(checks[1].second, "FAIL");  // span >= 400 us
}

TEST(ChainTraces, BreadthFirstMustOverlapOnNvidiaAndMustNotCrowdOnAmd) {
  hl::TraceFile traces;
  // Breadth-first run one kernel at a time: fine on AMD (barrier bit), a failure on NVIDIA.
  const hl::StepResult nvidia =
      qe::one_queue_block_by_block(one_queue_child(depth_first(), one_at_a_time()), traces, "Q=1",
                                   2, 2, 100.0, hl::Platform::kNvidia);
  EXPECT_EQ(checks_of(nvidia).back().second, "FAIL");
  const hl::StepResult amd =
      qe::one_queue_block_by_block(one_queue_child(depth_first(), one_at_a_time()), traces, "Q=1",
                                   2, 2, 100.0, hl::Platform::kAmd);
  EXPECT_EQ(failures(amd), 0);
  EXPECT_EQ(checks_of(amd).back().first,
            "one queue, breadth-first: at most 2 kernels at once (barrier bit; from source)");
}

TEST(ChainTraces, AMissingTraceFailsAndAFailedChildIsASkip) {
  hl::TraceFile traces;
  const hl::StepResult missing =
      qe::one_queue_block_by_block(one_queue_child(depth_first(), breadth_first(), {"depth-first"}),
                                   traces, "Q=1", 2, 2, 100.0, hl::Platform::kNvidia);
  EXPECT_EQ(failures(missing), 1);
  hl::ChildRun crashed = one_queue_child(depth_first(), breadth_first());
  crashed.outcome.exit_code = -1;
  crashed.outcome.signal = 11;
  const hl::StepResult skipped =
      qe::one_queue_block_by_block(crashed, traces, "Q=1", 2, 2, 100.0, hl::Platform::kNvidia);
  ASSERT_EQ(checks_of(skipped).size(), 1u);
  EXPECT_EQ(checks_of(skipped)[0].second, "skip");
  EXPECT_TRUE(traces.runs().empty());
}

TEST(ChainTraces, ChainsOfOneKernelSkipTheDepthFirstRule) {
  hl::TraceFile traces;
  const hl::Schedule singles({{"step 0", 0, 0, 0, 5, 0, 100}, {"step 0", 1, 1, 0, 6, 1, 101}});
  const hl::StepResult step = qe::one_queue_block_by_block(
      one_queue_child(singles, singles), traces, "Q=1", 2, 1, 100.0, hl::Platform::kNvidia);
  EXPECT_EQ(checks_of(step)[0].second, "skip");
}
