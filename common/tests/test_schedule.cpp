// Schedules from fixed block records: their analysis, the terminal timeline (exact text) and
// the Chrome trace (valid JSON with the documented tracks).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "hip_lessons/schedule.hpp"
#include "hip_lessons/timeline.hpp"
#include "hip_lessons/trace_file.hpp"

namespace hl = hip_lessons;

namespace {

// Two one-block launches on two streams that overlap for 50 us, and a two-block launch whose
// blocks share unit 3; the clock starts at 1000 us, as a device clock would not start at 0.
hl::Schedule example() {
  return hl::Schedule({{"spin", 0, 0, 0, 7, 1000, 1100},
                       {"spin", 1, 1, 0, 8, 1050, 1150},
                       {"pair", 2, 0, 0, 3, 1200, 1300},
                       {"pair", 2, 0, 1, 3, 1250, 1320}});
}

}  // namespace

TEST(ScheduleTest, ShiftsToTheFirstStartAndMeasuresTheSpan) {
  const hl::Schedule s = example();
  EXPECT_DOUBLE_EQ(s.blocks().front().start_us, 0.0);
  EXPECT_DOUBLE_EQ(s.span_us(), 320.0);
  EXPECT_EQ(s.launches().at(2).span.start, 200.0);
  EXPECT_EQ(s.launches().at(2).span.end, 320.0);
  EXPECT_EQ(s.launches().at(2).blocks, 2u);
  EXPECT_EQ(s.launches().at(1).kernel, "spin");
  EXPECT_EQ(s.launches().at(1).stream, 1);
}

TEST(ScheduleTest, CountsWhatRanAtOnce) {
  const hl::Schedule s = example();
  EXPECT_EQ(s.peak_concurrent_launches(), 2);
  EXPECT_EQ(s.peak_blocks_per_unit().at(3), 2);
  EXPECT_EQ(s.peak_blocks_per_unit().at(7), 1);
  EXPECT_EQ(s.units(), (std::set<unsigned>{3, 7, 8}));
}

TEST(ScheduleTest, TouchingIntervalsDoNotOverlap) {
  EXPECT_EQ(hl::max_overlap({{0, 10}, {10, 20}, {20, 30}}), 1);
  EXPECT_EQ(hl::max_overlap({{0, 10}, {5, 20}, {6, 7}}), 3);
  EXPECT_EQ(hl::max_overlap({}), 0);
}

TEST(ScheduleTest, NamesTheLaunchesOfTheFirstOverlapAboveALimit) {
  const hl::Schedule s = example();
  EXPECT_FALSE(s.first_overlap_above(2).has_value());
  const auto crowd = s.first_overlap_above(1);
  ASSERT_TRUE(crowd.has_value());
  ASSERT_EQ(crowd->size(), 2u);
  EXPECT_EQ(crowd->at(0).launch, 0);
  EXPECT_EQ(crowd->at(1).launch, 1);
  EXPECT_EQ(crowd->at(1).stream, 1);
  EXPECT_DOUBLE_EQ(crowd->at(1).span.start, 50.0);
  EXPECT_EQ(hl::describe(*crowd),
            "spin #0 on stream 0 at 0.0-100.0 us; spin #1 on stream 1 at 50.0-150.0 us");
  // Launches that touch (one ends as the next starts) never overlap.
  const hl::Schedule chain({{"a", 0, 0, 0, 1, 0, 10}, {"b", 1, 0, 0, 1, 10, 20}});
  EXPECT_FALSE(chain.first_overlap_above(1).has_value());
  EXPECT_TRUE(chain.first_overlap_above(0).has_value());
  // Three launches that start together: the first two named, in launch order.
  const hl::Schedule three(
      {{"a", 2, 0, 0, 1, 0, 10}, {"b", 0, 1, 0, 2, 0, 10}, {"c", 1, 2, 0, 3, 0, 10}});
  EXPECT_EQ(hl::describe(*three.first_overlap_above(1)),
            "b #0 on stream 1 at 0.0-10.0 us; c #1 on stream 2 at 0.0-10.0 us");
  // A launch that took no time is over once it started, as in max_overlap().
  const hl::Schedule instant(
      {{"a", 0, 0, 0, 1, 0, 0}, {"b", 1, 0, 0, 1, 5, 10}, {"c", 2, 1, 0, 2, 6, 12}});
  EXPECT_EQ(hl::describe(*instant.first_overlap_above(1)),
            "b #1 on stream 0 at 5.0-10.0 us; c #2 on stream 1 at 6.0-12.0 us");
}

TEST(TimelineTest, DrawsOneRowPerLaunchWithAnAxisAndALegend) {
  const hl::Schedule s = example();
  EXPECT_EQ(hl::render_timeline(hl::rows_by_launch(s), s.span_us(), hl::TimelineStyle::kBusy, 16),
            "  spin #0        |#####...........|\n"
            "  spin #1        |..######........|\n"
            "  pair #2        |..........######|\n"
            "                 0.0 us      320 us\n"
            "  # running, . idle; 16 columns of 20.0 us\n");
}

TEST(TimelineTest, CountsBlocksPerUnit) {
  const hl::Schedule s = example();
  EXPECT_EQ(hl::render_timeline(hl::rows_by_unit(s, 2), s.span_us(), hl::TimelineStyle::kCount, 16),
            "  unit 3         |..........112221|\n"
            "  unit 7         |11111...........|\n"
            "                 0.0 us      320 us\n"
            "  digit: blocks running at once, . idle; 16 columns of 20.0 us\n");
}

TEST(TimelineTest, SwitchesToMillisecondsForLongRuns) {
  const std::string text =
      hl::render_timeline({{"long", {{0, 30000}}}}, 30000, hl::TimelineStyle::kBusy, 8);
  EXPECT_NE(text.find("0.00 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("30.00 ms"), std::string::npos) << text;
}

TEST(ChromeTraceTest, WritesTracksPerStreamAndPerUnit) {
  const nlohmann::json trace =
      nlohmann::json::parse(hl::chrome_trace_json({{"8 streams", example()}}));
  ASSERT_TRUE(trace.contains("traceEvents"));
  int launches = 0;
  int blocks = 0;
  std::set<std::string> process_names;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") process_names.insert(e["args"]["name"]);
    if (e["ph"] != "X") continue;
    EXPECT_TRUE(e["ts"].is_number() && e["dur"].is_number() && e["dur"] >= 0) << e;
    if (e["cat"] == "launch") {
      ++launches;
      EXPECT_EQ(e["pid"], 1);
    } else {
      ++blocks;
      EXPECT_EQ(e["pid"], 2);
    }
  }
  EXPECT_EQ(launches, 3);
  EXPECT_EQ(blocks, 4);
  EXPECT_EQ(process_names,
            (std::set<std::string>{"8 streams: streams", "8 streams: compute units"}));
  bool found = false;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["name"] == "pair block 1") {
      found = true;
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 250.0);
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 70.0);
      EXPECT_EQ(e["tid"], 3);
    }
  }
  EXPECT_TRUE(found);
}
