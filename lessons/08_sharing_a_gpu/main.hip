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

#include <chrono>
#include <csignal>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hip_lessons/child_process.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/lesson.hpp"
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
  std::int64_t victim_us = 20, aggressor_us = 2000, partition = 8;
  std::string role = "parent", setting = "plain";
  bool mps = false;
};

// The victim's loop, what the lesson measures: launch one small kernel, wait for it, note how
// long that took. `between` runs before each launch (an aggressor in the same process tops up
// its queue there). The last launch is traced: where its block ran, and when.
std::string run_victim(const Tenancy& t, hipStream_t stream, std::vector<TenantBlock>& moment,
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
  for (const TenantBlock& b : tenant_blocks("victim", last.finish(), n - 1)) moment.push_back(b);
  const Latencies l = percentiles(latency_us);
  return hl::format("victim_correct={} p50_us={} p99_us={} max_us={}",
                    hl::first_mismatch(expected(in, n), out) ? 0 : 1, l.p50, l.p99, l.max);
}

// The tenant processes (--role): the victim alone, the aggressor until the parent says stop, or
// both in one process on two streams made for --setting. Each answers with the trace lines of
// its moment and its "@result" line.
void be_a_tenant(hl::Lesson& lesson, const Options& o) {
  const hl::Device device = hl::open_device(lesson.options.device);
  const Tenancy t{device,
                  hl::spin_ticks_per_microsecond(),
                  static_cast<unsigned int>(lesson.options.size),
                  static_cast<double>(o.victim_us),
                  static_cast<double>(o.aggressor_us),
                  lesson.options.seed,
                  lesson.traces};
  std::vector<TenantBlock> moment;
  std::string result;
  if (o.role != "both") {
    hipStream_t stream = nullptr;
    HIP_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
    if (o.role == "victim") result = run_victim(t, stream, moment, [] {});
    if (o.role == "aggressor") {
      Aggressor aggressor(t, stream);
      aggressor.top_up();
      lesson.report.line("@ready");
      std::string order;  // run_tenants(): "stop", or the victim's block line
      for (pollfd in{STDIN_FILENO, POLLIN, 0}; order.empty(); aggressor.top_up()) {
        if (::poll(&in, 1, 1) > 0 && !std::getline(std::cin, order)) order = "stop";
      }
      const std::vector<TenantBlock> victim = parse_block_lines(order);  // none for "stop"
      result = aggressor.finish(moment, victim.empty() ? std::nullopt : std::optional(victim[0]));
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
      result = run_victim(t, victim, moment, [&] { aggressor.top_up(); });
      result += " " + aggressor.finish(moment, moment[0]);
    }
    if (o.setting == "partition") {
      destroy(split);
    } else {
      HIP_CHECK(hipStreamDestroy(victim));
      HIP_CHECK(hipStreamDestroy(other));
    }
  }
  for (const TenantBlock& b : moment) lesson.report.line(block_line(b));
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
  hl::AmdMaskDevice amd{};                    // AMD: the device as the CU-mask rules see it
  std::optional<std::string> no_partition{};  // AMD: why no partition can be made here
};

// 1. Each tenant alone: the victim's latencies and the aggressor's blocks per second that the
// settings below are measured against.
hl::StepResult alone(Parent& p) {
  hl::StepResult step("1. Each tenant alone");
  Outcome& alone = p.outcomes["alone"];
  alone = run_tenants(p.args, {}, {}, false);  // the aggressor, 300 ms
  alone.victim = run_child(p.args, {"--role", "victim"}).victim;
  check_tenants(step, "alone", alone);
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
    const char* how = s.protection == Protection::kPriority    ? "priority"
                      : s.protection == Protection::kPartition ? "partition"
                                                               : "plain";
    p.outcomes[s.key] = run_child(p.args, {"--role", "both", "--setting", how});
    check_tenants(step, s.name, p.outcomes[s.key]);
  }
  return step;
}

