/// \file lessons/06_cu_masking/main.hip
/// \brief Lesson 06: run a stream on part of the GPU: CU masks on AMD, green contexts on NVIDIA
/// (kernels.hpp makes both). Steps as in the README: partitions, scaling, side by side. (A
/// small kernel's latency beside a heavy one, partitioned or not, is lesson 08's subject.)
#include <hip/hip_runtime.h>

#include <array>
#include <cstdint>

#include "hip_lessons/lesson.hpp"
#include "hip_lessons/timeline.hpp"
#include "hip_lessons/timing.hpp"
#include "hip_lessons/traced_run.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;
using namespace cu_masking;

namespace {
// One round: each load's kernels between two events on its own stream, both streams fed before
// either is waited for. Returns {a's, b's} milliseconds; with `run`, traced (a as trace stream
// 0, b as 1).
std::array<double, 2> run_round(const Workload& work, const Load& a, const Load& b,
                                hl::TracedRun* run = nullptr) {
  hipEvent_t start[2], stop[2];
  for (int i = 0; i < 2; ++i) {
    const Load& load = i == 0 ? a : b;
    HIP_CHECK(hipEventCreate(&start[i]));
    HIP_CHECK(hipEventCreate(&stop[i]));
    HIP_CHECK(hipEventRecord(start[i], load.stream));
    for (int k = 0; k < load.kernels; ++k) {
      launch(work.d_in.data(), load.out, load.n, load.iterations, load.stream,
             run ? run->reserve(load.in ? load.in->name : "plain stream", blocks_for(load.n), i)
                 : hl::BlockTrace{});
    }
    HIP_CHECK(hipEventRecord(stop[i], load.stream));
  }
  float ms[2] = {0.0f, 0.0f};
  for (int i = 0; i < 2; ++i) {
    HIP_CHECK(hipEventSynchronize(stop[i]));
    HIP_CHECK(hipEventElapsedTime(&ms[i], start[i], stop[i]));
    HIP_CHECK(hipEventDestroy(start[i]));
    HIP_CHECK(hipEventDestroy(stop[i]));
  }
  return {ms[0], ms[1]};
}

// One round traced as `name`, over outputs poisoned on their own streams (every float a NaN:
// an element never written cannot match). A load in a partition must compute its expected
// output on at most the partition's units, and two partitions must share no unit.
hl::Schedule traced_round(hl::StepResult& step, hl::Lesson& lesson, const std::string& name,
                          const Workload& work, const Load& a, const Load& b) {
  hl::TracedRun run(lesson.traces, name, a.kernels * blocks_for(a.n) + b.kernels * blocks_for(b.n));
  for (const Load* load : {&a, &b}) {
    HIP_CHECK(hipMemsetAsync(load->out, 0xFF, load->n * sizeof(float), load->stream));
  }
  run_round(work, a, b, &run);
  const hl::Schedule schedule = run.finish();
  for (const Load* load : {&a, &b}) {
    if (load->in == nullptr) continue;
    std::vector<float> got(load->n);
    HIP_CHECK(hipMemcpy(got.data(), load->out, load->n * sizeof(float), hipMemcpyDeviceToHost));
    const Partition& p = *load->in;
    step.check_match(p.name + " computed correctly",
                     hl::first_mismatch(load->expected, got.data(), load->n, kTolerance), load->n);
    const UnitsSeen seen = units_seen(schedule, load == &a ? 0 : 1, p.units);
    step.check(
        hl::format("{}: blocks ran on at most its {} granted units", p.name, p.units),
        !seen.first_past_grant,
        hl::format(
            "{} distinct ids{}", seen.distinct,
            seen.first_past_grant ? "; first past the grant: " + *seen.first_past_grant : ""));
  }
  if (a.in && b.in) {
    const std::string name = a.in->name + " and " + b.in->name + " ran on disjoint units";
    const std::optional<std::string> shared = first_shared_unit(schedule);
    step.check(name, !shared, shared ? "first block on a shared unit: " + *shared : "");
  }
  return schedule;
}

// 1. Partitions of k, 2k and 4k units (those the device holds) and --cu-mask's, asked for and
// granted. A k that cannot be made twice, or a mask the device cannot take, is exit 2.
hl::StepResult make_partitions(const hl::Device& device, int k, const std::string& cu_mask,
                               std::vector<Partition>& made) {
  const PartitionRules rules = checked_partition_rules(device, k);
  if (!cu_mask.empty()) made.push_back(partition_on_mask(device, cu_mask));
  for (const std::vector<int>& request : partition_requests(rules, k)) {
    if (request.size() == 1) made.push_back(partition_device(device, 1, request[0]).at(0));
  }
  hl::ResultTable table(
      "partitions",
      hl::format("Partitions by {}: at least {}, in multiples of {}; asked for and granted",
                 rules.mechanism, rules.min_units, rules.granularity),
      {"partition", "requested", "granted", "placement"});
  for (const Partition& p : made) table.row({p.name, p.requested, p.units, p.placement});
  hl::StepResult step("1. Partitions: streams limited to some compute units");
  step.fact("partition_min_units", rules.min_units)
      .fact("partition_granularity", rules.granularity)
      .fact("partition_mechanism", rules.mechanism)
      .table(table);
  for (const Partition& p : made) {
#if defined(__HIP_PLATFORM_AMD__)
    const std::string check = p.name + ": hipExtStreamGetCUMask reads back its mask";
    const std::string says = "it says " + p.read_back.ids();
    if (p.readback_caveat) step.skip(check, *p.readback_caveat + "; " + says);
    if (!p.readback_caveat) step.check(check, p.read_back == p.bits, says);
#else
    step.check(p.name + ": granted at least the request, at most the device",
               p.units >= p.requested && p.units <= rules.units);
#endif
  }
  return step;
}

// The kernel on a plain stream, the whole device, into `out` (poisoned first), timed or not:
// its output, checked against the host, becomes what every partition must reproduce.
void run_on_whole_device(hl::StepResult& step, const hl::RunOrTime& runs, Workload& work,
                         float* out) {
  hipStream_t whole = nullptr;
  HIP_CHECK(hipStreamCreateWithFlags(&whole, hipStreamNonBlocking));
  HIP_CHECK(hipMemsetAsync(out, 0xFF, work.n * sizeof(float), whole));
  // on_stream waits for `whole`, timed or not.
  work.whole_device_ms =
      runs.on_stream(whole, [&] { launch(work.d_in.data(), out, work.n, work.iterations, whole); });
  work.expected.resize(work.n);
  HIP_CHECK(hipMemcpy(work.expected.data(), out, work.n * sizeof(float), hipMemcpyDeviceToHost));
  HIP_CHECK(hipStreamDestroy(whole));
  // About 2^23 chain steps on the host: every element at --check's size, 1024 at --size's.
  const std::size_t stride = std::max<std::size_t>(1, work.n * work.iterations >> 23);
  std::vector<float> host, device;
  for (std::size_t i = 0; i < work.n; i += stride) {
    host.push_back(fma_chains_reference(work.input[i], work.iterations));
    device.push_back(work.expected[i]);
  }
  step.check_match(hl::format("whole device vs host, {} of {} elements", host.size(), work.n),
                   hl::first_mismatch(host, device, kTolerance), host.size());
}

// 2. The kernel on the whole device, checked against the host; then on each partition, traced,
// which must reproduce that output on at most its units. Each is timed; the partitions end here.
hl::StepResult measure_scaling(hl::Lesson& lesson, Workload& work,
                               std::vector<Partition>& partitions, int units,
                               const hl::SpeedCheck& tolerance) {
  hl::StepResult step("2. Scaling: the kernel on k of N units takes N/k as long");
  float* out = nullptr;
  HIP_CHECK(hipMalloc(&out, work.n * sizeof(float)));
  const hl::RunOrTime runs(lesson.options);
  run_on_whole_device(step, runs, work, out);
  const std::vector<hl::Column> columns = {"partition",      "units",     {"median", "ms", 3},
                                           "x whole device", "ideal N/k", "measured / ideal"};
  hl::ResultTable table("scaling", "The kernel on the whole device and on k units", columns);
  table.row({"whole device", units, work.whole_device_ms, 1.0, 1.0, 1.0});
  std::vector<std::pair<std::string, double>> speeds;  // per partition, shown under the table
  std::string summary;
  for (Partition& p : partitions) {
    const Load load{p.stream, 1, work.n, work.iterations, out, work.expected.data(), &p};
    const Load idle{p.stream, 0, work.n, 0, out};  // nothing on the second stream
    traced_round(step, lesson, p.name, work, load, idle);
    const auto ms = runs.medians([&] { return run_round(work, load, idle); })[0];
    const std::optional<double> slowdown = hl::ratio(ms, work.whole_device_ms);
    const double ideal = static_cast<double>(units) / p.units;
    table.row({p.name, p.units, ms, slowdown, ideal, hl::ratio(slowdown, ideal)});
    step.measurement(hl::format("slowdown.{}_units", p.units), slowdown);
    destroy(p);
    if (p.user_mask || !slowdown) continue;  // --cu-mask's is shown, not judged
    speeds.emplace_back(p.name, std::abs(*slowdown / ideal - 1.0));
    summary += hl::format("{}{} of {} {:.1}x (ideal {:.1})", summary.empty() ? "" : ", ", p.name,
                          units, *slowdown, ideal);
  }
  HIP_CHECK(hipFree(out));
  step.table(table).measurement("whole_device_ms", work.whole_device_ms);
  for (const auto& [partition, ratio] : speeds) step.speed(tolerance, ratio, partition);
  return step.summary(summary);
}

// 3. Two disjoint partitions at once: each keeps its solo speed and no unit runs blocks of
// both. A traced round is checked and drawn; then both are timed together and each alone.
hl::StepResult measure_side_by_side(hl::Lesson& lesson, const hl::Device& device,
                                    const Workload& work, int k, const hl::SpeedCheck& concurrent) {
  const std::vector<int> sizes = partition_requests(partition_rules(device), k).back();  // k, k
  std::vector<Partition> pair = partition_device(device, static_cast<int>(sizes.size()), k);
  // Work in proportion to the partition, so each runs about as long as the whole device does.
  const std::size_t n = std::min(
      work.n, std::max<std::size_t>(kBlock, work.n * pair[0].units / device.compute_units()));
  Load load[2];
  for (int i = 0; i < 2; ++i) {
    pair[i].name = i == 0 ? "partition A" : "partition B";
    load[i] = {pair[i].stream, 1, n, work.iterations, nullptr, work.expected.data(), &pair[i]};
    HIP_CHECK(hipMalloc(&load[i].out, n * sizeof(float)));
  }
  hl::StepResult step("3. Side by side: two disjoint partitions at once");
  const hl::Schedule schedule =
      traced_round(step, lesson, "two partitions side by side", work, load[0], load[1]);
  step.figure(hl::timeline(
      "Two partitions side by side, one row per partition: both run at once, each on its own units",
      hl::rows_by_stream(schedule, {{0, "partition A"}, {1, "partition B"}}), schedule.span_us()));
  const hl::RunOrTime runs(lesson.options);
  const auto together = runs.medians([&] { return run_round(work, load[0], load[1]); });
  std::optional<double> slowdown[2];
  hl::ResultTable table(
      "side_by_side", "Two disjoint partitions, each with its share of the work",
      {"partition", "units", {"solo", "ms", 3}, {"side by side", "ms", 3}, "x solo"});
  for (int i = 0; i < 2; ++i) {
    const auto alone =
        runs.medians([&] { return run_round(work, load[i], {pair[1 - i].stream}); })[0];
    slowdown[i] = hl::ratio(together[i], alone);
    table.row({pair[i].name, pair[i].units, alone, together[i], slowdown[i]});
  }
  step.table(table);
  for (int i = 0; i < 2; ++i) {
    step.measurement(i == 0 ? "side_by_side_slowdown.a" : "side_by_side_slowdown.b", slowdown[i])
        .speed(concurrent, slowdown[i], pair[i].name);
    HIP_CHECK(hipFree(load[i].out));
    destroy(pair[i]);
  }
  return step;
}
}  // namespace

