#include "profile_agreement.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <tuple>

#include "hip_lessons/errors.hpp"
#include "hip_lessons/format.hpp"
#include "hip_lessons/report.hpp"
#include "hip_lessons/results.hpp"

namespace hip_lessons {

double AgreementTolerance::makespan_allowed_us(double trace_us) const {
  return makespan_us + makespan_fraction * trace_us;
}

ClockedRun clocked_run(const std::string& name, const Schedule& schedule) {
  ClockedRun run;
  run.name = name;
  run.device_clock_known = schedule.device_clock_origin_ns().has_value();
  run.host_read_ns = schedule.host_read_ns();
  const std::int64_t origin = schedule.device_clock_origin_ns().value_or(0);
  std::map<int, ClockedLaunch> launches;
  for (const TracedBlock& b : schedule.blocks()) {
    const std::int64_t start = origin + std::llround(b.start_us * 1000.0);
    const std::int64_t end = origin + std::llround(b.end_us * 1000.0);
    auto [it, first] = launches.try_emplace(b.launch);
    ClockedLaunch& l = it->second;
    if (first) {
      l = {b.launch, b.kernel, b.stream, 0, start, end};
    } else {
      l.start_ns = std::min(l.start_ns, start);
      l.end_ns = std::max(l.end_ns, end);
    }
    ++l.blocks;
  }
  for (auto& [launch, l] : launches) run.launches.push_back(std::move(l));
  return run;
}

namespace {

// The first word of a profiler's name ("CUPTI 13.0 ..." -> "CUPTI"), for messages.
std::string short_name(const std::string& tool) {
  const std::string word = tool.substr(0, tool.find(' '));
  return word.empty() ? "profiler" : word;
}

// One way of pairing the run's launches with kernels: the kernel index per launch, and the
// range of offsets (profiler clock minus device clock) that every pair allows: base + [lo, hi]
// nanoseconds, lo > hi when none fits them all. The offsets are about 1.8e18 ns when the device
// clock is %globaltimer, where a double resolves only 256 ns: base keeps them exact, and lo and
// hi stay small.
struct Pairing {
  std::vector<std::optional<std::size_t>> kernel_of;
  std::int64_t base = 0;
  double lo = 0;
  double hi = 0;
  std::size_t paired = 0;
  std::int64_t last_end = std::numeric_limits<std::int64_t>::min();

  double spread() const { return std::max(0.0, lo - hi); }
};

class Pairer {
 public:
  Pairer(const ClockedRun& run, const std::vector<ProfiledKernel>& kernels, double window_ns)
      : run_(run), kernels_(kernels), window_ns_(window_ns), stamp_(kernels.size(), 0) {
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      const std::int64_t duration = kernels[k].end_ns - kernels[k].start_ns;
      int octave = 0;
      while (octave < 62 && (std::int64_t{1} << (octave + 1)) <= duration) ++octave;
      Bucket& b = buckets_[kernels[k].blocks()][octave];
      b.by_start.push_back(k);
      b.longest = std::max(b.longest, duration);
    }
    for (auto& [blocks, octaves] : buckets_) {
      for (auto& [octave, b] : octaves) {
        std::sort(b.by_start.begin(), b.by_start.end(), [&](std::size_t x, std::size_t y) {
          return kernels_[x].start_ns < kernels_[y].start_ns;
        });
      }
    }
  }

