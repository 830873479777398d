/// \file lessons/04_occupancy/problems.hpp
/// \brief The inputs, output and host references lesson 04 runs its kernels on, and one call
/// that runs a launch in any mode: output poisoned, timed or not, every element compared.
#pragma once

#include <hip/hip_runtime.h>

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "hip_lessons/buffers.hpp"
#include "hip_lessons/report.hpp"
#include "hip_lessons/timing.hpp"
#include "kernels.hpp"

namespace occupancy {

namespace hl = hip_lessons;

/// The figure of merit of a timed launch: TB/s for the triad, TFLOP/s for the FMA chain.
inline std::optional<double> rate(Kernel kernel, std::size_t n, std::optional<double> ms) {
  if (!ms) return std::nullopt;
  if (kernel != Kernel::kTriad) return kChainFlopsPerElement * n / (*ms * 1e9);
  return hl::terabytes_per_second(3.0 * n * sizeof(float), *ms);
}

/// Seeded random inputs x and c of n elements, the output y, and each kernel's host reference.
/// x repeats 1024 distinct values, so the reference of the FMA chain (1024 FMAs an element)
/// costs 1024 evaluations instead of one per element and every element can still be compared;
/// c is random everywhere, so every triad output is distinct.
class Problem {
 public:
  /// With a \p plan every run() is timed on \p stream; without one (--check) it runs once.
  Problem(std::size_t n, std::uint64_t seed, std::optional<hl::TimingPlan> plan, hipStream_t stream)
      : n_(n), plan_(plan), stream_(stream), which_(n), c_(n), x_(n), cd_(n), y_(n) {
    hl::fill_uniform(distinct_, seed);
    hl::fill_uniform(c_, seed + 1);
    std::mt19937_64 generator(seed + 2);
    std::uniform_int_distribution<std::uint32_t> pick(0, 1023);
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = distinct_[which_[i] = pick(generator)];
    x_.upload(x);
    cd_.upload(c_);
  }

  std::size_t size() const { return n_; }

  /// Poisons y, launches \p kernel on the first \p count elements (timed when the problem has
  /// a plan), and compares every one of them with the host reference. Returns the median
  /// milliseconds of the timed runs, or nothing when untimed. A non-empty \p trace records the
  /// blocks of every launch; the last launch's records stay.
  std::optional<double> run(hl::Report& report, Kernel kernel, unsigned int grid,
                            unsigned int block, std::size_t dynamic_shared = 0,
                            std::size_t count = 0, hl::BlockTrace trace = {}) {
    count = count == 0 ? n_ : count;
    const auto go = [&] {
      launch(kernel, grid, block, dynamic_shared, stream_, x_.data(), cd_.data(), y_.data(), count,
             trace);
    };
    y_.poison();
    std::optional<double> ms;
    if (plan_) {
      ms = hl::time_on_stream(stream_, *plan_, go).median;
    } else {
      go();
      HIP_CHECK(hipStreamSynchronize(stream_));
    }
    std::string what =
        hl::format("{}, N = {}, grid {} x block {}", name(kernel), count, grid, block);
    if (dynamic_shared > 0) what += hl::format(", {} dynamic shared bytes", dynamic_shared);
    // The register kernels add 64 values; a compiler may order that sum differently, so they
    // may differ in the last places. The triad and the FMA chain must match bit for bit.
    const bool exact = kernel == Kernel::kTriad || kernel == Kernel::kFmaChain;
    report.check_match(what,
                       hl::first_mismatch(expected(kernel).data(), y_.download().data(), count,
                                          exact ? hl::Tolerance{} : hl::Tolerance{1e-6, 1e-6}),
                       count);
    return ms;
  }

 private:
  // Computed when a kernel is first checked: the memory-bound problem needs only the triad's.
  const std::vector<float>& expected(Kernel kernel) {
    std::vector<float>& out = expected_[static_cast<std::size_t>(kernel)];
    if (!out.empty()) return out;
    std::array<float, 1024> per_value{};
    for (std::size_t v = 0; v < per_value.size(); ++v)
      per_value[v] = reference(kernel, distinct_[v], 0.0f);
    out.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      out[i] = kernel == Kernel::kTriad ? reference(kernel, distinct_[which_[i]], c_[i])
                                        : per_value[which_[i]];
    }
    return out;
  }

  std::size_t n_;
  std::optional<hl::TimingPlan> plan_;
  hipStream_t stream_;
  std::vector<float> distinct_ = std::vector<float>(1024);
  std::vector<std::uint32_t> which_;
  std::vector<float> c_;
  hl::DeviceBuffer<float> x_, cd_, y_;
  std::array<std::vector<float>, 4> expected_;
};

/// Elements of the compute-bound problem in the tour (16 MiB per array): enough work for every
/// launch of the sweep to run for a while, whatever --size (the memory-bound problem) is.
constexpr std::size_t kComputeElements = std::size_t{1} << 22;

// The memory-bound and compute-bound problem sizes of each run of main.hip's steps 5-8: --size in
// the tour; in --check sizes that catch off-by-one guards (1, 255, 257) and grid-stride loops that
// run several rounds (2^20 + 3 elements).
inline std::vector<std::pair<std::size_t, std::size_t>> problem_sizes(const hl::CommonOptions& o) {
  if (o.mode != hl::Mode::kCheck) return {{static_cast<std::size_t>(o.size), kComputeElements}};
  constexpr std::size_t kRounds = (std::size_t{1} << 20) + 3;
  return {{1, 1}, {255, 255}, {257, 257}, {kRounds, kRounds}};
}

}  // namespace occupancy
