/// \file lessons/06_cu_masking/workload.hpp
/// \brief Lesson 06's workload, and its runs on streams that may be partitioned.
///
/// The compute-bound kernel's inputs and the output they must give; one run over a poisoned
/// output, checked element by element and by the compute units its blocks ran on; and the
/// timed runs the lesson compares: alone, next to a noisy neighbour, two partitions at once.
/// Shared by main.hip and bench.hip.
#pragma once

#include <hip/hip_runtime.h>

#include <array>
#include <chrono>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/report.hpp"
#include "hip_lessons/timing.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"

namespace cu_masking {
namespace hl = hip_lessons;

// Same operations in the same order on both sides, and fmaf is exactly rounded: results
// agree to the last bit; the tolerance only forgives a compiler that reorders the final sum.
inline constexpr hl::Tolerance kTolerance{1e-6, 1e-6};

/// "8 SMs", "1 CU".
inline std::string units_text(int units) {
  return hl::format(units == 1 ? "{} {}" : "{} {}s", units, hl::kComputeUnitName);
}

/// Random inputs in [-1, 1] on the device, and the output the whole workload must give.
struct Workload {
  std::size_t n;
  int iterations;
  std::vector<float> input;
  hl::DeviceBuffer<float> d_in;
  std::vector<float> reference;  ///< the whole device's output, once checked (adopt_reference)

  /// Refuses a size whose buffers (input and outputs) would not fit, before allocating any.
  static std::size_t fits(std::size_t count) {
    hl::require_device_memory(4 * count * sizeof(float), hl::format("--size {}", count));
    return count;
  }
  Workload(std::size_t count, int steps, std::uint64_t seed)
      : n(fits(count)), iterations(steps), input(n), d_in(n) {
    hl::fill_uniform(input, seed);
    d_in.upload(input);
  }
  /// The host's result for the first \p count elements after \p steps steps.
  std::vector<float> host_reference(std::size_t count, int steps) const {
    std::vector<float> expected(count);
    for (std::size_t i = 0; i < count; ++i) expected[i] = fma_chains_reference(input[i], steps);
    return expected;
  }
};

/// Poisons \p out and waits: hipMemset runs on the null stream, which a non-blocking or
/// green-context stream does not wait for.
inline void poison_and_wait(hl::DeviceBuffer<float>& out) {
  out.poison();
  HIP_CHECK(hipDeviceSynchronize());
}

/// Runs the kernel once on \p stream over a poisoned \p out, each block recording the unit it
/// ran on; compares every element with \p expected (when given) and checks that the blocks
/// stayed within the \p granted units. Returns the unit IDs seen.
inline std::set<unsigned int> run_recorded(hl::Report& report, const std::string& name,
                                           hipStream_t stream, int granted, const Workload& work,
                                           std::size_t n, int iterations,
                                           hl::DeviceBuffer<float>& out, const float* expected) {
  hl::DeviceBuffer<unsigned int> units(blocks_for(n));
  poison_and_wait(out);
  launch(work.d_in.data(), out.data(), n, iterations, stream, units.data());
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipStreamSynchronize(stream));
  if (expected != nullptr) {
    report.check_match(name + " computed correctly",
                       hl::first_mismatch(expected, out.download().data(), n, kTolerance), n);
  }
  const std::vector<unsigned int> ids = units.download();
  const std::set<unsigned int> seen(ids.begin(), ids.end());
  report.check(hl::format("{}: its blocks ran on at most its {}", name, units_text(granted)),
               static_cast<int>(seen.size()) <= granted,
               hl::format("{} distinct {} IDs seen", seen.size(), hl::kComputeUnitName));
  return seen;
}