  // Pairs launch \p a with kernel \p k, then each later launch in issue order, then each
  // earlier one in reverse. Gives up (nothing paired) once more than \p max_missing launches
  // found no kernel: such a pairing cannot beat one that missed fewer.
  Pairing from(std::size_t a, std::size_t k, std::size_t max_missing) {
    ++generation_;
    std::size_t missing = 0;
    const std::vector<ClockedLaunch>& launches = run_.launches;
    const ProfiledKernel& anchor = kernels_[k];
    Pairing p;
    p.kernel_of.assign(launches.size(), std::nullopt);
    p.base = anchor.start_ns - launches[a].start_ns;
    p.lo = 0;
    p.hi = static_cast<double>((anchor.end_ns - launches[a].end_ns) - p.base);
    if (anchor.blocks() != launches[a].blocks || p.lo - p.hi > 2 * window_ns_) return Pairing{};
    take(p, a, k);
    // After the anchor: a kernel issued after the last paired one, the earliest such first.
    std::uint32_t issued = anchor.correlation;
    for (std::size_t i = a + 1; i < launches.size(); ++i) {
      const auto best = best_kernel(p, launches[i], [&](const ProfiledKernel& c) {
        return std::make_tuple(c.correlation < issued, std::int64_t{c.correlation}, c.start_ns);
      });
      if (!best) {
        if (++missing > max_missing) return Pairing{};
        continue;
      }
      std::tie(p.lo, p.hi) = narrowed(p, launches[i], kernels_[*best]);
      take(p, i, *best);
      issued = std::max(issued, kernels_[*best].correlation);
    }
    // Before it: a kernel issued before the first paired one, the latest such first.
    issued = anchor.correlation;
    for (std::size_t i = a; i-- > 0;) {
      const auto best = best_kernel(p, launches[i], [&](const ProfiledKernel& c) {
        return std::make_tuple(c.correlation > issued, -std::int64_t{c.correlation}, -c.start_ns);
      });
      if (!best) {
        if (++missing > max_missing) return Pairing{};
        continue;
      }
      std::tie(p.lo, p.hi) = narrowed(p, launches[i], kernels_[*best]);
      take(p, i, *best);
      issued = std::min(issued, kernels_[*best].correlation);
    }
    return p;
  }

 private:
  // The unpaired kernel with launch l's blocks that keeps the fitting offsets within the window
  // and has the smallest key(kernel), if any.
  template <class Key>
  std::optional<std::size_t> best_kernel(const Pairing& p, const ClockedLaunch& l, Key key) {
    // A kernel that can hold l at an offset in base + [lo, hi] (widened by the window) starts
    // no later than l.start + base + hi and ends no earlier than l.end + base + lo.
    std::optional<std::size_t> best;
    const auto grid = buckets_.find(l.blocks);
    if (grid == buckets_.end()) return best;
    decltype(key(kernels_[0])) best_key{};
    const auto window = static_cast<std::int64_t>(std::ceil(2 * window_ns_));
    const std::int64_t latest_start = l.start_ns + p.base + std::llround(p.hi) + window;
    for (const auto& [octave, bucket] : grid->second) {
      const std::int64_t earliest_start =
          l.end_ns + p.base + std::llround(p.lo) - window - bucket.longest;
      const std::vector<std::size_t>& by_start = bucket.by_start;
      auto it =
          std::lower_bound(by_start.begin(), by_start.end(), earliest_start,
                           [&](std::size_t k, std::int64_t t) { return kernels_[k].start_ns < t; });
      for (; it != by_start.end() && kernels_[*it].start_ns <= latest_start; ++it) {
        const ProfiledKernel& k = kernels_[*it];
        if (stamp_[*it] == generation_) continue;
        const auto [lo, hi] = narrowed(p, l, k);
        if (lo - hi > 2 * window_ns_) continue;
        const auto k_key = key(k);
        if (!best || k_key < best_key) {
          best = *it;
          best_key = k_key;
        }
      }
    }
    return best;
  }

  // The offsets (relative to p.base) that fit the pairs so far and launch l in kernel k.
  static std::pair<double, double> narrowed(const Pairing& p, const ClockedLaunch& l,
                                            const ProfiledKernel& k) {
    return {std::max(p.lo, static_cast<double>((k.start_ns - l.start_ns) - p.base)),
            std::min(p.hi, static_cast<double>((k.end_ns - l.end_ns) - p.base))};
  }

  void take(Pairing& p, std::size_t launch, std::size_t kernel) {
    p.kernel_of[launch] = kernel;
    stamp_[kernel] = generation_;
    ++p.paired;
    p.last_end = std::max(p.last_end, kernels_[kernel].end_ns);
  }

