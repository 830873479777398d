// The --trace file's contents (trace_file.hpp): traced runs in the Chrome Trace Event Format,
// with the vendor profiler's kernels laid beside them when a recorder ran (profile_agreement.hpp).
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "hip_lessons/trace_file.hpp"
#include "profile_agreement.hpp"
#include "profiled_kernels.hpp"

namespace hip_lessons {

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

}  // namespace hip_lessons
