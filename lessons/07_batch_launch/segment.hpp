/// \file lessons/07_batch_launch/segment.hpp
/// \brief One segment of lesson 07's batch and the arithmetic every launch method shares.
///
/// Included by the lesson's kernels (kernels.hpp) and by the code object that the module API
/// loads at run time (module_kernels.hip), so both compute exactly the same thing.
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>

namespace batch {

/// One unit of work: c[i] = a[i] + b[i] for i < n. Passed by value to the per-segment kernels
/// and stored in a device-side table for the one-launch kernels, so segments may live anywhere
/// and have any length.
struct Segment {
  const float *a, *b;
  float* c;
  std::size_t n;
};

// The arithmetic all methods share: this thread's elements of one segment, `stride` apart.
__device__ inline void add_elements(const Segment& s, std::size_t first, std::size_t stride) {
  for (std::size_t i = first; i < s.n; i += stride) s.c[i] = s.a[i] + s.b[i];
}

/// Blocks that give each of \p items its own thread.
inline unsigned int blocks_for(std::size_t items, unsigned int block) {
  return static_cast<unsigned int>((items + block - 1) / block);
}

}  // namespace batch