  // Kernels of one grid size and of durations within one power of two, by start, and the
  // longest of them: how far before a moment a kernel that still runs then can have started.
  // A search scans each bucket back by its own longest duration, so one long kernel does not
  // make every search scan all short kernels that started within its length.
  struct Bucket {
    std::vector<std::size_t> by_start;
    std::int64_t longest = 0;
  };

  const ClockedRun& run_;
  const std::vector<ProfiledKernel>& kernels_;
  double window_ns_;
  std::map<std::uint64_t, std::map<int, Bucket>> buckets_;  // blocks -> octave -> kernels
  std::vector<std::uint64_t> stamp_;  // == generation_: paired in the pairing being built
  std::uint64_t generation_ = 0;
};

// The most of \p spans (start and end, ns) open at one moment, where two count as open
// together only when they overlap by more than \p overlap_ns: each end moves \p overlap_ns
// earlier (never to its start, so a short one still counts where it starts). Measured from the
// earliest start, so that a double resolves the nanoseconds of a large clock.
int peak_beyond(const std::vector<std::pair<std::int64_t, std::int64_t>>& spans,
                double overlap_ns) {
  std::int64_t zero = std::numeric_limits<std::int64_t>::max();
  for (const auto& [start, end] : spans) zero = std::min(zero, start);
  std::vector<Interval> intervals;
  for (const auto& [start, end] : spans) {
    const auto from = static_cast<double>(start - zero), to = static_cast<double>(end - zero);
    intervals.push_back({from, std::max(from + 1.0, to - overlap_ns)});
  }
  return max_overlap(std::move(intervals));
}

// Whether pairing \p a is better than \p b (see the file comment of profile_agreement.hpp).
bool better(const Pairing& a, const Pairing& b, double equal_spread_ns,
            std::optional<std::int64_t> host_read_ns, double window_ns) {
  if (a.paired != b.paired) return a.paired > b.paired;
  const bool a_fits = a.spread() <= equal_spread_ns;
  const bool b_fits = b.spread() <= equal_spread_ns;
  if (a_fits != b_fits) return a_fits;
  if (!a_fits && a.spread() != b.spread()) return a.spread() < b.spread();
  if (host_read_ns) {
    // The schedule was made after its kernels had finished: kernels that ended later (beyond
    // the clocks' conversion error) are an untraced copy run after it.
    const auto in_time = [&](const Pairing& p) {
      return static_cast<double>(p.last_end) <= static_cast<double>(*host_read_ns) + window_ns;
    };
    if (in_time(a) != in_time(b)) return in_time(a);
    const auto distance = [&](const Pairing& p) {
      return std::abs(static_cast<double>(*host_read_ns - p.last_end));
    };
    return distance(a) < distance(b);
  }
  return a.last_end > b.last_end;
}

}  // namespace

