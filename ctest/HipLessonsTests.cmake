# Registers tests the same way for every lesson.
#
#   hip_lessons_add_test(NAME <name> COMMAND <cmd> [args...] LABELS <labels...>
#                        [GPU | GPU_SHARED] [TIMEOUT <seconds>]
#                        [SKIP_REGULAR_EXPRESSION <regex>])
#       One CTest test. Exit code 77 is a skip everywhere (and so is output matching
#       SKIP_REGULAR_EXPRESSION). A GPU test has the GPU to itself: it takes every GPU lane
#       (resource locks gpu, gpu_lane_1 .. gpu_lane_<N-1>, N = HIP_LESSONS_GPU_LANES), so
#       `ctest -j` never runs it beside another GPU test; it may time work or check that
#       kernels overlap. A GPU_SHARED test times nothing and enforces no overlap (a
#       compute-sanitizer run, a malformed environment): it takes one lane, so up to N of them
#       share the GPU, and never beside a GPU test. Both get the label gpu unless they are unit
#       tests (which run anywhere and use a GPU only where there is one): `ctest -L gpu`
#       selects every test that needs a GPU, the speed, sanitize and profiler tests included.
#
#   hip_lessons_add_lesson(NUMBER <NN> NAME <name> SOURCES <files...> [TRACE]
#                          [BENCH <file>] [CHECK_ARGS ...] [SPEED_ARGS ...]
#                          [TOUR_ARGS ...] [TOO_LARGE_ARGS ...] [BAD_INPUT <case> "<args>" ...]
#                          [SANITIZE_ARGS ...] [BENCH_SMOKE_ARGS ...] [TIMEOUT <seconds>]
#                          [MINIMAL <file.hip>])
#       Builds bin/lessonNN_<name> (and bin/lessonNN_<name>_bench, bin/lessonNN_minimal) and
#       registers
#         lessonNN.minimal        gpu           : (MINIMAL) the lesson's plain first look: a
#                                                 standalone program that checks its own result
#         lessonNN.check          gpu           : correctness on random inputs
#         lessonNN.trace_file     gpu           : (TRACE) --check --trace FILE writes the Chrome
#                                                 Trace Event Format (ctest/expect-trace-file.sh)
#         lessonNN.profiler       profiler, gpu : (TRACE, NVIDIA) the block traces agree with
#                                                 the vendor's profiler
#         lessonNN.speed          speed, gpu    : the declared speed checks, at their
#                                                 compiled-in thresholds (SPEED_ARGS: sizes,
#                                                 repeats)
#         lessonNN.bench          gpu           : a short Google Benchmark smoke run
#         lessonNN.bench_help     unit          : the benchmark binary's --help, without a GPU
#         lessonNN.bad_input.*    unit          : every bad argument exits 2 with a message,
#                                                 refused while parsing: a case that gets past
#                                                 parsing (exit 77 without a GPU) fails
#         lessonNN.help_defaults  unit          : --help shows the thresholds CMake configured
#         lessonNN.help_width     unit          : every line of --help within 100 columns
#         lessonNN.environment.*  gpu           : a malformed environment warns or skips,
#                                                 never crashes
#         lessonNN.sanitize.*     sanitize, gpu : compute-sanitizer on SANITIZE_ARGS (default
#                                                 --check)
#       all with the label lessonNN. TOUR_ARGS are what ctest/quickstart.sh passes when it
#       runs the lessons in order; BENCH_SMOKE_ARGS narrow the benchmark smoke run (a filter).

