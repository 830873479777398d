/// \file hiprtc.h
/// \brief HIP runtime compilation (hiprtc) on NVRTC: the hip_on_cuda layer.
///
/// As HIP's own NVIDIA path (hip/nvidia_detail/nvidia_hiprtc.h), every hiprtc call is the
/// NVRTC call of the same name, hiprtcProgram is nvrtcProgram, the result codes have
/// NVRTC's numbers (0..11; newer NVRTC codes become HIPRTC_ERROR_INTERNAL_ERROR), and
/// hiprtcGetCode returns PTX, which hipModuleLoadData hands to the driver's JIT. Link
/// NVRTC (CMake: CUDA::nvrtc) into programs that use it.
///
/// One addition, because HIP's NVIDIA path passes options through and a portable program
/// names its target the AMD way: an architecture option given as `--offload-arch=X`,
/// `--gpu-architecture=X`, `-arch=X` (or `-arch X`, `--gpu-architecture X`) with an NVIDIA
/// name is rewritten to `--gpu-architecture=compute_NN`: `sm_90` (this layer's
/// hipDeviceProp_t::gcnArchName) and `compute_90` both become `compute_90`: the result
/// is PTX for that architecture, which hiprtcGetCode returns and the driver compiles at
/// load (a real `sm_NN` target would only add a cubin that hiprtcGetCode does not
/// return). Without an architecture option NVRTC's default applies (compute_75 in CUDA
/// 13), which the driver also JIT-compiles for newer GPUs. Other values, AMD names such as
/// `gfx90a` included, are passed on under `--gpu-architecture=` and NVRTC refuses them
/// (HIPRTC_ERROR_INVALID_OPTION). All other options go to NVRTC unchanged.
///
/// Same include guard as HIP's hiprtc.h, so only one of the two is used.
#ifndef HIPRTC_H
#define HIPRTC_H

#include <hip/hip_common.h>
#include <nvrtc.h>

#include <cstddef>
#include <string>
#include <vector>

typedef enum hiprtcResult {
  HIPRTC_SUCCESS = 0,
  HIPRTC_ERROR_OUT_OF_MEMORY = 1,
  HIPRTC_ERROR_PROGRAM_CREATION_FAILURE = 2,
  HIPRTC_ERROR_INVALID_INPUT = 3,
  HIPRTC_ERROR_INVALID_PROGRAM = 4,
  HIPRTC_ERROR_INVALID_OPTION = 5,
  HIPRTC_ERROR_COMPILATION = 6,
  HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE = 7,
  HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION = 8,
  HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION = 9,
  HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID = 10,
  HIPRTC_ERROR_INTERNAL_ERROR = 11
} hiprtcResult;

typedef nvrtcProgram hiprtcProgram;

static_assert(HIPRTC_ERROR_COMPILATION == static_cast<int>(NVRTC_ERROR_COMPILATION) &&
                  HIPRTC_ERROR_INTERNAL_ERROR == static_cast<int>(NVRTC_ERROR_INTERNAL_ERROR),
              "hiprtcResult and nvrtcResult must agree");

/// NVRTC result -> hiprtc result (same numbers up to 11; later NVRTC codes, such as
/// NVRTC_ERROR_TIME_FILE_WRITE_FAILED, are internal errors, as in HIP's NVIDIA path).
inline hiprtcResult nvrtcResultTohiprtcResult(nvrtcResult result) {
  const int value = static_cast<int>(result);
  return (value >= HIPRTC_SUCCESS && value <= HIPRTC_ERROR_INTERNAL_ERROR)
             ? static_cast<hiprtcResult>(value)
             : HIPRTC_ERROR_INTERNAL_ERROR;
}

/// hiprtc result -> NVRTC result (for the error text).
inline nvrtcResult hiprtcResultTonvrtcResult(hiprtcResult result) {
  const int value = static_cast<int>(result);
  return (value >= HIPRTC_SUCCESS && value <= HIPRTC_ERROR_INTERNAL_ERROR)
             ? static_cast<nvrtcResult>(value)
             : NVRTC_ERROR_INTERNAL_ERROR;
}

