# Sets up the selected GPU platform and provides
#
#   hip_lessons_add_executable(<target> SOURCES <files...>)
#
# which compiles .hip files as HIP (AMD: hipcc/clang with --offload-arch) or as CUDA
# (NVIDIA: nvcc, with HIP headers from the system or from common/hip_on_cuda) and links
# the shared helper library.

add_library(hip_lessons_platform INTERFACE)

if(HIP_LESSONS_PLATFORM_RESOLVED STREQUAL "amd")
  include(HipLessonsAmdTargets)
  # hip-config.cmake reads these to add --offload-arch to hip::device.
  set(GPU_TARGETS "${HIP_LESSONS_AMD_TARGETS_BUILT}" CACHE STRING "AMD offload targets" FORCE)
  set(AMDGPU_TARGETS "${HIP_LESSONS_AMD_TARGETS_BUILT}" CACHE STRING "AMD offload targets" FORCE)
  find_package(hip CONFIG QUIET HINTS "$ENV{ROCM_PATH}" "$ENV{HIP_PATH}" /opt/rocm)
  if(NOT hip_FOUND)
    message(FATAL_ERROR
      "HIP (AMD) was selected but hip-config.cmake was not found. Install ROCm or, on "
      "Debian/Ubuntu, 'apt-get install hipcc libamdhip64-dev'; or add the HIP prefix to "
      "CMAKE_PREFIX_PATH.")
  endif()
  target_link_libraries(hip_lessons_platform INTERFACE hip::device)
  target_compile_options(hip_lessons_platform INTERFACE
    "$<$<COMPILE_LANGUAGE:CXX>:${HIP_LESSONS_AMD_CLANG_FLAGS}>")
  set(HIP_LESSONS_HIP_HEADERS "installed HIP ${hip_VERSION}")
  set(HIP_LESSONS_GPU_LANGUAGE CXX)
  message(STATUS "HIP lessons: AMD, HIP ${hip_VERSION}, ${HIP_LESSONS_AMD_TOOLCHAIN} "
                 "${CMAKE_CXX_COMPILER} (${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}), "
                 "offload targets ${HIP_LESSONS_AMD_TARGETS_BUILT}")
  message(STATUS "HIP lessons: why this compiler: ${HIP_LESSONS_AMD_COMPILER_REASON}")

