/// \file lessons/02_vector_add/main.hip
/// \brief Lesson 02: launch vectorAdd correctly, check it, and see how fast it can go.
///
/// The story (the README's Application flow has the same numbers):
///  1. The correct launch, every element checked: grid = ceil(N / 256) blocks of 256 threads,
///     three kernel variants, each checked against a host sum on random inputs.
///  2. The article's swapped launch, and why the runtime refuses it for N > 262144.
///  3. The variants timed against a device-to-device copy measured in the same run: the
///     practical ceiling for a kernel that reads two arrays and writes one.
/// --check runs step 1 at sizes that catch indexing bugs and times nothing.
#include <hip/hip_runtime.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

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

// The inputs, their host reference, and the device arrays for one problem size.
struct Problem {
  std::size_t n;
  std::vector<float> a, b, expected;
  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;

  Problem(std::size_t count, std::uint64_t seed) : n(count) {
    const std::size_t bytes = n * sizeof(float);
    // Refuse a size whose three arrays would not fit, before anything is allocated (the host
    // arrays of 2^36 floats alone would exhaust most machines' memory).
    hl::require_device_memory(3 * bytes, hl::format("N = {}", n));
    a.resize(n);
    b.resize(n);
    expected.resize(n);
    hl::fill_uniform(a, seed);
    hl::fill_uniform(b, seed + 1);
    for (std::size_t i = 0; i < n; ++i) expected[i] = a[i] + b[i];
    HIP_CHECK(hipMalloc(&d_a, bytes));
    HIP_CHECK(hipMalloc(&d_b, bytes));
    HIP_CHECK(hipMalloc(&d_c, bytes));
    HIP_CHECK(hipMemcpy(d_a, a.data(), bytes, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(d_b, b.data(), bytes, hipMemcpyHostToDevice));
    // hipMemcpy from pageable memory may return before the copy has landed, and the
    // non-blocking stream of step 3 does not wait for the legacy default stream.
    HIP_CHECK(hipDeviceSynchronize());
  }
  // A HIP call that fails later leaves by an exception; the arrays are freed on the way out.
  ~Problem() {
    (void)hipFree(d_a);
    (void)hipFree(d_b);
    (void)hipFree(d_c);
  }
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;
};

// How every variant is launched on this device.
struct Launch {
  unsigned int block;
  unsigned int grid_stride_blocks;  // fills the device once (lesson 04 derives it properly)
};

// 1. Each variant on a poisoned output, every element compared with the host sum.
hl::StepResult check_variants(Problem& p, const Launch& launch, const hl::Device& device) {
  hl::StepResult step("1. The correct launch, every element checked");
  step.facts(device.facts())
      .fact("elements", p.n)
      .note(hl::format("N = {}: grid ceil(N / {}) = {} blocks of {} threads", p.n, launch.block,
                       vector_add::blocks_for(p.n, launch.block), launch.block))
      .note(hl::format("{}: {} {}s, grid-stride grid {} blocks", device.name(),
                       device.compute_units(), hl::kComputeUnitName, launch.grid_stride_blocks));
  std::vector<float> c(p.n);
  for (const Variant variant : kVariants) {
    // Every byte 0xFF is a NaN, which no sum equals: an element never written cannot pass.
    HIP_CHECK(hipMemset(p.d_c, 0xFF, p.n * sizeof(float)));
    vector_add::launch(variant, p.d_a, p.d_b, p.d_c, p.n, launch.block, launch.grid_stride_blocks,
                       nullptr);
    HIP_CHECK(hipGetLastError());  // a launch returns nothing: a refused one shows up here
    HIP_CHECK(hipDeviceSynchronize());
    HIP_CHECK(hipMemcpy(c.data(), p.d_c, p.n * sizeof(float), hipMemcpyDeviceToHost));
    step.check_match(vector_add::name(variant), hl::first_mismatch(p.expected, c), p.n);
  }
  return step;
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
                     dim3(article_block), 0, nullptr, p.d_a, p.d_b, p.d_c, p.n);
  const hipError_t launch_error = hipGetLastError();  // also clears it for later calls
  HIP_CHECK(hipDeviceSynchronize());
  return launch_error;
}
//! [swapped_launch]

// 2. Always N = 2^20, whatever --size: the swapped block of 4096 threads is four times the
// 1024-thread limit, so the launch fails in every mode (any N > 262144 would).
hl::StepResult show_the_swapped_launch(std::uint64_t seed) {
  Problem p(std::size_t{1} << 20, seed);
  const hipError_t error = launch_swapped_like_the_article(p);
  hl::StepResult step("2. The article's launch, grid and block swapped");
  step.check(hl::format("grid 256, block {} is rejected", vector_add::blocks_for(p.n, 256)),
             error != hipSuccess, hl::format("launch returned {}", hipGetErrorName(error)));
  return step;
}

