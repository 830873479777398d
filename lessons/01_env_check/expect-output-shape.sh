#!/usr/bin/env bash
# Lesson 01's output has the shape its README promises, on every machine (lesson01.output_shape,
# label unit): the step headings are numbered 1, 2, ..., STEPS in order, none left out (the
# README's Application flow), also when there is no GPU and the lesson skips; every line of
# its output has at most 100 columns.
#   expect-output-shape.sh STEPS LESSON01_BINARY [ARGS...]
# Exit 0 when the lesson exits 0 (healthy) or 77 (no GPU) with that shape; 1 otherwise, naming
# each problem. A no-GPU run is what this test checks, so its 77 is a pass here, not a skip.
set -uo pipefail
export LC_ALL=C.UTF-8  # ${#line} counts characters, not bytes
steps=${1:?usage: expect-output-shape.sh STEPS LESSON01_BINARY [ARGS...]}
shift
binary=${1:?usage: expect-output-shape.sh STEPS LESSON01_BINARY [ARGS...]}
output=$("$@" 2>&1)
code=$?
printf '%s\n' "$output"
problems=()
if [ "$code" != 0 ] && [ "$code" != 77 ]; then
  problems+=("$(basename "$binary") exited $code (0 or 77 expected)")
fi
# A step heading is a line "N. Title" after a blank line, as the report prints it.
headings=()
previous=""
number=0
while IFS= read -r line; do
  number=$((number + 1))
  if [ ${#line} -gt 100 ]; then
    problems+=("line $number has ${#line} columns (at most 100): $line")
  fi
  if [ -z "$previous" ] && [[ $line =~ ^([0-9]+)\.\  ]]; then
    headings+=("${BASH_REMATCH[1]}")
  fi
  previous=$line
done <<<"$output"
wanted=$(seq -s ' ' 1 "$steps")
if [ "${headings[*]:-}" != "$wanted" ]; then
  problems+=("step headings numbered '${headings[*]:-}', expected '$wanted'")
fi
if [ ${#problems[@]} -gt 0 ]; then
  for problem in "${problems[@]}"; do echo "FAIL: $problem"; done
  exit 1
fi
echo "output shape ok: steps $wanted, $number lines, each within 100 columns (exit $code)"