RunAgreement compare_run(const ClockedRun& run, const ProfilerCapture& capture,
                         const AgreementTolerance& tolerance) {
  RunAgreement result;
  result.run = run.name;
  result.tool = short_name(capture.tool);
  std::vector<std::pair<std::int64_t, std::int64_t>> traced;
  std::int64_t first_start = std::numeric_limits<std::int64_t>::max();
  std::int64_t last_end = std::numeric_limits<std::int64_t>::min();
  for (const ClockedLaunch& l : run.launches) {
    traced.emplace_back(l.start_ns, l.end_ns);
    first_start = std::min(first_start, l.start_ns);
    last_end = std::max(last_end, l.end_ns);
  }
  const double concurrency_ns = tolerance.concurrency_us * 1000.0;
  result.trace_peak = peak_beyond(traced, concurrency_ns);
  result.trace_makespan_ns =
      run.launches.empty() ? 0.0 : static_cast<double>(last_end - first_start);
  if (run.launches.empty()) return result;

  const std::vector<ProfiledKernel>& kernels = capture.kernels;
  const bool same_host_clock = capture.host_clock == kSteadyHostClock;
  const std::optional<std::int64_t> host_read =
      same_host_clock ? run.host_read_ns : std::optional<std::int64_t>();
  Pairer pairer(run, kernels, tolerance.match_window_us * 1000.0);
  Pairing best;
  // Anchored on the first launch; when that pairs some launches but not all (the first may be
  // the one missing), on the second and third too.
  const std::size_t anchors = std::min<std::size_t>(run.launches.size(), 3);
  for (std::size_t a = 0; a < anchors && best.paired < run.launches.size(); ++a) {
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      if (kernels[k].blocks() != run.launches[a].blocks) continue;
      const std::size_t max_missing =
          best.paired == 0 ? run.launches.size() : run.launches.size() - best.paired;
      Pairing candidate = pairer.from(a, k, max_missing);
      if (candidate.paired == 0) continue;
      if (best.paired == 0 || better(candidate, best, 2 * tolerance.outside_us * 1000.0, host_read,
                                     tolerance.match_window_us * 1000.0)) {
        best = std::move(candidate);
      }
    }
  }

  std::vector<bool> paired_kernel(kernels.size(), false);
  // The middle of the fitting range; when none fits, the offset that leaves the worst launch
  // least outside.
  const double middle = (best.lo + best.hi) / 2;
  if (best.paired > 0) {
    result.offset_ns = best.base + std::llround(middle);
    result.outside_ns = best.spread() / 2;
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> profiled;
  std::int64_t profiled_start = std::numeric_limits<std::int64_t>::max();
  std::int64_t profiled_end = std::numeric_limits<std::int64_t>::min();
  for (std::size_t i = 0; i < run.launches.size(); ++i) {
    const ClockedLaunch& l = run.launches[i];
    if (best.paired == 0 || !best.kernel_of[i]) {
      result.missing.push_back(l);
      continue;
    }
    const ProfiledKernel& k = kernels[*best.kernel_of[i]];
    paired_kernel[*best.kernel_of[i]] = true;
    result.pairs.push_back({l, k,
                            static_cast<double>((l.start_ns - k.start_ns) + best.base) + middle,
                            static_cast<double>((k.end_ns - l.end_ns) - best.base) - middle});
    profiled.emplace_back(k.start_ns, k.end_ns);
    profiled_start = std::min(profiled_start, k.start_ns);
    profiled_end = std::max(profiled_end, k.end_ns);
  }
  if (result.pairs.empty()) return result;
  result.profiler_peak = peak_beyond(profiled, concurrency_ns);
  result.profiler_peak_beyond_ramp =
      peak_beyond(profiled, concurrency_ns + tolerance.ramp_us * 1000.0);
  result.profiler_makespan_ns = static_cast<double>(profiled_end - profiled_start);
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    if (!paired_kernel[k] && kernels[k].start_ns >= profiled_start &&
        kernels[k].start_ns < profiled_end) {
      result.others.push_back(kernels[k]);
    }
  }
  if (host_read) result.host_read_after_ns = static_cast<double>(*host_read - profiled_end);
  return result;
}

