/// \file lessons/07_batch_launch/module_launch.hpp
/// \brief Lesson 07's kernels from a code object loaded at run time (the module API).
///
/// hipLaunchKernelGGL launches a kernel compiled into the program; the module API launches one
/// from a code object that the program loads while it runs (a plug-in, a kernel built for
/// another GPU, a kernel compiled with hiprtc). The build makes the code object from
/// module_kernels.hip and puts it beside the lesson's binary.
#pragma once

#include <hip/hip_runtime.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "hip_lessons/hip_check.hpp"
#include "segment.hpp"

namespace batch {

/// The code object's file name: a fatbin on NVIDIA, an AMDGPU code object on AMD.
#if defined(__HIP_PLATFORM_AMD__)
inline constexpr const char* kModuleFileName = "lesson07_module_kernels.co";
#else
inline constexpr const char* kModuleFileName = "lesson07_module_kernels.fatbin";
#endif

/// Where the code object is: beside the running binary (Linux: /proc/self/exe), else where the
/// build wrote it (HIP_LESSONS_07_MODULE_DIR). Throws std::runtime_error when neither has it.
inline std::string module_file() {
  std::vector<std::string> directories;
  std::error_code ignored;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ignored).string();
  if (!self.empty()) directories.push_back(self.substr(0, self.find_last_of('/')));
#if defined(HIP_LESSONS_07_MODULE_DIR)
  directories.push_back(HIP_LESSONS_07_MODULE_DIR);
#endif
  std::string tried;
  for (const std::string& directory : directories) {
    const std::string path = directory + "/" + kModuleFileName;
    if (std::ifstream(path).good()) return path;
    tried += (tried.empty() ? "" : ", ") + path;
  }
  throw std::runtime_error(std::string("the code object ") + kModuleFileName +
                           " that the build makes from module_kernels.hip is not at " + tried +
                           ": rebuild the lesson (cmake --build), or copy it beside the binary");
}

//! [module]
/// A loaded code object and the two kernels the lesson takes from it; unloaded with it.
class KernelModule {
 public:
  /// hipModuleLoad reads the file and loads its code for the current device;
  /// hipModuleGetFunction finds a kernel by its (extern "C", so unmangled) name.
  explicit KernelModule(const std::string& path) {
    HIP_CHECK(hipModuleLoad(&module_, path.c_str()));
    HIP_CHECK(hipModuleGetFunction(&empty_, module_, "module_empty_kernel"));
    HIP_CHECK(hipModuleGetFunction(&add_segment_, module_, "module_add_segment"));
  }
  ~KernelModule() { (void)hipModuleUnload(module_); }
  KernelModule(const KernelModule&) = delete;
  KernelModule& operator=(const KernelModule&) = delete;

  /// One empty kernel: grid, block, dynamic shared memory and stream as plain numbers, and
  /// the kernel's arguments as an array of pointers (none here).
  void launch_empty(hipStream_t stream) const {
    HIP_CHECK(hipModuleLaunchKernel(empty_, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr));
  }

  /// Method 5: one hipModuleLaunchKernel per segment, the module's copy of add_segment.
  void launch_individually(const std::vector<Segment>& segments, unsigned int block,
                           hipStream_t stream) const {
    for (Segment s : segments) {
      void* arguments[] = {&s};
      HIP_CHECK(hipModuleLaunchKernel(add_segment_, blocks_for(s.n, block), 1, 1, block, 1, 1, 0,
                                      stream, arguments, nullptr));
    }
  }

 private:
  hipModule_t module_ = nullptr;
  hipFunction_t empty_ = nullptr;
  hipFunction_t add_segment_ = nullptr;
};
//! [module]

}  // namespace batch
