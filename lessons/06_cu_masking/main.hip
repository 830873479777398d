/// \file lessons/06_cu_masking/main.hip
/// \brief Lesson 06: run a stream on part of the GPU: CU masks on AMD, green contexts on NVIDIA.
///
/// The article calls hipDeviceSetCuMask, which does not exist. The real mechanisms limit
/// one stream, not the device: on AMD hipExtStreamCreateWithCUMask takes a bit mask of
/// compute units; on NVIDIA the driver splits the SMs into green contexts, each with its own
/// streams. hip_lessons::CuPartitionStream (common/include/hip_lessons/cu_partition.hpp)
/// wraps both as "a stream limited to these compute units".
///
/// The story: (1) what a partition may look like on this device, and what a request is
/// actually granted; (2) scaling: a compute-bound kernel on k of N units takes about N/k as
/// long; (3) isolation: a stream of small kernels next to a "noisy neighbour" that floods the
/// device, with and without partitions; (4) two disjoint partitions side by side each keep
/// their solo speed.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "hip_lessons/buffers.hpp"
#include "hip_lessons/cu_partition.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/lesson.hpp"
#include "hip_lessons/timing.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;

namespace {

// Same operations in the same order on both sides, and fmaf is exactly rounded: results
// agree to the last bit; the tolerance only forgives a compiler that reorders the final sum.
constexpr hl::Tolerance kTolerance{1e-6, 1e-6};

const std::string kUnit = hl::kComputeUnitName;

// --- the work ---------------------------------------------------------------------------

// Random inputs in [-1, 1] on the device, and output buffers for each stream that runs.
struct Workload {
  std::size_t n;
  int iterations;
  std::vector<float> input;
  hl::DeviceBuffer<float> d_in;

  Workload(std::size_t count, int steps, std::uint64_t seed)
      : n(count), iterations(steps), input(count), d_in(count) {
    hl::fill_uniform(input, seed);
    d_in.upload(input);
  }

  std::vector<float> host_reference(std::size_t count, int steps) const {
    std::vector<float> expected(count);
    for (std::size_t i = 0; i < count; ++i) expected[i] = cu_masking::fma_chains_reference(input[i], steps);
    return expected;
  }
};

// Poisons \p out, then waits: hipMemset runs on the null stream, which a non-blocking or
// green-context stream does not wait for.
void poison_and_wait(hl::DeviceBuffer<float>& out) {
  out.poison();
  HIP_CHECK(hipDeviceSynchronize());
}

std::string units_text(int units) { return std::to_string(units) + " " + kUnit + (units == 1 ? "" : "s"); }

// --- 1. What a partition may look like ----------------------------------------------------

void describe_rules(hl::Report& report, const hl::Device& device, const hl::PartitionRules& rules) {
  std::cout << "The article's hipDeviceSetCuMask does not exist. Partitions are per stream:\n"
#if defined(__HIP_PLATFORM_AMD__)
            << "  AMD: hipExtStreamCreateWithCUMask(&stream, words, mask), read back with "
               "hipExtStreamGetCUMask\n\n";
#else
            << "  NVIDIA: cuDevSmResourceSplitByCount -> cuDevResourceGenerateDesc -> "
               "cuGreenCtxCreate -> cuGreenCtxStreamCreate\n\n";
#endif
  hl::Table table({"property", "value"});
  table.add_row({"device", device.name()});
  table.add_row({kUnit + "s", std::to_string(rules.units)});
  table.add_row({"smallest partition", units_text(rules.min_units)});
  table.add_row({"partition sizes are multiples of", units_text(rules.granularity)});
  table.add_row({"mechanism", rules.mechanism});
#if defined(__HIP_PLATFORM_AMD__)
  for (const char* variable : {"ROC_GLOBAL_CU_MASK", "HSA_CU_MASK"}) {
    const char* value = std::getenv(variable);
    table.add_row({variable, value == nullptr ? "unset" : std::string(value) + " (ANDed with every stream's mask)"});
  }
#else
  const char* connections = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  table.add_row({"CUDA_DEVICE_MAX_CONNECTIONS", connections == nullptr ? "unset" : connections});
#endif
  report.table("partition_rules", "What a partition may look like here", table);
  report.fact("partition_min_units", rules.min_units);
  report.fact("partition_granularity", rules.granularity);
}

void add_partition_row(hl::Table& table, const std::string& name, const hl::CuPartitionStream& s) {
  table.add_row({name, std::to_string(s.requested_units()), std::to_string(s.granted_units()),
                 s.placement()});
}

// --- correctness (--check) ----------------------------------------------------------------

// Runs the kernel on \p stream over a poisoned output, compares every element with the host
// reference, and returns the distinct compute-unit IDs its blocks reported.
std::set<unsigned int> check_stream(hl::Report& report, const std::string& name, hipStream_t stream,
                                    int granted, Workload& work, const std::vector<float>& expected) {
  hl::DeviceBuffer<float> out(work.n);
  hl::DeviceBuffer<unsigned int> units(cu_masking::blocks_for(work.n));
  poison_and_wait(out);
  cu_masking::launch(work.d_in.data(), out.data(), work.n, work.iterations, stream, units.data());
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipStreamSynchronize(stream));
  report.check_match(name + ": every element", hl::first_mismatch(expected, out.download(), kTolerance),
                     work.n);
  const std::vector<unsigned int> ids = units.download();
  const std::set<unsigned int> distinct(ids.begin(), ids.end());
  report.check(name + ": its blocks ran on at most its " + units_text(granted), static_cast<int>(distinct.size()) <= granted,
               std::to_string(distinct.size()) + " distinct " + kUnit + " IDs seen");
  return distinct;
}

