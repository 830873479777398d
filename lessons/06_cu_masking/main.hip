/// \file lessons/06_cu_masking/main.hip
/// \brief Lesson 06: run a stream on part of the GPU: CU masks on AMD, green contexts on NVIDIA.
///
/// The article calls hipDeviceSetCuMask, which does not exist. The real mechanisms limit one
/// stream, not the device: on AMD hipExtStreamCreateWithCUMask takes a bit mask of compute
/// units; on NVIDIA the driver splits the SMs into green contexts, each with its own streams.
/// cu_partition.hpp wraps both as "a stream limited to these compute units".
///
/// The story (the README's Application flow has the same numbers):
///  1. Parse the options; a malformed --cu-mask or --partition is refused before the GPU.
///  2. Open the device (on NVIDIA the driver's green-context entry points are fetched).
///  3. The partition rules of this device; a --partition that does not fit twice is refused.
///  4. Partitions of k, 2k and 4k units and --cu-mask's: what was asked, what was granted.
///  5. Scaling: a compute-bound kernel on k of N units takes about N/k as long.
///  6. Isolation: small kernels next to a "noisy neighbour" that floods the device wait for it
///     on plain streams, and keep their solo latency when the two are in disjoint partitions.
///  7. Side by side: two disjoint partitions at once each keep their solo speed.
/// Each step checks every output (poisoned first) and, from a block trace, where each block ran:
/// a partition of k units used at most k of them; NVIDIA: disjoint partitions, disjoint SMs.
/// --check runs them on a small input checked on the host, untimed; the others at --size.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cu_partition.hpp"
#include "hip_lessons/lesson.hpp"
#include "workload.hpp"

namespace hl = hip_lessons;

