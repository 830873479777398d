/// \file lessons/02_vector_add/main.hip
/// \brief Lesson 02: launch vectorAdd correctly, check it, and see how fast it can go.
///
/// The story (the README's Application flow has the same numbers):
///  1. The correct launch: grid = ceil(N / 256) blocks of 256 threads, three kernel variants,
///     each checked element by element against a host sum on random inputs.
///  2. The article's swapped launch, and why the runtime refuses it for N > 262144.
///  3. The variants timed against a device-to-device copy measured in the same run: the
///     practical ceiling for a kernel that reads two arrays and writes one.
/// --check runs steps 1 and 2 at sizes that catch indexing bugs; the tour and --speed-check
/// run all three at --size.
#include <hip/hip_runtime.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/lesson.hpp"
#include "hip_lessons/streams.hpp"
#include "hip_lessons/timing.hpp"
#include "hip_lessons/validation.hpp"
#include "kernels.hpp"

namespace hl = hip_lessons;
using vector_add::Variant;

namespace {

constexpr Variant kVariants[] = {Variant::kOneElementPerThread, Variant::kGridStride,
                                 Variant::kFloat4};

// The inputs, their host reference, and the device buffers for one problem size.
struct Problem {
  std::size_t n;
  std::vector<float> a, b, expected;
  hl::DeviceBuffer<float> d_a, d_b, d_c;

  // Refuses a size whose three arrays would not fit, before anything is allocated.
  static std::size_t fits(std::size_t count) {
    hl::require_device_memory(3 * count * sizeof(float), hl::format("N = {}", count));
    return count;
  }

  Problem(std::size_t count, std::uint64_t seed)
      : n(fits(count)), a(n), b(n), expected(n), d_a(n), d_b(n), d_c(n) {
    hl::fill_uniform(a, seed);
    hl::fill_uniform(b, seed + 1);
    for (std::size_t i = 0; i < n; ++i) expected[i] = a[i] + b[i];
    d_a.upload(a);
    d_b.upload(b);
  }
};

// How every variant is launched on this device.
struct Launch {
  unsigned int block;
  unsigned int grid_stride_blocks;  // fills the device once (lesson 04 derives it properly)
};

// Sizes that catch off-by-one guards (1, 255, 257), a missing float4 tail (2^20 + 3) and
// 32-bit index overflow (2^28 floats = 1 GiB); the tour and the speed test use --size alone.
std::vector<std::size_t> sizes_to_check(const hl::CommonOptions& options) {
  if (options.mode != hl::Mode::kCheck) return {static_cast<std::size_t>(options.size)};
  return {1, 255, 257, (std::size_t{1} << 20) + 3, std::size_t{1} << 28};
}

// 1. Each variant on a poisoned output, every element compared with the host sum.
void check_variants(hl::Report& report, Problem& p, const Launch& launch) {
  for (const Variant variant : kVariants) {
    p.d_c.poison();
    vector_add::launch(variant, p.d_a.data(), p.d_b.data(), p.d_c.data(), p.n, launch.block,
                       launch.grid_stride_blocks, nullptr);
    HIP_CHECK_LAUNCH();
    HIP_CHECK(hipDeviceSynchronize());
    report.check_match(hl::format("{}, N = {}", vector_add::name(variant), p.n),
                       hl::first_mismatch(p.expected, p.d_c.download()), p.n);
  }
}

//! [swapped_launch]
// The article's launch passes the block count where the block size belongs:
//   hipLaunchKernelGGL(vectorAdd, dim3(256), dim3((N + 255) / 256), ...)
// The "block" then has ceil(N / 256) threads, over the 1024-thread limit once N > 262144,
// and the launch is rejected. Returns the error the runtime reported.
hipError_t launch_swapped_like_the_article(Problem& p) {
  const unsigned int article_grid = 256;
  const unsigned int article_block = vector_add::blocks_for(p.n, 256);
  hipLaunchKernelGGL(vector_add::add_one_element_per_thread, dim3(article_grid),
                     dim3(article_block), 0, nullptr, p.d_a.data(), p.d_b.data(), p.d_c.data(),
                     p.n);
  const hipError_t launch_error = hipGetLastError();  // also clears it for later calls
  HIP_CHECK(hipDeviceSynchronize());
  return launch_error;
}
//! [swapped_launch]

// 2. The smallest power of two above the limit shows the failure in every mode.
void show_the_swapped_launch(hl::Report& report, std::uint64_t seed) {
  Problem p(std::size_t{1} << 20, seed);
  const hipError_t error = launch_swapped_like_the_article(p);
  report.check(hl::format("the article's swapped launch (grid 256, block {}) is rejected",
                          vector_add::blocks_for(p.n, 256)),
               error != hipSuccess, hl::format("launch returned {}", hipGetErrorName(error)));
}

// The copy a kernel like this cannot beat: same bytes read and written, no arithmetic.
double copy_bandwidth_tbps(Problem& p, const hl::TimingPlan& plan, hipStream_t stream) {
  const hl::Stats copy = hl::time_on_stream(stream, plan, [&] {
    HIP_CHECK(hipMemcpyAsync(p.d_c.data(), p.d_a.data(), p.n * sizeof(float),
                             hipMemcpyDeviceToDevice, stream));
  });
  return hl::terabytes_per_second(2.0 * p.n * sizeof(float), copy.median);
}

// Theoretical DRAM bandwidth from the memory clock and bus width (double data rate).
double peak_bandwidth_tbps(int device) {
  int memory_clock_khz = 0;
  int bus_width_bits = 0;
  HIP_CHECK(hipDeviceGetAttribute(&memory_clock_khz, hipDeviceAttributeMemoryClockRate, device));
  HIP_CHECK(hipDeviceGetAttribute(&bus_width_bits, hipDeviceAttributeMemoryBusWidth, device));
  return 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e12;
}

// 3. Every variant's bandwidth beside the same-run copy and the theoretical peak.
void measure_bandwidth(hl::Report& report, Problem& p, const Launch& launch, int device, int repeat,
                       const hl::SpeedCheck& copy_ratio) {
  hl::GpuStream stream;
  const hl::TimingPlan plan{3, repeat};
  const double copy_tbps = copy_bandwidth_tbps(p, plan, stream);
  const double peak_tbps = peak_bandwidth_tbps(device);
  const double bytes = 3.0 * p.n * sizeof(float);  // read a and b, write c
  hl::ResultTable table(
      "bandwidth",
      hl::format("Bandwidth, N = {} ({:bytes} moved per run; peak {:.2} TB/s from clock x bus "
                 "width)",
                 p.n, bytes, peak_tbps),
      {{"variant"},
       {"median", "ms", 4},
       {"min", "ms", 4},
       {"TB/s"},
       {"x copy"},
       {"% of peak", "", 0}});
  double best_tbps = 0.0;
  const char* best_name = "";
  for (const Variant v : kVariants) {
    const hl::Stats t = hl::time_on_stream(stream, plan, [&] {
      vector_add::launch(v, p.d_a.data(), p.d_b.data(), p.d_c.data(), p.n, launch.block,
                         launch.grid_stride_blocks, stream);
    });
    HIP_CHECK_LAUNCH();
    const double tbps = hl::terabytes_per_second(bytes, t.median);
    table.row(
        {vector_add::name(v), t.median, t.min, tbps, tbps / copy_tbps, 100.0 * tbps / peak_tbps});
    report.measurement(hl::format("bandwidth_tbps.{}", vector_add::name(v)), tbps);
    if (tbps > best_tbps) {
      best_tbps = tbps;
      best_name = vector_add::name(v);
    }
  }
  table.row({"device-to-device copy", std::nullopt, std::nullopt, copy_tbps, 1.0,
             100.0 * copy_tbps / peak_tbps});
  report.table(table);
  report.measurement("copy_bandwidth_tbps", copy_tbps);
  report.measurement("peak_bandwidth_tbps", peak_tbps);
  report.measurement("best_bandwidth_tbps", best_tbps);
  report.speed(copy_ratio, best_tbps / copy_tbps);
  report.summary(hl::format("best {}: {:.2} TB/s = {:.2} x copy", best_name, best_tbps,
                            best_tbps / copy_tbps));
}

}  // namespace

