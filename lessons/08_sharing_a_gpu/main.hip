/// \file lessons/08_sharing_a_gpu/main.hip
/// \brief Lesson 08: one GPU, two tenants. What a small latency-sensitive kernel suffers next
/// to a heavy one, and which mechanism protects it.
///
/// Four steps (the README's Application flow has the numbers): each tenant alone; both in one
/// process, on plain, prioritized and partitioned streams; two processes (time-sliced, under MPS,
/// under MPS with the aggressor at 50% of the SMs; on AMD a CU mask each); and what protected
/// the victim. Every measurement runs in a child process of this program (one tenant, or both in
/// one), so the parent holds no GPU context and every setting starts from a fresh runtime.
#include <hip/hip_runtime.h>
#include <poll.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "hip_lessons/child_process.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/lesson.hpp"
#include "hip_lessons/schedule_lines.hpp"
#include "hip_lessons/timeline.hpp"
#include "hip_lessons/traced_run.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"
#include "mps_daemon.hpp"
#include "tenants.hpp"

namespace hl = hip_lessons;
using namespace sharing;

namespace {

// The lesson's own options (checked before any GPU work).
struct Options {
  std::int64_t victim_us = 20, aggressor_us = 2000, partition = 0;  // 0: not given
  std::string role = "parent", setting = "plain";
  bool mps = false;
};

// The victim's loop, what the lesson measures: launch one small kernel, wait for it, note how
// long that took. `between` runs before each launch (an aggressor in the same process tops up
// its queue there). The last launch is traced (where its block ran, and when) into `traced`.
std::string run_victim(const Tenancy& t, hipStream_t stream, hl::Schedule& traced,
                       const std::function<void()>& between) {
  const unsigned int n = t.launches;
  std::vector<std::uint32_t> in(n), out(n);
  hl::fill_random_words(in, t.seed);
  std::uint32_t *d_in = nullptr, *d_out = nullptr;
  HIP_CHECK(hipMalloc(&d_in, n * sizeof(std::uint32_t)));
  HIP_CHECK(hipMalloc(&d_out, n * sizeof(std::uint32_t)));
  HIP_CHECK(hipMemcpy(d_in, in.data(), n * sizeof(std::uint32_t), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemsetAsync(d_out, 0xFF, n * sizeof(std::uint32_t), stream));
  const long long ticks = std::llround(t.victim_us * t.ticks_per_us);
  hl::TracedRun last(t.traces, "victim", 1);
  for (unsigned int i = 0; i < 5; ++i) {  // warm-up: module load, first-launch costs
    hipLaunchKernelGGL(victim_kernel, dim3(1), dim3(kVictimThreads), 0, stream, d_in, d_out, i,
                       ticks, hl::BlockTrace{});
    HIP_CHECK(hipStreamSynchronize(stream));
  }
  std::vector<double> latency_us;
  for (unsigned int i = 0; i < n; ++i) {
    between();
    const auto launched = std::chrono::steady_clock::now();
    hipLaunchKernelGGL(victim_kernel, dim3(1), dim3(kVictimThreads), 0, stream, d_in, d_out, i,
                       ticks, i + 1 == n ? last.reserve("victim", 1, 0) : hl::BlockTrace{});
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipStreamSynchronize(stream));
    latency_us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - launched)
            .count());
  }
  HIP_CHECK(hipMemcpy(out.data(), d_out, n * sizeof(std::uint32_t), hipMemcpyDeviceToHost));
  HIP_CHECK(hipFree(d_in));
  HIP_CHECK(hipFree(d_out));
  traced = last.finish();
  const Latencies l = percentiles(latency_us);
  return hl::format("victim_correct={} p50_us={} p99_us={} max_us={}",
                    hl::first_mismatch(expected(in, n), out) ? 0 : 1, l.p50, l.p99, l.max);
}