// 3. Two processes: time slices, MPS (NVIDIA, only with --mps, and only with a daemon of the
// lesson's own), or a CU mask per process (AMD).
hl::StepResult two_processes(Parent& p) {
  hl::StepResult step("3. Two processes");
  std::optional<std::string> no_mps = "AMD has no MPS: several processes share the GPU's queues";
  if (p.platform == hl::Platform::kNvidia) {
    no_mps = p.o.mps ? MpsDaemon::why_not(::geteuid() == 0, mps_control_program(),
                                          running_mps_processes())
                     : "MPS was not asked for (--mps starts a daemon of the lesson's own)";
  }
  std::unique_ptr<MpsDaemon> mps;
  if (!no_mps) mps = std::make_unique<MpsDaemon>(mps_control_program());
  std::array<std::string, 2> cu_masks;  // AMD: each process's HSA_CU_MASK
  std::optional<std::string> no_cu_masks = p.no_partition;
#if defined(__HIP_PLATFORM_AMD__)
  if (!no_cu_masks) {
    try {
      cu_masks =
          per_process_cu_masks(p.amd, p.lesson.options.device, static_cast<int>(p.o.partition));
    } catch (const hl::SkipError& reason) {
      no_cu_masks = reason.what();
    }
  }
#endif
  for (const Setting& s : settings(p.platform)) {
    if (!s.two_processes) continue;
    if (s.mps && no_mps) {
      step.skip(s.name, *no_mps);
      continue;
    }
    if (s.cu_mask_each && no_cu_masks) {
      step.skip(s.name, *no_cu_masks);
      continue;
    }
    const auto [victim_env, aggressor_env] = environments(
        s, s.mps ? mps->client_environment() : std::vector<hl::EnvSetting>{}, cu_masks);
    p.outcomes[s.key] = run_tenants(p.args, victim_env, aggressor_env, true);
    check_tenants(step, s.name, p.outcomes[s.key]);
  }
  if (mps) {
    std::string seen;
    const bool served = mps->served_clients(seen);
    step.check("the lesson's MPS daemon started a server for its clients", served, seen);
  }
  return step;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a child that has gone must not end the parent
  Options o;
  hl::LessonCli cli("lesson08_sharing_a_gpu",
                    "Lesson 08: one GPU, two tenants: a small kernel's latency beside a heavy one, "
                    "and what protects it.\n--size is the number of the victim's launches.",
                    200, 100000);
  cli.add_count("--victim-us", o.victim_us, "How long the victim's one block works", 1, 100000);
  cli.add_count("--aggressor-us", o.aggressor_us, "How long each aggressor block works", 100,
                1000000);
  cli.add_count("--partition", o.partition, "Compute units of the victim's partition", 1, 1024);
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
    if (o.role != "parent") return be_a_tenant(lesson, o);
    hl::require_device_index(lesson.options.device);
    const auto launches = hl::per_mode<std::int64_t>(lesson.options, lesson.options.size, {20})[0];
    Parent p{lesson, o, {}, {}, launches, hl::build_platform(), {}};
    HIP_CHECK(hipGetDeviceProperties(&p.props, lesson.options.device));  // no context: the
    // children should have the GPU to themselves
#if defined(__HIP_PLATFORM_AMD__)
    // A --partition the masks cannot honour is exit 2 here, before any child runs.
    p.amd = hl::amd_mask_device(hl::Device{lesson.options.device, p.props});
    try {
      amd_split(p.amd, static_cast<int>(o.partition));
    } catch (const hl::SkipError& reason) {
      p.no_partition = reason.what();
    }
#endif
    for (const auto& [flag, value] : {std::pair{"--device", std::int64_t{lesson.options.device}},
                                      {"--seed", static_cast<std::int64_t>(lesson.options.seed)},
                                      {"--size", launches},
                                      {"--victim-us", o.victim_us},
                                      {"--aggressor-us", o.aggressor_us},
                                      {"--partition", o.partition}}) {
      p.args.insert(p.args.end(), {flag, hl::format("{}", value)});
    }
    lesson.report.step(alone(p));          // 1.
    lesson.report.step(one_process(p));    // 2.
    lesson.report.step(two_processes(p));  // 3.
    // 4. Every setting beside alone: what protected the victim (tenants.hpp, unit-tested).
    lesson.report.step(compare_settings(p.outcomes, p.platform, launches, o.aggressor_us,
                                        lesson.options.timed(), partitioned, shared,
                                        lesson.traces));
  });
}
