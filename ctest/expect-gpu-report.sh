#!/usr/bin/env bash
# ctest/gpu-report.sh on stand-ins (ctest repo.gpu_report.update_docs): a copy of the script in a
# scratch source tree whose docs tools only write a marker, and a hand-made build folder of
# shell-script lessons and tests run with --no-build. Checks that
#   - without a GPU it stops before building and changes no docs file (exit 1, reason named);
#   - a lesson that skips, or a skipped speed run, changes no docs file, and the end names it;
#   - a skipped speed run is printed as a skip, not as "100% tests passed";
#   - a run where everything passed rewrites the docs (the stand-ins' marker).
#   ctest/expect-gpu-report.sh SOURCE_DIR
set -u
source_dir=${1:?usage: expect-gpu-report.sh SOURCE_DIR}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "expect-gpu-report: FAIL: $*"; [ -n "${output:-}" ] && printf '%s\n' "$output"; exit 1; }

src=$scratch/src
mkdir -p "$src/ctest" "$src/docs/pages" "$src/docs/tools" "$src/docs/results"
cp "$source_dir/ctest/gpu-report.sh" "$source_dir/ctest/quickstart.sh" "$src/ctest/"
measured="measured results of a real GPU"
for page in results speed_stability; do echo "$measured" > "$src/docs/pages/$page.md"; done
for tool in make_results_page make_timeline_plots make_stability_page; do
  cat > "$src/docs/tools/$tool.py" <<'PY'
import sys
args = sys.argv[1:]
if "--page" in args:
    with open(args[args.index("--page") + 1], "w") as page:
        page.write("rewritten\n")
PY
done

# A build folder: two lessons (the second one's exit code is a file), one speed test.
build=$scratch/build
mkdir -p "$build/bin" "$build/results"
echo "HIP_LESSONS_PLATFORM_RESOLVED:STRING=nvidia" > "$build/CMakeCache.txt"
for n in 01 02; do
  cat > "$build/bin/lesson$n" <<SH
#!/usr/bin/env bash
[ "\${1:-}" = --help ] && { echo "usage: lesson$n"; exit 0; }
code=\$(cat "$build/lesson$n.code" 2>/dev/null || echo 0)
[ "\$code" = 77 ] && { echo "skipped: no GPU: stand-in"; exit 77; }
echo "summary: lesson $n ran"; exit \$code
SH
  chmod +x "$build/bin/lesson$n"
  printf '%s_lesson\t%s\t\n' "$n" "$build/bin/lesson$n" >> "$build/lessons.tsv"
done
cat > "$build/CTestTestfile.cmake" <<CT
add_test(unit.one "$build/bin/lesson01")
set_tests_properties(unit.one PROPERTIES LABELS "unit" SKIP_RETURN_CODE 77)
add_test(lesson02.speed "$build/bin/lesson02")
set_tests_properties(lesson02.speed PROPERTIES LABELS "speed" SKIP_RETURN_CODE 77)
CT
gpu=$scratch/dev
mkdir -p "$gpu"
run() { output=$(HIP_LESSONS_DEV=$gpu PYTHON=python3 bash "$src/ctest/gpu-report.sh" \
                   "$scratch/out" --platform nvidia --skip-bench "$@" 2>&1); code=$?; }
unchanged() {
  for page in results speed_stability; do
    [ "$(cat "$src/docs/pages/$page.md")" = "$measured" ] || fail "$1: docs/pages/$page.md was changed"
  done
}

# 1. No GPU: stops before building, names why, no docs file changed, no build folder made.
run --update-docs "test GPU"
[ "$code" = 1 ] || fail "no GPU: exit $code, expected 1"
grep -q "has no NVIDIA GPU" <<<"$output" || fail "no GPU: the reason is not named"
unchanged "no GPU"
[ ! -e "$src/build" ] || fail "no GPU: a build folder was made"

# 2. A GPU (a stand-in device node) and a lesson that skips: docs unchanged, the lesson named.
touch "$gpu/nvidia0"
echo 77 > "$build/lesson02.code"
run --build-dir "$build" --no-build --speed-runs 1 --update-docs "test GPU"
[ "$code" = 1 ] || fail "a skipped lesson: exit $code, expected 1"
unchanged "a skipped lesson"
grep -q "lesson 02_lesson: skipped" <<<"$output" || fail "the skipped lesson is not named"
grep -q "speed run 1: 0 passed, 0 failed, 1 skipped" <<<"$output" ||
  fail "a skipped speed run is not counted as a skip"
grep -q "no docs file was changed" <<<"$output" || fail "it does not say the docs were left alone"

# 3. A lesson that fails: the same.
echo 1 > "$build/lesson02.code"
run --build-dir "$build" --no-build --speed-runs 1 --update-docs "test GPU"
[ "$code" = 1 ] || fail "a failed lesson: exit $code, expected 1"
unchanged "a failed lesson"
grep -q "lesson 02_lesson: FAIL" <<<"$output" || fail "the failed lesson is not named"

# 4. Everything passes: the docs are rewritten, exit 0.
echo 0 > "$build/lesson02.code"
run --build-dir "$build" --no-build --speed-runs 1 --update-docs "test GPU"
[ "$code" = 0 ] || fail "all passed: exit $code, expected 0"
grep -q "speed run 1: 1 passed, 0 failed, 0 skipped" <<<"$output" || fail "the speed run count"
[ "$(cat "$src/docs/pages/results.md")" = rewritten ] || fail "all passed: results.md not rewritten"
echo "expect-gpu-report: ok: no GPU, a skipped lesson and a failed lesson change no docs file;" \
     "a passing run rewrites them"