inline const char* hiprtcGetErrorString(hiprtcResult result) {
  return nvrtcGetErrorString(hiprtcResultTonvrtcResult(result));
}

inline hiprtcResult hiprtcVersion(int* major, int* minor) {
  return nvrtcResultTohiprtcResult(nvrtcVersion(major, minor));
}

inline hiprtcResult hiprtcCreateProgram(hiprtcProgram* prog, const char* src, const char* name,
                                        int numHeaders, const char** headers,
                                        const char** includeNames) {
  return nvrtcResultTohiprtcResult(
      nvrtcCreateProgram(prog, src, name, numHeaders, headers, includeNames));
}

inline hiprtcResult hiprtcDestroyProgram(hiprtcProgram* prog) {
  return nvrtcResultTohiprtcResult(nvrtcDestroyProgram(prog));
}

inline hiprtcResult hiprtcAddNameExpression(hiprtcProgram prog, const char* name_expression) {
  return nvrtcResultTohiprtcResult(nvrtcAddNameExpression(prog, name_expression));
}

inline hiprtcResult hiprtcGetLoweredName(hiprtcProgram prog, const char* name_expression,
                                         const char** lowered_name) {
  return nvrtcResultTohiprtcResult(nvrtcGetLoweredName(prog, name_expression, lowered_name));
}

namespace hip_on_cuda {
namespace detail {

/// The NVRTC spelling of architecture value `value`: sm_NN / compute_NN -> compute_NN.
inline std::string nvrtc_architecture(const std::string& value) {
  if (value.compare(0, 3, "sm_") == 0) return "--gpu-architecture=compute_" + value.substr(3);
  return "--gpu-architecture=" + value;
}

/// hiprtc options -> NVRTC options (see the file comment).
inline std::vector<std::string> translate_hiprtc_options(int count, const char** options) {
  static const char* const kWithValue[] = {"--offload-arch=", "--gpu-architecture=", "-arch="};
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) {
    const std::string option = options[i] != nullptr ? options[i] : "";
    bool done = false;
    for (const char* prefix : kWithValue) {
      const std::string p = prefix;
      if (option.compare(0, p.size(), p) == 0) {
        out.push_back(nvrtc_architecture(option.substr(p.size())));
        done = true;
        break;
      }
    }
    if (!done && (option == "-arch" || option == "--gpu-architecture") && i + 1 < count &&
        options[i + 1] != nullptr) {
      out.push_back(nvrtc_architecture(options[++i]));
      done = true;
    }
    if (!done) out.push_back(option);
  }
  return out;
}

}  // namespace detail
}  // namespace hip_on_cuda

/// Compiles the program; architecture options are translated (file comment), the rest
/// go to NVRTC as they are.
inline hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int numOptions, const char** options) {
  if (numOptions < 0 || (numOptions > 0 && options == nullptr)) return HIPRTC_ERROR_INVALID_INPUT;
  const std::vector<std::string> translated =
      hip_on_cuda::detail::translate_hiprtc_options(numOptions, options);
  std::vector<const char*> pointers;
  pointers.reserve(translated.size());
  for (const std::string& option : translated) pointers.push_back(option.c_str());
  return nvrtcResultTohiprtcResult(nvrtcCompileProgram(
      prog, static_cast<int>(pointers.size()), pointers.empty() ? nullptr : pointers.data()));
}

inline hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, size_t* logSizeRet) {
  return nvrtcResultTohiprtcResult(nvrtcGetProgramLogSize(prog, logSizeRet));
}

inline hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char* log) {
  return nvrtcResultTohiprtcResult(nvrtcGetProgramLog(prog, log));
}

/// Size of the compiled code: PTX text including its terminating NUL.
inline hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t* codeSizeRet) {
  return nvrtcResultTohiprtcResult(nvrtcGetPTXSize(prog, codeSizeRet));
}

/// The compiled code: PTX, for hipModuleLoadData (the driver compiles it for the device).
inline hiprtcResult hiprtcGetCode(hiprtcProgram prog, char* code) {
  return nvrtcResultTohiprtcResult(nvrtcGetPTX(prog, code));
}

#endif  // HIPRTC_H