// The platform gave what was asked: on AMD the mask read back is the mask requested (unless
// a process-wide mask is set); on NVIDIA the split granted at least the request.
void check_grant(hl::Report& report, const std::string& name, const hl::CuPartitionStream& s,
                 const hl::PartitionRules& rules) {
#if defined(__HIP_PLATFORM_AMD__)
  (void)rules;
  if (std::getenv("ROC_GLOBAL_CU_MASK") != nullptr || std::getenv("HSA_CU_MASK") != nullptr) {
    std::cout << "note    " << name << ": a process-wide CU mask is set, so the applied mask "
              << s.applied_mask().hex() << " may differ from the requested " << s.requested_mask().hex()
              << '\n';
    return;
  }
  report.check(name + ": hipExtStreamGetCUMask reads back the requested mask",
               s.applied_mask() == s.requested_mask(),
               "requested " + s.requested_mask().hex() + ", applied " + s.applied_mask().hex());
#else
  report.check(name + ": granted at least the request and no more than the device",
               s.granted_units() >= s.requested_units() && s.granted_units() <= rules.units,
               "requested " + std::to_string(s.requested_units()) + ", granted " +
                   std::to_string(s.granted_units()));
#endif
}

void run_checks(hl::Report& report, const hl::Device& device, const hl::PartitionRules& rules,
                int k, std::optional<hl::CuPartitionStream>& user_stream, std::uint64_t seed) {
  // An odd size catches a missing guard; 64 steps keep the host reference quick.
  Workload work((std::size_t{1} << 16) + 3, 64, seed);
  const std::vector<float> expected = work.host_reference(work.n, work.iterations);

  hl::GpuStream plain;
  check_stream(report, "whole device (plain stream)", plain, rules.units, work, expected);

  for (const int size : {k, 2 * k, 4 * k}) {
    if (hl::expected_grant(rules, size) > rules.units) continue;
    hl::DevicePartition one = hl::partition_device(device, 1, size);
    const std::string name = "partition of " + units_text(size);
    check_grant(report, name, one.groups[0], rules);
    check_stream(report, name, one.groups[0], one.groups[0].granted_units(), work, expected);
  }

  hl::DevicePartition pair = hl::partition_device(device, 2, k, /*with_rest=*/true);
  const auto first = check_stream(report, "partition A of two", pair.groups[0],
                                  pair.groups[0].granted_units(), work, expected);
  const auto second = check_stream(report, "partition B of two", pair.groups[1],
                                   pair.groups[1].granted_units(), work, expected);
  if (pair.rest) check_stream(report, "the rest", *pair.rest, pair.rest->granted_units(), work, expected);
  std::vector<unsigned int> shared;
  std::set_intersection(first.begin(), first.end(), second.begin(), second.end(),
                        std::back_inserter(shared));
#if defined(__HIP_PLATFORM_AMD__)
  // __smid() is not unique per CU on every AMD GPU, so shared IDs prove nothing here.
  std::cout << "note    partitions A and B: " << shared.size()
            << " shared __smid() values (not unique per CU on every AMD GPU)\n";
#else
  report.check("partitions A and B ran on disjoint SMs", shared.empty(),
               std::to_string(shared.size()) + " SM IDs seen in both");
#endif
  if (user_stream) {
    check_grant(report, "--cu-mask", *user_stream, rules);
    check_stream(report, "--cu-mask", *user_stream, user_stream->granted_units(), work, expected);
  }
  report.summary(report.failures() == 0 ? "every partition computed correctly on at most its granted units"
                                        : "partitioned streams misbehaved");
}

