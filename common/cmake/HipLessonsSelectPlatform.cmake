# Chooses the GPU platform before project() runs, because on AMD the C++ compiler must be
# hipcc (or ROCm's clang++) from the start.
#
#   HIP_LESSONS_PLATFORM = auto (default) | amd | nvidia
#
# auto picks AMD when a HIP install reports the AMD platform and either an AMD GPU is
# present (/dev/kfd) or there is no CUDA compiler; otherwise NVIDIA when nvcc is found.
# The result is HIP_LESSONS_PLATFORM_RESOLVED (amd | nvidia).

set(HIP_LESSONS_PLATFORM "auto" CACHE STRING "GPU platform to build for: auto, amd or nvidia")
set_property(CACHE HIP_LESSONS_PLATFORM PROPERTY STRINGS auto amd nvidia)

set(_hl_platform "${HIP_LESSONS_PLATFORM}")
if(NOT _hl_platform MATCHES "^(auto|amd|nvidia)$")
  message(FATAL_ERROR
    "HIP_LESSONS_PLATFORM='${HIP_LESSONS_PLATFORM}' is not a platform; use auto, amd or nvidia.")
endif()

set(_hl_rocm_hints "$ENV{ROCM_PATH}/bin" "$ENV{HIP_PATH}/bin" /opt/rocm/bin)
find_program(HIP_LESSONS_HIPCC hipcc HINTS ${_hl_rocm_hints}
  DOC "hipcc used as the C++ compiler for the AMD platform")
find_program(HIP_LESSONS_NVCC nvcc HINTS "$ENV{CUDA_PATH}/bin" /usr/local/cuda/bin
  DOC "nvcc used for the NVIDIA platform")

