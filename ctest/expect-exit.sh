#!/usr/bin/env bash
# Usage: expect-exit.sh EXPECTED_CODE [--output REGEX] -- COMMAND [ARGS...]
# Passes when COMMAND exits with EXPECTED_CODE and its output matches REGEX (extended grep).
# For EXPECTED_CODE 2 (bad input) the output must also contain an "error: ..." line.
# A command that exits 77 (skipped: no GPU) is reported as a skip, never as a pass.
set -u
expected=${1:?usage: expect-exit.sh EXPECTED_CODE [--output REGEX] -- COMMAND [ARGS...]}
shift
pattern=""
if [ "${1:-}" = "--output" ]; then
  pattern=${2:?--output needs a regular expression}
  shift 2
fi
[ "${1:-}" = "--" ] && shift
output=$("$@" 2>&1)
code=$?
printf '%s\n' "$output"
if [ "$code" -eq 77 ] && [ "$expected" -ne 77 ]; then
  echo "expect-exit: skipped, the command reported a skip (exit 77)"
  exit 77
fi
if [ "$code" -ne "$expected" ]; then
  echo "expect-exit: FAIL: exit code $code, expected $expected: $*"
  exit 1
fi
if [ "$expected" -eq 2 ] && ! printf '%s\n' "$output" | grep -q '^error: '; then
  echo "expect-exit: FAIL: exit code 2 but no 'error: ...' message was printed: $*"
  exit 1
fi
if [ -n "$pattern" ] && ! printf '%s\n' "$output" | grep -Eq -- "$pattern"; then
  echo "expect-exit: FAIL: the output does not match '$pattern': $*"
  exit 1
fi
echo "expect-exit: ok, exit code $code: $*"