/// Takes \p out, the whole device's output, as the reference every partition must reproduce,
/// after comparing every \p stride-th element with the host (at a large --size, computing
/// every element on the host would take minutes).
inline void adopt_reference(hl::Report& report, Workload& work, const hl::DeviceBuffer<float>& out,
                            std::size_t stride) {
  work.reference = out.download();
  std::vector<float> expected, got;
  for (std::size_t i = 0; i < work.n; i += stride) {
    expected.push_back(fma_chains_reference(work.input[i], work.iterations));
    got.push_back(work.reference[i]);
  }
  report.check_match(
      hl::format("whole device vs host reference, {} of {} elements", expected.size(), work.n),
      hl::first_mismatch(expected, got, kTolerance), expected.size());
}

/// Median time of the kernel over the first \p n elements on \p stream.
inline double time_kernel(hipStream_t stream, const Workload& work, std::size_t n,
                          hl::DeviceBuffer<float>& out, const hl::TimingPlan& plan) {
  const auto run = [&] {
    launch(work.d_in.data(), out.data(), n, work.iterations, stream);
    HIP_CHECK_LAUNCH();
  };
  return hl::time_on_stream(stream, plan, run).median;
}

/// The latency-sensitive side: a chain of small kernels on one stream.
struct Victim {
  std::size_t n;
  int iterations;
  int kernels;
  hl::DeviceBuffer<float> out;
};

/// The noisy neighbour: the whole workload, `repeats` times back to back (0: no neighbour).
struct Neighbour {
  int repeats;
  std::chrono::microseconds head_start;
};

//! [victim_latency]
// Time from the victim's first kernel being issued to its last one finishing, while the
// neighbour floods \p neighbour_stream (issued first, given a head start so it really
// occupies the units when the victim arrives).
inline hl::Stats victim_latency(hipStream_t victim_stream, hipStream_t neighbour_stream,
                                Victim& victim, const Neighbour& neighbour, const Workload& work,
                                hl::DeviceBuffer<float>& neighbour_out,
                                const hl::TimingPlan& plan) {
  hl::GpuEvent start;
  hl::GpuEvent stop;
  std::vector<double> samples;
  for (int r = 0; r < plan.warmup + plan.repeats; ++r) {
    for (int i = 0; i < neighbour.repeats; ++i) {
      launch(work.d_in.data(), neighbour_out.data(), work.n, work.iterations, neighbour_stream);
      HIP_CHECK_LAUNCH();
    }
    std::this_thread::sleep_for(neighbour.head_start);
    start.record(victim_stream);
    for (int i = 0; i < victim.kernels; ++i) {
      launch(work.d_in.data(), victim.out.data(), victim.n, victim.iterations, victim_stream);
      HIP_CHECK_LAUNCH();
    }
    stop.record(victim_stream);
    stop.synchronize();
    HIP_CHECK(hipStreamSynchronize(neighbour_stream));
    if (r >= plan.warmup) samples.push_back(stop.milliseconds_since(start));
  }
  return hl::summarize(std::move(samples));
}
//! [victim_latency]

/// Median times of the kernel over \p n elements on two streams at once, each timed by
/// events on its own stream.
inline std::array<double, 2> time_together(const std::array<hipStream_t, 2>& streams,
                                           const Workload& work, std::size_t n,
                                           hl::DeviceBuffer<float>* out,
                                           const hl::TimingPlan& plan) {
  hl::GpuEvent start[2], stop[2];
  std::vector<double> samples[2];
  for (int r = 0; r < plan.warmup + plan.repeats; ++r) {
    for (int p = 0; p < 2; ++p) {
      start[p].record(streams[p]);
      launch(work.d_in.data(), out[p].data(), n, work.iterations, streams[p]);
      HIP_CHECK_LAUNCH();
      stop[p].record(streams[p]);
    }
    for (int p = 0; p < 2; ++p) {
      stop[p].synchronize();
      if (r >= plan.warmup) samples[p].push_back(stop[p].milliseconds_since(start[p]));
    }
  }
  return {hl::summarize(std::move(samples[0])).median, hl::summarize(std::move(samples[1])).median};
}

}  // namespace cu_masking