std::vector<AgreementCheck> agreement_checks(const RunAgreement& a,
                                             const AgreementTolerance& tolerance) {
  const std::string& tool = a.tool;
  const std::size_t launches = a.pairs.size() + a.missing.size();
  std::vector<AgreementCheck> checks;

  std::string missing;
  for (const ClockedLaunch& l : a.missing) {
    if (!missing.empty()) missing += "; ";
    missing += format("{} #{} on stream {} ({} blocks)", l.kernel, l.launch, l.stream, l.blocks);
  }
  checks.push_back({format("{}: every traced launch is one {} kernel", a.run, tool),
                    launches > 0 && a.missing.empty(),
                    a.missing.empty()
                        ? format("{} of {} paired: same blocks, issue order, one clock offset",
                                 a.pairs.size(), launches)
                        : format("{} of {} paired; no {} kernel for: {}", a.pairs.size(), launches,
                                 tool, missing)});

  // At the middle offset the tightest start and the tightest end are equally tight: name both
  // (when they are outside, no one offset puts both launches inside their kernels).
  const LaunchPair* start = nullptr;
  const LaunchPair* end = nullptr;
  for (const LaunchPair& p : a.pairs) {
    if (start == nullptr || p.lead_ns < start->lead_ns) start = &p;
    if (end == nullptr || p.lag_ns < end->lag_ns) end = &p;
  }
  const double outside_us = a.outside_ns / 1000.0;
  checks.push_back(
      {format("{}: every traced launch inside its {} interval (within {:.2} us)", a.run, tool,
              tolerance.outside_us),
       start != nullptr && outside_us <= tolerance.outside_us,
       start == nullptr
           ? std::string("nothing paired")
           : format("tightest start: {} #{}, lead {:.3} us; tightest end: {} #{}, lag {:.3} us",
                    start->launch.kernel, start->launch.launch, start->lead_ns / 1000.0,
                    end->launch.kernel, end->launch.launch, end->lag_ns / 1000.0)});

  // Where the two profiler peaks differ, an overlap lies near concurrency_us (ramp_us).
  const double beyond_ramp_us = tolerance.concurrency_us + tolerance.ramp_us;
  checks.push_back(
      {format("{}: same peak concurrency", a.run),
       !a.pairs.empty() && a.trace_peak <= a.profiler_peak &&
           a.trace_peak >= a.profiler_peak_beyond_ramp,
       a.profiler_peak == a.profiler_peak_beyond_ramp
           ? format("trace {}, {} {} launches at once (overlapping by more than {:.1} us)",
                    a.trace_peak, tool, a.profiler_peak, tolerance.concurrency_us)
           : format("trace {}; {} {} launches at once overlapping by more than {:.1} us, {} by "
                    "more than {:.1} us (with {:.1} us of ramp and completion)",
                    a.trace_peak, tool, a.profiler_peak, tolerance.concurrency_us,
                    a.profiler_peak_beyond_ramp, beyond_ramp_us, tolerance.ramp_us)});

  const double trace_us = a.trace_makespan_ns / 1000.0;
  const double profiler_us = a.profiler_makespan_ns / 1000.0;
  const double allowed = tolerance.makespan_allowed_us(trace_us);
  checks.push_back(
      {format("{}: makespans agree", a.run),
       !a.pairs.empty() && std::abs(profiler_us - trace_us) <= allowed,
       format("trace {:.3} us, {} {:.3} us, difference {:.3} us (allowed {:.2} us = {:.1} + "
              "{:.1}% of the trace's)",
              trace_us, tool, profiler_us, profiler_us - trace_us, allowed, tolerance.makespan_us,
              100.0 * tolerance.makespan_fraction)});
  return checks;
}

namespace {

const nlohmann::json& member(const nlohmann::json& object, const char* key,
                             const std::string& where) {
  if (!object.is_object() || !object.contains(key)) {
    throw std::runtime_error(where + " has no \"" + key + "\"");
  }
  return object.at(key);
}

}  // namespace

ProfiledTrace read_profiled_trace(const std::string& json_text) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(std::string("the trace is not JSON: ") + error.what());
  }
  // Named, not string literals: a temporary std::string argument of a function that returns a
  // reference makes GCC 13 warn that the reference may dangle (-Wdangling-reference).
  const std::string the_trace = "the trace", its_other_data = "the trace's otherData";
  const nlohmann::json& events = member(document, "traceEvents", the_trace);
  const nlohmann::json& other = member(document, "otherData", the_trace);
  const nlohmann::json& runs = member(other, "hip_lessons_runs", its_other_data);
  ProfiledTrace trace;
  try {
    for (const nlohmann::json& entry : runs) {
      ClockedRun run;
      run.name = member(entry, "run", "a run entry").get<std::string>();
      const int pid = member(entry, "streams_pid", run.name).get<int>();
      const nlohmann::json& zero = member(entry, "device_clock_at_ts0_ns", run.name);
      run.device_clock_known = !zero.is_null();
      const std::int64_t zero_ns = zero.is_null() ? 0 : zero.get<std::int64_t>();
      run.host_read_ns = member(entry, "host_read_ns", run.name).get<std::int64_t>();
      for (const nlohmann::json& e : events) {
        if (e.value("ph", "") != "X" || e.value("pid", -1) != pid) continue;
        const std::string where = "run '" + run.name + "' launch slice " + e.dump().substr(0, 120);
        const double ts = member(e, "ts", where).get<double>();
        const double dur = member(e, "dur", where).get<double>();
        const nlohmann::json& args = member(e, "args", where);
        ClockedLaunch l;
        l.launch = member(args, "launch", where).get<int>();
        l.blocks = member(args, "blocks", where).get<std::uint64_t>();
        l.kernel = member(e, "name", where).get<std::string>();
        l.stream = member(e, "tid", where).get<int>();
        l.start_ns = zero_ns + std::llround(ts * 1000.0);
        l.end_ns = zero_ns + std::llround((ts + dur) * 1000.0);
        run.launches.push_back(std::move(l));
      }
      std::sort(run.launches.begin(), run.launches.end(),
                [](const ClockedLaunch& a, const ClockedLaunch& b) { return a.launch < b.launch; });
      trace.runs.push_back(std::move(run));
    }
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(std::string("the trace's runs are malformed: ") + error.what());
  }
  if (other.contains("hip_lessons_profiler")) {
    trace.profiler = profiler_capture_from_json(other["hip_lessons_profiler"].dump());
  }
  return trace;
}

