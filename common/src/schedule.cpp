#include "hip_lessons/schedule.hpp"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>

#include "hip_lessons/format.hpp"

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

Schedule::Schedule(std::vector<TracedBlock> blocks) : blocks_(std::move(blocks)) {
  double first = std::numeric_limits<double>::infinity();
  for (const TracedBlock& b : blocks_) first = std::min(first, b.start_us);
  for (TracedBlock& b : blocks_) {
    b.start_us -= first;
    b.end_us -= first;
  }
  std::sort(blocks_.begin(), blocks_.end(), [](const TracedBlock& a, const TracedBlock& b) {
    return a.start_us != b.start_us ? a.start_us < b.start_us : a.launch < b.launch;
  });
}

double Schedule::span_us() const {
  double last = 0;
  for (const TracedBlock& b : blocks_) last = std::max(last, b.end_us);
  return last;
}

std::map<int, Interval> Schedule::launch_spans() const {
  std::map<int, Interval> spans;
  for (const TracedBlock& b : blocks_) {
    auto [it, inserted] = spans.try_emplace(b.launch, Interval{b.start_us, b.end_us});
    if (!inserted) {
      it->second.start = std::min(it->second.start, b.start_us);
      it->second.end = std::max(it->second.end, b.end_us);
    }
  }
  return spans;
}

int Schedule::peak_concurrent_launches() const {
  std::vector<Interval> spans;
  for (const auto& [launch, span] : launch_spans()) spans.push_back(span);
  return max_overlap(std::move(spans));
}

std::optional<std::vector<TracedLaunch>> Schedule::first_overlap_above(int limit) const {
  std::map<int, TracedLaunch> launches;
  for (const TracedBlock& b : blocks_) launches[b.launch] = {b.launch, b.kernel, b.stream, {}};
  // The same sweep as max_overlap(): ends before starts at equal times.
  std::vector<std::tuple<double, int, int>> events;  // time, +1 start / -1 end, launch
  for (const auto& [launch, span] : launch_spans()) {
    launches[launch].span = span;
    events.emplace_back(span.start, +1, launch);
    events.emplace_back(span.end, -1, launch);
  }
  std::sort(events.begin(), events.end());
  std::set<std::pair<double, int>> open;  // start, launch
  for (const auto& [time, change, launch] : events) {
    if (change < 0) {
      open.erase({launches[launch].span.start, launch});
      continue;
    }
    open.insert({time, launch});
    if (static_cast<int>(open.size()) > limit) {
      std::vector<TracedLaunch> crowd;
      for (const auto& [start, l] : open) crowd.push_back(launches[l]);
      return crowd;
    }
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

std::set<unsigned> Schedule::units(std::optional<int> launch) const {
  std::set<unsigned> used;
  for (const TracedBlock& b : blocks_) {
    if (!launch || b.launch == *launch) used.insert(b.unit);
  }
  return used;
}

std::string chrome_trace_json(const std::vector<std::pair<std::string, Schedule>>& runs) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  const auto name_process = [&](int pid, const std::string& name) {
    events.push_back(
        {{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}});
  };
  const auto name_track = [&](int pid, int tid, const std::string& name) {
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", pid},
                      {"tid", tid},
                      {"args", {{"name", name}}}});
  };
  int pid = 0;
  for (const auto& [run, schedule] : runs) {
    const int streams_pid = ++pid;
    const int units_pid = ++pid;
    name_process(streams_pid, run + ": streams");
    name_process(units_pid, run + ": compute units");
    std::map<int, std::pair<std::string, int>> launches;  // launch -> kernel, stream
    for (const TracedBlock& b : schedule.blocks()) launches[b.launch] = {b.kernel, b.stream};
    std::set<int> streams;
    for (const auto& [launch, span] : schedule.launch_spans()) {
      const auto& [kernel, stream] = launches[launch];
      streams.insert(stream);
      events.push_back({{"name", kernel},
                        {"cat", "launch"},
                        {"ph", "X"},
                        {"pid", streams_pid},
                        {"tid", stream},
                        {"ts", span.start},
                        {"dur", span.end - span.start},
                        {"args", {{"launch", launch}}}});
    }
    for (const int stream : streams)
      name_track(streams_pid, stream, "stream " + std::to_string(stream));
    for (const unsigned unit : schedule.units()) {
      name_track(units_pid, static_cast<int>(unit), "unit " + std::to_string(unit));
    }
    for (const TracedBlock& b : schedule.blocks()) {
      events.push_back(
          {{"name", b.kernel + " block " + std::to_string(b.block)},
           {"cat", "block"},
           {"ph", "X"},
           {"pid", units_pid},
           {"tid", static_cast<int>(b.unit)},
           {"ts", b.start_us},
           {"dur", b.end_us - b.start_us},
           {"args", {{"launch", b.launch}, {"stream", b.stream}, {"block", b.block}}}});
    }
  }
  nlohmann::ordered_json document = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
  return document.dump(1) + "\n";
}

}  // namespace hip_lessons