set(HIP_LESSONS_EXPECT_EXIT "${CMAKE_CURRENT_LIST_DIR}/expect-exit.sh")
set(HIP_LESSONS_LESSON_MANIFEST "${CMAKE_BINARY_DIR}/lessons.tsv")
file(WRITE "${HIP_LESSONS_LESSON_MANIFEST}" "")
file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/results")  # benchmark smoke runs write JSON here
set(CMAKE_RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
if(HIP_LESSONS_PLATFORM_RESOLVED STREQUAL "nvidia")
  get_filename_component(_hl_cuda_bin "${CMAKE_CUDA_COMPILER}" DIRECTORY)
  find_program(HIP_LESSONS_COMPUTE_SANITIZER compute-sanitizer HINTS "${_hl_cuda_bin}"
    DOC "compute-sanitizer for the 'sanitize' test label")
endif()

# GPU lanes: how many GPU_SHARED tests may share the GPU at once (hip_lessons_add_test).
set(HIP_LESSONS_GPU_LANES 4 CACHE STRING
  "GPU tests that time nothing and enforce no overlap (sanitizer runs, malformed environments) that may share the GPU at once")
if(NOT HIP_LESSONS_GPU_LANES MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "HIP_LESSONS_GPU_LANES='${HIP_LESSONS_GPU_LANES}' is not a count of 1 or more")
endif()
set(HIP_LESSONS_GPU_LANE_LOCKS gpu)
if(HIP_LESSONS_GPU_LANES GREATER 1)
  math(EXPR _hl_last_lane "${HIP_LESSONS_GPU_LANES} - 1")
  foreach(_hl_lane RANGE 1 ${_hl_last_lane})
    list(APPEND HIP_LESSONS_GPU_LANE_LOCKS gpu_lane_${_hl_lane})
  endforeach()
endif()

function(hip_lessons_add_test)
  if(NOT HIP_LESSONS_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 0 ARG "GPU;GPU_SHARED" "NAME;TIMEOUT;SKIP_REGULAR_EXPRESSION"
                        "COMMAND;LABELS")
  if(NOT ARG_NAME OR NOT ARG_COMMAND)
    message(FATAL_ERROR "hip_lessons_add_test: NAME and COMMAND are required")
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  if((ARG_GPU OR ARG_GPU_SHARED) AND NOT "unit" IN_LIST ARG_LABELS
     AND NOT "gpu" IN_LIST ARG_LABELS)
    list(APPEND ARG_LABELS gpu)
  endif()
  add_test(NAME ${ARG_NAME} COMMAND ${ARG_COMMAND})
  set_tests_properties(${ARG_NAME} PROPERTIES
    LABELS "${ARG_LABELS}" SKIP_RETURN_CODE 77 TIMEOUT ${ARG_TIMEOUT})
  if(ARG_GPU)
    set_tests_properties(${ARG_NAME} PROPERTIES RESOURCE_LOCK "${HIP_LESSONS_GPU_LANE_LOCKS}")
  elseif(ARG_GPU_SHARED)
    # Lanes are dealt round-robin in registration order, so a lesson's four sanitizer runs
    # land on four lanes.
    get_property(next GLOBAL PROPERTY HIP_LESSONS_NEXT_GPU_LANE)
    if(NOT next)
      set(next 0)
    endif()
    list(GET HIP_LESSONS_GPU_LANE_LOCKS ${next} lane)
    math(EXPR next "(${next} + 1) % ${HIP_LESSONS_GPU_LANES}")
    set_property(GLOBAL PROPERTY HIP_LESSONS_NEXT_GPU_LANE ${next})
    set_tests_properties(${ARG_NAME} PROPERTIES RESOURCE_LOCK ${lane})
  endif()
  if(ARG_SKIP_REGULAR_EXPRESSION)
    set_tests_properties(${ARG_NAME} PROPERTIES
      SKIP_REGULAR_EXPRESSION "${ARG_SKIP_REGULAR_EXPRESSION}")
  endif()
endfunction()

# Arguments every lesson must refuse with exit 2, before touching the GPU.
set(HIP_LESSONS_COMMON_BAD_INPUT
  size_zero          "--size 0"
  size_negative      "--size -5"
  size_not_a_number  "--size abc"
  size_trailing_junk "--size 12abc"
  size_overflow      "--size 99999999999999999999999"
  size_absurd        "--size 2^62"
  size_missing_value "--size"
  repeat_zero        "--repeat 0"
  repeat_not_a_number "--repeat many"
  seed_negative      "--seed -1"
  device_negative    "--device -1"
  unknown_flag       "--no-such-flag"
  stray_argument     "surplus"
  json_unwritable    "--json /nonexistent-directory/report.json")

# Malformed scheduling environments every lesson must survive: <setting> <exit code> <regex>,
# per platform. A variable the build ignores, or a malformed one, is named in a warning and the
# lesson runs; a device list that hides every GPU is a skip that names the variable. An empty
# CUDA_VISIBLE_DEVICES hides every GPU from CUDA and from HIP 5.5 on (ROCclr commit 38aa1bd4);
# HIP 5.4 and earlier read it as unset, warn (naming both rules) and run. The expectation
# follows the HIP this build found (hip_VERSION), the runtime the tests are expected to load.
if(HIP_LESSONS_PLATFORM_RESOLVED STREQUAL "amd")
  if(hip_VERSION VERSION_GREATER_EQUAL 5.5)
    set(_hl_empty_cuda_list 77 "skipped: no GPU: .*CUDA_VISIBLE_DEVICES=''")
  else()
    set(_hl_empty_cuda_list 0 "warning: CUDA_VISIBLE_DEVICES='': is set but empty.*summary: ")
  endif()
  set(HIP_LESSONS_MALFORMED_ENVIRONMENTS
    "GPU_MAX_HW_QUEUES=abc" 0 "warning: GPU_MAX_HW_QUEUES='abc': 'abc' is not an integer"
    "HIP_VISIBLE_DEVICES=99" 77 "skipped: no GPU: .*HIP_VISIBLE_DEVICES='99'"
    "CUDA_VISIBLE_DEVICES=" ${_hl_empty_cuda_list}
    "ROC_GLOBAL_CU_MASK=zz" 0 "warning: ROC_GLOBAL_CU_MASK='zz': 'zz' is not a hex mask")
else()
  set(HIP_LESSONS_MALFORMED_ENVIRONMENTS
    "GPU_MAX_HW_QUEUES=abc" 0 "warning: GPU_MAX_HW_QUEUES='abc': 'abc' is not an integer"
    "HIP_VISIBLE_DEVICES=99" 0 "warning: HIP_VISIBLE_DEVICES='99': only the AMD runtime reads it"
    "CUDA_VISIBLE_DEVICES=" 77 "skipped: no GPU: .*CUDA_VISIBLE_DEVICES=''"
    "ROC_GLOBAL_CU_MASK=zz" 0 "warning: ROC_GLOBAL_CU_MASK='zz': 'zz' is not a hex mask")
endif()

#   hip_lessons_add_environment_test(<lesson> <target> <setting> <code> <regex> [args...])
#       lessonNN.environment.<VARIABLE> (label gpu): runs the lesson with <setting> in its
#       environment and expects exit <code> and output matching <regex>. The test is a skip on
#       a machine without GPU device nodes, where a GPU-less skip would prove nothing.
function(hip_lessons_add_environment_test lesson target setting code regex)
  string(REGEX REPLACE "=.*" "" variable "${setting}")
  # What is checked is how the lesson treats the setting (a warning, a skip, never a crash),
  # not the schedule: its overlap checks are shown, not enforced, so the test can share the GPU
  # (lessonNN.check enforces them).
  hip_lessons_add_test(NAME ${lesson}.environment.${variable}
    COMMAND ${CMAKE_COMMAND} -E env "${setting}" HIP_LESSONS_SCHEDULE_CHECKS=show
            bash ${HIP_LESSONS_EXPECT_EXIT} ${code} --needs-gpu ${HIP_LESSONS_PLATFORM_RESOLVED}
            --output "${regex}" -- $<TARGET_FILE:${target}> ${ARGN}
    LABELS gpu ${lesson} GPU_SHARED TIMEOUT 300)
endfunction()

#   hip_lessons_add_unit_tests(<NN> <sources...>)
#       A lesson's GoogleTest program for its host-side machinery: lessonNN_unit_tests, each
#       test registered as lessonNN.unit.<Suite>.<Test> (labels unit, lessonNN; no GPU).
function(hip_lessons_add_unit_tests number)
  if(NOT HIP_LESSONS_BUILD_TESTS)
    return()
  endif()
  include(GoogleTest)
  add_executable(lesson${number}_unit_tests ${ARGN})
  target_link_libraries(lesson${number}_unit_tests PRIVATE hip_lessons::common GTest::gtest_main)
  target_compile_options(lesson${number}_unit_tests PRIVATE -Wall -Wextra)
  gtest_discover_tests(lesson${number}_unit_tests TEST_PREFIX "lesson${number}.unit."
    PROPERTIES LABELS "unit;lesson${number}" TIMEOUT 60 DISCOVERY_TIMEOUT 60)
endfunction()

#   hip_lessons_add_profiler_test(<lesson> <target> <timeout> [check args...])
#       lessonNN.profiler (labels profiler, lessonNN; NVIDIA builds): runs the lesson's --check
#       (with its CHECK_ARGS) and --trace FILE under the CUPTI recorder
#       (CUDA_INJECTION64_PATH=hip_lessons_cupti_recorder), then hip_lessons_profiler_check
#       compares every traced run of FILE with the profiler's kernel records: the same
#       launches, each inside its kernel's interval once the clocks are aligned, the same peak
#       concurrency, makespans within a tolerance (ctest/expect-profiler-agreement.sh). A skip
#       without CUPTI, without a GPU, or without a run it can compare. hip_lessons_add_lesson
#       calls it for every TRACE lesson; a lesson's child processes run under the recorder too
#       and their kernels join the parent's records (common/profiler/cupti_recorder.cpp).
function(hip_lessons_add_profiler_test lesson target timeout)
  if(NOT HIP_LESSONS_PLATFORM_RESOLVED STREQUAL "nvidia")
    return()  # AMD: docs/pages/profilers.md shows the same comparison with rocprofv3
  endif()
  set(script ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/expect-profiler-agreement.sh)
  if(TARGET hip_lessons_cupti_recorder)
    set(recorder --recorder $<TARGET_FILE:hip_lessons_cupti_recorder>
                 --checker $<TARGET_FILE:hip_lessons_profiler_check>)
  else()
    set(recorder --skip "${HIP_LESSONS_PROFILER_SKIP_REASON}")
  endif()
  hip_lessons_add_test(NAME ${lesson}.profiler
    COMMAND bash ${script} ${recorder} -- $<TARGET_FILE:${target}> ${ARGN}
    LABELS profiler ${lesson} GPU TIMEOUT ${timeout})
endfunction()

function(hip_lessons_add_lesson)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "TRACE" "NUMBER;NAME;BENCH;TIMEOUT;MINIMAL"
    "SOURCES;CHECK_ARGS;SPEED_ARGS;TOUR_ARGS;TOO_LARGE_ARGS;BAD_INPUT;SANITIZE_ARGS;BENCH_SMOKE_ARGS")
  if(NOT ARG_NUMBER OR NOT ARG_NAME OR NOT ARG_SOURCES)
    message(FATAL_ERROR "hip_lessons_add_lesson: NUMBER, NAME and SOURCES are required")
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  set(lesson "lesson${ARG_NUMBER}")
  set(target "${lesson}_${ARG_NAME}")
  hip_lessons_add_executable(${target} SOURCES ${ARG_SOURCES})
  # Declared thresholds become the defaults compiled into the lesson, and a test checks that
  # --help shows them: one number for --help, the tour, and ctest's speed test.
  get_property(thresholds DIRECTORY PROPERTY HIP_LESSONS_THRESHOLDS)
  set(help_expectations "")
  while(thresholds)
    list(POP_FRONT thresholds threshold_name threshold_flag)
    target_compile_definitions(${target} PRIVATE
      HIP_LESSONS_${threshold_name}=${HIP_LESSONS_${threshold_name}})
    list(APPEND help_expectations ${threshold_flag} ${HIP_LESSONS_${threshold_name}})
  endwhile()
  if(help_expectations)
    hip_lessons_add_test(NAME ${lesson}.help_defaults
      COMMAND bash ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/expect-help-defaults.sh
              $<TARGET_FILE:${target}> ${help_expectations}
      LABELS unit ${lesson} TIMEOUT 60)
  endif()
  hip_lessons_add_test(NAME ${lesson}.help_width
    COMMAND bash ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/expect-help-width.sh $<TARGET_FILE:${target}>
    LABELS unit ${lesson} TIMEOUT 60)
  file(APPEND "${HIP_LESSONS_LESSON_MANIFEST}"
    "${ARG_NUMBER}_${ARG_NAME}\t${CMAKE_BINARY_DIR}/bin/${target}\t${ARG_TOUR_ARGS}\n")

  hip_lessons_add_test(NAME ${lesson}.check COMMAND ${target} --check ${ARG_CHECK_ARGS}
    LABELS gpu ${lesson} GPU TIMEOUT ${ARG_TIMEOUT})
  if(ARG_MINIMAL)
    # The plain first look: HIP calls and minimal_hip_check.hpp only, its own check, exit 77
    # without a GPU.
    hip_lessons_add_executable(${lesson}_minimal SOURCES ${ARG_MINIMAL})
    hip_lessons_add_test(NAME ${lesson}.minimal COMMAND ${lesson}_minimal
      LABELS gpu ${lesson} GPU TIMEOUT 120)
  endif()
  if(ARG_TRACE)
    # The --trace file of a --check run is the Chrome Trace Event Format.
    hip_lessons_add_test(NAME ${lesson}.trace_file
      COMMAND bash ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/expect-trace-file.sh -- $<TARGET_FILE:${target}>
              ${ARG_CHECK_ARGS}
      LABELS gpu ${lesson} GPU TIMEOUT ${ARG_TIMEOUT})
    hip_lessons_add_profiler_test(${lesson} ${target} ${ARG_TIMEOUT} ${ARG_CHECK_ARGS})
  endif()
  get_property(has_thresholds DIRECTORY PROPERTY HIP_LESSONS_THRESHOLDS SET)
  if(ARG_SPEED_ARGS OR has_thresholds)
    hip_lessons_add_test(NAME ${lesson}.speed COMMAND ${target} --speed-check ${ARG_SPEED_ARGS}
      LABELS speed ${lesson} GPU TIMEOUT ${ARG_TIMEOUT})
  endif()

  set(cases ${HIP_LESSONS_COMMON_BAD_INPUT} ${ARG_BAD_INPUT})
  list(LENGTH cases count)
  math(EXPR last "${count} - 1")
  foreach(i RANGE 0 ${last} 2)
    math(EXPR j "${i} + 1")
    list(GET cases ${i} case_name)
    list(GET cases ${j} case_args)
    string(REPLACE " " ";" case_args "${case_args}")
    hip_lessons_add_test(NAME ${lesson}.bad_input.${case_name}
      COMMAND bash ${HIP_LESSONS_EXPECT_EXIT} 2 --at-parsing --
              $<TARGET_FILE:${target}> ${case_args}
      LABELS unit ${lesson} TIMEOUT 60)
  endforeach()
  if(NOT ARG_NUMBER STREQUAL "01")  # lesson 01 diagnoses the environment; it has its own tests
    set(environments ${HIP_LESSONS_MALFORMED_ENVIRONMENTS})
    while(environments)
      list(POP_FRONT environments setting code regex)
      hip_lessons_add_environment_test(${lesson} ${target} "${setting}" ${code} "${regex}"
        --check ${ARG_CHECK_ARGS})
    endwhile()
  endif()

  # These two need a device to know the answer; without one they are skips.
  hip_lessons_add_test(NAME ${lesson}.bad_input.device_does_not_exist
    COMMAND bash ${HIP_LESSONS_EXPECT_EXIT} 2 -- $<TARGET_FILE:${target}> --device 99
    LABELS gpu ${lesson} GPU TIMEOUT 60)
  if(ARG_TOO_LARGE_ARGS)
    hip_lessons_add_test(NAME ${lesson}.bad_input.larger_than_device_memory
      COMMAND bash ${HIP_LESSONS_EXPECT_EXIT} 2 -- $<TARGET_FILE:${target}> ${ARG_TOO_LARGE_ARGS}
      LABELS gpu ${lesson} GPU TIMEOUT 60)
  endif()

  # compute-sanitizer runs (label sanitize): memory errors, races, barrier misuse and reads
  # of uninitialized device memory. SANITIZE_ARGS picks a small run (default: --check).
  if(NOT ARG_SANITIZE_ARGS)
    set(ARG_SANITIZE_ARGS --check)
  endif()
  foreach(tool IN ITEMS memcheck racecheck synccheck initcheck)
    if(HIP_LESSONS_COMPUTE_SANITIZER)
      # API errors are left to the lessons, which check every call (and exit 1 on a failure)
      # and provoke some on purpose (lesson 02's swapped launch); the sanitizer looks for
      # device memory errors, races, barrier misuse and uninitialized reads.
      # Its instrumentation changes how kernels overlap: the lessons' concurrency checks are
      # shown there, not enforced (Report::step); lessonNN.check enforces them.
      set(command ${CMAKE_COMMAND} -E env HIP_LESSONS_SCHEDULE_CHECKS=show
                  ${HIP_LESSONS_COMPUTE_SANITIZER} --tool ${tool} --error-exitcode 1
                  --report-api-errors no
                  $<TARGET_FILE:${target}> ${ARG_SANITIZE_ARGS})
      set(skip_when "")  # not passed on: an empty keyword value warns on CMake 3.31 (CMP0174)
    else()
      set(command ${CMAKE_COMMAND} -E echo
                  "skipped: compute-sanitizer not found (NVIDIA only; part of the CUDA toolkit)")
      # `cmake -E echo` exits 0; the missing tool is an honest skip
      set(skip_when SKIP_REGULAR_EXPRESSION "skipped: ")
    endif()
    hip_lessons_add_test(NAME ${lesson}.sanitize.${tool} COMMAND ${command}
      LABELS sanitize ${lesson} GPU_SHARED TIMEOUT 900 ${skip_when})
  endforeach()

  if(ARG_BENCH AND HIP_LESSONS_BUILD_BENCHMARKS)
    hip_lessons_add_executable(${target}_bench SOURCES ${ARG_BENCH})
    target_link_libraries(${target}_bench PRIVATE benchmark::benchmark)
    hip_lessons_add_test(NAME ${lesson}.bench
      COMMAND ${target}_bench --benchmark_min_time=0.01 ${ARG_BENCH_SMOKE_ARGS}
              --benchmark_out=${CMAKE_BINARY_DIR}/results/${target}_bench.json
              --benchmark_out_format=json
      LABELS gpu ${lesson} GPU TIMEOUT ${ARG_TIMEOUT})
    # --help is answered on every machine, before the binary looks for a GPU: the lesson, its
    # cases (each with its number of runs), then Google Benchmark's options.
    string(CONCAT help_regex "cases of lesson ${ARG_NUMBER} .*Cases: +[a-z0-9_]+(/[a-z0-9_]+)? "
                             "+\\([0-9]+ runs?\\).*--benchmark_filter=<regex>")
    hip_lessons_add_test(NAME ${lesson}.bench_help
      COMMAND bash ${HIP_LESSONS_EXPECT_EXIT} 0 --output "${help_regex}" --
              $<TARGET_FILE:${target}_bench> --help
      LABELS unit ${lesson} TIMEOUT 60)
  endif()
