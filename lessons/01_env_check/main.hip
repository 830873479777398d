/// \file lessons/01_env_check/main.hip
/// \brief Lesson 01: is this machine ready to run HIP work, and what will schedule it?
///
/// The story: (1) what this binary was built for and which runtime and driver it finds;
/// (2) the environment variables that change scheduling, each checked; (3) the device nodes
/// the runtime opens and whether this user may open them; (4) the devices and the properties
/// later lessons depend on; (5) a validated smoke kernel. Every problem found comes with a
/// diagnosis and a fix. Exit 0: healthy; 77: no GPU (after the diagnosis); 1: broken set-up.
#include <glob.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "hip_lessons/buffers.hpp"
#include "hip_lessons/device.hpp"
#include "hip_lessons/environment.hpp"
#include "hip_lessons/hip_check.hpp"
#include "hip_lessons/lesson.hpp"
#include "hip_lessons/validation.hpp"

namespace hl = hip_lessons;

namespace {

// A problem found on the way, and what to do about it.
struct Finding {
  std::string problem;
  std::string fix;
};

// --- 1. Build, runtime and driver -----------------------------------------------------
void report_versions(hl::Report& report) {
  int runtime = 0;
  int driver = 0;
  const hipError_t runtime_status = hipRuntimeGetVersion(&runtime);
  const hipError_t driver_status = hipDriverGetVersion(&driver);
  auto shown = [](hipError_t status, int value) {
    return status == hipSuccess ? std::to_string(value)
                                : std::string("unavailable (") + hipGetErrorName(status) + ")";
  };
  hl::Table table({"item", "value"});
  table.add_row({"built for", hl::kVendor});
#if defined(HIP_LESSONS_HIP_ON_CUDA)
  const std::string headers = " (the project's HIP-on-CUDA layer)";
#else
  const std::string headers = "";
#endif
  table.add_row({"HIP headers version", std::to_string(HIP_VERSION_MAJOR) + "." +
                                            std::to_string(HIP_VERSION_MINOR) + headers});
  table.add_row({"runtime version", shown(runtime_status, runtime)});
  table.add_row({"driver version", shown(driver_status, driver)});
  report.table("versions", "Build, runtime and driver", table);
  report.fact("runtime_version", runtime);
  report.fact("driver_version", driver);
}

// --- 2. Environment variables ---------------------------------------------------------
void report_environment(hl::Report& report, std::vector<Finding>& findings) {
  const hl::Platform platform = hl::build_platform();
  hl::Table table({"variable", "value", "platform", "what it changes", "status"});
  for (const hl::EnvironmentVariable& variable : hl::scheduling_variables()) {
    const char* value = std::getenv(variable.name.c_str());
    std::string status = "unset (default " + variable.default_value + ")";
    if (value != nullptr) {
      const auto problem = hl::check_environment_value(variable.name, value, platform);
      status = problem ? "INVALID: " + *problem : "valid";
      if (problem) {
        findings.push_back({variable.name + "=" + value + ": " + *problem,
                            "correct or unset it: unset " + variable.name});
      }
      // A variable of the other platform is harmless, but whoever set it expected an effect.
      const std::string ignored = variable.ignored_by(platform);
      if (!ignored.empty()) status += "; " + ignored;
    }
    table.add_row({variable.name, value == nullptr ? "-" : "'" + std::string(value) + "'",
                   variable.platform, variable.meaning, status});
  }
  report.table("environment", "Environment variables that change scheduling", table);
}

// --- 3. Device nodes and permissions --------------------------------------------------
std::vector<std::string> matching_paths(const std::string& pattern) {
  std::vector<std::string> paths;
  glob_t matches{};
  if (::glob(pattern.c_str(), 0, nullptr, &matches) == 0) {
    for (std::size_t i = 0; i < matches.gl_pathc; ++i) paths.emplace_back(matches.gl_pathv[i]);
  }
  ::globfree(&matches);
  return paths;
}

bool user_in_group(const std::string& group_name) {
  const group* group_entry = ::getgrnam(group_name.c_str());
  if (group_entry == nullptr) return false;
  if (::getegid() == group_entry->gr_gid) return true;
  std::vector<gid_t> groups(static_cast<std::size_t>(::getgroups(0, nullptr)) + 1);
  const int count = ::getgroups(static_cast<int>(groups.size()), groups.data());
  for (int i = 0; i < count; ++i) {
    if (groups[static_cast<std::size_t>(i)] == group_entry->gr_gid) return true;
  }
  return false;
}

// Returns how many GPU device nodes exist for the platform this binary was built for.
int report_device_nodes(hl::Report& report, std::vector<Finding>& findings) {
#if defined(__HIP_PLATFORM_AMD__)
  const std::vector<std::string> patterns = {"/dev/kfd", "/dev/dri/renderD*"};
  const std::vector<std::string> other_patterns = {"/dev/nvidia[0-9]*"};
  const char* other_vendor = "NVIDIA";
#else
  const std::vector<std::string> patterns = {"/dev/nvidiactl", "/dev/nvidia-uvm",
                                             "/dev/nvidia[0-9]*"};
  const std::vector<std::string> other_patterns = {"/dev/kfd"};
  const char* other_vendor = "AMD";
#endif
  hl::Table table({"device node", "mode", "this user can read+write"});
  int present = 0;
  for (const std::string& pattern : patterns) {
    const auto paths = matching_paths(pattern);
    if (paths.empty()) table.add_row({pattern, "missing", "-"});
    for (const std::string& path : paths) {
      struct stat info {};
      ::stat(path.c_str(), &info);
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
      const bool usable = ::access(path.c_str(), R_OK | W_OK) == 0;
      table.add_row({path, mode, usable ? "yes" : "NO"});
      ++present;
      if (!usable) {
        findings.push_back({"this user cannot open " + path,
                            "add the user to the groups that own it: sudo usermod -aG render,video "
                            "$USER, then log in again"});
      }
    }
  }
  report.table("device_nodes", "Device nodes", table);
  std::cout << "groups: video " << (user_in_group("video") ? "yes" : "no") << ", render "
            << (user_in_group("render") ? "yes" : "no") << " (user id " << ::geteuid() << ")\n";
  if (present == 0) {
    for (const std::string& pattern : other_patterns) {
      if (!matching_paths(pattern).empty()) {
        findings.push_back({std::string("this binary was built for ") + hl::kVendor +
                                " but the machine has an " + other_vendor + " GPU",
                            std::string("reconfigure with -DHIP_LESSONS_PLATFORM=") +
                                (std::string(other_vendor) == "AMD" ? "amd" : "nvidia")});
      }
    }
  }
  return present;
}

// --- 4. Devices -----------------------------------------------------------------------
int attribute(hipDeviceAttribute_t which, int device) {
  int value = 0;
  HIP_CHECK(hipDeviceGetAttribute(&value, which, device));
  return value;
}

void report_device(hl::Report& report, int index) {
  hipDeviceProp_t p{};
  HIP_CHECK(hipGetDeviceProperties(&p, index));
  const int clock_khz = attribute(hipDeviceAttributeClockRate, index);
  const int memory_clock_khz = attribute(hipDeviceAttributeMemoryClockRate, index);
  hl::Table table({"property", "value", "why it matters for scheduling"});
  table.add_row({"name", p.name, ""});
  table.add_row({"architecture", p.gcnArchName, "which code objects the binary must contain"});
  table.add_row({std::string(hl::kComputeUnitName) + " count", std::to_string(p.multiProcessorCount),
                 "blocks run on these; grid sizes scale with it"});
  table.add_row({std::string(hl::kWarpName) + " size", std::to_string(p.warpSize),
                 "block sizes should be multiples of it"});
  table.add_row({"max threads per block", std::to_string(p.maxThreadsPerBlock),
                 "larger blocks are rejected at launch"});
  table.add_row({"max threads per " + std::string(hl::kComputeUnitName),
                 std::to_string(p.maxThreadsPerMultiProcessor), "upper bound of occupancy"});
  table.add_row({"shared memory per block", hl::format_bytes(p.sharedMemPerBlock),
                 "more per block means fewer blocks per " + std::string(hl::kComputeUnitName)});
  table.add_row({"L2 cache", hl::format_bytes(p.l2CacheSize), "data smaller than this is cache-bound"});
  table.add_row({"memory", hl::format_bytes(static_cast<double>(p.totalGlobalMem)), ""});
  table.add_row({"clock (peak)", hl::fixed(clock_khz / 1e3, 0) + " MHz", ""});
  table.add_row({"memory clock (peak)", hl::fixed(memory_clock_khz / 1e3, 0) + " MHz",
                 "with the bus width, gives peak bandwidth"});
  table.add_row({"memory bus width", std::to_string(attribute(hipDeviceAttributeMemoryBusWidth, index)) + " bits", ""});
  table.add_row({"concurrent kernels", attribute(hipDeviceAttributeConcurrentKernels, index) ? "yes" : "no",
                 "kernels from different streams may overlap"});
  table.add_row({"async copy engines", std::to_string(attribute(hipDeviceAttributeAsyncEngineCount, index)),
                 "copies that overlap kernels (0 on AMD: reported differently)"});
  report.table("device" + std::to_string(index), "Device " + std::to_string(index), table);
  report.fact("device" + std::to_string(index), p.name);
}

// --- 5. Smoke kernel ------------------------------------------------------------------
//! [smoke_kernel]
__global__ void scale_and_add(const float* x, const float* y, float* out, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
//! [smoke_kernel]

bool run_smoke_kernel(hl::Report& report, int n, std::uint64_t seed) {
  std::vector<float> x(n), y(n), expected(n);
  hl::fill_uniform(x, seed);
  hl::fill_uniform(y, seed + 1);
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
  return report.check_match("smoke kernel out = a*x + y on " + std::to_string(n) + " elements",
                            hl::first_mismatch(expected, d_out.download(), hl::Tolerance{1e-6, 1e-6}),
                            static_cast<std::size_t>(n));
}

// Turns the runtime's answer to "how many devices?" into a diagnosis.
Finding diagnose_no_device(hipError_t status, int nodes) {
  const std::string error = hipGetErrorName(status);
  const std::vector<std::string> device_lists = hl::device_selection_settings();
  if (nodes > 0 && !device_lists.empty()) {
    const std::string variable = device_lists.front().substr(0, device_lists.front().find('='));
    return {variable + " is set and the runtime sees no device (" + error + ")",
            "it hides every GPU: unset " + variable + " or list indices that exist"};
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
  if (status == hipErrorInsufficientDriver) {
    return {"the GPU driver is missing or older than this runtime (" + error + ")",
            "install a driver at least as new as the runtime this binary was built with"};
  }
  return {"device nodes exist but the runtime reports " + error,
          "check the driver installation and the permissions listed above"};
}

}  // namespace

int main(int argc, char** argv) {
  hl::LessonCli cli("lesson01_env_check",
                    "Lesson 01: check the HIP set-up and show what will schedule the work",
                    std::int64_t{1} << 20, std::int64_t{1} << 30);

  // This lesson diagnoses the environment itself (section 2), so run_lesson's warnings are off.
  return hl::run_lesson(cli, argc, argv, [&](hl::Report& report) {
    const hl::CommonOptions& options = cli.options();
    std::vector<Finding> findings;

    report_versions(report);
    report_environment(report, findings);
    const int nodes = report_device_nodes(report, findings);

    int count = 0;
    const hipError_t status = hipGetDeviceCount(&count);
    std::cout << "\nhipGetDeviceCount: " << hipGetErrorName(status) << ", " << count
              << " device(s)\n";
    bool no_gpu = status != hipSuccess || count == 0;
    if (no_gpu) {
      const Finding why = diagnose_no_device(status, nodes);
      // No nodes and no device is simply a machine without a GPU; anything else is broken.
      if (nodes > 0) findings.push_back(why);
      std::cout << "diagnosis: " << why.problem << "\n  fix: " << why.fix << '\n';
    } else if (options.device >= count) {
      throw hl::no_such_device(options.device, count);
    } else {
      for (int i = 0; i < count; ++i) report_device(report, i);
      HIP_CHECK(hipSetDevice(options.device));
      const auto n = static_cast<int>(options.size);
      hl::require_device_memory(3 * static_cast<std::size_t>(n) * sizeof(float), "--size " + std::to_string(n));
      if (!run_smoke_kernel(report, n, options.seed)) {
        findings.push_back({"the smoke kernel computed wrong results",
                            "run compute-sanitizer / rocgdb on it; check the driver and hardware"});
      }
    }

    std::cout << '\n';
    for (const Finding& finding : findings) {
      report.check("set-up: " + finding.problem, false, "fix: " + finding.fix);
    }
    if (findings.empty() && no_gpu) {
      throw hl::SkipError("no GPU on this machine (diagnosis above)");
    }
    if (findings.empty()) {
      report.check("set-up is healthy", true);
      report.summary(std::to_string(count) + " GPU(s), smoke kernel correct");
    } else {
      report.summary(std::to_string(findings.size()) + " problem(s) found; fixes listed above");
    }
  }, hl::EnvironmentWarnings::kLeaveToLesson);
}
