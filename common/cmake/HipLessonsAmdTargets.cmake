# The AMD offload targets, and what the clang toolchain needs beside Debian's HIP.
#
#   HIP_LESSONS_AMD_TARGETS = auto (default) | a list such as "gfx90a;gfx942"
#
# auto builds every target of HIP_LESSONS_AMD_WANTED_TARGETS that this compiler can build:
# configure compiles a small HIP kernel for each one and keeps those that compile; the others
# are named with the compiler's own reason (Debian's clang-15 does not know gfx942 or gfx1201,
# LLVM 19 does not know gfx950). A list is taken as it is: a target that does not compile stops
# the configure with the compiler's message. The result is HIP_LESSONS_AMD_TARGETS_BUILT.
#
# For HIP_LESSONS_AMD_TOOLCHAIN = clang (clang++-19 or later with an installed HIP that its
# driver does not know by itself, Debian's), everything the compiler lacks is made in the build
# directory, never in the source tree or the system:
#   <build>/amdgcn/bitcode   the installed device libraries (links), plus the one-constant
#                            library oclc_isa_version_<N>.bc of each target that has none
#                            (__oclc_ISA_version = major * 1000 + minor * 100 + stepping, the
#                            value the installed ones hold: 9010 for gfx90a, 10300 for gfx1030)
#   <build>/amdgcn/bin       clang-offload-bundler, when the compiler's own directory has none
#                            (Debian packages it in clang-tools-NN; hipcc brings clang-tools-15's)
# and HIP_LESSONS_AMD_CLANG_FLAGS holds the flags that point the compiler at them.

set(HIP_LESSONS_AMD_WANTED_TARGETS gfx906 gfx908 gfx90a gfx942 gfx950 gfx1030 gfx1100 gfx1201)
set(HIP_LESSONS_AMD_TARGETS "auto" CACHE STRING
  "AMD offload targets: auto (those of ${HIP_LESSONS_AMD_WANTED_TARGETS} this compiler builds) or a list")

# __oclc_ISA_version of a target: gfx<major><minor><stepping>, minor and stepping one hex digit.
function(_hl_amd_isa_version target out)
  string(REGEX REPLACE ":.*" "" name "${target}")
  if(NOT name MATCHES "^gfx([0-9]+)([0-9a-f])([0-9a-f])$")
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  set(major "${CMAKE_MATCH_1}")
  math(EXPR minor "0x${CMAKE_MATCH_2}")
  math(EXPR stepping "0x${CMAKE_MATCH_3}")
  math(EXPR version "${major} * 1000 + ${minor} * 100 + ${stepping}")
  set(${out} "${version}" PARENT_SCOPE)
endfunction()