namespace cu_masking {
namespace {

// What every step needs; the mode decides the sizes, and whether anything is timed.
struct Run {
  hl::Report& report;
  const hl::Device& device;
  PartitionRules rules;
  Workload& work;
  const hl::CommonOptions& options;
  bool timed() const { return options.timed(); }
  hl::TimingPlan plan() const { return {3, options.repeat}; }
};

// 3. What a partition may look like here. Isolation and the side-by-side run need two
// disjoint partitions of k units, so a k that does not fit twice is refused (exit 2).
PartitionRules describe_rules(hl::Report& report, const hl::Device& device, int k) {
  const PartitionRules rules = checked_partition_rules(device, k);
  report.note("The article's hipDeviceSetCuMask does not exist. Partitions are per stream:");
  report.note(hl::format("  {}\n", kPartitionCalls));
  hl::ResultTable table("partition_rules", "What a partition may look like here",
                        {{"property"}, {"value"}});
  table.row({"device", device.name()});
  table.row({hl::format("{}s", hl::kComputeUnitName), rules.units});
  table.row({"smallest partition", units_text(rules.min_units)});
  table.row({"partition sizes are multiples of", units_text(rules.granularity)});
  table.row({"mechanism", rules.mechanism});
  for (const char* variable : kProcessWideSettings) {
    const char* value = std::getenv(variable);
    table.row({variable, value == nullptr ? "unset" : std::string(value) + kProcessWideEffect});
  }
  report.table(table);
  report.fact("partition_min_units", rules.min_units);
  report.fact("partition_granularity", rules.granularity);
  return rules;
}

// A partition and the name the tables give it.
struct Named {
  std::string name;
  CuPartitionStream stream;
  bool from_mask = false;  // --cu-mask's: shown, not judged by the speed checks
};

// 4. One partition of each size, and --cu-mask's, with what each was granted.
std::vector<Named> make_partitions(hl::Report& report, const hl::Device& device,
                                   const PartitionRules& rules, int k,
                                   const std::optional<CuMask>& user_mask) {
  std::vector<Named> made;
  //! [partition_usage]
  // One partition of each size; the platform may round the size up (granted_units).
  for (const int size : {k, 2 * k, 4 * k}) {
    if (expected_grant(rules, size) > rules.units) continue;
    made.push_back({units_text(size), partition_device(device, 1, size).groups[0]});
  }
  //! [partition_usage]
  if (user_mask) {
    made.push_back({"--cu-mask " + user_mask->ids(), from_mask(device, *user_mask), true});
  }
  hl::ResultTable table("partitions", "Partitions: what was asked, what was granted",
                        {{"partition"}, {"requested"}, {"granted"}, {"placement"}});
  for (const Named& p : made) {
    table.row({p.name, p.stream.requested_units, p.stream.granted_units, p.stream.placement});
  }
  report.table(table);
  for (const Named& p : made) check_grant(report, "partition " + p.name, p.stream, rules);
  return made;
}

// 5. The kernel on the whole device, then on each partition, traced. The whole device's output
// is checked against the host (every element in --check; 1024 of them at --size, where the host
// would take minutes) and is the reference every partition must reproduce; each partition's
// blocks must stay within its grant. Returns the whole device's time and the summary's figures.
std::pair<double, std::string> measure_scaling(Run& run, const std::vector<Named>& partitions,
                                               const hl::SpeedCheck& scaling_check) {
  Workload& work = run.work;
  hl::GpuStream whole;
  hl::DeviceBuffer<float> out(work.n);
  const unsigned blocks = blocks_for(work.n);
  hl::BlockTraceRecorder recorder(std::size_t{blocks} * (partitions.size() + 1));
  run_checked(run.report, "whole device", whole, work, work.n, work.iterations, out, nullptr,
              recorder.reserve("whole device", blocks, 0));
  adopt_reference(run.report, work, out, run.timed() ? std::max<std::size_t>(1, work.n / 1024) : 1);
  for (std::size_t p = 0; p < partitions.size(); ++p) {  // trace stream p + 1
    const std::string name = "partition " + partitions[p].name;
    run_checked(run.report, name, partitions[p].stream, work, work.n, work.iterations, out,
                work.reference.data(), recorder.reserve(name, blocks, static_cast<int>(p) + 1));
  }
  const hl::Schedule schedule = recorder.schedule();
  for (std::size_t p = 0; p < partitions.size(); ++p) {
    check_units(run.report, schedule, static_cast<int>(p) + 1, "partition " + partitions[p].name,
                partitions[p].stream.granted_units);
  }
  run.report.trace("whole device, then each partition", schedule);
  if (!run.timed()) return {};
  const double whole_ms = time_kernel(whole, work, work.n, out, run.plan());
  std::string summary;
  const int units = run.rules.units;
  hl::ResultTable table(
      "scaling",
      hl::format("Compute-bound kernel, {} threads x {} steps x 4 chains, on k of {}", work.n,
                 work.iterations, units_text(units)),
      {{"partition"},
       {hl::format("{}s granted", hl::kComputeUnitName)},
       {"median", "ms", 3},
       {"x whole device"},
       {"ideal N/k"},
       {"measured / ideal"}});
  table.row({"whole device", units, whole_ms, 1.0, 1.0, 1.0});
  std::vector<std::pair<hl::SpeedCheck, double>> speeds;  // reported under the table
  for (const Named& p : partitions) {
    const int granted = p.stream.granted_units;
    const double ms = time_kernel(p.stream, work, work.n, out, run.plan());
    const double slowdown = ms / whole_ms;
    const double ideal = static_cast<double>(units) / granted;
    table.row({p.name, granted, ms, slowdown, ideal, slowdown / ideal});
    run.report.measurement(hl::format("slowdown.{}_units", granted), slowdown);
    if (p.from_mask) continue;
    hl::SpeedCheck check = scaling_check;
    check.name =
        hl::format("|(time on {} / whole device) / (N/k = {:.2}) - 1|", units_text(granted), ideal);
    speeds.emplace_back(check, std::abs(slowdown / ideal - 1.0));
    summary += hl::format("{}{}/{} {}s {:.1}x (ideal {:.1})", summary.empty() ? "" : ", ", granted,
                          units, hl::kComputeUnitName, slowdown, ideal);
  }
  run.report.table(table);
  run.report.measurement("whole_device_ms", whole_ms);
  for (const auto& [check, ratio] : speeds) run.report.speed(check, ratio);
  return {whole_ms, summary};
}

// 6. Small kernels next to a noisy neighbour: on plain streams the neighbour holds every unit
// and the victim waits; in disjoint partitions the victim keeps its solo latency. A traced
// round of each draws it and checks the partitions' units. Returns the victim's slowdown
// {partitioned, not partitioned}.
std::pair<double, double> measure_isolation(Run& run, int k, int victim_kernels, double whole_ms,
                                            const hl::SpeedCheck& isolated_check,
                                            const hl::SpeedCheck& shared_check) {
  //! [isolation_split]
  // k units for the victim, everything else for the neighbour: disjoint by construction.
  DevicePartition split = partition_device(run.device, 1, k, /*with_rest=*/true);
  if (!split.rest) {
    throw hl::UsageError(hl::format("--partition {} leaves nothing for the neighbour", k));
  }
  const CuPartitionStream& victim_partition = split.groups[0];
  const CuPartitionStream& neighbour_partition = *split.rest;
  //! [isolation_split]
  const Workload& work = run.work;
  // Two blocks per unit of the victim's partition, a quarter of the steps: short kernels.
  const std::size_t n = std::min<std::size_t>(work.n, 2 * kBlock * victim_partition.granted_units);
  Victim victim{n, std::max(1, work.iterations / 4), victim_kernels, hl::DeviceBuffer<float>(n)};
  hl::DeviceBuffer<float> neighbour_out(work.n);
  run_checked(run.report, "victim partition", victim_partition, work, n, victim.iterations,
              victim.out, work.host_reference(n, victim.iterations).data());
  run_checked(run.report, "neighbour partition (the rest)", neighbour_partition, work, work.n,
              work.iterations, neighbour_out, work.reference.data());
  hl::GpuStream victim_plain, neighbour_plain;
  if (!run.timed()) {  // --check: one neighbour run, no head start; the checks, not the picture
    trace_isolation(run.report, {victim_plain, neighbour_plain}, victim_partition,
                    neighbour_partition, victim, {1, std::chrono::microseconds(0)}, work,
                    neighbour_out);
    return {};
  }
  const auto latency = [&](hipStream_t v, hipStream_t neighbour, const Neighbour& load) {
    return victim_latency(v, neighbour, victim, load, work, neighbour_out, run.plan()).median;
  };
  const Neighbour quiet{0, std::chrono::microseconds(0)};
  const double solo_part = latency(victim_partition, neighbour_partition, quiet);
  const double solo_plain = latency(victim_plain, neighbour_plain, quiet);
  // The neighbour keeps the units busy for at least 10x the victim's solo time, and gets a
  // head start of a fifth of one run so it has filled the units when the victim arrives.
  const Neighbour noisy{std::max(1, static_cast<int>(10.0 * solo_plain / whole_ms + 1.0)),
                        std::chrono::microseconds(static_cast<long long>(200.0 * whole_ms))};
  const double shared_ms = latency(victim_plain, neighbour_plain, noisy);
  const double isolated_ms = latency(victim_partition, neighbour_partition, noisy);
  const double shared = shared_ms / solo_plain, isolated = isolated_ms / solo_part;
  const std::string in_partition = "partition, " + units_text(victim_partition.granted_units);
  hl::ResultTable table(
      "isolation",
      hl::format("{} small kernels ({} blocks each) next to {} x the whole workload",
                 victim.kernels, blocks_for(n), noisy.repeats),
      {{"victim stream"}, {"neighbour"}, {"victim latency", "ms", 3}, {"x solo"}});
  table.row({"plain", "none", solo_plain, 1.0});
  table.row({"plain", "plain stream, whole device", shared_ms, shared});
  table.row({in_partition, "none", solo_part, 1.0});
  table.row({in_partition, "the other " + units_text(neighbour_partition.granted_units),
             isolated_ms, isolated});
  run.report.table(table);
  run.report.measurement("victim_slowdown.shared", shared);
  run.report.measurement("victim_slowdown.partitioned", isolated);
  run.report.speed(isolated_check, isolated);
  run.report.speed(shared_check, shared);
  trace_isolation(run.report, {victim_plain, neighbour_plain}, victim_partition,
                  neighbour_partition, victim, noisy, work, neighbour_out);
  return {isolated, shared};
}

// 7. Two disjoint partitions at once: each keeps its solo speed, and (on NVIDIA, where every
// SM has its own ID) no SM runs blocks of both: a traced run draws and checks it.
void measure_side_by_side(Run& run, int k, const hl::SpeedCheck& concurrent_check) {
  DevicePartition pair = partition_device(run.device, 2, k);
  const Workload& work = run.work;
  // Work proportional to the partition, so each runs about as long as the whole device does.
  const std::size_t n = std::min(
      work.n,
      std::max<std::size_t>(kBlock, work.n * pair.groups[0].granted_units / run.rules.units));
  const char* names[] = {"A", "B"};
  hl::DeviceBuffer<float> out[] = {hl::DeviceBuffer<float>(n), hl::DeviceBuffer<float>(n)};
  trace_side_by_side(run.report, pair.groups, work, n, out);
  if (!run.timed()) return;
  double solo[2];
  for (int p = 0; p < 2; ++p) solo[p] = time_kernel(pair.groups[p], work, n, out[p], run.plan());
  const auto together = time_together({pair.groups[0], pair.groups[1]}, work, n, out, run.plan());
  const std::string units = hl::format("{}s", hl::kComputeUnitName);
  hl::ResultTable table(
      "side_by_side", hl::format("Two disjoint partitions, {} threads each", n),
      {{"partition"}, {units}, {"solo", "ms", 3}, {"side by side", "ms", 3}, {"x solo"}});
  for (int p = 0; p < 2; ++p) {
    table.row(
        {names[p], pair.groups[p].granted_units, solo[p], together[p], together[p] / solo[p]});
    run.report.measurement(hl::format("side_by_side_slowdown.{}", p == 0 ? "a" : "b"),
                           together[p] / solo[p]);
  }
  run.report.table(table);
  for (int p = 0; p < 2; ++p) {
    hl::SpeedCheck check = concurrent_check;
    check.name = hl::format("partition {} side by side / solo", names[p]);
    run.report.speed(check, together[p] / solo[p]);
  }
}

}  // namespace
}  // namespace cu_masking

