#!/usr/bin/env bash
# Runs everything on the GPU at hand and collects the logs and JSON in one folder:
# the full test suite (unit, gpu, speed, bench smoke), the lesson tour, and every lesson's
# Google Benchmark cases with JSON output.
#
#   ctest/gpu-report.sh OUTDIR [--platform auto|amd|nvidia] [--deps DIR_OF_DEBS]
#                              [--speed-runs N] [--skip-bench] [--update-docs "GPU text"]
#                              [-- extra cmake arguments]
#
# --deps unpacks Debian .deb files (GoogleTest, Google Benchmark, CLI11, nlohmann-json) into
# a private prefix for hosts without a package registry. --speed-runs N repeats the speed
# label N times to measure the spread of every ratio. --update-docs regenerates the docs'
# Results page (docs/pages/results.md and docs/results/*.png) and the table of the
# Speed-check stability page from this run, for this GPU (needs python3 with matplotlib:
# apt-get install python3-matplotlib).
set -uo pipefail
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
die_usage() { echo "error: $*" >&2; echo "Run '$0 --help' for the options." >&2; exit 2; }
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  "") die_usage "give the output folder: gpu-report.sh OUTDIR [options]" ;;
  -*) die_usage "the first argument is the output folder, not the option '$1'" ;;
esac
out=$1
shift
platform=auto
deps=""
speed_runs=1
bench=1
docs_gpu=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --platform|--deps|--speed-runs|--update-docs)
      [ $# -ge 2 ] || die_usage "$1 needs a value" ;;&
    --platform) platform=$2; shift 2 ;;
    --deps) deps=$2; shift 2 ;;
    --speed-runs) speed_runs=$2; shift 2 ;;
    --skip-bench) bench=0; shift ;;
    --update-docs)
      [ -n "$2" ] || die_usage "--update-docs needs a description of the GPU"
      docs_gpu=$2; shift 2 ;;
    --) shift; break ;;
    *) die_usage "unknown option '$1'" ;;
  esac
done
case "$platform" in auto|amd|nvidia) ;; *) die_usage "--platform '$platform' is not one of auto, amd, nvidia" ;; esac
[[ "$speed_runs" =~ ^[0-9]+$ ]] || die_usage "--speed-runs '$speed_runs' is not a count (0, 1, 5, ...)"
source_dir=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
cmake_args=("$@")
if [ -n "$deps" ]; then
  prefix=$(mktemp -d)
  for f in "$deps"/*.deb; do dpkg -x "$f" "$prefix"; done
  export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  cmake_args+=(-DCMAKE_PREFIX_PATH="$prefix/usr")
fi
build="$source_dir/build/gpu-$platform"
status=0

{ nvidia-smi 2>/dev/null || rocm-smi 2>/dev/null || true; } > "$out/gpu.txt"

"$source_dir/ctest/quickstart.sh" test --platform "$platform" --no-install --build-dir "$build" \
  --ctest "--timeout 600" -- ${cmake_args[@]+"${cmake_args[@]}"} -DHIP_LESSONS_BUILD_DOCS=OFF \
  > "$out/test.log" 2>&1 || status=1
tail -n 25 "$out/test.log"

# The speed checks again, verbosely, N times: every ratio with its threshold, and the spread.
for ((run = 1; run <= speed_runs; run++)); do
  ctest --test-dir "$build" -L speed -V > "$out/speed-run$run.log" 2>&1 || status=1
  grep -E "tests passed|tests failed" "$out/speed-run$run.log" | sed "s/^/speed run $run: /"
done
grep -h -E '^[0-9]+: speed   ' "$out"/speed-run*.log 2>/dev/null | sed -E 's/^[0-9]+: //' \
  | sort > "$out/speed-ratios.txt" || true

"$source_dir/ctest/quickstart.sh" lessons --platform "$platform" --no-install --build-dir "$build" \
  > "$out/lessons.log" 2>&1 || status=1
mkdir -p "$out/results"
cp "$build"/results/*.json "$out/results/" 2>/dev/null || true  # reports and traces
sed -n '/^Summary/,$p' "$out/lessons.log"

if [ "$bench" = 1 ]; then
  for binary in "$build"/bin/*_bench; do
    name=$(basename "$binary")
    "$binary" --benchmark_out="$out/results/$name.json" --benchmark_out_format=json \
      > "$out/results/$name.txt" 2>&1 || status=1
  done
fi
if [ -n "$docs_gpu" ]; then
  "${PYTHON:-/usr/bin/python3}" "$source_dir/docs/tools/make_results_page.py" --input "$out/results" \
    --page "$source_dir/docs/pages/results.md" --plots "$source_dir/docs/results" \
    --gpu "$docs_gpu" || status=1
  "${PYTHON:-/usr/bin/python3}" "$source_dir/docs/tools/make_timeline_plots.py" \
    --input "$out/results" --plots "$source_dir/docs/results" || status=1
  if [ "$speed_runs" -gt 0 ]; then
    # Judged by the thresholds of the platform the build resolved ("auto" picks one).
    built_for=$(sed -n 's/^HIP_LESSONS_PLATFORM_RESOLVED:[A-Z]*=//p' "$build/CMakeCache.txt")
    "${PYTHON:-/usr/bin/python3}" "$source_dir/docs/tools/make_stability_page.py" \
      --page "$source_dir/docs/pages/speed_stability.md" --machine "$docs_gpu" \
      --platform "${built_for:-$platform}" "$out"/speed-run*.log || status=1
  fi
fi
exit $status