set(HIP_LESSONS_AMD_CLANG_FLAGS "")
if(HIP_LESSONS_AMD_TOOLCHAIN STREQUAL "clang")
  set(_hl_amdgcn "${CMAKE_BINARY_DIR}/amdgcn")
  get_filename_component(_hl_clang_real "${CMAKE_CXX_COMPILER}" REALPATH)
  get_filename_component(_hl_clang_bin "${_hl_clang_real}" DIRECTORY)
  get_filename_component(_hl_clang_root "${_hl_clang_bin}" DIRECTORY)

  # The HIP install: its headers and runtime (--rocm-path) and its device libraries.
  find_path(HIP_LESSONS_HIP_INCLUDE_DIR hip/hip_runtime.h
    HINTS "$ENV{HIP_PATH}/include" "$ENV{ROCM_PATH}/include" /opt/rocm/include /usr/include
    DOC "include directory of the installed HIP")
  if(NOT HIP_LESSONS_HIP_INCLUDE_DIR)
    message(FATAL_ERROR "HIP headers (hip/hip_runtime.h) not found for ${CMAKE_CXX_COMPILER}; "
                        "on Debian/Ubuntu 'apt-get install libamdhip64-dev'.")
  endif()
  get_filename_component(_hl_hip_prefix "${HIP_LESSONS_HIP_INCLUDE_DIR}" DIRECTORY)
  file(GLOB _hl_rocm_llvm_bitcode "${_hl_hip_prefix}/lib/llvm/lib/clang/*/lib/amdgcn/bitcode")
  find_path(HIP_LESSONS_DEVICE_LIB_DIR ocml.bc
    HINTS "${_hl_hip_prefix}/amdgcn/bitcode"
          "${_hl_hip_prefix}/lib/${CMAKE_LIBRARY_ARCHITECTURE}/amdgcn/bitcode"
          "${_hl_hip_prefix}/lib/x86_64-linux-gnu/amdgcn/bitcode" ${_hl_rocm_llvm_bitcode}
    NO_DEFAULT_PATH DOC "the installed AMD device libraries (ocml.bc, ockl.bc, oclc_*.bc)")
  if(NOT HIP_LESSONS_DEVICE_LIB_DIR)
    message(FATAL_ERROR "AMD device libraries (ocml.bc) not found under ${_hl_hip_prefix}; on "
                        "Debian/Ubuntu 'apt-get install rocm-device-libs'.")
  endif()
  file(MAKE_DIRECTORY "${_hl_amdgcn}/bitcode" "${_hl_amdgcn}/bin")
  file(GLOB _hl_installed_bitcode "${HIP_LESSONS_DEVICE_LIB_DIR}/*.bc")
  foreach(library IN LISTS _hl_installed_bitcode)
    get_filename_component(name "${library}" NAME)
    if(NOT EXISTS "${_hl_amdgcn}/bitcode/${name}")
      file(CREATE_LINK "${library}" "${_hl_amdgcn}/bitcode/${name}" SYMBOLIC)
    endif()
  endforeach()

  # The offload bundler packs each target's code object into the host object.
  find_program(_hl_own_bundler clang-offload-bundler HINTS "${_hl_clang_bin}" NO_DEFAULT_PATH
               NO_CACHE)
  set(_hl_bundler_dir "")
  if(NOT _hl_own_bundler)
    find_program(HIP_LESSONS_OFFLOAD_BUNDLER
      NAMES clang-offload-bundler-22 clang-offload-bundler-21 clang-offload-bundler-20
            clang-offload-bundler-19 clang-offload-bundler-18 clang-offload-bundler-17
            clang-offload-bundler-16 clang-offload-bundler-15 clang-offload-bundler
      DOC "clang-offload-bundler (Debian: clang-tools-NN; hipcc depends on clang-tools-15)")
    if(NOT HIP_LESSONS_OFFLOAD_BUNDLER)
      message(FATAL_ERROR "${CMAKE_CXX_COMPILER} needs clang-offload-bundler and none was found; "
                          "on Debian 12 'apt-get install clang-tools-19' (or hipcc).")
    endif()
    if(NOT EXISTS "${_hl_amdgcn}/bin/clang-offload-bundler")
      file(CREATE_LINK "${HIP_LESSONS_OFFLOAD_BUNDLER}" "${_hl_amdgcn}/bin/clang-offload-bundler"
           SYMBOLIC)
    endif()
    set(_hl_bundler_dir "${_hl_amdgcn}/bin/")
  endif()

  # hip-config.cmake links clang's compiler-rt builtins (for _Float16 on the host) and stops
  # when the compiler's resource directory has none, which is so for Debian's clang-19 without
  # libclang-rt-19-dev. The builtins of another clang (hipcc's clang-15) are the same library.
  file(GLOB _hl_builtins "${_hl_clang_root}/lib/clang/*/lib/*/libclang_rt.builtins*.a")
  if(NOT _hl_builtins)
    file(GLOB _hl_builtins /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.builtins-x86_64.a)
    if(_hl_builtins)
      list(GET _hl_builtins 0 _hl_builtins)
      set(CLANGRT_BUILTINS "${_hl_builtins}" CACHE FILEPATH "compiler-rt builtins for HIP")
    endif()
  endif()

  set(HIP_LESSONS_AMD_CLANG_FLAGS "--rocm-path=${_hl_hip_prefix}"
      "--rocm-device-lib-path=${_hl_amdgcn}/bitcode")
  if(_hl_bundler_dir)
    list(APPEND HIP_LESSONS_AMD_CLANG_FLAGS "-B${_hl_bundler_dir}")
  endif()
