#!/usr/bin/env bash
# Test of `quickstart.sh test --no-build`'s closing line, "N passed, N failed, N skipped", with
# a stand-in ctest (first on PATH) that prints what the CTest releases print: the 3.25 form
# "100% tests passed, 0 tests failed out of N", the newer "100% tests passed out of N", a run
# with failures, and a selection that matched no test; after skips, the hint that lists the
# tests needing a GPU names the build directory, and a skip that is no gpu test is named, so
# that the hint accounts for every skip counted. No GPU needed.
#   expect-test-summary.sh SOURCE_DIR
set -uo pipefail
source_dir=${1:?usage: expect-test-summary.sh SOURCE_DIR}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/bin" "$scratch/build"
: > "$scratch/build/lessons.tsv"  # what --no-build looks for

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# expect NAME EXIT_CODE EXPECTED_LAST_LINE_PATTERN CTEST_OUTPUT
expect() {
  local name=$1 want_code=$2 pattern=$3 output=$4
  printf '%s\n' "$output" > "$scratch/ctest-output"
  # ctest -N -L gpu lists the gpu tests (lessonNN.check); any other call prints the run.
  { echo '#!/usr/bin/env bash'
    echo 'case " $* " in *" -N "*) printf "  Test  #3: lesson01.check\n  Test  #4: lesson02.check\n"; exit 0 ;; esac'
    echo "cat '$scratch/ctest-output'"
    echo "exit $want_code"; } > "$scratch/bin/ctest"
  chmod +x "$scratch/bin/ctest"
  local got code before=$failures
  got=$(PATH="$scratch/bin:$PATH" bash "$source_dir/ctest/quickstart.sh" test --no-build \
        --build-dir "$scratch/build" 2>&1)
  code=$?
  if ! grep -qE "$pattern" <<<"$got"; then
    fail "$name: no line matching '$pattern' in:"; printf '%s\n' "$got" | tail -n 4
  fi
  [ "$code" = "$want_code" ] || fail "$name: exit $code, expected $want_code"
  [ "$failures" = "$before" ] && echo "ok    $name"
}
skipped_list='The following tests did not run:
	  3 - lesson01.check (Skipped)
	  4 - lesson02.check (Skipped)'
expect "CTest 3.25, all passed" 0 '^402 passed, 0 failed, 2 skipped$' \
  "100% tests passed, 0 tests failed out of 404

$skipped_list"
expect "skips: the hint names the build and the gpu label" 0 \
  "The tests that need a GPU: ctest --test-dir $scratch/build -N -L gpu\$" \
  "100% tests passed, 0 tests failed out of 404

$skipped_list"
expect "a skip that is no gpu test is named" 0 \
  "1 of the 3 skipped for another reason, which its output above gives: docs.rendered_pages\$" \
  "100% tests passed, 0 tests failed out of 404

$skipped_list
	  9 - docs.rendered_pages (Skipped)"
expect "the gpu skips are counted" 0 "2 of the 3 skipped need a GPU" \
  "100% tests passed, 0 tests failed out of 404

$skipped_list
	  9 - docs.rendered_pages (Skipped)"
expect "newer CTest, all passed" 0 '^404 passed, 0 failed, 0 skipped$' \
  "100% tests passed out of 404"
expect "failures" 8 '^399 passed, 3 failed, 2 skipped$' \
  "99% tests passed, 3 tests failed out of 404

$skipped_list"
expect "no test matched" 8 'ctest ran no test' "No tests were found!!!"
if [ "$failures" -gt 0 ]; then exit 1; fi
echo "test summary ok"
