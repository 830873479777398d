// Kernels for the module API test (test_module.hip), built at build time into a code
// object of its own: a fatbin on NVIDIA (nvcc -fatbin), a code object on AMD
// (hipcc --genco). The test loads it with hipModuleLoad / hipModuleLoadData[Ex].
#include <hip/hip_runtime.h>

// A module global: hipModuleGetGlobal finds it by name (global-namespace variables are
// not mangled). Each loaded copy of the module has its own.
__device__ float module_bias;

// extern "C": hipModuleGetFunction looks kernels up by their symbol name.
extern "C" __global__ void module_axpb(const float* x, float* y, float a, int n) {
  const int i = static_cast<int>(hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x);
  if (i < n) y[i] = a * x[i] + module_bias;
}
