/// \file lessons/07_batch_launch/module_kernels.hip
/// \brief The kernels that lesson 07 launches through the module API.
///
/// The build compiles this file on its own into a code object (a fatbin on NVIDIA, an
/// AMDGPU code object on AMD; CMake function hip_lessons_add_code_object), which the lesson
/// loads at run time with hipModuleLoad and launches with hipModuleLaunchKernel. extern "C"
/// keeps the names unmangled, so hipModuleGetFunction finds them by these exact strings.
#include <hip/hip_runtime.h>

#include "segment.hpp"

/// Does nothing: what is left is the cost of launching it (as batch::empty_kernel).
extern "C" __global__ void module_empty_kernel() {}

/// One segment, as batch::add_segment computes it (without the block trace).
extern "C" __global__ void module_add_segment(batch::Segment s) {
  batch::add_elements(s, static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x,
                      static_cast<std::size_t>(gridDim.x) * blockDim.x);
}
