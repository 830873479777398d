/// \file timeline.hpp
/// \brief Timelines in the terminal: one row per stream or compute unit, time across.
///
/// A row is drawn over a fixed number of columns spanning the run, `#` where the row is busy
/// and `.` where it is idle (or, counting, the number of intervals open in that column), with
/// a time axis under the rows and a legend. Eight streams that overlap read as eight rows of
/// `#` stacked in the same columns; one stream reads as a staircase.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hip_lessons/results.hpp"
#include "hip_lessons/schedule.hpp"

namespace hip_lessons {

/// One row of a timeline: its label and when it was busy.
struct TimelineRow {
  std::string label;
  std::vector<Interval> busy;
};

/// How a cell shows what happened in its column.
enum class TimelineStyle {
  kBusy,   ///< `#` when any interval touches the column, `.` otherwise
  kCount,  ///< the number of intervals touching the column (1-9, `+` above 9), `.` for none
};

/// Draws \p rows over \p span_us microseconds in \p columns columns (labels are cut to 14
/// characters; at 64 columns a line is 84 characters). Times are shown in us below 10 ms,
/// else in ms.
std::string render_timeline(const std::vector<TimelineRow>& rows, double span_us,
                            TimelineStyle style = TimelineStyle::kBusy, int columns = 64);

/// A timeline as a Figure for a step's result: \p title above render_timeline()'s rows.
Figure timeline(std::string title, const std::vector<TimelineRow>& rows, double span_us,
                TimelineStyle style = TimelineStyle::kBusy);

/// Rows for a schedule: one per launch ("<kernel> #<launch>"), busy while any of its blocks
/// ran.
std::vector<TimelineRow> rows_by_launch(const Schedule& schedule);
/// Rows for a schedule: one per stream named in \p labels (stream number -> label), busy while
/// any of its blocks ran.
std::vector<TimelineRow> rows_by_stream(const Schedule& schedule,
                                        const std::map<int, std::string>& labels);
/// Rows for a schedule: one per unit, each block an interval (draw with kCount to see how
/// many blocks a unit held), labelled "unit <id>". \p limit keeps the first units (by id); 0
/// keeps all.
std::vector<TimelineRow> rows_by_unit(const Schedule& schedule, std::size_t limit = 0);

}  // namespace hip_lessons