int main(int argc, char** argv) {
#if !defined(__HIP_PLATFORM_AMD__)
  // Streams also share the hardware queues ("connections", default 8): two streams on one run
  // in order whatever their SMs. 32, the maximum, gives each stream here its own. Read at
  // context creation, so set before any CUDA call; a user's value is kept. (AMD gives every
  // CU-masked stream a hardware queue of its own.)
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", /*overwrite=*/0);
#endif
  hl::LessonCli cli("lesson06_cu_masking",
                    "Lesson 06: limit streams to some compute units (AMD CU masks, NVIDIA green "
                    "contexts).\n--size is the number of threads of the compute-bound kernel.",
                    std::int64_t{1} << 22);
  std::string cu_mask_text;
  std::int64_t partition = 8;
  std::int64_t iterations = 8192;
  std::int64_t victim_kernels = 16;
  cli.add_text("--cu-mask", cu_mask_text,
               "Also run on these units: a CU list (0-7,16-23) or a hex mask (0xff); AMD: exactly "
               "these CUs; NVIDIA: as many SMs, placed by the driver",
               [](const std::string& text) { cu_masking::parse_cu_mask("--cu-mask", text); });
  cli.add_count("--partition", partition,
                "Smallest partition in CUs/SMs: scaling uses it, 2x and 4x; the other steps it", 1,
                cu_masking::kMaxMaskUnits);
  const hl::SpeedCheck& scaling_check =
      cli.add_speed_check(hl::at_most("|(time on k units / whole device) / (N/k) - 1|",
                                      "--scaling-tolerance", HIP_LESSONS_06_SCALING_TOLERANCE));
  cli.add_count("--iterations", iterations, "FMA steps per chain in the compute-bound kernel", 1,
                std::int64_t{1} << 20);
  const hl::SpeedCheck& isolated_check = cli.add_speed_check(
      hl::at_most("victim next to the neighbour / solo, partitioned", "--max-isolated-slowdown",
                  HIP_LESSONS_06_MAX_ISOLATED_SLOWDOWN));
  cli.add_count("--victim-kernels", victim_kernels,
                "Small kernels in the latency-sensitive chain of the isolation test", 1, 1000);
  const hl::SpeedCheck& shared_check = cli.add_speed_check(
      hl::at_least("victim next to the neighbour / solo, not partitioned", "--min-shared-slowdown",
                   HIP_LESSONS_06_MIN_SHARED_SLOWDOWN));
  cli.add_trace_output();  // --trace FILE: every traced run, as a Chrome trace
  const hl::SpeedCheck& concurrent_check = cli.add_speed_check(
      hl::at_most("each of two disjoint partitions side by side / solo",
                  "--max-concurrent-slowdown", HIP_LESSONS_06_MAX_CONCURRENT_SLOWDOWN));

  return hl::run_lesson(cli, argc, argv, [&](hl::Report& report) {
    const hl::CommonOptions& options = cli.options();
    std::optional<cu_masking::CuMask> user_mask;  // 1. the text was validated when parsed
    if (!cu_mask_text.empty()) user_mask = cu_masking::parse_cu_mask("--cu-mask", cu_mask_text);
    const int k = static_cast<int>(partition);
    const hl::Device device = hl::open_device(options.device);  // 2.
    report.facts(device.facts());
    const cu_masking::PartitionRules rules = cu_masking::describe_rules(report, device, k);  // 3.
    std::vector<cu_masking::Named> partitions =
        cu_masking::make_partitions(report, device, rules, k, user_mask);  // 4.
    // --check: an odd size catches a missing guard; 64 steps keep the host reference quick.
    cu_masking::Workload work(
        options.timed() ? static_cast<std::size_t>(options.size) : (1u << 16) + 3,
        options.timed() ? static_cast<int>(iterations) : 64, options.seed);
    report.fact("elements", work.n);
    report.fact("iterations", work.iterations);
    cu_masking::Run run{report, device, rules, work, options};
    const auto [whole_ms, scaling] =
        cu_masking::measure_scaling(run, partitions, scaling_check);  // 5.
    partitions.clear();  // destroys those streams and green contexts
    const auto [isolated, shared] = cu_masking::measure_isolation(
        run, k, static_cast<int>(victim_kernels), whole_ms, isolated_check, shared_check);  // 6.
    cu_masking::measure_side_by_side(run, k, concurrent_check);                             // 7.
    if (!options.timed()) {
      return report.summary(report.failures() == 0
                                ? "every partition computed correctly on its granted units"
                                : "partitioned streams misbehaved");
    }
    report.summary(
        hl::format("{}; victim {:.2}x solo partitioned, {:.1}x not", scaling, isolated, shared));
  });
}
