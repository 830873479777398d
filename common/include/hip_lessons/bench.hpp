/// \file bench.hpp
/// \brief Google Benchmark glue: event-timed iterations, families of cases registered from a
/// list, and a main() that skips without GPU.
///
/// Benchmarks use UseManualTime(): each iteration's time comes from HIP events around the
/// device work, not from the host clock, so launch latency on the host is not counted as
/// kernel time.
#pragma once

#include <benchmark/benchmark.h>
#include <hip/hip_runtime.h>

#include <cstdint>
#include <exception>
#include <initializer_list>
#include <iostream>
#include <string>

#include "hip_lessons/errors.hpp"
#include "hip_lessons/timing.hpp"

namespace hip_lessons {

/// Runs \p enqueue_work once untimed, then once per benchmark iteration between two events
/// recorded on \p stream, and reports the event time as the iteration's manual time.
template <class Work>
void time_iterations(benchmark::State& state, hipStream_t stream, Work&& enqueue_work) {
  enqueue_work();
  HIP_CHECK(hipStreamSynchronize(stream));
  GpuEvent start;
  GpuEvent stop;
  for (auto _ : state) {
    start.record(stream);
    enqueue_work();
    stop.record(stream);
    stop.synchronize();
    state.SetIterationTime(stop.milliseconds_since(start) * 1e-3);
  }
}

/// The values a family of benchmark cases sweeps as `state.range(0)`: \p first, then each
/// value times \p multiplier, up to \p last (Google Benchmark's RangeMultiplier and Range).
struct BenchSweep {
  std::int64_t first;
  std::int64_t last;
  int multiplier;
};

/// One case of a family: the name after the family's slash, and the value the case runs with.
template <class Variant>
struct BenchCase {
  const char* name;
  Variant variant;
};

/// Registers one benchmark per entry of \p cases that runs \p run(state, entry's variant) over
/// \p sweep with UseManualTime() (time it with time_iterations()). Each is named \p family, a
/// slash and the entry's name, as BENCHMARK_CAPTURE(run, name, variant) would name it, so
/// filters and result files keep working. Call it from main() before benchmark_main(), once per
/// family of cases:
///
///     hl::register_cases("batch_case", batch_case,
///                        {{"graph_replay", Method::kGraph}, {"fused_kernel", Method::kFused}},
///                        hl::BenchSweep{1, 10000, 10});
template <class Variant>
void register_cases(const std::string& family, void (*run)(benchmark::State&, Variant),
                    std::initializer_list<BenchCase<Variant>> cases, const BenchSweep& sweep) {
  for (const BenchCase<Variant>& c : cases) {
    const std::string name = family + "/" + c.name;
    benchmark::RegisterBenchmark(name.c_str(), run, c.variant)
        ->RangeMultiplier(sweep.multiplier)
        ->Range(sweep.first, sweep.last)
        ->UseManualTime();
  }
}

/// main() of every lesson's benchmark binary: --help and unknown arguments (exit 2) are
/// answered on every machine, then exit 77 without a GPU, 1 when a HIP call fails, else Google
/// Benchmark's normal run.
inline int benchmark_main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);  // --help prints the flags and exits 0 here
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return kExitUsage;
  int count = 0;
  const hipError_t status = hipGetDeviceCount(&count);
  if (status != hipSuccess || count == 0) {
    std::cout << "skipped: no GPU: hipGetDeviceCount reported "
              << (status != hipSuccess ? hipGetErrorName(status) : "0 devices") << '\n';
    return kExitSkip;
  }
  try {
    benchmark::RunSpecifiedBenchmarks();
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << '\n';
    return kExitFail;
  }
  benchmark::Shutdown();
  return kExitPass;
}

}  // namespace hip_lessons