// The tenant processes (--role): the victim alone, the aggressor until the parent says stop, or
// both in one process on two streams made for --setting. Each sends its traced runs (the
// victim's last launch, the aggressor's last rounds: hl::schedule_lines()) and its "@result".
void be_a_tenant(hl::Lesson& lesson, const Options& o) {
  const hl::Device device = hl::open_device(lesson.options.device);
  const Tenancy t{device,
                  hl::spin_ticks_per_microsecond(),
                  static_cast<unsigned int>(lesson.options.size),
                  static_cast<double>(o.victim_us),
                  static_cast<double>(o.aggressor_us),
                  lesson.options.seed,
                  lesson.traces};
  hl::Schedule victim_run, aggressor_run;
  std::string result;
  if (o.role != "both") {
    hipStream_t stream = nullptr;
    HIP_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
    if (o.role == "victim") result = run_victim(t, stream, victim_run, [] {});
    if (o.role == "aggressor") {
      Aggressor aggressor(t, stream);
      aggressor.top_up();
      lesson.report.line("@ready");
      // Keep the queue full until run_tenants() says stop (a line, or the end of the input).
      pollfd in{STDIN_FILENO, POLLIN, 0};
      while (::poll(&in, 1, 1) == 0) aggressor.top_up();
      std::tie(result, aggressor_run) = aggressor.finish();
    }
    HIP_CHECK(hipStreamDestroy(stream));
  } else {
    //! [one_process]
    hipStream_t victim = nullptr, other = nullptr;
    SplitStreams split;
    if (o.setting == "partition") {
      split = split_the_gpu(t.device, static_cast<int>(o.partition));
      victim = split.victim, other = split.aggressor;
    } else {
      // Plain streams have the default priority, as a process's streams usually do; "priority"
      // raises the victim's alone. (The least priority is no default: on AMD it is a queue of
      // HIP's low-priority pool.)
      int least = 0, greatest = 0;  // a lower number is a higher priority
      HIP_CHECK(hipDeviceGetStreamPriorityRange(&least, &greatest));
      if (o.setting == "priority") {
        HIP_CHECK(hipStreamCreateWithPriority(&victim, hipStreamNonBlocking, greatest));
      } else {
        HIP_CHECK(hipStreamCreateWithFlags(&victim, hipStreamNonBlocking));
      }
      HIP_CHECK(hipStreamCreateWithFlags(&other, hipStreamNonBlocking));
    }
    //! [one_process]
    {
      Aggressor aggressor(t, other);
      result = run_victim(t, victim, victim_run, [&] { aggressor.top_up(); });
      std::string aggressor_result;
      std::tie(aggressor_result, aggressor_run) = aggressor.finish();
      result += " " + aggressor_result;
    }
    if (o.setting == "partition") {
      destroy(split);
    } else {
      HIP_CHECK(hipStreamDestroy(victim));
      HIP_CHECK(hipStreamDestroy(other));
    }
  }
  for (const auto& [run, schedule] :
       {std::pair{"victim", &victim_run}, {"aggressor", &aggressor_run}}) {
    if (schedule->blocks().empty()) continue;
    for (const std::string& line : hl::schedule_lines(run, *schedule)) lesson.report.line(line);
  }
  lesson.report.line(hl::kResultPrefix + result);
}

// What every step of the parent needs.
struct Parent {
  hl::Lesson& lesson;
  const Options& o;
  hipDeviceProp_t props;
  std::vector<std::string> args;  // what every child is told
  std::int64_t launches;          // the victim's, in each setting
  hl::Platform platform;          // which settings there are
  std::map<std::string, Outcome> outcomes;
  std::array<std::string, 2> cu_masks{};      // AMD: each process's HSA_CU_MASK
  std::optional<std::string> no_partition{};  // AMD: why no partition can be made here
  std::optional<std::string> no_cu_masks{};   // AMD: why not one per process
};

// 1. Each tenant alone: the victim's latencies and the aggressor's blocks per second that the
// settings below are measured against.
hl::StepResult alone(Parent& p) {
  hl::StepResult step("1. Each tenant alone");
  Outcome& alone = p.outcomes["alone"];
  alone = run_tenants(p.args, {}, {}, false, p.o.aggressor_us);  // the aggressor, 300 ms
  alone.victim = run_child(p.args, {"--role", "victim"}, p.o.aggressor_us).victim;
  step.record(tenant_checks("alone", alone));
  return step.note(
      hl::format("victim: a {} us one-block kernel, launched and waited for {} times; "
                 "aggressor: {} blocks of {} us, 3 kernels queued at all times",
                 p.o.victim_us, p.launches,
                 aggressor_blocks(hl::Device{p.lesson.options.device, p.props}), p.o.aggressor_us));
}

// 2. Both tenants in one process, on streams made three ways.
hl::StepResult one_process(Parent& p) {
  hl::StepResult step("2. One process, two streams");
  for (const Setting& s : settings(p.platform)) {
    if (s.two_processes) continue;
    if (s.protection == Protection::kPartition && p.no_partition) {
      step.skip(s.name, *p.no_partition);
      continue;
    }
    const std::vector<std::string> role = {"--role", "both", "--setting", setting_flag(s)};
    p.outcomes[s.key] = run_child(p.args, role, p.o.aggressor_us);
    step.record(tenant_checks(s.name, p.outcomes[s.key]));
  }
  return step;
}