int main(int argc, char** argv) {
  hl::LessonCli cli("lesson02_vector_add",
                    "Lesson 02: launch vectorAdd correctly and measure it against a copy",
                    std::int64_t{1} << 28);
  std::int64_t block = 256;
  cli.add_block_size(block);
  const hl::SpeedCheck& copy_ratio =
      cli.add_speed_check(hl::at_least("best variant / device-to-device copy bandwidth",
                                       "--min-copy-ratio", HIP_LESSONS_02_MIN_COPY_RATIO));

  return hl::run_lesson(cli, argc, argv, [&](hl::Report& report) {
    const hl::CommonOptions& options = cli.options();
    const hl::Device device = hl::open_device(options.device);
    report.facts(device.facts());
    const unsigned int threads = hl::checked_block_size(device, block);
    const Launch launch{
        threads, vector_add::grid_stride_blocks(device.compute_units(),
                                                device.props.maxThreadsPerMultiProcessor, threads)};
    report.note(hl::format("{}: {} {}s, block {}, grid-stride grid {} blocks", device.name(),
                           device.compute_units(), hl::kComputeUnitName, launch.block,
                           launch.grid_stride_blocks));

    std::unique_ptr<Problem> problem;  // the last size checked is the one step 3 times
    for (const std::size_t n : sizes_to_check(options)) {
      problem.reset();  // free the previous size first
      problem = std::make_unique<Problem>(n, options.seed);
      check_variants(report, *problem, launch);  // 1.
    }
    show_the_swapped_launch(report, options.seed);  // 2.
    if (options.timed()) {
      report.fact("elements", problem->n);
      measure_bandwidth(report, *problem, launch, device.index, options.repeat, copy_ratio);  // 3.
    } else {
      report.summary(report.failures() == 0
                         ? hl::format("all variants correct for N = 1 .. {}", problem->n)
                         : "variants produced wrong results");
    }
  });
}
