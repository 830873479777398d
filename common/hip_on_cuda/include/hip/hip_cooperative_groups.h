/// \file hip_cooperative_groups.h
/// \brief Cooperative groups for HIP programs on CUDA (hip_on_cuda layer).
///
/// HIP's own NVIDIA path (hip/nvidia_detail/nvidia_hip_cooperative_groups.h) is CUDA's
/// <cooperative_groups.h> plus the HIP runtime: HIP spells the namespace, the group types
/// and the calls as CUDA does (`cooperative_groups::this_thread_block()`, `this_grid()`,
/// `tiled_partition`, `thread_block_tile<N>`, `grid_group::sync()`, `thread_rank()`,
/// `size()`, ...), so this header does the same. Differences a portable program meets:
/// CUDA's `grid_group::size()` / `thread_rank()` are `unsigned long long` (HIP's AMD path
/// returns 32-bit values); CUDA has more (`num_threads()`, clusters, `reduce`, ...) that
/// AMD may lack; `this_multi_grid()` does not exist in CUDA 13. `grid.sync()` needs a
/// cooperative launch (hipLaunchCooperativeKernel) on both platforms.
///
/// CUDA's header pulls in libcu++ (<cuda/atomic>), which has names that the layer's
/// mask-less warp macros (`__any`, `__all`, `__ballot`, `__shfl*`) would rewrite; they
/// are set aside while it is included, so the include order does not matter.
///
/// The include guard is HIP's own, so the system HIP header is never mixed in.
#ifndef HIP_INCLUDE_HIP_HIP_COOPERATIVE_GROUP_H
#define HIP_INCLUDE_HIP_HIP_COOPERATIVE_GROUP_H

#include <hip/hip_runtime.h>

#if defined(__CUDACC__)
#pragma push_macro("__any")
#pragma push_macro("__all")
#pragma push_macro("__ballot")
#pragma push_macro("__shfl")
#pragma push_macro("__shfl_up")
#pragma push_macro("__shfl_down")
#pragma push_macro("__shfl_xor")
#undef __any
#undef __all
#undef __ballot
#undef __shfl
#undef __shfl_up
#undef __shfl_down
#undef __shfl_xor
#include <cooperative_groups.h>
#pragma pop_macro("__shfl_xor")
#pragma pop_macro("__shfl_down")
#pragma pop_macro("__shfl_up")
#pragma pop_macro("__shfl")
#pragma pop_macro("__ballot")
#pragma pop_macro("__all")
#pragma pop_macro("__any")
#endif  // __CUDACC__

#endif  // HIP_INCLUDE_HIP_HIP_COOPERATIVE_GROUP_H
