#!/usr/bin/env bash
# ctest/expect-exit.sh on stand-in commands (ctest repo.expect_exit): exit codes, the error line
# of exit 2, and a bad-input case that gets past parsing (exit 77 without a GPU), which must fail
# under --at-parsing rather than pass as a skip.
#   ctest/test-expect-exit.sh [SOURCE_DIR]
set -u
script=${1:-$(dirname "$0")/..}/ctest/expect-exit.sh
failures=0
# check <wanted exit of expect-exit> <regex of its output> <expect-exit arguments...>
check() {
  local wanted=$1 regex=$2 output code
  shift 2
  output=$(bash "$script" "$@" 2>&1)
  code=$?
  if [ "$code" != "$wanted" ] || ! grep -Eq -- "$regex" <<<"$output"; then
    echo "FAIL: expect-exit.sh $*: exit $code (wanted $wanted), output:"
    printf '  %s\n' "$output"
    failures=$((failures + 1))
  fi
}
refused='echo "error: --size 0 is below 1"; exit 2'
past_parsing='echo "skipped: no GPU: hipGetDeviceCount failed"; exit 77'
check 0 "ok, exit code 2" 2 -- bash -c "$refused"
check 1 "no 'error: ...' message" 2 -- bash -c 'exit 2'
check 77 "reported a skip" 2 -- bash -c "$past_parsing"
check 1 "got past parsing" 2 --at-parsing -- bash -c "$past_parsing"
check 0 "ok, exit code 2" 2 --at-parsing -- bash -c "$refused"
check 1 "exit code 0, expected 2" 2 --at-parsing -- bash -c 'echo summary: ran; exit 0'
check 0 "ok" 0 --output "sum+ary" -- bash -c 'echo summary: ran'
check 1 "does not match" 0 --output "nothing like it" -- bash -c 'echo summary: ran'
[ "$failures" = 0 ] || exit 1
echo "expect-exit ok: 8 cases on stand-in commands"
