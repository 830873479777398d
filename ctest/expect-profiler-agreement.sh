#!/usr/bin/env bash
# A lesson's block traces against the vendor's profiler (one test per tracing lesson):
#   ctest/expect-profiler-agreement.sh --recorder LIB --checker BIN -- <lesson binary> [args...]
#   ctest/expect-profiler-agreement.sh --skip "REASON" -- <lesson binary> [args...]
# Runs the lesson with "[args...] --check --trace FILE" and the recorder LIB loaded by the CUDA
# driver (CUDA_INJECTION64_PATH), so FILE carries the profiler's kernel records beside the
# block traces; then BIN (hip_lessons_profiler_check) compares them and prints every pair.
# Exit: the checker's (0 agree, 1 a check failed, 77 nothing to compare, reason printed); 77
# when the lesson skips (no GPU) or with --skip; 1 when the lesson fails or writes no file (a
# lesson whose own checks fail is still compared, and the test then fails).
# HIP_LESSONS_KEEP_TRACES=DIR keeps FILE as DIR/<lesson>.profiler.json for Perfetto.
set -uo pipefail
usage() { echo "usage: expect-profiler-agreement.sh (--recorder LIB --checker BIN | --skip REASON) -- <lesson> [args...]" >&2; exit 2; }
recorder=""; checker=""; skip=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    --recorder) [ $# -ge 2 ] || usage; recorder=$2; shift 2 ;;
    --checker) [ $# -ge 2 ] || usage; checker=$2; shift 2 ;;
    --skip) [ $# -ge 2 ] || usage; skip=$2; shift 2 ;;
    *) usage ;;
  esac
done
[ "${1:-}" = "--" ] && shift
[ $# -ge 1 ] || usage
if [ -n "$skip" ]; then echo "skipped: $skip"; exit 77; fi
[ -n "$recorder" ] && [ -n "$checker" ] || usage
[ -f "$recorder" ] || { echo "FAIL: the recorder $recorder does not exist (build it)"; exit 1; }

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
trace="$work/trace.json"
echo "running: CUDA_INJECTION64_PATH=$recorder $* --check --trace $trace"
CUDA_INJECTION64_PATH="$recorder" "$@" --check --trace "$trace"; lesson=$?
case "$lesson" in
  77) exit 77 ;;  # the lesson printed why (no GPU)
  0|1) ;;
  *) echo "FAIL: the lesson exited $lesson under the recorder"; exit 1 ;;
esac
[ -s "$trace" ] || { echo "FAIL: the lesson wrote no --trace file"; exit 1; }
if [ -n "${HIP_LESSONS_KEEP_TRACES:-}" ]; then
  mkdir -p "$HIP_LESSONS_KEEP_TRACES" &&
    cp "$trace" "$HIP_LESSONS_KEEP_TRACES/$(basename "$1").profiler.json"
fi
echo
"$checker" "$trace"; agreement=$?
if [ "$lesson" = 1 ]; then
  echo "FAIL: the lesson's own checks failed under the recorder (exit 1; its output is above)"
  exit 1
fi
exit "$agreement"
