/// \file lessons/01_env_check/main.hip
/// \brief Lesson 01: is this machine ready to run HIP work, and what will schedule it?
///
/// The story (the README's Application flow has the same numbers; every mode runs all of it):
///  1. What this binary was built for, and which runtime and driver it finds.
///  2. What this release does with each scheduling knob; each variable set, checked as it reads it.
///  3. The device nodes the runtime opens, and whether this user may open them.
///  4. The devices: with none, why not; with some, the properties later lessons depend on.
///  5. A smoke kernel on random inputs, its poisoned output checked element by element.
///  6. Every problem found, with its fix. Exit 0: healthy; 77: no GPU (diagnosed); 1: broken.
#include <glob.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/environment.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/lesson.hpp"
#include "hip_lessons/validation.hpp"
#include "runtime_behaviour.hpp"

namespace hl = hip_lessons;

namespace {

// A problem found on the way, and what to do about it.
struct Finding {
  std::string problem, fix;
};

// 1. The runtime is what the program links; the driver is the kernel-side stack under it.
//    Returns the runtime release (unknown when the query fails): step 2 depends on it.
std::optional<hl::RuntimeVersion> report_versions(hl::Report& report) {
  int runtime = 0, driver = 0;
  const hipError_t runtime_status = hipRuntimeGetVersion(&runtime);
  const hipError_t driver_status = hipDriverGetVersion(&driver);
  // A failed query must not read as version 0: the table says why, the JSON has null.
  const auto shown = [](hipError_t status, int version) -> hl::Cell {
    return status == hipSuccess ? hl::Cell(version)
                                : hl::Cell(hl::format("unavailable ({})", hipGetErrorName(status)));
  };
#if defined(HIP_LESSONS_HIP_ON_CUDA)
  const char* headers = " (the project's HIP-on-CUDA layer)";
#else
  const char* headers = "";
#endif
  hl::ResultTable table("versions", "Build, runtime and driver", {{"item"}, {"value"}});
  table.row({"built for", hl::kVendor})
      .row({"HIP headers version",
            hl::format("{}.{}{}", HIP_VERSION_MAJOR, HIP_VERSION_MINOR, headers)})
      .row({"runtime version", shown(runtime_status, runtime)})
      .row({"driver version", shown(driver_status, driver)});
  report.table(table);
  report.fact("runtime_version", runtime_status == hipSuccess ? hl::Cell(runtime) : hl::Cell());
  report.fact("driver_version", driver_status == hipSuccess ? hl::Cell(driver) : hl::Cell());
  if (runtime_status != hipSuccess) return std::nullopt;
  return hl::runtime_version_from(runtime, hl::build_platform());
}

// 2. What a knob does, and its default, changed between releases (docs/runtime_behaviour.tsv,
//    compiled in), so this release's rows are printed. The runtime never complains about a
//    malformed value, so every one that is set is checked, as this release reads it.
void report_environment(hl::Report& report, std::optional<hl::RuntimeVersion> runtime,
                        std::vector<Finding>& findings) {
  if (runtime) {
    const std::string release = hl::runtime_name(*runtime, hl::build_platform());
    hl::ResultTable knobs("runtime_behaviour", "What " + release + " does with each knob",
                          {{"knob"}, {"setting"}, {"in force"}, {"what it does"}});
    for (const auto& k :
         lesson01::knobs_in_force(lesson01::compiled_in_table(), hl::build_platform(), *runtime))
      knobs.row({k.knob, k.setting, k.value, k.effect});
    report.table(knobs);
  }
  report.note("every release: docs/pages/runtime_behaviour.md");
  hl::ResultTable table("environment", "Environment variables that change scheduling",
                        {{"variable"}, {"value"}, {"platform"}, {"what it changes"}, {"status"}});
  for (const hl::EnvironmentVariable& variable : hl::scheduling_variables()) {
    const char* value = std::getenv(variable.name.c_str());
    std::string status = hl::format("unset (default {})", variable.default_value);
    if (value != nullptr) {
      const auto problem =
          hl::check_environment_value(variable.name, value, hl::build_platform(), runtime);
      status = problem ? "INVALID: " + *problem : "valid";
      if (problem) {
        findings.push_back({hl::format("{}={}: {}", variable.name, value, *problem),
                            hl::format("correct or unset it: unset {}", variable.name)});
      }
      // A variable of the other platform is harmless, but whoever set it expected an effect.
      const std::string ignored = variable.ignored_by(hl::build_platform());
      if (!ignored.empty()) status += "; " + ignored;
    }
    // Quoted, so that an empty value (it hides every GPU from CUDA) shows; unset is "-".
    const hl::Cell shown = value == nullptr ? hl::Cell() : hl::Cell(hl::format("'{}'", value));
    table.row({variable.name, shown, variable.platform, variable.meaning, status});
  }
  report.table(table);
}

// The paths a shell pattern matches; none when nothing does.
std::vector<std::string> matching_paths(const std::string& pattern) {
  std::vector<std::string> paths;
  glob_t matches{};
  if (::glob(pattern.c_str(), 0, nullptr, &matches) == 0) {
    for (std::size_t i = 0; i < matches.gl_pathc; ++i) paths.emplace_back(matches.gl_pathv[i]);
  }
  ::globfree(&matches);
  return paths;
}

// Whether this user is in group \p name, as its effective group or a supplementary one.
bool user_in_group(const char* name) {
  const group* entry = ::getgrnam(name);
  std::vector<gid_t> groups(static_cast<std::size_t>(std::max(::getgroups(0, nullptr), 0)));
  const int count = ::getgroups(static_cast<int>(groups.size()), groups.data());
  groups.resize(static_cast<std::size_t>(std::max(count, 0)));
  groups.push_back(::getegid());
  return entry != nullptr && std::find(groups.begin(), groups.end(), entry->gr_gid) != groups.end();
}

// 3. A missing node means no driver, a closed one no permission. Returns how many exist.
int report_device_nodes(hl::Report& report, std::vector<Finding>& findings) {
#if defined(__HIP_PLATFORM_AMD__)
  const char* const patterns[] = {"/dev/kfd", "/dev/dri/renderD*"};
  const char* other_pattern = "/dev/nvidia[0-9]*";
  const char* other_vendor = "NVIDIA";
#else
  const char* const patterns[] = {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia[0-9]*"};
  const char* other_pattern = "/dev/kfd";
  const char* other_vendor = "AMD";
#endif
  hl::ResultTable table("device_nodes", "Device nodes",
                        {{"device node"}, {"mode"}, {"this user can read+write"}});
  int present = 0;
  for (const char* pattern : patterns) {
    const auto paths = matching_paths(pattern);
    if (paths.empty()) table.row({pattern, "missing", std::nullopt});
    for (const std::string& path : paths) {
      struct stat info {};
      ::stat(path.c_str(), &info);
      char mode[8];  // text, since permission bits read as octal ("0666"), not as a number
      std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
      const bool usable = ::access(path.c_str(), R_OK | W_OK) == 0;
      table.row({path, mode, usable});
      ++present;
      if (!usable) {
        findings.push_back({hl::format("this user cannot open {}", path),
                            "add the user to the groups that own it: sudo usermod -aG render,video "
                            "$USER, then log in again"});
      }
    }
  }
  report.table(table);
  report.note(hl::format("groups: video {}, render {} (user id {})", user_in_group("video"),
                         user_in_group("render"), ::geteuid()));
  if (present == 0 && !matching_paths(other_pattern).empty()) {
    findings.push_back({hl::format("this binary was built for {} but the machine has an {} GPU",
                                   hl::kVendor, other_vendor),
                        hl::format("reconfigure with -DHIP_LESSONS_PLATFORM={}",
                                   std::string(other_vendor) == "AMD" ? "amd" : "nvidia")});
  }
  return present;
}

// An attribute this runtime does not know is "unknown", not an error (HIP before 6.0 answers
// AsyncEngineCount with hipErrorInvalidValue); the error is cleared so no later check sees it.
hl::Cell attribute(hipDeviceAttribute_t which, int device, double per_unit = 1) {
  int value = 0;
  const hipError_t status = hipDeviceGetAttribute(&value, which, device);
  if (status != hipSuccess) {
    (void)hipGetLastError();
    return hl::format("unknown ({})", hipGetErrorName(status));
  }
  return per_unit == 1 ? hl::Cell(value) : hl::Cell(value / per_unit);
}

// hipDeviceAttributeNumberOfXccs exists from HIP 7.0: whether the headers have it is found out
// at compile time (as device_clock.hpp does for the wall clock rate).
template <class Attribute>
constexpr auto xcc_count_attribute(int)
    -> decltype(Attribute::hipDeviceAttributeNumberOfXccs, std::optional<Attribute>()) {
  return Attribute::hipDeviceAttributeNumberOfXccs;
}
template <class Attribute>
constexpr std::optional<Attribute> xcc_count_attribute(long) {
  return std::nullopt;
}

// What later lessons size work by (clocks are attributes: CUDA 13 dropped them from the struct).
void report_device(hl::Report& report, int index) {
  hipDeviceProp_t p{};
  HIP_CHECK(hipGetDeviceProperties(&p, index));
  const std::string cu = hl::kComputeUnitName;
  hl::ResultTable table(
      hl::format("device{}", index), hl::format("Device {}", index),
      {{"property"}, {"value", "", 1}, {"unit"}, {"why it matters for scheduling"}});
  table.row({"name", p.name, "", ""})
      .row({"architecture", p.gcnArchName, "", "which code objects the binary must contain"})
      .row({cu + " count", p.multiProcessorCount, "",
            "blocks run on these; grid sizes scale with it"})
      .row({hl::format("{} size", hl::kWarpName), p.warpSize, "threads",
            "block sizes should be multiples of it"})
      .row({"max threads per block", p.maxThreadsPerBlock, "",
            "larger blocks are rejected at launch"})
      .row({"max threads per " + cu, p.maxThreadsPerMultiProcessor, "", "upper bound of occupancy"})
      .row({"shared memory per block", p.sharedMemPerBlock / 1024.0, "KiB",
            "more per block means fewer blocks per " + cu})
      .row({"L2 cache", p.l2CacheSize / 1048576.0, "MiB", "data smaller than this is cache-bound"})
      .row({"memory", p.totalGlobalMem / 1073741824.0, "GiB", ""})
      .row({"clock (peak)", attribute(hipDeviceAttributeClockRate, index, 1e3), "MHz", ""})
      .row({"memory clock (peak)", attribute(hipDeviceAttributeMemoryClockRate, index, 1e3), "MHz",
            "with the bus width, gives peak bandwidth"})
      .row({"memory bus width", attribute(hipDeviceAttributeMemoryBusWidth, index), "bits", ""})
      .row({"concurrent kernels", p.concurrentKernels != 0, "",
            "kernels from different streams may overlap"})
      .row({"async copy engines", attribute(hipDeviceAttributeAsyncEngineCount, index), "",
            "copies that overlap kernels (AMD's HIP 6.0+ reports a fixed 8)"});
#if defined(__HIP_PLATFORM_AMD__)
  const auto xcc = xcc_count_attribute<hipDeviceAttribute_t>(0);
  table.row({"compute dies (XCCs)", xcc ? attribute(*xcc, index) : "unknown (HIP before 7.0)", "",
             "in this compute partition"});
#else
  table.row({"compute dies (XCCs)", "not applicable (NVIDIA)", "", ""});
#endif
  report.table(table);
  report.fact(hl::format("device{}", index), p.name);
}

// Turns the runtime's answer to "how many devices?" into a diagnosis.
Finding diagnose_no_device(hipError_t status, int nodes) {
  const std::string error = hipGetErrorName(status);
  const std::vector<std::string> device_lists = hl::device_selection_settings();
  if (nodes > 0 && !device_lists.empty()) {
    const std::string variable = device_lists.front().substr(0, device_lists.front().find('='));
    return {hl::format("{} is set and the runtime sees no device ({})", variable, error),
            hl::format("it hides every GPU: unset {} or list indices that exist", variable)};
  }
  if (nodes == 0) {
#if defined(__HIP_PLATFORM_AMD__)
    return {"no AMD GPU device nodes (/dev/kfd) and the runtime reports " + error,
            "no GPU here, or the amdgpu kernel driver is not loaded: check 'lsmod | grep amdgpu' "
            "and 'rocminfo'"};
#else
    return {"no NVIDIA device nodes (/dev/nvidia*) and the runtime reports " + error,
            "no GPU here, or the NVIDIA driver is not loaded: check 'nvidia-smi'"};
#endif
  }
  if (status == hipErrorInsufficientDriver) {  // CUDA's error; ROCm's HIP does not return it
    return {hl::format("the GPU driver is missing or older than this runtime ({})", error),
            "install a driver at least as new as the runtime this binary was built with"};
  }
  return {"device nodes exist but the runtime reports " + error,
          "check the driver installation and the permissions listed above"};
}

// 4. A hidden GPU is a broken set-up, a machine without one is not. Returns the device count.
int report_devices(hl::Report& report, int nodes, int chosen, std::vector<Finding>& findings) {
  int count = 0;
  const hipError_t status = hipGetDeviceCount(&count);
  report.note(hl::format("\nhipGetDeviceCount: {}, {} device(s)", hipGetErrorName(status), count));
  if (status != hipSuccess || count == 0) {
    const Finding why = diagnose_no_device(status, nodes);
    if (nodes > 0) findings.push_back(why);
    report.note(hl::format("diagnosis: {}\n  fix: {}", why.problem, why.fix));
    return 0;
  }
  if (chosen >= count) throw hl::no_such_device(chosen, count);
  for (int i = 0; i < count; ++i) report_device(report, i);
  return count;
}

//! [smoke_kernel]
__global__ void scale_and_add(const float* x, const float* y, float* out, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
//! [smoke_kernel]

// 5. Known to work only once checked; the output starts as NaN, so an unwritten element fails.
void run_smoke_kernel(hl::Report& report, const hl::CommonOptions& options,
                      std::vector<Finding>& findings) {
  HIP_CHECK(hipSetDevice(options.device));
  const auto n = static_cast<int>(options.size);
  hl::require_device_memory(3 * sizeof(float) * n, hl::format("--size {}", n));
  std::vector<float> x(n), y(n), expected(n);
  hl::fill_uniform(x, options.seed);
  hl::fill_uniform(y, options.seed + 1);
  const float a = 2.5f;
  for (int i = 0; i < n; ++i) expected[i] = a * x[i] + y[i];
  hl::DeviceBuffer<float> d_x(n), d_y(n), d_out(n);
  d_x.upload(x);
  d_y.upload(y);
  d_out.poison();
  hipLaunchKernelGGL(scale_and_add, dim3((n + 255) / 256), dim3(256), 0, nullptr, d_x.data(),
                     d_y.data(), d_out.data(), a, n);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  // a * x + y may be fused on the device: allow a few units in the last place.
  const bool correct =
      report.check_match(hl::format("smoke kernel out = a*x + y on {} elements", n),
                         hl::first_mismatch(expected, d_out.download(), hl::Tolerance{1e-6, 1e-6}),
                         static_cast<std::size_t>(n));
  if (!correct) {
    findings.push_back({"the smoke kernel computed wrong results",
                        "run compute-sanitizer / rocgdb on it; check the driver and hardware"});
  }
}

// 6. Each problem is a failed check with its fix; no problem and no GPU is a skip, not a pass.
void report_findings(hl::Report& report, const std::vector<Finding>& findings, int gpus) {
  report.note("");
  for (const Finding& f : findings) report.check("set-up: " + f.problem, false, "fix: " + f.fix);
  if (!findings.empty()) {
    report.summary(hl::format("{} problem(s) found; fixes listed above", findings.size()));
    return;
  }
  if (gpus == 0) throw hl::SkipError("no GPU on this machine (diagnosis above)");
  report.check("set-up is healthy", true);
  report.summary(hl::format("{} GPU(s), smoke kernel correct", gpus));
}

}  // namespace

int main(int argc, char** argv) {
  hl::LessonCli cli("lesson01_env_check",
                    "Lesson 01: check the HIP set-up and show what will schedule the work",
                    std::int64_t{1} << 20, std::int64_t{1} << 30);

  const auto story = [&](hl::Lesson& lesson) {
    hl::Report& report = lesson.report;
    std::vector<Finding> findings;
    const auto runtime = report_versions(report);                                    // 1.
    report_environment(report, runtime, findings);                                   // 2.
    const int nodes = report_device_nodes(report, findings);                         // 3.
    const int gpus = report_devices(report, nodes, cli.options().device, findings);  // 4.
    if (gpus > 0) run_smoke_kernel(report, cli.options(), findings);                 // 5.
    report_findings(report, findings, gpus);                                         // 6.
  };
  // This lesson diagnoses the environment itself (step 2), so run_lesson's warnings are off.
  return hl::run_lesson(cli, argc, argv, story, hl::EnvironmentWarnings::kLeaveToLesson);
}