if(_hl_platform STREQUAL "auto")
  set(_hl_hip_says_amd FALSE)
  if(HIP_LESSONS_HIPCC)
    get_filename_component(_hl_hip_bin "${HIP_LESSONS_HIPCC}" DIRECTORY)
    find_program(_hl_hipconfig hipconfig HINTS "${_hl_hip_bin}" ${_hl_rocm_hints})
    if(_hl_hipconfig)
      execute_process(COMMAND "${_hl_hipconfig}" --platform
        OUTPUT_VARIABLE _hl_hip_platform OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(_hl_hip_platform MATCHES "amd|hcc")
        set(_hl_hip_says_amd TRUE)
      endif()
    endif()
  endif()
  if(_hl_hip_says_amd AND (EXISTS /dev/kfd OR NOT HIP_LESSONS_NVCC))
    set(_hl_platform amd)
  elseif(HIP_LESSONS_NVCC)
    set(_hl_platform nvidia)
  elseif(HIP_LESSONS_HIPCC)
    set(_hl_platform amd)
  else()
    message(FATAL_ERROR
      "No GPU compiler found: neither hipcc (ROCm, or Debian's 'hipcc' package) nor nvcc "
      "(CUDA toolkit). Install one, or point ROCM_PATH / CUDA_PATH at it.")
  endif()
  message(STATUS "HIP lessons: HIP_LESSONS_PLATFORM=auto chose '${_hl_platform}'")
endif()
# Cached, so that tools reading a build directory (ctest/gpu-report.sh) know it too.
set(HIP_LESSONS_PLATFORM_RESOLVED "${_hl_platform}" CACHE INTERNAL "the platform built for")

# The AMD HIP compiler: HIP_LESSONS_AMD_COMPILER = auto (default) | hipcc | clang.
# hipcc is ROCm's driver; a ROCm install's hipcc knows the current GPUs. Debian's hipcc 5.2
# drives clang-15, which stops at gfx90a and gfx1030. Debian's clang-19 (with lld-19) compiles
# HIP for gfx942, gfx1100 and gfx1201 too, with the same Debian HIP headers, runtime and device
# libraries (HipLessonsPlatform.cmake supplies what they lack). auto takes hipcc from a ROCm
# install when there is one, else the newest clang++-NN (NN >= 19) beside Debian's hipcc,
# else hipcc. The result is HIP_LESSONS_AMD_TOOLCHAIN (hipcc | clang) and CMAKE_CXX_COMPILER;
# a CMAKE_CXX_COMPILER given on the command line is used as it is.
set(HIP_LESSONS_AMD_COMPILER "auto" CACHE STRING
  "AMD HIP compiler: auto, hipcc, or clang (a clang++ of LLVM 19 or later, e.g. clang++-19)")
set_property(CACHE HIP_LESSONS_AMD_COMPILER PROPERTY STRINGS auto hipcc clang)
if(HIP_LESSONS_PLATFORM_RESOLVED STREQUAL "amd")
  if(NOT HIP_LESSONS_AMD_COMPILER MATCHES "^(auto|hipcc|clang)$")
    message(FATAL_ERROR "HIP_LESSONS_AMD_COMPILER='${HIP_LESSONS_AMD_COMPILER}' is not one of "
                        "auto, hipcc, clang; pass a compiler path as CMAKE_CXX_COMPILER instead.")
  endif()
  find_program(HIP_LESSONS_HIP_CLANG NAMES clang++-22 clang++-21 clang++-20 clang++-19
    DOC "clang++ of LLVM 19 or later, the HIP compiler for targets Debian's hipcc lacks")
  if(NOT CMAKE_CXX_COMPILER)
    set(_hl_amd_compiler "${HIP_LESSONS_AMD_COMPILER}")
    # Why this compiler, said at every configure (HipLessonsPlatform.cmake prints it).
    string(CONCAT _hl_switch "-DHIP_LESSONS_AMD_COMPILER=hipcc or =clang picks one "
                             "(in a fresh build directory)")
    if(_hl_amd_compiler STREQUAL "auto")
      set(_hl_amd_compiler hipcc)
      if(HIP_LESSONS_HIPCC)
        get_filename_component(_hl_hipcc_real "${HIP_LESSONS_HIPCC}" REALPATH)
        # /usr/bin/hipcc is the distribution's package (Debian, Ubuntu); ROCm installs its own
        # under /opt/rocm (or ROCM_PATH).
        if(_hl_hipcc_real MATCHES "^/usr/bin/" AND HIP_LESSONS_HIP_CLANG)
          set(_hl_amd_compiler clang)
          string(CONCAT _hl_why "auto picked ${HIP_LESSONS_HIP_CLANG} over ${_hl_hipcc_real}: "
            "that hipcc is the distribution's (no ROCm install was found), and it drives an "
            "older clang (Debian 12's: clang-15), which lacks the newer GPU targets")
        elseif(_hl_hipcc_real MATCHES "^/usr/bin/")
          string(CONCAT _hl_why "auto picked the distribution's hipcc: no clang++-19 or later "
            "was found (with one, the newer GPU targets build: apt-get install clang-19 lld-19)")
        else()
          set(_hl_why "auto picked hipcc: it belongs to a ROCm install, which knows its GPUs")
        endif()
      elseif(HIP_LESSONS_HIP_CLANG)
        set(_hl_amd_compiler clang)
        set(_hl_why "auto picked ${HIP_LESSONS_HIP_CLANG}: no hipcc was found")
      endif()
    else()
      set(_hl_why "HIP_LESSONS_AMD_COMPILER=${_hl_amd_compiler} asked for it")
    endif()
    set(HIP_LESSONS_AMD_COMPILER_REASON "${_hl_why}; ${_hl_switch}" CACHE INTERNAL
        "Why configure picked this AMD compiler")
    if(_hl_amd_compiler STREQUAL "clang")
      if(NOT HIP_LESSONS_HIP_CLANG)
        message(FATAL_ERROR "HIP_LESSONS_AMD_COMPILER=clang but no clang++-19 (or later) was "
          "found; on Debian 12: 'apt-get install clang-19 lld-19'.")
      endif()
      set(CMAKE_CXX_COMPILER "${HIP_LESSONS_HIP_CLANG}" CACHE FILEPATH "C++ compiler (HIP clang)")
    else()
      if(NOT HIP_LESSONS_HIPCC)
        message(FATAL_ERROR
          "HIP_LESSONS_PLATFORM=amd but hipcc was not found. Install ROCm, or on Debian/Ubuntu "
          "'apt-get install hipcc libamdhip64-dev', or pass -DCMAKE_CXX_COMPILER=/path/to/hipcc.")
      endif()
      set(CMAKE_CXX_COMPILER "${HIP_LESSONS_HIPCC}" CACHE FILEPATH "C++ compiler (hipcc for AMD)")
    endif()
  endif()
  if(NOT HIP_LESSONS_AMD_COMPILER_REASON)  # CMAKE_CXX_COMPILER given on the first configure
    set(HIP_LESSONS_AMD_COMPILER_REASON "CMAKE_CXX_COMPILER was given" CACHE INTERNAL
        "Why configure picked this AMD compiler")
  endif()
  get_filename_component(_hl_cxx_name "${CMAKE_CXX_COMPILER}" NAME)
  if(_hl_cxx_name MATCHES "clang")
    set(HIP_LESSONS_AMD_TOOLCHAIN clang)
  else()
    set(HIP_LESSONS_AMD_TOOLCHAIN hipcc)
  endif()
  if(NOT HIP_LESSONS_AMD_COMPILER STREQUAL "auto" AND
     NOT HIP_LESSONS_AMD_COMPILER STREQUAL HIP_LESSONS_AMD_TOOLCHAIN)
    message(FATAL_ERROR "HIP_LESSONS_AMD_COMPILER=${HIP_LESSONS_AMD_COMPILER}, but this build "
      "directory compiles with ${CMAKE_CXX_COMPILER} and CMake cannot change a configured "
      "compiler: use a fresh build directory.")
  endif()
endif()
if(HIP_LESSONS_PLATFORM_RESOLVED STREQUAL "nvidia" AND NOT CMAKE_CUDA_COMPILER)
  if(NOT HIP_LESSONS_NVCC)
    message(FATAL_ERROR
      "HIP_LESSONS_PLATFORM=nvidia but nvcc was not found. Install the CUDA toolkit (12 or 13) "
      "or pass -DCMAKE_CUDA_COMPILER=/path/to/nvcc.")
  endif()
  set(CMAKE_CUDA_COMPILER "${HIP_LESSONS_NVCC}" CACHE FILEPATH "CUDA compiler")
endif()