endif()

# The LLVM tools that read the build's code objects (the common.amd_trace_reads.* tests):
# llvm-objdump and llvm-objcopy of the compiler's own LLVM (an older llvm-objdump cannot decode
# newer targets), found where the compiler says it is installed ("InstalledDir" of --version:
# /usr/lib/llvm-19/bin for clang++-19, /usr/bin with the -15 suffix for Debian's hipcc), and the
# offload bundler the build packs them with (for clang-19 on Debian, hipcc's: same format).
execute_process(COMMAND "${CMAKE_CXX_COMPILER}" --version OUTPUT_VARIABLE _hl_compiler_version
                ERROR_QUIET)
string(REGEX MATCH "clang version ([0-9]+)" _hl_match "${_hl_compiler_version}")
set(_hl_llvm_major "${CMAKE_MATCH_1}")
string(REGEX MATCH "InstalledDir: ([^\n]*)" _hl_match "${_hl_compiler_version}")
set(_hl_llvm_dirs "${CMAKE_MATCH_1}")
get_filename_component(_hl_compiler_dir "${CMAKE_CXX_COMPILER}" REALPATH)
get_filename_component(_hl_compiler_dir "${_hl_compiler_dir}" DIRECTORY)
list(APPEND _hl_llvm_dirs "${_hl_compiler_dir}")
foreach(tool objdump objcopy)
  string(TOUPPER "${tool}" upper)
  find_program(HIP_LESSONS_AMD_${upper} NAMES llvm-${tool}-${_hl_llvm_major} llvm-${tool}
    HINTS ${_hl_llvm_dirs} NO_DEFAULT_PATH
    DOC "llvm-${tool} of the AMD compiler's LLVM, for the code-object checks")
endforeach()
if(HIP_LESSONS_AMD_TOOLCHAIN STREQUAL "clang")
  if(_hl_own_bundler)
    set(_hl_build_bundler "${_hl_own_bundler}")
  else()
    set(_hl_build_bundler "${HIP_LESSONS_OFFLOAD_BUNDLER}")
  endif()
  set(HIP_LESSONS_AMD_BUNDLER "${_hl_build_bundler}" CACHE FILEPATH
      "clang-offload-bundler that reads the build's offload bundles" FORCE)
else()
  find_program(HIP_LESSONS_AMD_BUNDLER
    NAMES clang-offload-bundler-${_hl_llvm_major} clang-offload-bundler
    HINTS ${_hl_llvm_dirs} NO_DEFAULT_PATH
    DOC "clang-offload-bundler that reads the build's offload bundles")
endif()
if(NOT HIP_LESSONS_AMD_OBJDUMP OR NOT HIP_LESSONS_AMD_OBJCOPY OR NOT HIP_LESSONS_AMD_BUNDLER)
  message(STATUS "HIP lessons: no llvm-objdump, llvm-objcopy or clang-offload-bundler beside "
                 "${CMAKE_CXX_COMPILER} (clang ${_hl_llvm_major}); common.amd_trace_reads.* skip")
endif()

