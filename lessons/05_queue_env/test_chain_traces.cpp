/// \file lessons/05_queue_env/test_chain_traces.cpp
/// \brief Unit tests of lesson 05's host-side trace code (chain_traces.hpp): no GPU needed.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

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

}  // namespace

TEST(ChainTraces, LinesRoundTripThroughTheChildsOutput) {
  const hl::Schedule sent = depth_first();
  std::string output = "chains correct\n@result experiment=queues correct=1\n";
  for (const hl::TracedBlock& b : sent.blocks()) output += qe::block_line("depth-first", b) + "\n";
  output += qe::block_line("breadth-first", sent.blocks().front()) + "\n";
  const auto runs = qe::parse_block_lines(output);
  ASSERT_EQ(runs.size(), 2u);
  const hl::Schedule& got = runs.at("depth-first");
  ASSERT_EQ(got.blocks().size(), sent.blocks().size());
  EXPECT_EQ(got.blocks()[2].kernel, "step 0");
  EXPECT_EQ(got.blocks()[2].stream, 1);
  EXPECT_EQ(got.blocks()[2].unit, 7u);
  EXPECT_DOUBLE_EQ(got.span_us(), 305.0);
  EXPECT_EQ(got.peak_concurrent_launches(), 2);
  EXPECT_EQ(runs.at("breadth-first").blocks().size(), 1u);
}

TEST(ChainTraces, AMalformedLineIsAnError) {
  EXPECT_THROW(qe::parse_block_lines("@block depth-first 0 0 0 5 1.0\n"), std::runtime_error);
  EXPECT_THROW(qe::parse_block_lines("@block depth-first 0 0 0 5 9.0 1.0 step_0\n"),
               std::runtime_error);  // ends before it starts
  EXPECT_THROW(qe::parse_block_lines("@block depth-first 0 0 0 5 1.0 9.0 step_0 extra\n"),
               std::runtime_error);
  EXPECT_TRUE(qe::parse_block_lines("no trace here\n").empty());
}

TEST(ChainTraces, RowsAreChainsAndTheBoundCountsTheSerializedSteps) {
  const auto rows = qe::rows_by_chain(depth_first(), 16);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].label, "chain 1");
  EXPECT_EQ(rows[1].busy.size(), 2u);
  EXPECT_EQ(qe::rows_by_chain(depth_first(), 1).size(), 1u);
  // 16 chains of 4 x 100 us: 16 x 3 + 1 = 49 kernel times (the H200 shows 5.00 ms).
  EXPECT_DOUBLE_EQ(qe::depth_first_bound_us(16, 4, 100.0), 4900.0);
  EXPECT_DOUBLE_EQ(qe::depth_first_bound_us(3, 2, 100.0), 400.0);
}

TEST(ChainTraces, NamesAChainThatStartedBeforeThePreviousChainsLastKernel) {
  EXPECT_EQ(qe::first_chain_started_early(depth_first()), "");
  // Chain 1 starts at 50 us, while chain 0's last kernel starts only at 102 us.
  const hl::Schedule early({{"step 0", 0, 0, 0, 5, 0, 100},
                            {"step 1", 1, 0, 0, 6, 102, 202},
                            {"step 0", 2, 1, 0, 7, 50, 150},
                            {"step 1", 3, 1, 0, 5, 152, 252}});
  EXPECT_EQ(qe::first_chain_started_early(early),
            "chain 1 started at 50.0 us, before chain 0's last kernel at 102.0 us");
}