// 3. Two processes: time slices, MPS (NVIDIA, only with --mps, and only with a daemon of the
// lesson's own), or a CU mask per process (AMD).
hl::StepResult two_processes(Parent& p) {
  hl::StepResult step("3. Two processes");
  const std::optional<std::string> no_mps = why_no_mps(p.platform, p.o.mps);
  std::unique_ptr<MpsDaemon> mps;
  if (!no_mps) mps = std::make_unique<MpsDaemon>(mps_control_program());
  for (const Setting& s : settings(p.platform)) {
    if (!s.two_processes) continue;
    if (s.mps && no_mps) {
      step.skip(s.name, *no_mps);
      continue;
    }
    if (s.cu_mask_each && (p.no_partition || p.no_cu_masks)) {
      step.skip(s.name, p.no_partition ? *p.no_partition : *p.no_cu_masks);
      continue;
    }
    const auto [victim_env, aggressor_env] = environments(
        s, s.mps ? mps->client_environment() : std::vector<hl::EnvSetting>{}, p.cu_masks);
    p.outcomes[s.key] = run_tenants(p.args, victim_env, aggressor_env, true, p.o.aggressor_us);
    step.record(tenant_checks(s.name, p.outcomes[s.key]));
  }
  if (mps) {
    std::string seen;
    const bool served = mps->served_clients(seen);
    step.check("the lesson's MPS daemon started a server for its clients", served, seen);
  }
  return step;
}

// The table of step 4: every setting's victim latencies beside alone and the aggressor's
// throughput; each setting's numbers go into the JSON, and its p99 into a speed check
// (`partitioned` where the victim has units of its own, `shared` where nothing protects it).
hl::ResultTable latency_table(Parent& p, hl::StepResult& step, const hl::SpeedCheck& partitioned,
                              const hl::SpeedCheck& shared) {
  const Outcome& alone = p.outcomes["alone"];
  hl::ResultTable table(
      "settings", hl::format("The victim's launch-to-completion latency, {} launches", p.launches),
      {"setting", "how", hl::Column("p50", "us", 1), hl::Column("p99", "us", 1),
       hl::Column("max", "us", 1), "p50 x alone", "p99 x alone",
       hl::Column("aggressor", "% of alone", 0)});
  table.row({"alone", "the victim only", alone.victim.number("p50_us"),
             alone.victim.number("p99_us"), alone.victim.number("max_us"), 1.0, 1.0, 100.0});
  for (const Setting& s : settings(p.platform)) {
    if (!p.outcomes.count(s.key)) continue;
    const Outcome& r = p.outcomes.at(s.key);
    const BesideAlone b = beside_alone(r, alone);
    table.row({s.label, s.how, r.victim.number("p50_us"), r.victim.number("p99_us"),
               r.victim.number("max_us"), b.p50_x, b.p99_x, b.aggressor_pct});
    step.measurement(hl::format("victim_p50_us.{}", s.key), r.victim.number("p50_us"))
        .measurement(hl::format("victim_p99_us.{}", s.key), r.victim.number("p99_us"))
        .measurement(hl::format("aggressor_blocks_per_round.{}", s.key),
                     r.aggressor.number("blocks"));
    if (s.protection != Protection::kPriority) {
      step.speed(s.protection == Protection::kPartition ? partitioned : shared,
                 p.lesson.options.timed() ? std::optional(b.p99_x) : std::nullopt, s.name);
    }
  }
  return table;
}

// The picture of step 4: each setting's last victim launch on one time axis, from three
// aggressor blocks before it to one after, with the aggressor's blocks on the victim's unit.
// Each moment is also kept whole for --trace.
hl::Figure moment_picture(Parent& p) {
  const double before_us = 3.0 * p.o.aggressor_us, span_us = 4.0 * p.o.aggressor_us;
  std::vector<hl::TimelineRow> rows;
  std::string not_compared;
  for (const Setting& s : settings(p.platform)) {
    if (!p.outcomes.count(s.key) || p.outcomes.at(s.key).moment.empty()) continue;
    const Outcome& r = p.outcomes.at(s.key);
    p.lesson.traces.keep(s.name, moment(r.moment));
    const auto around = rows_around_victim(r.moment, s.label, before_us, unit_ids_comparable(s));
    rows.insert(rows.end(), around.begin(), around.end());
    if (!unit_ids_comparable(s))
      not_compared += std::string(not_compared.empty() ? "" : ", ") + s.label;
  }
  hl::Figure figure = hl::timeline(
      hl::format("The victim's last launch in each setting, {:.0} us from {:.0} us before it, and "
                 "the aggressor blocks on its compute unit (aggr.)",
                 span_us, before_us),
      rows, span_us);
  if (!not_compared.empty()) {
    figure.text += hl::format(
        "  {}: no aggr. row; with a thread percentage, the MPS clients' SM ids are not "
        "comparable\n",
        not_compared);
  }
  return figure;
}