elseif(HIP_LESSONS_PLATFORM_RESOLVED STREQUAL "nvidia")
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures (90 = H100/H200)")
  endif()
  enable_language(CUDA)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  find_package(CUDAToolkit REQUIRED)

  # HIP headers for NVIDIA: the system HIP's own (hip/nvidia_detail) when they compile with
  # this CUDA, else the project's layer. Debian's HIP 5.2 headers fail on CUDA 13.
  set(HIP_LESSONS_NVIDIA_HIP_HEADERS "auto" CACHE STRING
    "HIP headers on NVIDIA: auto, system (installed HIP's NVIDIA headers) or project (common/hip_on_cuda)")
  set_property(CACHE HIP_LESSONS_NVIDIA_HIP_HEADERS PROPERTY STRINGS auto system project)
  set(_hl_layer "${PROJECT_SOURCE_DIR}/common/hip_on_cuda/include")
  set(_hl_use_system FALSE)
  if(NOT HIP_LESSONS_NVIDIA_HIP_HEADERS STREQUAL "project")
    find_path(HIP_LESSONS_SYSTEM_HIP_INCLUDE hip/nvidia_detail/nvidia_hip_runtime.h
      HINTS "$ENV{HIP_PATH}/include" "$ENV{ROCM_PATH}/include" /opt/rocm/include
      DOC "include directory of an installed HIP with NVIDIA headers")
    if(HIP_LESSONS_SYSTEM_HIP_INCLUDE)
      set(_hl_probe_dir "${CMAKE_BINARY_DIR}/CMakeFiles/hip_lessons_probe")
      file(WRITE "${_hl_probe_dir}/probe.cu"
        "#include <hip/hip_runtime.h>\n"
        "__global__ void probe(float* x) { x[hipThreadIdx_x] = 1.0f; }\n"
        "int main() { hipDeviceProp_t p; (void)hipGetDeviceProperties(&p, 0);\n"
        "  hipLaunchKernelGGL(probe, dim3(1), dim3(1), 0, 0, nullptr); return 0; }\n")
      try_compile(_hl_system_ok "${_hl_probe_dir}/build" "${_hl_probe_dir}/probe.cu"
        COMPILE_DEFINITIONS -D__HIP_PLATFORM_NVIDIA__ -I${HIP_LESSONS_SYSTEM_HIP_INCLUDE}
        OUTPUT_VARIABLE _hl_probe_log)
      if(_hl_system_ok)
        set(_hl_use_system TRUE)
      else()
        string(REGEX MATCHALL "error" _hl_errors "${_hl_probe_log}")
        list(LENGTH _hl_errors _hl_error_count)
        message(STATUS "HIP lessons: the installed HIP's NVIDIA headers in "
          "${HIP_LESSONS_SYSTEM_HIP_INCLUDE} do not compile with CUDA "
          "${CMAKE_CUDA_COMPILER_VERSION} (${_hl_error_count} error lines)")
      endif()
    endif()
    if(HIP_LESSONS_NVIDIA_HIP_HEADERS STREQUAL "system" AND NOT _hl_use_system)
      message(FATAL_ERROR "HIP_LESSONS_NVIDIA_HIP_HEADERS=system, but no installed HIP "
        "NVIDIA headers compile with this CUDA; use 'auto' or 'project'.")
    endif()
  endif()
  target_compile_definitions(hip_lessons_platform INTERFACE __HIP_PLATFORM_NVIDIA__)
  if(_hl_use_system)
    target_include_directories(hip_lessons_platform SYSTEM INTERFACE "${HIP_LESSONS_SYSTEM_HIP_INCLUDE}")
    set(HIP_LESSONS_HIP_HEADERS "system HIP NVIDIA headers (${HIP_LESSONS_SYSTEM_HIP_INCLUDE})")
  else()
    # Before /usr/include, so a Debian HIP install beside CUDA does not shadow the layer.
    target_include_directories(hip_lessons_platform BEFORE INTERFACE "${_hl_layer}")
    set(HIP_LESSONS_HIP_HEADERS "project layer common/hip_on_cuda")
    set(HIP_LESSONS_HIP_ON_CUDA TRUE)
  endif()
  target_link_libraries(hip_lessons_platform INTERFACE CUDA::cudart)
  set(HIP_LESSONS_GPU_LANGUAGE CUDA)
  message(STATUS "HIP lessons: NVIDIA, CUDA ${CMAKE_CUDA_COMPILER_VERSION}, "
                 "architectures ${CMAKE_CUDA_ARCHITECTURES}, HIP headers: ${HIP_LESSONS_HIP_HEADERS}")
endif()