// --- 2. Scaling ---------------------------------------------------------------------------

// Median time of the kernel over the whole workload on \p stream.
hl::Stats time_kernel(hipStream_t stream, Workload& work, hl::DeviceBuffer<float>& out,
                      const hl::TimingPlan& plan) {
  return hl::time_on_stream(stream, plan, [&] {
    cu_masking::launch(work.d_in.data(), out.data(), work.n, work.iterations, stream);
    HIP_CHECK_LAUNCH();
  });
}

// Runs once on \p stream over a poisoned output and compares every element with \p expected.
void validate_run(hl::Report& report, const std::string& name, hipStream_t stream, Workload& work,
                  std::size_t n, int iterations, hl::DeviceBuffer<float>& out,
                  const std::vector<float>& expected) {
  poison_and_wait(out);
  cu_masking::launch(work.d_in.data(), out.data(), n, iterations, stream);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipStreamSynchronize(stream));
  const std::vector<float> got = out.download();
  report.check_match(name, hl::first_mismatch(expected.data(), got.data(), n, kTolerance), n);
}

// --- 3. Isolation -------------------------------------------------------------------------

// The latency-sensitive side: a chain of small kernels on one stream.
struct Victim {
  std::size_t n;
  int iterations;
  int kernels;
  hl::DeviceBuffer<float> out;
};

// The noisy neighbour: the whole workload, `repeats` times back to back.
struct Neighbour {
  int repeats;
  std::chrono::microseconds head_start;
};

//! [victim_latency]
// Time from the victim's first kernel being issued to its last one finishing, optionally
// while the neighbour floods \p neighbour_stream (issued first, given a head start so it
// really occupies the units when the victim arrives).
hl::Stats victim_latency(hipStream_t victim_stream, const hipStream_t* neighbour_stream, Victim& victim,
                         const Neighbour& neighbour, Workload& work, hl::DeviceBuffer<float>& neighbour_out,
                         const hl::TimingPlan& plan) {
  hl::GpuEvent start;
  hl::GpuEvent stop;
  std::vector<double> samples;
  for (int r = 0; r < plan.warmup + plan.repeats; ++r) {
    if (neighbour_stream != nullptr) {
      for (int i = 0; i < neighbour.repeats; ++i) {
        cu_masking::launch(work.d_in.data(), neighbour_out.data(), work.n, work.iterations, *neighbour_stream);
        HIP_CHECK_LAUNCH();
      }
      std::this_thread::sleep_for(neighbour.head_start);
    }
    start.record(victim_stream);
    for (int i = 0; i < victim.kernels; ++i) {
      cu_masking::launch(work.d_in.data(), victim.out.data(), victim.n, victim.iterations, victim_stream);
      HIP_CHECK_LAUNCH();
    }
    stop.record(victim_stream);
    stop.synchronize();
    if (neighbour_stream != nullptr) HIP_CHECK(hipStreamSynchronize(*neighbour_stream));
    if (r >= plan.warmup) samples.push_back(stop.milliseconds_since(start));
  }
  return hl::summarize(std::move(samples));
}
//! [victim_latency]