// Theoretical DRAM bandwidth from the memory clock and bus width (double data rate).
double peak_bandwidth_tbps(int device) {
  int memory_clock_khz = 0;
  int bus_width_bits = 0;
  HIP_CHECK(hipDeviceGetAttribute(&memory_clock_khz, hipDeviceAttributeMemoryClockRate, device));
  HIP_CHECK(hipDeviceGetAttribute(&bus_width_bits, hipDeviceAttributeMemoryBusWidth, device));
  return 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e12;
}

// TB/s of a run that moved \p bytes in \p ms milliseconds (nothing when it was not timed).
std::optional<double> tbps(double bytes, std::optional<double> ms) {
  if (!ms) return std::nullopt;
  return bytes / *ms / 1e9;
}

// 3. Every variant's bandwidth beside a same-run device-to-device copy, the practical ceiling
// (same bytes read and written, no arithmetic), and the theoretical peak.
hl::StepResult measure_bandwidth(Problem& p, const Launch& launch, int device,
                                 const hl::RunOrTime& runs, const hl::SpeedCheck& copy_ratio) {
  hipStream_t stream = nullptr;
  HIP_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  const std::optional<double> copy_ms = runs.on_stream(stream, [&] {
    HIP_CHECK(hipMemcpyAsync(p.d_c, p.d_a, p.n * sizeof(float), hipMemcpyDeviceToDevice, stream));
  });
  const std::optional<double> copy = tbps(2.0 * p.n * sizeof(float), copy_ms);
  const double bytes = 3.0 * p.n * sizeof(float);  // read a and b, write c
  const double peak = peak_bandwidth_tbps(device);
  hl::ResultTable table(
      "bandwidth",
      hl::format("Bandwidth, N = {} ({:bytes} moved per run; peak {:.2} TB/s from clock x bus "
                 "width)",
                 p.n, bytes, peak),
      {{"variant"}, {"median", "ms", 4}, {"TB/s"}, {"x copy"}, {"% of peak", "", 0}});
  hl::StepResult step("3. Bandwidth against a device-to-device copy of the same run");
  std::optional<double> best;
  const char* best_name = "";
  for (const Variant v : kVariants) {
    const std::optional<double> ms = runs.on_stream(stream, [&] {
      vector_add::launch(v, p.d_a, p.d_b, p.d_c, p.n, launch.block, launch.grid_stride_blocks,
                         stream);
    });
    HIP_CHECK(hipGetLastError());
    const std::optional<double> rate = tbps(bytes, ms);
    table.row({vector_add::name(v), ms, rate, hl::ratio(rate, copy), hl::ratio(rate, peak / 100)});
    step.measurement(std::string("bandwidth_tbps.") + vector_add::name(v), rate);
    if (rate && (!best || *rate > *best)) {
      best = rate;
      best_name = vector_add::name(v);
    }
  }
  HIP_CHECK(hipStreamDestroy(stream));
  table.row({"device-to-device copy", copy_ms, copy, 1.0, hl::ratio(copy, peak / 100)});
  step.table(table)
      .measurement("copy_bandwidth_tbps", copy)
      .measurement("peak_bandwidth_tbps", peak)
      .measurement("best_bandwidth_tbps", best)
      .speed(copy_ratio, hl::ratio(best, copy));
  if (best) {
    step.summary(hl::format("best {}: {:.2} TB/s = {:.2} x copy", best_name, *best, *best / *copy));
  }
  return step;
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

  return hl::run_lesson(cli, argc, argv, [&](hl::Lesson& lesson) {
    const hl::CommonOptions& options = cli.options();
    const hl::Device device = hl::open_device(options.device);
    const unsigned int threads = hl::checked_block_size(device, block);
    const Launch launch{
        threads, vector_add::grid_stride_blocks(device.compute_units(),
                                                device.props.maxThreadsPerMultiProcessor, threads)};

    // Sizes that catch off-by-one guards (1, 255, 257), a missing float4 tail (2^20 + 3), and a
    // large array (2^28 floats = 1 GiB, 2^20 blocks): a 32-bit index overflows only past 2^31
    // elements, more memory than the check may ask of a GPU. The tour and speed test use --size.
    std::unique_ptr<Problem> problem;  // the last size checked is the one step 3 times
    for (const std::size_t n : hl::per_mode<std::size_t>(
             options, options.size,
             {1, 255, 257, (std::size_t{1} << 20) + 3, std::size_t{1} << 28})) {
      problem.reset();  // free the previous size first
      problem = std::make_unique<Problem>(n, options.seed);
      lesson.report.step(check_variants(*problem, launch, device));  // 1.
    }
    lesson.report.step(show_the_swapped_launch(options.seed));  // 2.
    lesson.report.step(measure_bandwidth(*problem, launch, device.index, hl::RunOrTime(options),
                                         copy_ratio));  // 3.
  });
}