// The schedule checks of step 4: the plain victim waited for an aggressor block on its unit to
// end; no aggressor block ran beside the partitioned one.
void schedule_checks(Parent& p, hl::StepResult& step) {
  const std::optional<double> gap = waited_for_a_slot_us(p.outcomes["one_process_plain"].moment);
  step.schedule_check(
      "one process, two streams: the victim's block started as an aggressor block on "
      "its compute unit ended (within 50 us)",
      gap && *gap <= 50.0,
      gap ? hl::format("{:.1} us after it", *gap)
          : std::string("no aggressor block ended on its unit before it"));
  const Outcome& split = p.outcomes["one_process_partition"];
  const auto beside = aggressor_beside_victim(split.moment);
  step.schedule_check(
      "one process, partitioned: no aggressor block ran on the victim's unit beside it",
      !beside && !split.moment.empty(),
      beside ? hl::format("an aggressor block on unit {}", beside->unit) : std::string());
}

// 4. What protected the victim: every setting beside alone (latency_table()), the moments of
// the victim's last launch (moment_picture()) and what they must show (schedule_checks()).
hl::StepResult what_protected(Parent& p, const hl::SpeedCheck& partitioned,
                              const hl::SpeedCheck& shared) {
  hl::StepResult step("4. What protected the victim");
  const hl::ResultTable table = latency_table(p, step, partitioned, shared);
  step.table(table).figure(moment_picture(p));
  schedule_checks(p, step);
  return step.summary(summary_line(p.outcomes));
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a child that has gone must not end the parent
  Options o;
  hl::LessonCli cli("lesson08_sharing_a_gpu",
                    "Lesson 08: one GPU, two tenants: a small kernel's latency beside a heavy one, "
                    "and what protects it.",
                    200, 100000);
  cli.describe_size("The victim's launches per setting");
  cli.add_count("--victim-us", o.victim_us, "How long the victim's one block works", 1, 100000);
  cli.add_count("--aggressor-us", o.aggressor_us, "How long each aggressor block works", 100,
                1000000);
  cli.add_count("--partition", o.partition,
                "Compute units of the victim's partition; not given: 8, or on AMD the smallest "
                "valid size of at least 8",
                1, 1024);
  cli.add_flag("--mps", o.mps,
               "Also run both processes under MPS, with a daemon of the lesson's own (root)");
  cli.add_choice("--role", o.role, "What this process is (the lesson runs itself as each tenant)",
                 {"parent", "victim", "aggressor", "both"});
  cli.add_choice("--setting", o.setting, "With --role both: the victim's stream",
                 {"plain", "priority", "partition"});
  const hl::SpeedCheck& partitioned =
      cli.add_speed_check(hl::at_most("victim p99 / alone p99, partitioned",
                                      "--max-partitioned-p99", HIP_LESSONS_08_MAX_PARTITIONED_P99));
  const hl::SpeedCheck& shared = cli.add_speed_check(hl::at_least(
      "victim p99 / alone p99, not protected", "--min-shared-p99", HIP_LESSONS_08_MIN_SHARED_P99));
  cli.add_trace_output();
  cli.refuse_repeat("lesson 08 measures each setting once, over the victim's --size launches");

  return hl::run_lesson(cli, argc, argv, [&](hl::Lesson& lesson) {
    if (o.partition == 0)  // not given: the default for this GPU
      o.partition = partition_size(0, hl::amd_mask_device_or_none(lesson.options.device));
    if (o.role != "parent") return be_a_tenant(lesson, o);
    hl::require_device_index(lesson.options.device);
    const auto launches = hl::per_mode<std::int64_t>(lesson.options, lesson.options.size, {20})[0];
    Parent p{lesson, o, {}, {}, launches, hl::build_platform(), {}};
    HIP_CHECK(hipGetDeviceProperties(&p.props, lesson.options.device));  // no context: the
    // children should have the GPU to themselves
#if defined(__HIP_PLATFORM_AMD__)
    // A --partition the masks cannot honour is exit 2 here, before any child runs.
    std::tie(p.no_partition, p.no_cu_masks, p.cu_masks) =
        plan_amd_partitions(hl::Device{lesson.options.device, p.props}, int(o.partition));
#endif
    for (const auto& [flag, value] : {std::pair{"--device", std::int64_t{lesson.options.device}},
                                      {"--seed", static_cast<std::int64_t>(lesson.options.seed)},
                                      {"--size", launches},
                                      {"--victim-us", o.victim_us},
                                      {"--aggressor-us", o.aggressor_us},
                                      {"--partition", o.partition}}) {
      p.args.insert(p.args.end(), {flag, hl::format("{}", value)});
    }
    lesson.report.step(alone(p));                                // 1.
    lesson.report.step(one_process(p));                          // 2.
    lesson.report.step(two_processes(p));                        // 3.
    lesson.report.step(what_protected(p, partitioned, shared));  // 4.
  });
}
