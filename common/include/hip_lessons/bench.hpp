/// \file bench.hpp
/// \brief Google Benchmark glue: event-timed iterations and a main() that skips without GPU.
///
/// Benchmarks use UseManualTime(): each iteration's time comes from HIP events around the
/// device work, not from the host clock, so launch latency on the host is not counted as
/// kernel time.
#pragma once

#include <benchmark/benchmark.h>
#include <hip/hip_runtime.h>

#include <exception>
#include <iostream>

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

/// main() of every lesson's benchmark binary: exit 77 without a GPU, 2 for unknown
/// arguments, 1 when a HIP call fails, else Google Benchmark's normal run.
inline int benchmark_main(int argc, char** argv) {
  int count = 0;
  const hipError_t status = hipGetDeviceCount(&count);
  if (status != hipSuccess || count == 0) {
    std::cout << "skipped: no GPU: hipGetDeviceCount reported "
              << (status != hipSuccess ? hipGetErrorName(status) : "0 devices") << '\n';
    return kExitSkip;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return kExitUsage;
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