// --- 4. Two partitions side by side -------------------------------------------------------

struct PairTimes {
  hl::Stats a, b;
};

// Both partitions run their kernel at once; each is timed by events on its own stream.
PairTimes time_together(hipStream_t a, hipStream_t b, Workload& work, std::size_t n,
                        hl::DeviceBuffer<float>& out_a, hl::DeviceBuffer<float>& out_b,
                        const hl::TimingPlan& plan) {
  hl::GpuEvent start_a, stop_a, start_b, stop_b;
  std::vector<double> samples_a, samples_b;
  for (int r = 0; r < plan.warmup + plan.repeats; ++r) {
    start_a.record(a);
    cu_masking::launch(work.d_in.data(), out_a.data(), n, work.iterations, a);
    HIP_CHECK_LAUNCH();
    stop_a.record(a);
    start_b.record(b);
    cu_masking::launch(work.d_in.data(), out_b.data(), n, work.iterations, b);
    HIP_CHECK_LAUNCH();
    stop_b.record(b);
    stop_a.synchronize();
    stop_b.synchronize();
    if (r >= plan.warmup) {
      samples_a.push_back(stop_a.milliseconds_since(start_a));
      samples_b.push_back(stop_b.milliseconds_since(start_b));
    }
  }
  return {hl::summarize(std::move(samples_a)), hl::summarize(std::move(samples_b))};
}

}  // namespace