int report_profiler_agreement(const std::string& json_text, Report& report,
                              const AgreementTolerance& tolerance,
                              const ProfilerCapture* profiler) {
  StepResult step("The traced runs against the profiler's kernel records");
  // Every way out prints what the step found.
  const auto finish = [&](int code) {
    report.step(step);
    return code;
  };
  ProfiledTrace trace = read_profiled_trace(json_text);
  if (profiler != nullptr) trace.profiler = *profiler;
  std::vector<const ClockedRun*> comparable;
  std::string unclocked;
  for (const ClockedRun& run : trace.runs) {
    if (run.device_clock_known && !run.launches.empty()) {
      comparable.push_back(&run);
    } else {
      unclocked += (unclocked.empty() ? "" : ", ") + ("'" + run.name + "'");
    }
  }
  if (comparable.empty()) {
    step.note(trace.runs.empty()
                  ? "skipped: the trace holds no traced run"
                  : "skipped: no traced run in this trace is on a known device clock (" +
                        unclocked +
                        ": rebuilt from relative times, with no device-clock origin to align "
                        "with the profiler)");
    return finish(kExitSkip);
  }
  if (!trace.profiler) {
    step.check("profiler records in the trace", false,
               "the trace carries none: run the lesson under the recorder "
               "(CUDA_INJECTION64_PATH=<libhip_lessons_cupti_recorder.so>); when it was, the "
               "driver did not load it (its stderr line 'hip_lessons CUPTI recorder: ...' is "
               "missing) or it exports no " +
                   std::string(kProfilerHandoffSymbol));
    return finish(kExitFail);
  }
  const ProfilerCapture& capture = *trace.profiler;
  if (!capture.ok()) {
    step.note("skipped: the profiler recorded nothing here: " + capture.status);
    return finish(kExitSkip);
  }
  const std::string tool = short_name(capture.tool);
  step.note(format(
      "{}: {} kernel records on {}, {} dropped, {} without timestamps. Tolerance: a traced "
      "launch may lie {:.2} us outside its kernel (clock resolution); makespans may differ by "
      "{:.1} us + {:.1}%; a launch more than {:.1} us outside every kernel is not paired.",
      capture.tool, capture.kernels.size(), capture.host_clock, capture.dropped_records,
      capture.incomplete_records, tolerance.outside_us, tolerance.makespan_us,
      100.0 * tolerance.makespan_fraction, tolerance.match_window_us));
  if (!capture.processes.empty()) {
    std::string processes;
    for (const ProfiledProcess& p : capture.processes) {
      processes += format("{}pid {}: {} kernels{}", processes.empty() ? "" : "; ", p.pid, p.kernels,
                          p.status == "ok" ? "" : " (" + p.status + ")");
    }
    step.note(format("The records of {} processes, the lesson's own first: {}",
                     capture.processes.size(), processes));
  }

  std::vector<std::pair<std::string, std::int64_t>> offsets;
  for (const ClockedRun* run : comparable) {
    const RunAgreement a = compare_run(*run, capture, tolerance);
    ResultTable pairs("profiler_pairs_" + run->name,
                      format("Run '{}': each traced launch and its {} kernel (lead: first "
                             "block after the kernel's start; lag: kernel's end after the last "
                             "block; negative = outside)",
                             run->name, tool),
                      {{"launch"},
                       {"kernel"},
                       {"stream"},
                       {"blocks"},
                       {tool + " stream"},
                       {"correlation"},
                       {"start", "us", 3},
                       {"trace", "us", 3},
                       {tool, "us", 3},
                       {"lead", "us", 3},
                       {"lag", "us", 3}});
    const std::int64_t zero = run->launches.front().start_ns;
    for (const LaunchPair& p : a.pairs) {
      pairs.row({p.launch.launch, p.launch.kernel, p.launch.stream, p.launch.blocks,
                 std::int64_t{p.kernel.stream}, std::int64_t{p.kernel.correlation},
                 static_cast<double>(p.launch.start_ns - zero) / 1000.0,
                 static_cast<double>(p.launch.end_ns - p.launch.start_ns) / 1000.0,
                 static_cast<double>(p.kernel.end_ns - p.kernel.start_ns) / 1000.0,
                 p.lead_ns / 1000.0, p.lag_ns / 1000.0});
    }
    for (const ClockedLaunch& l : a.missing) {
      pairs.row({l.launch, l.kernel, l.stream, l.blocks, std::nullopt, std::nullopt,
                 static_cast<double>(l.start_ns - zero) / 1000.0,
                 static_cast<double>(l.end_ns - l.start_ns) / 1000.0, std::nullopt, std::nullopt,
                 std::nullopt});
    }
    step.table(pairs);
    if (a.offset_ns) {
      offsets.emplace_back(run->name, *a.offset_ns);
      step.note(format("offset {} clock - device clock: {:.3} us; {}{}", tool,
                       static_cast<double>(*a.offset_ns) / 1000.0,
                       a.outside_ns > 0
                           ? format("the worst launch lies {:.3} us outside its kernel at that "
                                    "offset",
                                    a.outside_ns / 1000.0)
                           : std::string("every launch lies inside its kernel at that offset"),
                       a.host_read_after_ns
                           ? format("; the schedule was read {:.1} us after the last kernel ended",
                                    *a.host_read_after_ns / 1000.0)
                           : std::string()));
    }
    if (!a.others.empty()) {
      std::string names;
      for (std::size_t i = 0; i < a.others.size() && i < 3; ++i) {
        names += format("{}{} on {} stream {}", i == 0 ? "" : "; ", a.others[i].name, tool,
                        a.others[i].stream);
      }
      step.note(
          format("{} untraced kernel(s) started while the run's kernels ran (the trace "
                 "cannot see them; they are not in the peak): {}{}",
                 a.others.size(), names, a.others.size() > 3 ? "; ..." : ""));
    }
    for (const AgreementCheck& c : agreement_checks(a, tolerance)) {
      step.check(c.name, c.passed, c.detail);
    }
  }
  if (!unclocked.empty()) {
    step.note("not compared (no device-clock origin: rebuilt from relative times): " + unclocked);
  }
  if (offsets.size() > 1) {
    std::string drift;
    for (const auto& [name, offset] : offsets) {
      drift += format("{}'{}' {:.3}", drift.empty() ? "" : ", ", name,
                      static_cast<double>(offset - offsets.front().second) / 1000.0);
    }
    step.note("The offset per run, from the first run's (us): " + drift);
  }
  if (!offsets.empty() && capture.realtime_minus_host_clock_ns) {
    step.note(format(
        "Device clock minus CLOCK_REALTIME: {:.3} us (from the first run's offset and the "
        "recorder's reading of CLOCK_REALTIME - {})",
        static_cast<double>(-(offsets.front().second + *capture.realtime_minus_host_clock_ns)) /
            1000.0,
        capture.host_clock));
  }
  report.step(step);
  return report.failures() == 0 ? kExitPass : kExitFail;
}

}  // namespace hip_lessons