int main(int argc, char** argv) {
  hl::LessonCli cli("lesson06_cu_masking", "Lesson 06: streams on part of the GPU", 1 << 22);
  std::string cu_mask_text;
  std::int64_t partition = 0, iterations = 8192;  // partition 0: not given (partition_size())
  cli.add_text("--cu-mask", cu_mask_text,
               "Also run on these units, a list such as 0-7,16-23 (NVIDIA: as many SMs)",
               [](const std::string& text) { hl::parse_cu_list("--cu-mask", text); });
  cli.add_count("--partition", partition,
                "Partition size k in units (scaling: k, 2k, 4k); not given: 8, or on AMD the "
                "smallest valid size of at least 8",
                1, hl::kMaxMaskBits);
  const hl::SpeedCheck& scaling_check =
      cli.add_speed_check(hl::at_most("|(time on k units / whole device) / (N/k) - 1|",
                                      "--scaling-tolerance", HIP_LESSONS_06_SCALING_TOLERANCE));
  cli.add_count("--iterations", iterations, "FMA steps per chain", 1, std::int64_t{1} << 20);
  cli.add_trace_output();  // --trace FILE: every traced run, as a Chrome trace
  const hl::SpeedCheck& concurrent_check = cli.add_speed_check(
      hl::at_most("each of two disjoint partitions side by side / solo",
                  "--max-concurrent-slowdown", HIP_LESSONS_06_MAX_CONCURRENT_SLOWDOWN));

  return hl::run_lesson(cli, argc, argv, [&](hl::Lesson& lesson) {
    const hl::Device device = hl::open_device(lesson.options.device);
    const std::optional<hl::AmdMaskDevice> amd = hl::amd_mask_device_or_none(device.index);
    const int k = partition_size(partition, amd);
    std::vector<Partition> partitions;  // bad options: exit 2 before the inputs are allocated
    const hl::StepResult made = make_partitions(device, k, cu_mask_text, partitions);  // 1.
    // --check: an odd size catches a missing guard; 64 steps keep the host reference quick.
    const auto [n, steps] = hl::per_mode<std::pair<std::size_t, int>>(
        lesson.options, {lesson.options.size, static_cast<int>(iterations)}, {{65539, 64}})[0];
    Workload work(n, steps, lesson.options.seed);
    lesson.report.step(made);  // step 1's result, once the inputs exist
    lesson.report.step(measure_scaling(lesson, work, partitions,
                                       whole_device_units(amd, device.compute_units()),
                                       scaling_check));                                   // 2.
    lesson.report.step(measure_side_by_side(lesson, device, work, k, concurrent_check));  // 3.
  });
}