endfunction()

#   hip_lessons_threshold(<NAME> <flag> <nvidia-default> <amd-default> "<what it bounds>")
#       A speed-check threshold as the cache variable HIP_LESSONS_<NAME>, defaulting per
#       platform; override at configure time with -DHIP_LESSONS_<NAME>=value. The next
#       hip_lessons_add_lesson() in the same folder compiles it into the lesson as the macro
#       HIP_LESSONS_<NAME> (the default of <flag>, declared with hl::at_least/at_most) and
#       registers lessonNN.help_defaults, which checks that --help shows this value.
function(hip_lessons_threshold name flag nvidia_default amd_default)
  if(ARGC EQUAL 4)  # the older form without a flag: (name nvidia amd doc)
    set(doc "${amd_default}")
    set(amd_default "${nvidia_default}")
    set(nvidia_default "${flag}")
    set(flag "")
  else()
    set(doc "${ARGV4}")
  endif()
  if(flag AND NOT flag MATCHES "^--[a-z0-9-]+$")
    message(FATAL_ERROR "hip_lessons_threshold(${name}): '${flag}' is not a --flag")
  endif()
  if(HIP_LESSONS_PLATFORM_RESOLVED STREQUAL "amd")
    set(default "${amd_default}")
  else()
    set(default "${nvidia_default}")
  endif()
  set(HIP_LESSONS_${name} "${default}" CACHE STRING "Speed-check threshold (${flag}): ${doc}")
  if(NOT HIP_LESSONS_${name} MATCHES "^[0-9]+(\\.[0-9]+)?$")
    message(FATAL_ERROR "HIP_LESSONS_${name} is '${HIP_LESSONS_${name}}', not a number")
  endif()
  if(flag)
    set_property(DIRECTORY APPEND PROPERTY HIP_LESSONS_THRESHOLDS "${name}" "${flag}")
  endif()