# Warnings for host code in every flavour; nvcc forwards them to the host compiler.
if(HIP_LESSONS_GPU_LANGUAGE STREQUAL "CUDA")
  target_compile_options(hip_lessons_platform INTERFACE
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
endif()

# A source that uses a feature some AMD targets cannot build with this toolchain (grid sync on
# gfx12 with HIP 5.2's device library, textures on gfx942: HipLessonsAmdTargets.cmake) is not
# compiled for those targets: --no-offload-arch after the target's --offload-arch list. Its
# kernels then report hipErrorNoBinaryForGpu on such a GPU.
function(_hl_skip_amd_targets target source)
  if(NOT HIP_LESSONS_PLATFORM_RESOLVED STREQUAL "amd")
    return()
  endif()
  hip_lessons_amd_targets_to_skip("${source}" skip)
  if(skip)
    list(TRANSFORM skip PREPEND "--no-offload-arch=")
    set_property(SOURCE ${source} TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_OPTIONS ${skip})
  endif()
endfunction()

function(hip_lessons_add_executable target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "hip_lessons_add_executable(${target}): SOURCES is required")
  endif()
  add_executable(${target} ${ARG_SOURCES})
  foreach(source IN LISTS ARG_SOURCES)
    if(source MATCHES "\\.hip$")
      set_source_files_properties(${source} TARGET_DIRECTORY ${target}
        PROPERTIES LANGUAGE ${HIP_LESSONS_GPU_LANGUAGE})
      _hl_skip_amd_targets(${target} ${source})
    endif()
  endforeach()
  target_link_libraries(${target} PRIVATE hip_lessons::common hip_lessons_platform)
endfunction()

# hip_lessons_add_code_object(<target> SOURCE <file.hip> OUTPUT <path without extension>
#                             [RESULT_VARIABLE <var>] [DEPENDS <headers>...])
# Compiles SOURCE on its own into a code object for the module API (hipModuleLoad): a fatbin
# with SASS and PTX for CMAKE_CUDA_ARCHITECTURES on NVIDIA (OUTPUT.fatbin), an AMDGPU code
# object for HIP_LESSONS_AMD_TARGETS_BUILT on AMD (OUTPUT.co, the AMD compiler's device-only
# output, as hipcc --genco makes it). Adds the custom target <target> that builds it and sets
# RESULT_VARIABLE to the file's path. Quoted includes resolve beside SOURCE; list
# the headers it includes in DEPENDS so that editing them rebuilds the code object.
function(hip_lessons_add_code_object target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SOURCE;OUTPUT;RESULT_VARIABLE" "DEPENDS")
  if(NOT ARG_SOURCE OR NOT ARG_OUTPUT)
    message(FATAL_ERROR "hip_lessons_add_code_object(${target}): SOURCE and OUTPUT are required")
  endif()
  get_filename_component(source "${ARG_SOURCE}" ABSOLUTE)
  set(depends)
  foreach(header IN LISTS ARG_DEPENDS)
    get_filename_component(header "${header}" ABSOLUTE)
    list(APPEND depends "${header}")
  endforeach()
  set(file "")
  if(HIP_LESSONS_PLATFORM_RESOLVED STREQUAL "nvidia")
    set(file "${ARG_OUTPUT}.fatbin")
    set(arch_flags)
    foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
      string(REGEX REPLACE "-(real|virtual)$" "" arch "${arch}")
      if(arch MATCHES "^[0-9]+[a-z]?$")
        list(APPEND arch_flags "-gencode=arch=compute_${arch},code=[sm_${arch},compute_${arch}]")
      endif()
    endforeach()
    if(NOT arch_flags)  # "native", "all", "all-major"
      set(arch_flags "-arch=${CMAKE_CUDA_ARCHITECTURES}")
    endif()
    add_custom_command(
      OUTPUT "${file}"
      COMMAND "${CMAKE_CUDA_COMPILER}" -fatbin -x cu -std=c++17 ${arch_flags}
              -D__HIP_PLATFORM_NVIDIA__
              "-I$<JOIN:$<TARGET_PROPERTY:hip_lessons_platform,INTERFACE_INCLUDE_DIRECTORIES>,;-I>"
              -o "${file}" "${source}"
      DEPENDS "${source}" ${depends}
      COMMENT "Building code object ${file}"
      COMMAND_EXPAND_LISTS VERBATIM)
  elseif(HIP_LESSONS_PLATFORM_RESOLVED STREQUAL "amd")
    set(file "${ARG_OUTPUT}.co")
    set(arch_flags)
    hip_lessons_amd_targets_to_skip("${source}" skip)
    foreach(arch IN LISTS HIP_LESSONS_AMD_TARGETS_BUILT)
      if(NOT arch IN_LIST skip)
        list(APPEND arch_flags "--offload-arch=${arch}")
      endif()
    endforeach()
    # Device code only (hipcc --genco is clang's --cuda-device-only): one bundle holding a code
    # object per target, which hipModuleLoad accepts.
    if(HIP_LESSONS_AMD_TOOLCHAIN STREQUAL "hipcc")
      set(device_only --genco)
    else()
      set(device_only ${HIP_LESSONS_AMD_CLANG_FLAGS} -x hip --cuda-device-only -O3)
    endif()
    add_custom_command(
      OUTPUT "${file}"
      COMMAND "${CMAKE_CXX_COMPILER}" ${device_only} -std=c++17 ${arch_flags} -o "${file}"
              "${source}"
      DEPENDS "${source}" ${depends}
      COMMENT "Building code object ${file}"
      VERBATIM)
  endif()
  if(file)
    add_custom_target(${target} DEPENDS "${file}")
  endif()
  if(ARG_RESULT_VARIABLE)
    set(${ARG_RESULT_VARIABLE} "${file}" PARENT_SCOPE)
  endif()
endfunction()
