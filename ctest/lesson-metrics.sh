#!/usr/bin/env bash
# What a reader of each lesson meets, measured (CONTRIBUTING.md, "Adding a lesson"). Measures
# only; it fails nothing.
#
#   ctest/lesson-metrics.sh [SOURCE_DIR]
#
# Per lesson 02 and later, one row:
#   topic calls missing  the HIP calls of the lesson's topic that neither main.hip nor
#                        kernels.hpp writes out (comment lines aside)
#   hip/harness          direct HIP (or CUDA driver) calls in main.hip against its `report.`
#                        and `hl::...(` calls: a reader should meet more of the first
#   code                 lines of main.hip and the lesson's .hpp files, tests aside (code is
#                        removed, not moved into another header of the lesson)
#   readme / expected    lines of the README and of its Expected output block (markers
#                        included)
# Then three totals:
#   reader code          every lesson's main.hip and .hpp files (tests aside) with common/'s
#                        headers and sources: all the code outside the HIP-on-CUDA layer that a
#                        reader of the lessons may open
#   tooling              lesson side programs (the .hip and .cpp files that are not main.hip,
#                        bench.hip or a test), common/profiler, and the C/C++ sources of the
#                        top-level tools/ folder (tests aside): code no lesson binary needs a
#                        reader to read, counted so that moving code there stays visible
#   StepResult& helpers  lesson headers (tests aside) whose helpers record into a step
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"

# The calls a lesson about the topic must write out itself; a|b means either spelling.
declare -A topic_calls=(
  [02]="hipLaunchKernelGGL hipGetLastError hipDeviceGetAttribute"
  [03]="hipStreamCreateWithFlags hipStreamCreateWithPriority hipDeviceGetStreamPriorityRange
        hipEventRecord hipStreamWaitEvent hipMemcpyAsync hipHostMalloc hipStreamSynchronize
        hipStreamDestroy"
  [04]="hipOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxPotentialBlockSize
        hipFuncGetAttributes hipDeviceGetAttribute"
  [05]="hipSetDeviceFlags hipStreamCreateWithFlags hipStreamSynchronize hipDeviceSynchronize"
  [06]="hipExtStreamCreateWithCUMask hipExtStreamGetCUMask cuGreenCtxCreate|hipGreenCtxCreate
        cuGreenCtxStreamCreate|hipGreenCtxStreamCreate hipStreamSynchronize"
  [07]="hipStreamBeginCapture hipStreamEndCapture hipGraphInstantiate hipGraphLaunch
        hipLaunchCooperativeKernel hipModuleLoad hipModuleGetFunction hipModuleLaunchKernel
        hipExtLaunchKernelGGL"
)

# The files of a list that are not unit tests (test_*).
not_tests() { for file in "$@"; do [[ "$(basename "$file")" == test_* ]] || echo "$file"; done; }
# Lines of the given files (0 for none).
lines_of() { if [ $# -gt 0 ]; then cat "$@" | wc -l; else echo 0; fi; }
# The files' text without comment lines (those whose first characters are //).
code_only() { grep -hvE '^\s*//' "$@" || true; }

shopt -s nullglob
printf '%-4s %-28s %-12s %-6s %-7s %s\n' "" "topic calls missing" "hip/harness" "code" \
  "readme" "expected"
for dir in lessons/0[2-9]_* lessons/[1-9][0-9]_*; do
  [ -f "$dir/main.hip" ] || continue
  number=$(basename "$dir" | cut -c1-2)
  written=("$dir/main.hip")
  [ -f "$dir/kernels.hpp" ] && written+=("$dir/kernels.hpp")
  missing=""
  for call in ${topic_calls[$number]:-}; do
    grep -qE "\\b($call)\\s*\\(" <<<"$(code_only "${written[@]}")" || missing+=" ${call%%|*}"
  done
  hip=$(code_only "$dir/main.hip" | grep -oE '\b(hip|cu)[A-Z][A-Za-z0-9_]*\(' | wc -l)
  harness=$(code_only "$dir/main.hip" | grep -oE '\breport\.[a-z_]+|\bhl::[a-z_]+\(' | wc -l)
  mapfile -t headers < <(not_tests "$dir"/*.hpp)
  code=$(lines_of "$dir/main.hip" ${headers[@]+"${headers[@]}"})
  expected=$(sed -n '/expected-output:begin/,/expected-output:end/p' "$dir/README.md" | wc -l)
  printf '%-4s %-28s %-12s %-6s %-7s %s\n' "$number" "${missing:- none}" "$hip/$harness" \
    "$code" "$(wc -l < "$dir/README.md")" "$expected"
done

mapfile -t lesson_headers < <(not_tests lessons/*/*.hpp)
reader=$(lines_of lessons/*/main.hip ${lesson_headers[@]+"${lesson_headers[@]}"} \
  common/include/hip_lessons/* common/src/*)
mapfile -t side_programs < <(for file in lessons/*/*.hip lessons/*/*.cpp; do
  case "$(basename "$file")" in main.hip | bench.hip | test_*) ;; *) echo "$file" ;; esac
done)
mapfile -t tools_sources < <(not_tests $(find tools -type f \( -name '*.cpp' -o -name '*.hpp' \
  -o -name '*.hip' -o -name '*.h' -o -name '*.cu' \) 2>/dev/null | sort))
tooling=$(lines_of ${side_programs[@]+"${side_programs[@]}"} common/profiler/*.cpp \
  common/profiler/*.hpp ${tools_sources[@]+"${tools_sources[@]}"})
# grep -l finds nothing in the state the project wants (exit 1); with no file it would read stdin.
recording=0
if [ ${#lesson_headers[@]} -gt 0 ]; then
  recording=$({ grep -l 'StepResult&' "${lesson_headers[@]}" || true; } | wc -l)
fi
echo "code outside the layer: $reader lines"
echo "tooling (lesson side programs, common/profiler, tools/; tests and benchmarks aside):" \
  "$tooling lines"
echo "helpers below main.hip that record into a step (StepResult&): $recording files"