endfunction()

# `ctest -L gpu` selects every test that needs a GPU, and every such test holds the GPU lock
# (ctest/check-test-labels.py reads the registered tests back from CTest).
hip_lessons_add_test(NAME repo.test_labels
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-test-labels.py ${CMAKE_CTEST_COMMAND} ${CMAKE_BINARY_DIR}
  LABELS unit TIMEOUT 60)
# ctest/quickstart.sh raises privileges only to install packages, and never builds under sudo
# (stand-ins for cmake, apt-get and sudo: nothing is installed).
hip_lessons_add_test(NAME repo.quickstart_install
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/expect-quickstart-install.sh ${CMAKE_SOURCE_DIR}
  LABELS unit TIMEOUT 60)
# ctest/gpu-report.sh answers --help, and refuses a bad argument (exit 2) before it runs or
# creates anything.
hip_lessons_add_test(NAME repo.gpu_report.help
  COMMAND bash ${HIP_LESSONS_EXPECT_EXIT} 0 --output "^ +ctest/gpu-report.sh OUTDIR" --
          bash ${CMAKE_CURRENT_LIST_DIR}/gpu-report.sh --help
  LABELS unit TIMEOUT 60)
foreach(case IN ITEMS "option_for_folder;--skip-bench" "no_value;report;--speed-runs"
                      "bad_platform;report;--platform;rocm")
  list(POP_FRONT case case_name)
  hip_lessons_add_test(NAME repo.gpu_report.bad_input.${case_name}
    COMMAND bash ${HIP_LESSONS_EXPECT_EXIT} 2 -- bash ${CMAKE_CURRENT_LIST_DIR}/gpu-report.sh ${case}
    LABELS unit TIMEOUT 60)
