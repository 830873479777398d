/// \file lessons/02_vector_add/main.hip
/// \brief Lesson 02: launch vectorAdd correctly, check it, and see how fast it can go.
///
/// The story: (1) the correct launch, grid = ceil(N / 256) blocks of 256 threads;
/// (2) the article's swapped launch and why it fails for N > 262144; (3) three kernel
/// variants timed against a device-to-device copy measured in the same run, the practical
/// ceiling for a kernel that reads two arrays and writes one.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/lesson.hpp"
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

  Problem(std::size_t count, std::uint64_t seed)
      : n(count), a(count), b(count), expected(count), d_a(count), d_b(count), d_c(count) {
    hl::fill_uniform(a, seed);
    hl::fill_uniform(b, seed + 1);
    for (std::size_t i = 0; i < n; ++i) expected[i] = a[i] + b[i];
    d_a.upload(a);
    d_b.upload(b);
  }
};

// Runs one variant on a poisoned output and compares every element with the host sum.
bool check_variant(hl::Report& report, Problem& p, Variant variant, unsigned int block,
                   unsigned int grid_stride_blocks) {
  p.d_c.poison();
  vector_add::launch(variant, p.d_a.data(), p.d_b.data(), p.d_c.data(), p.n, block,
                     grid_stride_blocks, nullptr);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  const auto mismatch = hl::first_mismatch(p.expected, p.d_c.download());
  return report.check_match(std::string(vector_add::name(variant)) + ", N = " +
                                std::to_string(p.n), mismatch, p.n);
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

}  // namespace

int main(int argc, char** argv) {
  std::int64_t block = 256;
  double min_copy_ratio = 0.75;
  hl::LessonCli cli("lesson02_vector_add",
                    "Lesson 02: launch vectorAdd correctly and measure it against a copy",
                    std::int64_t{1} << 28);
  cli.add_count("--block", block, "Threads per block", 1, 1024);
  cli.add_number("--min-copy-ratio", min_copy_ratio,
                 "Speed check: best variant bandwidth / copy bandwidth must reach this", 0.0,
                 10.0);

  return hl::run_lesson(cli, argc, argv, [&](hl::Report& report) {
    const hl::CommonOptions& options = cli.options();
    const hl::Device device = hl::open_device(options.device);
    hl::describe_device(report, device);
    if (block > device.props.maxThreadsPerBlock) {
      throw hl::UsageError("--block " + std::to_string(block) + " is above this device's limit of " +
                           std::to_string(device.props.maxThreadsPerBlock) + " threads per block");
    }
    const auto threads = static_cast<unsigned int>(block);
    // A grid-stride grid that fills the device once: as many blocks as fit on all CUs.
    const unsigned int grid_stride_blocks = static_cast<unsigned int>(
        device.compute_units() * std::max(1, device.props.maxThreadsPerMultiProcessor / static_cast<int>(threads)));
    std::cout << device.name() << ": " << device.compute_units() << " " << hl::kComputeUnitName
              << "s, block " << threads << ", grid-stride grid " << grid_stride_blocks
              << " blocks\n";

    if (options.check) {
      // Sizes that catch off-by-one guards, a missing float4 tail, and 32-bit index overflow.
      const std::size_t sizes[] = {1, 255, 257, (std::size_t{1} << 20) + 3, std::size_t{1} << 28};
      for (const std::size_t n : sizes) {
        hl::require_device_memory(3 * n * sizeof(float), "the correctness run at N = " +
                                                             std::to_string(n));
        Problem problem(n, options.seed);
        for (const Variant v : kVariants) check_variant(report, problem, v, threads, grid_stride_blocks);
      }
      Problem large(std::size_t{1} << 20, options.seed);
      const hipError_t swapped = launch_swapped_like_the_article(large);
      report.check("the article's swapped launch is rejected for N = 2^20", swapped != hipSuccess,
                   std::string("launch returned ") + hipGetErrorName(swapped));
      report.summary(report.failures() == 0 ? "all variants correct for N = 1 .. 2^28"
                                            : "variants produced wrong results");
      return;
    }

    const auto n = static_cast<std::size_t>(options.size);
    hl::require_device_memory(3 * n * sizeof(float), "--size " + std::to_string(n));
    Problem problem(n, options.seed);
    report.fact("elements", static_cast<double>(n));

    // 1. Correct launches first: every variant validated before anything is timed.
    for (const Variant v : kVariants) check_variant(report, problem, v, threads, grid_stride_blocks);

    // 2. The article's launch, on this size.
    const hipError_t swapped = launch_swapped_like_the_article(problem);
    std::cout << "article's swapped launch (grid 256, block " << vector_add::blocks_for(n, 256)
              << "): " << hipGetErrorName(swapped)
              << (n > 262144 ? "  <- block over 1024 threads" : "") << "\n";

    // 3. Bandwidth of each variant against the same-run copy and the theoretical peak.
    hl::GpuStream stream;
    const hl::TimingPlan plan{3, options.repeat};
    const double copy_tbps = copy_bandwidth_tbps(problem, plan, stream);
    const double peak_tbps = peak_bandwidth_tbps(device.index);
    const double bytes = 3.0 * n * sizeof(float);  // read a and b, write c
    hl::Table table({"variant", "median ms", "min ms", "TB/s", "x copy", "% of peak"});
    double best_tbps = 0.0;
    std::string best_name;
    for (const Variant v : kVariants) {
      const hl::Stats t = hl::time_on_stream(stream, plan, [&] {
        vector_add::launch(v, problem.d_a.data(), problem.d_b.data(), problem.d_c.data(), n,
                           threads, grid_stride_blocks, stream);
      });
      HIP_CHECK_LAUNCH();
      const double tbps = hl::terabytes_per_second(bytes, t.median);
      table.add_row({vector_add::name(v), hl::fixed(t.median, 4), hl::fixed(t.min, 4),
                     hl::fixed(tbps, 2), hl::fixed(tbps / copy_tbps, 2),
                     hl::fixed(100.0 * tbps / peak_tbps, 0)});
      report.measurement(std::string("bandwidth_tbps.") + vector_add::name(v), tbps);
      if (tbps > best_tbps) {
        best_tbps = tbps;
        best_name = vector_add::name(v);
      }
    }
    table.add_row({"device-to-device copy", "", "", hl::fixed(copy_tbps, 2), "1.00",
                   hl::fixed(100.0 * copy_tbps / peak_tbps, 0)});
    report.table("bandwidth", "Bandwidth, N = " + std::to_string(n) + " (" +
                                  hl::format_bytes(bytes) + " moved per run; peak " +
                                  hl::fixed(peak_tbps, 2) + " TB/s from clock x bus width)",
                 table);
    report.measurement("copy_bandwidth_tbps", copy_tbps);
    report.measurement("peak_bandwidth_tbps", peak_tbps);
    report.measurement("best_bandwidth_tbps", best_tbps);

    const double ratio = best_tbps / copy_tbps;
    if (options.speed_check) {
      report.check_ratio_at_least("best variant / device-to-device copy bandwidth", ratio,
                                  min_copy_ratio);
    } else {
      std::cout << "\nbest variant / copy = " << hl::fixed(ratio, 2)
                << " (the speed test requires >= " << hl::fixed(min_copy_ratio, 2) << ")\n";
    }
    report.summary("best " + best_name + ": " + hl::fixed(best_tbps, 2) + " TB/s = " +
                   hl::fixed(ratio, 2) + " x copy");
  });
}