# Makes <build>/amdgcn/bitcode/oclc_isa_version_<N>.bc for \p target when the installed device
# libraries have none (clang toolchain only).
function(_hl_amd_isa_library target)
  if(NOT HIP_LESSONS_AMD_TOOLCHAIN STREQUAL "clang")
    return()
  endif()
  string(REGEX REPLACE ":.*" "" name "${target}")
  string(REGEX REPLACE "^gfx" "" suffix "${name}")
  set(library "${CMAKE_BINARY_DIR}/amdgcn/bitcode/oclc_isa_version_${suffix}.bc")
  _hl_amd_isa_version("${name}" version)
  if(EXISTS "${library}" OR NOT version)
    return()
  endif()
  set(source "${CMAKE_BINARY_DIR}/amdgcn/isa_version_${suffix}.cl")
  file(WRITE "${source}"
    "// Written by HipLessonsAmdTargets.cmake: the ISA version the AMD device libraries read.\n"
    "__attribute__((visibility(\"protected\"))) const __constant int __oclc_ISA_version = "
    "${version};\n")
  # No code-object-version global: the device libraries' oclc_abi_version_<N>.bc carries it.
  execute_process(
    COMMAND "${CMAKE_CXX_COMPILER}" -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -nogpulib
            -Xclang -mcode-object-version=none -emit-llvm -c "${source}" -o "${library}"
    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    file(REMOVE "${library}")
    message(STATUS "HIP lessons: could not make oclc_isa_version_${suffix}.bc: ${output}")
  endif()
endfunction()

# Compiles \p body (a HIP source) for \p target alone; sets \p ok and, on failure, \p reason
# to the compiler's first error line.
function(_hl_amd_probe target name body ok reason)
  set(dir "${CMAKE_BINARY_DIR}/CMakeFiles/hip_lessons_amd_probe")
  file(WRITE "${dir}/${name}.hip" "${body}")
  _hl_amd_isa_library("${target}")
  execute_process(
    COMMAND "${CMAKE_CXX_COMPILER}" ${HIP_LESSONS_AMD_CLANG_FLAGS} -x hip "--offload-arch=${target}"
            "-I${PROJECT_SOURCE_DIR}/common/include" -std=c++17 --cuda-device-only -O1 -c
            "${dir}/${name}.hip" -o "${dir}/${name}-${target}.o"
    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(result EQUAL 0)
    set(${ok} TRUE PARENT_SCOPE)
    set(${reason} "" PARENT_SCOPE)
  else()
    string(REGEX MATCH "error[^\n;]*" first_error "${output}")
    if(NOT first_error)
      string(REGEX REPLACE "\n.*" "" first_error "${output}")
    endif()
    set(${ok} FALSE PARENT_SCOPE)
    set(${reason} "${first_error}" PARENT_SCOPE)
  endif()
endfunction()

# A kernel with a device-library call and the project's clock and unit-id reads: the target is
# usable at all, and amd_trace_reads.hpp has its row (else the compile error names the target).
# (One string: the pieces of a CMake list would be joined with ';'.)
set(_hl_probe_kernel "#include <hip/hip_runtime.h>\n#include \"hip_lessons/block_trace.hpp\"\n\
__global__ void probe(float* x) {\n\
  x[threadIdx.x] = sinf(x[threadIdx.x]) + hip_lessons::hardware_unit_id() +\n\
                   hip_lessons::constant_rate_clock();\n\
}\n")

# Features a target may lack with this toolchain: a kernel that uses it, and the pattern that
# shows a source uses it (in its text or in a header it includes with quotes).
# - grid_sync: HIP 5.2's device library synchronizes a grid with GWS (ds_gws_barrier), which
#   gfx12 does not have; later device libraries avoid GWS there.
# - textures: HIP has no image support on gfx940-gfx942 and gfx950 (the HIP headers mark the
#   texture functions unavailable there).
set(HIP_LESSONS_AMD_FEATURES grid_sync textures)
set(_hl_feature_grid_sync_what "cooperative groups (grid sync)")
set(_hl_feature_grid_sync_pattern "hip_cooperative_groups\\.h")
set(_hl_feature_grid_sync_probe
  "#include <hip/hip_runtime.h>\n#include <hip/hip_cooperative_groups.h>\n"
  "__global__ void probe(int* x) { x[blockIdx.x] = 1; cooperative_groups::this_grid().sync(); }\n")
set(_hl_feature_textures_what "textures")
set(_hl_feature_textures_pattern "tex1Dfetch|tex[123]D[A-Za-z]*[ \t]*[<(]")
set(_hl_feature_textures_probe
  "#include <hip/hip_runtime.h>\n"
  "__global__ void probe(hipTextureObject_t t, float* x) {\n"
  "  x[threadIdx.x] = tex1Dfetch<float>(t, threadIdx.x);\n}\n")

# Probes once per compiler and request; later configures reuse the answer.
set(_hl_request "5|${CMAKE_CXX_COMPILER}|${HIP_LESSONS_AMD_TARGETS}|${HIP_LESSONS_AMD_CLANG_FLAGS}")
if(NOT _hl_request STREQUAL "${HIP_LESSONS_AMD_TARGETS_REQUEST}")
  if(HIP_LESSONS_AMD_TARGETS STREQUAL "auto")
    set(_hl_candidates ${HIP_LESSONS_AMD_WANTED_TARGETS})
  else()
    set(_hl_candidates ${HIP_LESSONS_AMD_TARGETS})
  endif()
  set(_hl_built "")
  set(_hl_not_built "")
  foreach(feature IN LISTS HIP_LESSONS_AMD_FEATURES)
    set(_hl_without_${feature} "")
    set(_hl_why_${feature} "")
  endforeach()
  foreach(target IN LISTS _hl_candidates)
    _hl_amd_probe("${target}" kernel "${_hl_probe_kernel}" ok reason)
    if(ok)
      list(APPEND _hl_built "${target}")
      foreach(feature IN LISTS HIP_LESSONS_AMD_FEATURES)
        _hl_amd_probe("${target}" ${feature} "${_hl_feature_${feature}_probe}" has why)
        if(NOT has)
          list(APPEND _hl_without_${feature} "${target}")
          list(APPEND _hl_why_${feature} "${target} (${why})")
        endif()
      endforeach()
    elseif(HIP_LESSONS_AMD_TARGETS STREQUAL "auto")
      list(APPEND _hl_not_built "${target} (${reason})")
    else()
      message(FATAL_ERROR "HIP_LESSONS_AMD_TARGETS names ${target}, which ${CMAKE_CXX_COMPILER} "
                          "cannot build: ${reason}")
    endif()
  endforeach()
  if(NOT _hl_built)
    message(FATAL_ERROR "${CMAKE_CXX_COMPILER} builds none of the AMD targets "
                        "${_hl_candidates}: ${_hl_not_built}")
  endif()
  list(JOIN _hl_not_built "; " _hl_not_built)
  set(HIP_LESSONS_AMD_TARGETS_BUILT "${_hl_built}" CACHE INTERNAL "AMD targets this build makes")
  set(HIP_LESSONS_AMD_TARGETS_NOT_BUILT "${_hl_not_built}" CACHE INTERNAL "and those it cannot")
  foreach(feature IN LISTS HIP_LESSONS_AMD_FEATURES)
    list(JOIN _hl_why_${feature} "; " why)
    set(HIP_LESSONS_AMD_TARGETS_WITHOUT_${feature} "${_hl_without_${feature}}" CACHE INTERNAL
        "AMD targets that cannot build ${_hl_feature_${feature}_what} here")
    set(HIP_LESSONS_AMD_WHY_NOT_${feature} "${why}" CACHE INTERNAL "and why")
  endforeach()
  set(HIP_LESSONS_AMD_TARGETS_REQUEST "${_hl_request}" CACHE INTERNAL "what was probed")
endif()
foreach(target IN LISTS HIP_LESSONS_AMD_TARGETS_BUILT)
  _hl_amd_isa_library("${target}")  # again, in case the build directory lost it
endforeach()
if(HIP_LESSONS_AMD_TARGETS_NOT_BUILT)
  message(STATUS "HIP lessons: not built for ${HIP_LESSONS_AMD_TARGETS_NOT_BUILT}")
endif()
# What traces show on each target: its row of amd_trace_reads.hpp, printed by a small host
# program built from the same header (common/cmake/describe_amd_trace_reads.cpp).
if(NOT HIP_LESSONS_AMD_TRACE_READS_REQUEST STREQUAL _hl_request)
  try_run(_hl_describe_run _hl_describe_compiled
    "${CMAKE_BINARY_DIR}/CMakeFiles/hip_lessons_trace_reads"
    "${PROJECT_SOURCE_DIR}/common/cmake/describe_amd_trace_reads.cpp"
    CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${PROJECT_SOURCE_DIR}/common/include"
    CXX_STANDARD 17
    COMPILE_OUTPUT_VARIABLE _hl_describe_log
    RUN_OUTPUT_VARIABLE _hl_describe_lines
    ARGS ${HIP_LESSONS_AMD_TARGETS_BUILT})
  if(NOT _hl_describe_compiled OR NOT _hl_describe_run EQUAL 0)
    string(REGEX MATCH "error[^\n]*" _hl_describe_lines "${_hl_describe_log}")
    set(_hl_describe_lines "could not build common/cmake/describe_amd_trace_reads.cpp: "
                           "${_hl_describe_lines}")
  endif()
  # One list item per target: a cache value cannot hold a line break (CMake keeps the first line).
  string(REPLACE "\n" ";" _hl_describe_lines "${_hl_describe_lines}")
  set(HIP_LESSONS_AMD_TRACE_READS "${_hl_describe_lines}" CACHE INTERNAL
      "what block traces read on each AMD target built")
  set(HIP_LESSONS_AMD_TRACE_READS_REQUEST "${_hl_request}" CACHE INTERNAL "what was described")
endif()
foreach(line IN LISTS HIP_LESSONS_AMD_TRACE_READS)
  if(line)
    message(STATUS "HIP lessons: ${line}")
  endif()
endforeach()
foreach(feature IN LISTS HIP_LESSONS_AMD_FEATURES)
  if(HIP_LESSONS_AMD_TARGETS_WITHOUT_${feature})
    message(STATUS "HIP lessons: sources that use ${_hl_feature_${feature}_what} are not built "
                   "for ${HIP_LESSONS_AMD_WHY_NOT_${feature}}")
  endif()
endforeach()

# The built targets that \p source cannot be compiled for: those lacking a feature the source
# uses (its text, or a header it includes with quotes, looked up beside the including file and
# in common/include, recursively, matches the feature's pattern). Sets \p result.
function(hip_lessons_amd_targets_to_skip source result)
  set(skip "")
  set(features "")
  foreach(feature IN LISTS HIP_LESSONS_AMD_FEATURES)
    if(HIP_LESSONS_AMD_TARGETS_WITHOUT_${feature})
      list(APPEND features ${feature})
    endif()
  endforeach()
  if(features)
    get_filename_component(source "${source}" ABSOLUTE)
    set(pending "${source}")
    set(seen "")
    while(pending)
      list(POP_FRONT pending file)
      if(file IN_LIST seen OR NOT EXISTS "${file}")
        continue()
      endif()
      list(APPEND seen "${file}")
      file(READ "${file}" text)
      foreach(feature IN LISTS features)
        if(text MATCHES "${_hl_feature_${feature}_pattern}")
          list(APPEND skip ${HIP_LESSONS_AMD_TARGETS_WITHOUT_${feature}})
        endif()
      endforeach()
      get_filename_component(dir "${file}" DIRECTORY)
      string(REGEX MATCHALL "#[ \t]*include[ \t]*\"[^\"]+\"" includes "${text}")
      foreach(line IN LISTS includes)
        string(REGEX REPLACE ".*\"([^\"]+)\"" "\\1" header "${line}")
        list(APPEND pending "${dir}/${header}" "${PROJECT_SOURCE_DIR}/common/include/${header}")
      endforeach()
    endwhile()
    list(REMOVE_DUPLICATES skip)
  endif()
  set(${result} "${skip}" PARENT_SCOPE)
endfunction()
