// A traced run sent from a child process as lines and read back in the parent
// (schedule_lines.hpp): what lessons 05 and 08 need of it, and the lines it refuses.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "hip_lessons/schedule_lines.hpp"

namespace hl = hip_lessons;

namespace {

// Two launches on two streams, on a device clock read at 1.8e18 ns (as %globaltimer reads),
// in microseconds from that origin; the child read its records back at host time 5e12 ns.
hl::Schedule sent_run() {
  return hl::Schedule({{"step 0", 0, 0, 0, 5, 0.0, 100.0},
                       {"step 0", 1, 1, 0, 6, 1.5, 101.5},
                       {"add segment", 2, 1, 3, 7, 102.25, 202.0}},
                      1800000000000000123, 5000000000000);
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

}  // namespace

TEST(ScheduleLines, ARunComesBackAsItWasSentAmongOtherOutput) {
  const std::string output = "chains correct\n" +
                             joined(hl::schedule_lines("depth-first", sent_run())) +
                             "@result depth_first_ms=5 correct=1\n";
  const auto runs = hl::read_schedule_lines(output);
  ASSERT_EQ(runs.size(), 1u);
  const hl::Schedule& got = runs.at("depth-first");
  const hl::Schedule sent = sent_run();
  ASSERT_EQ(got.blocks().size(), sent.blocks().size());
  for (std::size_t i = 0; i < sent.blocks().size(); ++i) {
    const hl::TracedBlock &a = sent.blocks()[i], &b = got.blocks()[i];
    EXPECT_EQ(b.kernel, a.kernel);
    EXPECT_EQ(b.launch, a.launch);
    EXPECT_EQ(b.stream, a.stream);
    EXPECT_EQ(b.block, a.block);
    EXPECT_EQ(b.unit, a.unit);
    EXPECT_DOUBLE_EQ(b.start_us, a.start_us);
    EXPECT_DOUBLE_EQ(b.end_us, a.end_us);
  }
  EXPECT_EQ(got.device_clock_origin_ns(), sent.device_clock_origin_ns());
  EXPECT_EQ(got.host_read_ns(), 5000000000000);
}

TEST(ScheduleLines, BlocksTravelInNanosecondsOfTheDeviceClock) {
  // Lesson 08 sets a victim's and an aggressor's blocks, from two processes, side by side on
  // the clock they share: each line carries the device-clock reading, not the run's offset.
  const std::vector<std::string> lines = hl::schedule_lines("victim", sent_run());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "@schedule victim 1800000000000000123 5000000000000 3");
  EXPECT_EQ(lines[1], "@block victim 0 0 0 5 1800000000000000123 1800000000000100123 step 0");
  EXPECT_EQ(lines[3], "@block victim 2 1 3 7 1800000000000102373 1800000000000202123 add segment");
}

TEST(ScheduleLines, TwoRunsOfTwoProcessesAreReadTogether) {
  const std::string both = joined(hl::schedule_lines("victim", sent_run())) +
                           joined(hl::schedule_lines("aggressor", sent_run()));
  const auto runs = hl::read_schedule_lines(both);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs.at("aggressor").blocks().size(), 3u);
  EXPECT_EQ(runs.at("victim").device_clock_origin_ns(), 1800000000000000123);
}

TEST(ScheduleLines, ARunWithoutAnOriginOrWithoutBlocks) {
  // Blocks already relative to time 0 (no device-clock reading known) come back relative.
  const hl::Schedule relative({{"", 0, 0, 0, 1, 0.0, 10.0}, {"k", 1, 0, 0, 2, 12.0, 20.0}});
  ASSERT_FALSE(relative.device_clock_origin_ns());
  const auto lines = hl::schedule_lines("r", relative);
  EXPECT_EQ(lines[0].rfind("@schedule r - ", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1], "@block r 0 0 0 1 0 10000");  // an unnamed kernel: nothing after the end
  const hl::Schedule got = hl::read_schedule_lines(joined(lines)).at("r");
  EXPECT_FALSE(got.device_clock_origin_ns());
  EXPECT_EQ(got.blocks()[0].kernel, "");
  EXPECT_DOUBLE_EQ(got.span_us(), 20.0);
  const auto empty = hl::read_schedule_lines(joined(hl::schedule_lines("none", hl::Schedule())));
  EXPECT_TRUE(empty.at("none").blocks().empty());
  EXPECT_TRUE(hl::read_schedule_lines("no trace here\n@result x=1\n").empty());
}

TEST(ScheduleLines, WhatCouldNotComeBackAsSentIsRefused) {
  EXPECT_THROW(hl::schedule_lines("two words", sent_run()), std::invalid_argument);
  EXPECT_THROW(hl::schedule_lines("", sent_run()), std::invalid_argument);
  EXPECT_THROW(hl::schedule_lines("r", hl::Schedule({{" padded", 0, 0, 0, 1, 0.0, 1.0}})),
               std::invalid_argument);
  EXPECT_THROW(hl::schedule_lines("r", hl::Schedule({{"two\nlines", 0, 0, 0, 1, 0.0, 1.0}})),
               std::invalid_argument);
}

TEST(ScheduleLines, MalformedOrIncompleteRunsAreErrors) {
  const std::string head = "@schedule r 1000 7 1\n";
  for (const std::string& bad :
       {head + "@block r 0 0 0 5 2000\n",                // no end
        head + "@block r 0 0 0 5 3000 2000 k\n",         // ends before it starts
        head + "@block r 0 0 0 x 2000 3000 k\n",         // unit not a number
        std::string("@schedule r 1000 7\n"),             // no block count
        std::string("@schedule r 10x0 7 0\n"),           // origin not a number
        std::string("@schedule r 1000 7 0 extra\n"),     // a field too many
        head + head + "@block r 0 0 0 5 2000 3000 k\n",  // the run twice
        std::string("@block r 0 0 0 5 2000 3000 k\n"),   // a block before its run
        head,                                            // one block announced, none sent
        head + "@block r 0 0 0 5 2000 3000 k\n@block r 1 0 0 5 2000 3000 k\n"}) {
    EXPECT_THROW(hl::read_schedule_lines(bad), std::runtime_error) << bad;
  }
  EXPECT_NO_THROW(hl::read_schedule_lines(head + "@block r 0 0 0 5 2000 3000 k\n"));
}