endforeach()
# Without a GPU, or after a run where anything failed or skipped, gpu-report.sh --update-docs
# changes no docs file and names why; skipped speed runs are counted as skips (stand-ins for the
# build, the GPU and the docs tools).
hip_lessons_add_test(NAME repo.gpu_report.update_docs
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/expect-gpu-report.sh ${CMAKE_SOURCE_DIR}
  LABELS unit TIMEOUT 120)
# .ci/run builds only in folders of its own (build/ci-*), never over the quick start's.
hip_lessons_add_test(NAME repo.ci_build_folders
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/check-ci-build-folders.sh ${CMAKE_SOURCE_DIR}
  LABELS unit TIMEOUT 60)
# ctest/check-format.sh checks (and --fix formats) the files git does not track yet, not the
# ignored ones (a scratch repository).
find_program(HIP_LESSONS_CLANG_FORMAT clang-format DOC "clang-format for the repo.format test")
if(HIP_LESSONS_CLANG_FORMAT)
  hip_lessons_add_test(NAME repo.format_untracked
    COMMAND ${CMAKE_COMMAND} -E env CLANG_FORMAT=${HIP_LESSONS_CLANG_FORMAT}
            bash ${CMAKE_CURRENT_LIST_DIR}/expect-check-format.sh ${CMAKE_SOURCE_DIR}
    LABELS unit TIMEOUT 60)
endif()
# ctest/lesson-metrics.sh measures and fails nothing: exit 0 with its three totals.
hip_lessons_add_test(NAME repo.lesson_metrics
  COMMAND bash ${HIP_LESSONS_EXPECT_EXIT} 0
          --output "helpers below main.hip that record into a step \\(StepResult&\\): [0-9]+ files"
          -- bash ${CMAKE_CURRENT_LIST_DIR}/lesson-metrics.sh ${CMAKE_SOURCE_DIR}
  LABELS unit TIMEOUT 60)
# expect-exit.sh itself: exit codes, the error line of exit 2, and a bad-input case that gets
# past parsing (a valid value: exit 77 without a GPU), which fails under --at-parsing.
hip_lessons_add_test(NAME repo.expect_exit
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test-expect-exit.sh ${CMAKE_SOURCE_DIR}
  LABELS unit TIMEOUT 60)
# The commands README.md and CONTRIBUTING.md print run as printed from a fresh clone (scripts
# inside the repository, executable where they are the command), and the sections of
# CONTRIBUTING.md that scripts cite exist.
hip_lessons_add_test(NAME repo.documented_commands
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-documented-commands.py ${CMAKE_SOURCE_DIR}
  LABELS unit TIMEOUT 60)
