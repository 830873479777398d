#!/usr/bin/env bash
# Test of `quickstart.sh lessons --no-build`'s closing summary, on stand-in lessons (shell
# scripts listed in a lessons.tsv of a scratch build directory), no GPU needed:
#  - a key figure the lesson wrapped over two lines is shown whole, wrapped within 100 columns;
#  - a skip reason shared by consecutive lessons is printed once, then "(same reason)";
#  - a failing lesson makes the tour fail and is shown as FAIL (its exit code).
#   expect-tour-summary.sh SOURCE_DIR
set -uo pipefail
source_dir=${1:?usage: expect-tour-summary.sh SOURCE_DIR}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

lesson() {  # lesson NAME EXIT_CODE OUTPUT_LINES...
  local name=$1 code=$2; shift 2
  { echo '#!/usr/bin/env bash'
    echo '[ "${1:-}" = --help ] && exit 0'
    for line in "$@"; do printf 'echo %q\n' "$line"; done
    echo "exit $code"; } > "$scratch/$name"
  chmod +x "$scratch/$name"
  printf '%s\t%s\t%s\n' "$name" "$scratch/$name" "--size;4096" >> "$scratch/lessons.tsv"
}
lesson 01_wrapped 0 "check   ok    something" "" \
  "summary: 1000 x vectorAdd(4096): launches 4620 us, graph 1374 us (3.4x), fused 29 us (160x)," \
  "  persistent 22 us (206x)" "" "other output after the summary"
lesson 02_skipped 77 "skipped: no GPU: hipGetDeviceCount reported hipErrorNoDevice"
lesson 03_skipped 77 "skipped: no GPU: hipGetDeviceCount reported hipErrorNoDevice"
lesson 04_failing 1 "check   FAIL  something" "summary: checks failed"

output=$(bash "$source_dir/ctest/quickstart.sh" lessons --no-build --build-dir "$scratch" 2>&1)
code=$?
summary=$(printf '%s\n' "$output" | sed -n '/^Summary/,$p')
printf '%s\n' "$summary"

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# The key figure, whole: joined back from the summary rows.
joined=$(printf '%s\n' "$summary" | sed -n '/01_wrapped/,/02_skipped/p' | sed '$d' |
         sed -E 's/^  01_wrapped +pass +//; s/^ +//' | tr '\n' ' ' | sed 's/ *$//')
expected="1000 x vectorAdd(4096): launches 4620 us, graph 1374 us (3.4x), fused 29 us (160x), persistent 22 us (206x)"
[ "$joined" = "$expected" ] || fail "wrapped key figure shown as '$joined', expected '$expected'"
grep -qE '^  02_skipped +skipped +no GPU: hipGetDeviceCount' <<<"$summary" ||
  fail "the first skip does not show its reason"
grep -qE '^  03_skipped +skipped +\(same reason\)$' <<<"$summary" ||
  fail "the second skip with the same reason is not '(same reason)'"
grep -qE '^  04_failing +FAIL \(1\) +checks failed$' <<<"$summary" ||
  fail "the failing lesson is not shown as FAIL (1)"
long=$(printf '%s\n' "$summary" | awk 'length > 100' | head -n 1)
[ -z "$long" ] || fail "summary line over 100 columns: $long"
[ "$code" = 1 ] || fail "tour exit code $code with a failing lesson, expected 1"
if [ "$failures" -gt 0 ]; then exit 1; fi
echo "tour summary ok"
