#include "hip_lessons/schedule.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>

#include "hip_lessons/format.hpp"
#include "hip_lessons/trace_file.hpp"
#include "output_file.hpp"
#include "profile_agreement.hpp"
#include "profiled_kernels.hpp"

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

std::string chrome_trace_json(const std::vector<std::pair<std::string, Schedule>>& runs) {
  const std::optional<ProfilerCapture> profiler = profiler_capture_in_this_process();
  return chrome_trace_json(runs, profiler ? &*profiler : nullptr);
}

std::string chrome_trace_json(const std::vector<std::pair<std::string, Schedule>>& runs,
                              const ProfilerCapture* profiler) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  nlohmann::ordered_json run_entries = nlohmann::ordered_json::array();
  const auto name_process = [&](int pid, const std::string& name) {
    events.push_back(
        {{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}});
  };
  const auto name_track = [&](int pid, std::int64_t tid, const std::string& name) {
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", pid},
                      {"tid", tid},
                      {"args", {{"name", name}}}});
  };
  const auto slice = [&](const std::string& name, const char* cat, int pid, std::int64_t tid,
                         double ts, double dur, nlohmann::ordered_json args) {
    events.push_back({{"name", name},
                      {"cat", cat},
                      {"ph", "X"},
                      {"pid", pid},
                      {"tid", tid},
                      {"ts", ts},
                      {"dur", dur},
                      {"args", std::move(args)}});
  };
  int pid = 0;
  for (const auto& [run, schedule] : runs) {
    const int streams_pid = ++pid;
    const int units_pid = ++pid;
    name_process(streams_pid, run + ": streams");
    name_process(units_pid, run + ": compute units");
    // The profiler's kernels paired with the run's launches, and the others that started while
    // they ran, when the clocks could be aligned.
    std::optional<RunAgreement> slices;
    if (profiler != nullptr && profiler->ok()) {
      slices = compare_run(clocked_run(run, schedule), *profiler);
      if (!slices->offset_ns) slices.reset();
    }
    // With profiler slices, time 0 moves back to the earliest of them (a kernel starts before
    // its first block), so that no slice has a negative time.
    std::int64_t profiler_at_ts0_ns = 0;  // the profiler's clock at the run's time 0
    std::int64_t shift_ns = 0;
    if (slices) {
      profiler_at_ts0_ns = schedule.device_clock_origin_ns().value_or(0) + *slices->offset_ns;
      for (const LaunchPair& p : slices->pairs) {
        shift_ns = std::max(shift_ns, profiler_at_ts0_ns - p.kernel.start_ns);
      }
    }
    const double shift_us = static_cast<double>(shift_ns) / 1000.0;
    std::set<int> streams;
    for (const auto& [launch, l] : schedule.launches()) {
      streams.insert(l.stream);
      slice(l.kernel, "launch", streams_pid, l.stream, l.span.start + shift_us,
            l.span.end - l.span.start, {{"launch", launch}, {"blocks", l.blocks}});
    }
    for (const int stream : streams)
      name_track(streams_pid, stream, "stream " + std::to_string(stream));
    for (const unsigned unit : schedule.units())
      name_track(units_pid, static_cast<int>(unit), "unit " + std::to_string(unit));
    for (const TracedBlock& b : schedule.blocks()) {
      slice(b.kernel + " block " + std::to_string(b.block), "block", units_pid, b.unit,
            b.start_us + shift_us, b.end_us - b.start_us,
            {{"launch", b.launch}, {"stream", b.stream}, {"block", b.block}});
    }
    if (slices) {
      const int profiler_pid = ++pid;
      name_process(profiler_pid, run + ": profiler (" + slices->tool + ")");
      std::map<std::int64_t, std::string> profiler_tracks;
      const auto add = [&](const ProfiledKernel& k, std::optional<int> launch) {
        // A track per profiler stream, and per process when the capture holds several (each
        // process numbers its streams from its own start).
        const std::int64_t track = std::int64_t{k.process} * 1000000 + std::int64_t{k.stream};
        std::string name = slices->tool + " stream " + std::to_string(k.stream);
        if (k.process < profiler->processes.size()) {
          name += " (pid " + std::to_string(profiler->processes[k.process].pid) + ")";
        }
        profiler_tracks[track] = name;
        nlohmann::ordered_json args = {{"launch", nullptr},      {"correlation", k.correlation},
                                       {"grid", k.grid},         {"block", k.block},
                                       {"start_ns", k.start_ns}, {"end_ns", k.end_ns}};
        if (launch) args["launch"] = *launch;
        slice(k.name, launch ? "profiler" : "profiler, untraced", profiler_pid, track,
              static_cast<double>(k.start_ns - profiler_at_ts0_ns) / 1000.0 + shift_us,
              static_cast<double>(k.end_ns - k.start_ns) / 1000.0, std::move(args));
      };
      for (const LaunchPair& p : slices->pairs) add(p.kernel, p.launch.launch);
      for (const ProfiledKernel& k : slices->others) add(k, std::nullopt);
      for (const auto& [tid, name] : profiler_tracks) name_track(profiler_pid, tid, name);
    }
    nlohmann::ordered_json entry = {{"run", run},
                                    {"streams_pid", streams_pid},
                                    {"device_clock_at_ts0_ns", nullptr},
                                    {"host_read_ns", schedule.host_read_ns()}};
    if (schedule.device_clock_origin_ns()) {
      entry["device_clock_at_ts0_ns"] = *schedule.device_clock_origin_ns() - shift_ns;
    }
    run_entries.push_back(std::move(entry));
  }
  nlohmann::ordered_json other = {{"hip_lessons_runs", std::move(run_entries)}};
  if (profiler != nullptr) {
    other["hip_lessons_profiler"] =
        nlohmann::ordered_json::parse(profiler_capture_to_json(*profiler));
  }
  nlohmann::ordered_json document = {{"traceEvents", std::move(events)},
                                     {"displayTimeUnit", "ns"},
                                     {"otherData", std::move(other)}};
  return document.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void TraceFile::write(const std::string& path) const {
  write_output_file(path, chrome_trace_json(runs_));
}

}  // namespace hip_lessons