int main(int argc, char** argv) {
#if !defined(__HIP_PLATFORM_AMD__)
  // Disjoint SMs are not the only shared resource: streams also share the device's hardware
  // work queues ("connections", default 8), and two streams on one queue run in order
  // whatever their partitions. 32, the maximum, gives each stream of this lesson its own.
  // Read when the context is created, so it is set before the first CUDA call; a value the
  // user set is kept. (AMD gives every CU-masked stream a hardware queue of its own.)
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", /*overwrite=*/0);
#endif
  std::string cu_mask_text;
  std::int64_t partition = 8;
  std::int64_t iterations = 8192;
  std::int64_t victim_kernels = 16;
  double scaling_tolerance = 0.35;
  double max_isolated_slowdown = 1.5;
  double min_shared_slowdown = 2.0;
  double max_concurrent_slowdown = 1.35;
  hl::LessonCli cli("lesson06_cu_masking",
                    "Lesson 06: limit streams to some compute units (AMD CU masks, NVIDIA green "
                    "contexts).\n--size is the number of threads of the compute-bound kernel.",
                    std::int64_t{1} << 22);
  cli.add_text("--cu-mask", cu_mask_text,
               "Also run on these units: a CU list such as 0-7,16-23 or a hex mask such as 0xff "
               "(AMD: exactly these CUs; NVIDIA: as many SMs as the mask names, placed by the "
               "driver)",
               [](const std::string& text) { hl::parse_cu_mask("--cu-mask", text); });
  cli.add_count("--partition", partition,
                "Smallest partition in CUs/SMs; scaling uses it, 2x and 4x; isolation and the "
                "side-by-side run use it",
                1, hl::kMaxMaskUnits);
  cli.add_count("--iterations", iterations, "FMA steps per chain in the compute-bound kernel", 1,
                std::int64_t{1} << 20);
  cli.add_count("--victim-kernels", victim_kernels,
                "Small kernels in the latency-sensitive chain of the isolation test", 1, 1000);
  cli.add_number("--scaling-tolerance", scaling_tolerance,
                 "Speed check: time on k units / whole device must be within this fraction of N/k",
                 0.0, 1.0);
  cli.add_number("--max-isolated-slowdown", max_isolated_slowdown,
                 "Speed check: partitioned victim latency next to the neighbour / solo must stay "
                 "at or below this",
                 1.0, 100.0);
  cli.add_number("--min-shared-slowdown", min_shared_slowdown,
                 "Speed check: unpartitioned victim latency next to the neighbour / solo must "
                 "reach this (0 disables)",
                 0.0, 1000.0);
  cli.add_number("--max-concurrent-slowdown", max_concurrent_slowdown,
                 "Speed check: each of two side-by-side partitions / its solo time must stay at or "
                 "below this",
                 1.0, 100.0);

  return hl::run_lesson(cli, argc, argv, [&](hl::Report& report) {
    const hl::CommonOptions& options = cli.options();
    std::optional<hl::CuMask> user_mask;  // the text was validated when the options were parsed
    if (!cu_mask_text.empty()) user_mask = hl::parse_cu_mask("--cu-mask", cu_mask_text);
    const int k = static_cast<int>(partition);

    const hl::Device device = hl::open_device(options.device);
    hl::describe_device(report, device);
    if (k > device.compute_units()) {
      throw hl::UsageError("--partition " + std::to_string(k) + " is larger than this device, which has " +
                           units_text(device.compute_units()));
    }
    const hl::PartitionRules rules = hl::partition_rules(device);
    if (2 * hl::expected_grant(rules, k) > rules.units) {
      throw hl::UsageError("--partition " + std::to_string(k) + " is granted as " +
                           units_text(hl::expected_grant(rules, k)) +
                           " here, and two partitions of that size must fit in the device's " +
                           units_text(rules.units) + "; use at most " +
                           std::to_string(rules.units / 2 / rules.granularity * rules.granularity));
    }
    describe_rules(report, device, rules);
    std::optional<hl::CuPartitionStream> user_stream;
    if (user_mask) user_stream.emplace(hl::CuPartitionStream::from_mask(device, *user_mask));

    if (options.check) {
      run_checks(report, device, rules, k, user_stream, options.seed);
      return;
    }

    // --- 1. Partitions and what they were granted ------------------------------------------
    std::vector<std::pair<std::string, hl::CuPartitionStream>> scaling;
    //! [partition_usage]
    // One partition of each size; the platform may round the size up (granted_units()).
    for (const int size : {k, 2 * k, 4 * k}) {
      if (hl::expected_grant(rules, size) > rules.units) continue;
      hl::DevicePartition one = hl::partition_device(device, 1, size);
      scaling.emplace_back(units_text(size), std::move(one.groups[0]));
    }
    //! [partition_usage]
    if (user_stream) scaling.emplace_back("--cu-mask " + user_mask->ids(), std::move(*user_stream));
    hl::Table granted({"partition", "requested", "granted", "placement"});
    for (const auto& [name, s] : scaling) add_partition_row(granted, name, s);
    report.table("partitions", "Partitions: what was asked, what was granted", granted);

    const auto n = static_cast<std::size_t>(options.size);
    const auto victim_units = hl::expected_grant(rules, k);
    const std::size_t n_pair = std::max<std::size_t>(
        cu_masking::kBlock, n * static_cast<std::size_t>(victim_units) / static_cast<std::size_t>(rules.units));
    hl::require_device_memory((3 * n + 2 * n_pair) * sizeof(float), "--size " + std::to_string(n));
    Workload work(n, static_cast<int>(iterations), options.seed);
    report.fact("elements", static_cast<double>(n));
    report.fact("iterations", static_cast<double>(iterations));
    hl::DeviceBuffer<float> out_full(n), out_part(n);
    const hl::TimingPlan plan{3, options.repeat};

    // --- 2. Scaling: the same kernel on the whole device and on each partition --------------
    // The reference output comes from the whole device, checked against the host on a sample
    // (the full host reference would take minutes); every partition must reproduce it exactly.
    hl::GpuStream whole;
    poison_and_wait(out_full);
    cu_masking::launch(work.d_in.data(), out_full.data(), n, work.iterations, whole);
    HIP_CHECK_LAUNCH();
    whole.synchronize();
    const std::vector<float> reference = out_full.download();
    {
      const std::size_t stride = std::max<std::size_t>(1, n / 1024);
      std::vector<float> expected, got;
      for (std::size_t i = 0; i < n; i += stride) {
        expected.push_back(cu_masking::fma_chains_reference(work.input[i], work.iterations));
        got.push_back(reference[i]);
      }
      report.check_match("whole device vs host reference, every " + std::to_string(stride) + "th element",
                         hl::first_mismatch(expected, got, kTolerance), expected.size());
    }
    for (auto& [name, s] : scaling) {
      validate_run(report, "partition " + name + " reproduces the whole-device output", s, work, n,
                   work.iterations, out_part, reference);
    }

    const hl::Stats full = time_kernel(whole, work, out_full, plan);
    hl::Table scaling_table({"partition", kUnit + "s granted", "median ms", "x whole device",
                             "ideal N/k", "measured / ideal"});
    scaling_table.add_row({"whole device", std::to_string(rules.units), hl::fixed(full.median, 3), "1.00",
                           "1.00", "1.00"});
    struct ScalingResult {
      std::string name;
      int granted;
      double slowdown, ideal;
      bool from_mask;
    };
    std::vector<ScalingResult> results;
    for (auto& [name, s] : scaling) {
      const hl::Stats t = time_kernel(s, work, out_part, plan);
      const double slowdown = t.median / full.median;
      const double ideal = static_cast<double>(rules.units) / s.granted_units();
      scaling_table.add_row({name, std::to_string(s.granted_units()), hl::fixed(t.median, 3),
                             hl::fixed(slowdown, 2), hl::fixed(ideal, 2), hl::fixed(slowdown / ideal, 2)});
      report.measurement("slowdown." + std::to_string(s.granted_units()) + "_units", slowdown);
      results.push_back({name, s.granted_units(), slowdown, ideal, name.rfind("--cu-mask", 0) == 0});
    }
    report.table("scaling", "Compute-bound kernel, " + std::to_string(n) + " threads x " +
                                std::to_string(iterations) + " steps x 4 chains, on k of " +
                                units_text(rules.units),
                 scaling_table);
    report.measurement("whole_device_ms", full.median);
    scaling.clear();  // destroys those streams and green contexts (RAII)

    // --- 3. Isolation: small kernels next to a noisy neighbour --------------------------------
    //! [isolation_split]
    // k units for the victim, everything else for the neighbour: disjoint by construction.
    hl::DevicePartition split = hl::partition_device(device, 1, k, /*with_rest=*/true);
    if (!split.rest) throw hl::UsageError("--partition " + std::to_string(k) + " leaves nothing for the neighbour");
    hl::CuPartitionStream& victim_partition = split.groups[0];
    hl::CuPartitionStream& neighbour_partition = *split.rest;
    //! [isolation_split]
    // Two blocks per unit of the victim's partition, a quarter of the steps: short kernels.
    const std::size_t victim_n = std::min(
        n, std::size_t{2} * cu_masking::kBlock * static_cast<std::size_t>(victim_partition.granted_units()));
    Victim victim{victim_n, std::max(1, static_cast<int>(iterations) / 4), static_cast<int>(victim_kernels),
                  hl::DeviceBuffer<float>(victim_n)};
    const std::vector<float> victim_expected = work.host_reference(victim.n, victim.iterations);
    hl::GpuStream victim_plain;
    hl::GpuStream neighbour_plain;

    const Neighbour quiet{0, std::chrono::microseconds(0)};
    poison_and_wait(victim.out);
    const hl::Stats solo_part = victim_latency(victim_partition, nullptr, victim, quiet, work, out_full, plan);
    const hl::Stats solo_plain = victim_latency(victim_plain, nullptr, victim, quiet, work, out_full, plan);
    // The neighbour keeps the units busy for at least 10x the victim's solo time, and gets a
    // head start of a fifth of one kernel so it has filled the units when the victim arrives.
    Neighbour noisy{std::max(1, static_cast<int>(10.0 * solo_plain.median / full.median + 1.0)),
                    std::chrono::microseconds(static_cast<long long>(200.0 * full.median))};
    const hipStream_t neighbour_plain_stream = neighbour_plain;
    const hipStream_t neighbour_part_stream = neighbour_partition;
    const hl::Stats shared = victim_latency(victim_plain, &neighbour_plain_stream, victim, noisy, work, out_full, plan);
    const hl::Stats isolated = victim_latency(victim_partition, &neighbour_part_stream, victim, noisy, work, out_full, plan);
    {
      const std::vector<float> got = victim.out.download();
      report.check_match("victim kernels computed correctly", hl::first_mismatch(victim_expected, got, kTolerance),
                         victim.n);
    }
    const double shared_slowdown = shared.median / solo_plain.median;
    const double isolated_slowdown = isolated.median / solo_part.median;
    hl::Table isolation({"victim stream", "neighbour", "victim latency ms", "x solo"});
    isolation.add_row({"plain", "none", hl::fixed(solo_plain.median, 3), "1.00"});
    isolation.add_row({"plain", "plain stream, whole device", hl::fixed(shared.median, 3), hl::fixed(shared_slowdown, 2)});
    isolation.add_row({"partition, " + units_text(victim_partition.granted_units()), "none",
                       hl::fixed(solo_part.median, 3), "1.00"});
    isolation.add_row({"partition, " + units_text(victim_partition.granted_units()),
                       "the other " + units_text(neighbour_partition.granted_units()),
                       hl::fixed(isolated.median, 3), hl::fixed(isolated_slowdown, 2)});
    report.table("isolation",
                 std::to_string(victim.kernels) + " small kernels (" + std::to_string(cu_masking::blocks_for(victim.n)) +
                     " blocks each) next to " + std::to_string(noisy.repeats) + " x the whole workload",
                 isolation);
    report.measurement("victim_slowdown.shared", shared_slowdown);
    report.measurement("victim_slowdown.partitioned", isolated_slowdown);

    // --- 4. Two disjoint partitions side by side ---------------------------------------------
    hl::DevicePartition pair = hl::partition_device(device, 2, k);
    // Work proportional to the partition, so each runs about as long as the whole device does.
    const std::size_t n_each = std::min(n, std::max<std::size_t>(
        cu_masking::kBlock, n * static_cast<std::size_t>(pair.groups[0].granted_units()) /
                                static_cast<std::size_t>(rules.units)));
    hl::DeviceBuffer<float> out_a(n_each), out_b(n_each);
    poison_and_wait(out_a);
    poison_and_wait(out_b);
    const hl::Stats solo_a = hl::time_on_stream(pair.groups[0], plan, [&] {
      cu_masking::launch(work.d_in.data(), out_a.data(), n_each, work.iterations, pair.groups[0]);
      HIP_CHECK_LAUNCH();
    });
    const hl::Stats solo_b = hl::time_on_stream(pair.groups[1], plan, [&] {
      cu_masking::launch(work.d_in.data(), out_b.data(), n_each, work.iterations, pair.groups[1]);
      HIP_CHECK_LAUNCH();
    });
    const PairTimes together = time_together(pair.groups[0], pair.groups[1], work, n_each, out_a, out_b, plan);
    report.check_match("partition A side by side computed correctly",
                       hl::first_mismatch(reference.data(), out_a.download().data(), n_each, kTolerance), n_each);
    report.check_match("partition B side by side computed correctly",
                       hl::first_mismatch(reference.data(), out_b.download().data(), n_each, kTolerance), n_each);
    const double slowdown_a = together.a.median / solo_a.median;
    const double slowdown_b = together.b.median / solo_b.median;
    hl::Table side({"partition", kUnit + "s", "solo ms", "side by side ms", "x solo"});
    side.add_row({"A", std::to_string(pair.groups[0].granted_units()), hl::fixed(solo_a.median, 3),
                  hl::fixed(together.a.median, 3), hl::fixed(slowdown_a, 2)});
    side.add_row({"B", std::to_string(pair.groups[1].granted_units()), hl::fixed(solo_b.median, 3),
                  hl::fixed(together.b.median, 3), hl::fixed(slowdown_b, 2)});
    report.table("side_by_side", "Two disjoint partitions, " + std::to_string(n_each) + " threads each", side);
    report.measurement("side_by_side_slowdown.a", slowdown_a);
    report.measurement("side_by_side_slowdown.b", slowdown_b);

    // --- Ratios against the thresholds --------------------------------------------------------
    std::cout << '\n';
    for (const ScalingResult& r : results) {
      if (r.from_mask) continue;  // the user's mask is shown, not judged
      const std::string name = "time on " + units_text(r.granted) + " / whole device, relative to ideal N/k = " +
                               hl::fixed(r.ideal, 2);
      if (options.speed_check) {
        report.check_ratio_at_least(name, r.slowdown / r.ideal, 1.0 - scaling_tolerance);
        report.check_ratio_at_most(name, r.slowdown / r.ideal, 1.0 + scaling_tolerance);
      } else {
        std::cout << name << ": " << hl::fixed(r.slowdown / r.ideal, 2) << " (the speed test requires "
                  << hl::fixed(1.0 - scaling_tolerance, 2) << " .. " << hl::fixed(1.0 + scaling_tolerance, 2) << ")\n";
      }
    }
    const std::string isolated_name = "victim next to the neighbour / solo, partitioned";
    const std::string shared_name = "victim next to the neighbour / solo, not partitioned";
    const std::string a_name = "partition A side by side / solo";
    const std::string b_name = "partition B side by side / solo";
    if (options.speed_check) {
      report.check_ratio_at_most(isolated_name, isolated_slowdown, max_isolated_slowdown);
      if (min_shared_slowdown > 0.0) report.check_ratio_at_least(shared_name, shared_slowdown, min_shared_slowdown);
      report.check_ratio_at_most(a_name, slowdown_a, max_concurrent_slowdown);
      report.check_ratio_at_most(b_name, slowdown_b, max_concurrent_slowdown);
    } else {
      std::cout << isolated_name << ": " << hl::fixed(isolated_slowdown, 2) << " (the speed test requires <= "
                << hl::fixed(max_isolated_slowdown, 2) << ")\n"
                << shared_name << ": " << hl::fixed(shared_slowdown, 2) << " (the speed test requires >= "
                << hl::fixed(min_shared_slowdown, 2) << ")\n"
                << a_name << ": " << hl::fixed(slowdown_a, 2) << ", " << b_name << ": " << hl::fixed(slowdown_b, 2)
                << " (the speed test requires <= " << hl::fixed(max_concurrent_slowdown, 2) << ")\n";
    }

    std::string figures;
    for (const ScalingResult& r : results) {
      if (r.from_mask) continue;
      figures += (figures.empty() ? "" : ", ") + std::to_string(r.granted) + "/" + std::to_string(rules.units) +
                 " " + kUnit + "s " + hl::fixed(r.slowdown, 1) + "x (ideal " + hl::fixed(r.ideal, 1) + ")";
    }
    report.summary(figures + "; victim " + hl::fixed(isolated_slowdown, 2) + "x solo partitioned, " +
                   hl::fixed(shared_slowdown, 1) + "x not");
  });
}
