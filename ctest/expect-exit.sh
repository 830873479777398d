#!/usr/bin/env bash
# Usage: expect-exit.sh EXPECTED_CODE [--needs-gpu amd|nvidia] [--output REGEX] [--at-parsing]
#                      -- COMMAND [ARGS...]
# Passes when COMMAND exits with EXPECTED_CODE and its output matches REGEX (extended grep).
# For EXPECTED_CODE 2 (bad input) the output must also contain an "error: ..." line.
# A command that exits 77 (skipped: no GPU) is reported as a skip, never as a pass, unless 77
# is the expected code. --needs-gpu makes the test a skip on a machine without that vendor's
# GPU device nodes (for tests that expect 77, which a machine without a GPU gives anyway).
# --at-parsing (the lessons' BAD_INPUT cases): the arguments must be refused while they are
# parsed, before the GPU is looked for, so a 77 is a failure: the arguments got past parsing,
# and would have run on a machine with a GPU.
set -u
usage="usage: expect-exit.sh EXPECTED_CODE [--needs-gpu amd|nvidia] [--output REGEX]"
usage+=" [--at-parsing] -- COMMAND [ARGS...]"
expected=${1:?$usage}
shift
pattern=""
needs_gpu=""
at_parsing=0
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case $1 in
    --output) pattern=${2:?--output needs a regular expression}; shift 2 ;;
    --needs-gpu) needs_gpu=${2:?--needs-gpu needs amd or nvidia}; shift 2 ;;
    --at-parsing) at_parsing=1; shift ;;
    *) echo "expect-exit: unknown option '$1'; $usage" >&2; exit 2 ;;
  esac
done
[ "${1:-}" = "--" ] && shift
case $needs_gpu in
  "") ;;
  amd) nodes=$(ls /dev/kfd 2>/dev/null) ;;
  nvidia) nodes=$(ls /dev/nvidia[0-9]* 2>/dev/null) ;;
  *) echo "expect-exit: --needs-gpu takes amd or nvidia, not '$needs_gpu'" >&2; exit 2 ;;
esac
if [ -n "$needs_gpu" ] && [ -z "$nodes" ]; then
  echo "expect-exit: skipped, no $needs_gpu GPU device nodes on this machine"
  exit 77
fi
output=$("$@" 2>&1)
code=$?
printf '%s\n' "$output"
if [ "$code" -eq 77 ] && [ "$at_parsing" = 1 ]; then
  echo "expect-exit: FAIL: exit code 77 (a skip), expected $expected: the arguments got past" \
       "parsing, so they are valid; this bad-input case would run on a machine with a GPU: $*"
  exit 1
fi
if [ "$code" -eq 77 ] && [ "$expected" -ne 77 ]; then
  echo "expect-exit: skipped, the command reported a skip (exit 77)"
  exit 77
fi
if [ "$code" -ne "$expected" ]; then
  echo "expect-exit: FAIL: exit code $code, expected $expected: $*"
  exit 1
fi
if [ "$expected" -eq 2 ] && ! grep -q '^error: ' <<<"$output"; then
  echo "expect-exit: FAIL: exit code 2 but no 'error: ...' message was printed: $*"
  exit 1
fi
# The lessons wrap lines at 100 columns (a table cell, a long check line): a pattern may match a
# line as printed, or the output with each line break and the indentation after it read as one
# space, so that a wrapped row or sentence is matched whole.
joined=$(printf '%s\n' "$output" | sed -E 's/^ +/ /' | tr '\n' ' ' | tr -s ' ')
if [ -n "$pattern" ] && ! printf '%s\n' "$output" | grep -Eq -- "$pattern" &&
   ! printf '%s\n' "$joined" | grep -Eq -- "$pattern"; then
  echo "expect-exit: FAIL: the output does not match '$pattern': $*"
  exit 1
fi
echo "expect-exit: ok, exit code $code: $*"
