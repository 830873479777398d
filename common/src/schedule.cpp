#include "hip_lessons/schedule.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include "hip_lessons/format.hpp"
#include "hip_lessons/trace_file.hpp"
#include "output_file.hpp"

namespace hip_lessons {

int max_overlap(std::vector<Interval> intervals) {
  // Sweep the ends before the starts at equal times, so touching intervals do not overlap.
  std::vector<std::pair<double, int>> events;
  for (const Interval& i : intervals) {
    events.emplace_back(i.start, +1);
    events.emplace_back(i.end, -1);
  }
  std::sort(events.begin(), events.end());
  int open = 0;
  int most = 0;
  for (const auto& [time, change] : events) {
    open += change;
    most = std::max(most, open);
  }
  return most;
}

namespace {

std::int64_t steady_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Shifts \p blocks so that the earliest start is 0 and sorts them; returns the shift (us).
double shift_to_first_start(std::vector<TracedBlock>& blocks) {
  if (blocks.empty()) return 0.0;
  double first = std::numeric_limits<double>::infinity();
  for (const TracedBlock& b : blocks) first = std::min(first, b.start_us);
  for (TracedBlock& b : blocks) {
    b.start_us -= first;
    b.end_us -= first;
  }
  std::sort(blocks.begin(), blocks.end(), [](const TracedBlock& a, const TracedBlock& b) {
    return a.start_us != b.start_us ? a.start_us < b.start_us : a.launch < b.launch;
  });
  return first;
}

}  // namespace

Schedule::Schedule(std::vector<TracedBlock> blocks)
    : blocks_(std::move(blocks)), host_read_ns_(steady_clock_ns()) {
  const double first = shift_to_first_start(blocks_);
  if (first != 0.0) origin_ns_ = std::llround(first * 1000.0);
}

Schedule::Schedule(std::vector<TracedBlock> blocks, std::int64_t origin_ns,
                   std::optional<std::int64_t> host_read_ns)
    : blocks_(std::move(blocks)), host_read_ns_(host_read_ns.value_or(steady_clock_ns())) {
  origin_ns_ = origin_ns + std::llround(shift_to_first_start(blocks_) * 1000.0);
}

double Schedule::span_us() const {
  double last = 0;
  for (const TracedBlock& b : blocks_) last = std::max(last, b.end_us);
  return last;
}

std::map<int, TracedLaunch> Schedule::launches() const {
  std::map<int, TracedLaunch> launches;
  for (const TracedBlock& b : blocks_) {
    const TracedLaunch first{b.launch, b.kernel, b.stream, {b.start_us, b.end_us}};
    TracedLaunch& l = launches.try_emplace(b.launch, first).first->second;
    l.span = {std::min(l.span.start, b.start_us), std::max(l.span.end, b.end_us)};
    ++l.blocks;
  }
  return launches;
}

int Schedule::peak_concurrent_launches() const {
  std::vector<Interval> spans;
  for (const auto& [launch, l] : launches()) spans.push_back(l.span);
  return max_overlap(std::move(spans));
}

std::optional<std::vector<TracedLaunch>> Schedule::first_overlap_above(int limit) const {
  std::vector<TracedLaunch> by_start;
  for (const auto& [launch, l] : launches()) by_start.push_back(l);
  std::sort(by_start.begin(), by_start.end(), [](const TracedLaunch& a, const TracedLaunch& b) {
    return std::tie(a.span.start, a.launch) < std::tie(b.span.start, b.launch);
  });
  // At each start, in start order: the launches started so far that have not ended (one that
  // ends exactly then does not overlap it).
  for (std::size_t i = 0; i < by_start.size(); ++i) {
    std::vector<TracedLaunch> open;
    for (std::size_t j = 0; j <= i; ++j) {
      if (j == i || by_start[j].span.end > by_start[i].span.start) open.push_back(by_start[j]);
    }
    if (static_cast<int>(open.size()) > limit) return open;
  }
  return std::nullopt;
}

std::string describe(const std::vector<TracedLaunch>& launches) {
  std::string text;
  for (const TracedLaunch& l : launches) {
    text += format("{}{} #{} on stream {} at {:.1}-{:.1} us", text.empty() ? "" : "; ", l.kernel,
                   l.launch, l.stream, l.span.start, l.span.end);
  }
  return text;
}

std::map<unsigned, int> Schedule::peak_blocks_per_unit() const {
  std::map<unsigned, std::vector<Interval>> per_unit;
  for (const TracedBlock& b : blocks_) per_unit[b.unit].push_back({b.start_us, b.end_us});
  std::map<unsigned, int> peaks;
  for (auto& [unit, intervals] : per_unit) peaks[unit] = max_overlap(std::move(intervals));
  return peaks;
}

std::set<unsigned> Schedule::units() const {
  std::set<unsigned> used;
  for (const TracedBlock& b : blocks_) used.insert(b.unit);
  return used;
}

void TraceFile::write(const std::string& path) const {
  write_output_file(path, chrome_trace_json(runs_));
}

}  // namespace hip_lessons
