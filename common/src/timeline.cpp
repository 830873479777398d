#include "hip_lessons/timeline.hpp"

#include <map>
#include <sstream>

#include "hip_lessons/format.hpp"

namespace hip_lessons {

namespace {

constexpr std::size_t kLabelWidth = 14;

std::string time_text(double us, bool in_ms) {
  return in_ms ? fixed(us / 1000.0, us >= 100000.0 ? 0 : 2) + " ms"
               : fixed(us, us >= 100.0 ? 0 : 1) + " us";
}

}  // namespace

std::string render_timeline(const std::vector<TimelineRow>& rows, double span_us,
                            TimelineStyle style, int columns) {
  std::ostringstream out;
  const double span = span_us > 0 ? span_us : 1.0;
  const double per_column = span / columns;
  for (const TimelineRow& row : rows) {
    std::string label = row.label.substr(0, kLabelWidth);
    label.resize(kLabelWidth, ' ');
    std::string cells(static_cast<std::size_t>(columns), '.');
    for (int c = 0; c < columns; ++c) {
      const double from = c * per_column;
      const double to = from + per_column;
      int touching = 0;
      for (const Interval& i : row.busy) touching += i.start < to && i.end > from;
      if (touching == 0) continue;
      cells[static_cast<std::size_t>(c)] = style == TimelineStyle::kBusy ? '#'
                                           : touching > 9                ? '+'
                                                          : static_cast<char>('0' + touching);
    }
    out << "  " << label << " |" << cells << "|\n";
  }
  const bool in_ms = span >= 10000.0;
  const std::string start = time_text(0, in_ms);
  const std::string end = time_text(span, in_ms);
  const std::size_t axis_width = static_cast<std::size_t>(columns) + 2;
  std::string axis = start;
  axis.resize(axis_width > end.size() ? axis_width - end.size() : start.size() + 1, ' ');
  out << "  " << std::string(kLabelWidth + 1, ' ') << axis << end << '\n';
  out << "  "
      << (style == TimelineStyle::kBusy ? "# running, . idle"
                                        : "digit: blocks running at once, . idle")
      << "; " << columns << " columns of " << time_text(per_column, in_ms) << '\n';
  return out.str();
}

std::vector<TimelineRow> rows_by_launch(const Schedule& schedule) {
  std::map<int, TimelineRow> rows;
  for (const TracedBlock& b : schedule.blocks()) {
    TimelineRow& row = rows[b.launch];
    if (row.label.empty()) row.label = b.kernel + " #" + std::to_string(b.launch);
    row.busy.push_back({b.start_us, b.end_us});
  }
  std::vector<TimelineRow> ordered;
  for (auto& [launch, row] : rows) ordered.push_back(std::move(row));
  return ordered;
}

Figure timeline(std::string title, const std::vector<TimelineRow>& rows, double span_us,
                TimelineStyle style) {
  return {std::move(title), render_timeline(rows, span_us, style)};
}

std::vector<TimelineRow> rows_by_stream(const Schedule& schedule,
                                        const std::map<int, std::string>& labels) {
  std::vector<TimelineRow> rows;
  for (const auto& [stream, label] : labels) {
    TimelineRow row{label, {}};
    for (const TracedBlock& b : schedule.blocks()) {
      if (b.stream == stream) row.busy.push_back({b.start_us, b.end_us});
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<TimelineRow> rows_by_unit(const Schedule& schedule, std::size_t limit) {
  std::map<unsigned, TimelineRow> rows;
  for (const TracedBlock& b : schedule.blocks()) {
    TimelineRow& row = rows[b.unit];
    if (row.label.empty()) row.label = "unit " + std::to_string(b.unit);
    row.busy.push_back({b.start_us, b.end_us});
  }
  std::vector<TimelineRow> ordered;
  for (auto& [unit, row] : rows) {
    if (limit != 0 && ordered.size() == limit) break;
    ordered.push_back(std::move(row));
  }
  return ordered;
}

}  // namespace hip_lessons
