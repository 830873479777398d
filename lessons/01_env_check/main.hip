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

const hl::Platform kPlatform = hl::build_platform();  // the one this binary was built for

// A problem found on the way, and what to do about it.
struct Finding {
  std::string problem, fix;
};

// What the steps find out about this machine, for the steps after them.
struct SetUp {
  std::optional<hl::RuntimeVersion> runtime;  // step 2 reads this release's rules
  int device_nodes = 0;                       // step 4 diagnoses a missing GPU by them
  int gpus = 0;
  std::string no_gpu;  // the runtime's answer when there is none (step 4), for the skip line
};

// 1. The runtime is what the program links; the driver is the kernel-side stack under it.
//    The runtime release (unknown when the query fails) is what step 2 depends on.
hl::StepResult versions(SetUp& found) {
  hl::StepResult step("1. What this binary was built for, and which runtime and driver it finds");
  int runtime = 0, driver = 0;
  const hipError_t runtime_status = hipRuntimeGetVersion(&runtime);
  const hipError_t driver_status = hipDriverGetVersion(&driver);
  // A failed query must not read as version 0: the table says why, the JSON has null. CUDA
  // answers 0 with success when no driver is installed (cudaDriverGetVersion).
  const auto shown = [](hipError_t status, int version) -> hl::Cell {
    if (status != hipSuccess) return hl::format("unavailable ({})", hipGetErrorName(status));
    return version != 0 ? hl::Cell(version) : hl::Cell("0 (no driver installed)");
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
  step.table(table)
      .fact("runtime_version", runtime_status == hipSuccess ? hl::Cell(runtime) : hl::Cell())
      .fact("driver_version", driver_status == hipSuccess ? hl::Cell(driver) : hl::Cell());
  if (runtime_status == hipSuccess) found.runtime = hl::runtime_version_from(runtime, kPlatform);
  return step;
}

// 2. What a knob does, and its default, changed between releases (docs/runtime_behaviour.tsv,
//    compiled in), so this release's rows are printed. The runtime never complains about a
//    malformed value, so every one that is set is checked, as this release reads it.
hl::StepResult scheduling_knobs(const SetUp& found, std::vector<Finding>& findings) {
  hl::StepResult step("2. The scheduling knobs and variables, as this release reads them");
  if (found.runtime) {
    const std::string release = hl::runtime_name(*found.runtime, kPlatform);
    hl::ResultTable knobs("runtime_behaviour", "What " + release + " does with each knob",
                          {{"knob"}, {"setting"}, {"in force"}, {"what it does"}});
    for (const auto& k :
         lesson01::knobs_in_force(lesson01::compiled_in_table(), kPlatform, *found.runtime))
      knobs.row({k.knob, k.setting, k.value, k.effect});
    step.table(knobs);
  }
  step.note("every release: docs/pages/runtime_behaviour.md");
  hl::ResultTable table("environment", "Environment variables that change scheduling",
                        {{"variable"}, {"value"}, {"platform"}, {"what it changes"}, {"status"}});
  for (const hl::EnvironmentVariable& variable : hl::scheduling_variables()) {
    const char* value = std::getenv(variable.name.c_str());
    std::string status = hl::format("unset (default {})", variable.default_value);
    if (value != nullptr) {
      const auto problem =
          hl::check_environment_value(variable.name, value, kPlatform, found.runtime);
      status = problem ? "INVALID: " + *problem : "valid";
      if (problem) {
        findings.push_back({hl::format("{}={}: {}", variable.name, value, *problem),
                            hl::format("correct or unset it: unset {}", variable.name)});
      }
      // A variable of the other platform is harmless, but whoever set it expected an effect.
      const std::string ignored = variable.ignored_by(kPlatform);
      if (!ignored.empty()) status += "; " + ignored;
    }
    // Quoted, so that an empty value (it hides every GPU from CUDA) shows; unset is "-".
    const hl::Cell shown = value == nullptr ? hl::Cell() : hl::Cell(hl::format("'{}'", value));
    table.row({variable.name, shown, variable.platform, variable.meaning, status});
  }
  return step.table(table);
}

// The paths a shell pattern matches; none when nothing does.
std::vector<std::string> matching_paths(const std::string& pattern) {
  std::vector<std::string> paths;
  glob_t matches{};
  ::glob(pattern.c_str(), 0, nullptr, &matches);  // sets gl_pathc on an error too (POSIX)
  for (std::size_t i = 0; i < matches.gl_pathc; ++i) paths.emplace_back(matches.gl_pathv[i]);
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

// 3. A missing node means no driver, a closed one no permission.
hl::StepResult device_nodes(SetUp& found, std::vector<Finding>& findings) {
  hl::StepResult step("3. The device nodes the runtime opens, and who may open them");
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
      ++found.device_nodes;
      if (!usable) {
        findings.push_back(
            {hl::format("this user cannot open {}", path),
             "add the user to the groups that own it: sudo usermod -aG render,video $USER, then "
             "log in again"});
      }
    }
  }
  step.table(table).note(hl::format("groups: video {}, render {} (user id {})",
                                    user_in_group("video"), user_in_group("render"), ::geteuid()));
  if (found.device_nodes == 0 && !matching_paths(other_pattern).empty()) {
    findings.push_back({hl::format("this binary was built for {} but the machine has an {} GPU",
                                   hl::kVendor, other_vendor),
                        hl::format("reconfigure with -DHIP_LESSONS_PLATFORM={}",
                                   std::string(other_vendor) == "AMD" ? "amd" : "nvidia")});
  }
  return step;
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

// What later lessons size work by (clocks are attributes: CUDA 13 dropped them from the struct).
void describe_device(hl::StepResult& step, int index) {
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
#if defined(__HIP_PLATFORM_AMD__) && HIP_VERSION_MAJOR >= 7  // the attribute is new in HIP 7.0
  table.row({"compute dies (XCCs)", attribute(hipDeviceAttributeNumberOfXccs, index), "",
             "in this compute partition"});
#elif defined(__HIP_PLATFORM_AMD__)
  table.row({"compute dies (XCCs)", "unknown (HIP before 7.0)", "", "in this compute partition"});
#else
  table.row({"compute dies (XCCs)", "not applicable (NVIDIA)", "", ""});
#endif
  step.table(table).fact(hl::format("device{}", index), p.name);
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

// 4. A hidden GPU is a broken set-up, a machine without one is not.
hl::StepResult devices(SetUp& found, int chosen, std::vector<Finding>& findings) {
  hl::StepResult step("4. The devices: none and why, or what later lessons depend on");
  int count = 0;
  const hipError_t status = hipGetDeviceCount(&count);
  step.note(hl::format("hipGetDeviceCount: {}, {} device(s)", hipGetErrorName(status), count));
  if (status != hipSuccess || count == 0) {
    const Finding why = diagnose_no_device(status, found.device_nodes);
    if (found.device_nodes > 0) findings.push_back(why);
    found.no_gpu = hl::format("hipGetDeviceCount reported {}", hipGetErrorName(status));
    return step.note(hl::format("diagnosis: {}\n  fix: {}", why.problem, why.fix));
  }
  if (chosen >= count) throw hl::no_such_device(chosen, count);
  for (int i = 0; i < count; ++i) describe_device(step, i);
  found.gpus = count;
  return step;
}

//! [smoke_kernel]
__global__ void scale_and_add(const float* x, const float* y, float* out, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
//! [smoke_kernel]

// 5. Known to work only once checked; the output starts as NaN, so an unwritten element fails.
//    Without a GPU the step still appears, saying why it did not run, so the numbers stay 1-6.
hl::StepResult smoke_kernel(const hl::CommonOptions& options, int gpus,
                            std::vector<Finding>& findings) {
  hl::StepResult step("5. A smoke kernel, its poisoned output checked element by element");
  if (gpus == 0) return step.skip("smoke kernel", "no GPU to run it on (step 4 says why)");
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
  const auto mismatch = hl::first_mismatch(expected, d_out.download(), hl::Tolerance{1e-6, 1e-6});
  if (mismatch) {
    findings.push_back({"the smoke kernel computed wrong results",
                        "run compute-sanitizer / rocgdb on it; check the driver and hardware"});
  }
  return step.check_match(hl::format("smoke kernel out = a*x + y on {} elements", n), mismatch,
                          static_cast<std::size_t>(n));
}

// 6. Each problem is a failed check with its fix; no problem and no GPU is a skip (main()).
hl::StepResult problems_and_fixes(const std::vector<Finding>& findings, int gpus) {
  hl::StepResult step("6. Every problem found, with its fix");
  for (const Finding& f : findings) step.check("set-up: " + f.problem, false, "fix: " + f.fix);
  if (!findings.empty()) {
    return step.summary(hl::format("{} problem(s) found; fixes listed above", findings.size()));
  }
  if (gpus == 0) return step;
  return step.check("set-up is healthy", true)
      .summary(hl::format("{} GPU(s), smoke kernel correct", gpus));
}

}  // namespace

int main(int argc, char** argv) {
  hl::LessonCli cli("lesson01_env_check",
                    "Lesson 01: check the HIP set-up and show what will schedule the work",
                    std::int64_t{1} << 20, std::int64_t{1} << 30);

  const auto story = [&](hl::Lesson& lesson) {
    SetUp found;
    std::vector<Finding> findings;
    lesson.report.step(versions(found));                                     // 1.
    lesson.report.step(scheduling_knobs(found, findings));                   // 2.
    lesson.report.step(device_nodes(found, findings));                       // 3.
    lesson.report.step(devices(found, lesson.options.device, findings));     // 4.
    lesson.report.step(smoke_kernel(lesson.options, found.gpus, findings));  // 5.
    lesson.report.step(problems_and_fixes(findings, found.gpus));            // 6.
    // The skip line is short (within 100 columns): step 4 printed the diagnosis and its fix.
    if (findings.empty() && found.gpus == 0) {
      throw hl::SkipError(hl::format("no GPU: {}; step 4 says why", found.no_gpu));
    }
  };
  // This lesson diagnoses the environment itself (step 2), so run_lesson's warnings are off.
  return hl::run_lesson(cli, argc, argv, story, hl::EnvironmentWarnings::kLeaveToLesson);
}
