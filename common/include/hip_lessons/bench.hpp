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
#include <cstring>
#include <exception>
#include <initializer_list>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

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

namespace detail {

/// A case's name without what Google Benchmark appends per run ("/65536", "/manual_time").
inline std::string case_of(std::string run) {
  for (;;) {
    const auto slash = run.rfind('/');
    if (slash == std::string::npos) return run;
    const std::string last = run.substr(slash + 1);
    const bool number = !last.empty() && last.find_first_not_of("0123456789") == std::string::npos;
    const bool setting = last == "manual_time" || last == "real_time" ||
                         last.find(':') != std::string::npos;  // iterations:N, threads:N
    if (!number && !setting) return run;
    run.erase(slash);
  }
}

/// What --help says before Google Benchmark's own options: the lesson, how its runs behave
/// without a GPU, and every case with its number of runs (read from the registered benchmarks
/// in --benchmark_list_tests mode, which runs nothing).
inline void print_bench_help(const char* argv0) {
  const std::string path = argv0;
  const std::string program = path.substr(path.rfind('/') + 1);
  std::string lesson = program;  // lessonNN_name_bench -> "NN (name)"
  if (lesson.rfind("lesson", 0) == 0 && lesson.size() > 9) {
    std::string name = lesson.substr(9);
    if (name.size() > 6 && name.compare(name.size() - 6, 6, "_bench") == 0)
      name.resize(name.size() - 6);
    lesson = lesson.substr(6, 2) + " (" + name + ")";
  }
  std::string list_flag = "--benchmark_list_tests=true";
  char* list_argv[] = {const_cast<char*>(argv0), list_flag.data(), nullptr};
  int list_argc = 2;
  benchmark::Initialize(&list_argc, list_argv);
  std::ostringstream runs;
  benchmark::ConsoleReporter reporter;
  reporter.SetOutputStream(&runs);
  reporter.SetErrorStream(&runs);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::vector<std::pair<std::string, int>> cases;  // in registration order, with run counts
  std::istringstream lines(runs.str());
  for (std::string line; std::getline(lines, line);) {
    const std::string name = case_of(line);
    if (cases.empty() || cases.back().first != name) cases.emplace_back(name, 0);
    ++cases.back().second;
  }
  std::cout << program << ": the Google Benchmark cases of lesson " << lesson << ".\n"
            << "It needs a GPU: without one it prints the reason and exits 77. Each case runs\n"
            << "over a sweep of sizes; --benchmark_filter=REGEX picks cases, and\n"
            << "--benchmark_list_tests=true lists every run.\n\nCases:\n";
  for (const auto& [name, count] : cases) {
    std::cout << "  " << name << "  (" << count << (count == 1 ? " run" : " runs") << ")\n";
  }
  std::cout << "\nGoogle Benchmark's options:\n";
}

}  // namespace detail

/// main() of every lesson's benchmark binary: --help (the lesson, its cases, then Google
/// Benchmark's options) and unknown arguments (exit 2) are answered on every machine, then
/// exit 77 without a GPU, 1 when a HIP call fails, else Google Benchmark's normal run.
inline int benchmark_main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0) detail::print_bench_help(argv[0]);
  }
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
