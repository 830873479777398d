#!/usr/bin/env bash
# Runs everything on the GPU at hand and collects the logs and JSON in one folder:
# the full test suite (unit, gpu, speed, bench smoke), the lesson tour, and every lesson's
# Google Benchmark cases with JSON output.
#
#   ctest/gpu-report.sh OUTDIR [--platform auto|amd|nvidia] [--deps DIR_OF_DEBS]
#                              [--speed-runs N] [--skip-bench] [--update-docs "GPU text"]
#                              [--build-dir DIR] [--no-build] [-- extra cmake arguments]
#
# It builds in a folder of its own, build/gpu-<platform> (docs off; a full build the first
# time), unless --build-dir names another; --no-build runs a build folder as it is (the quick
# start's build/nvidia, say). It needs a GPU: without one it stops before building (exit 1).
#
# --deps unpacks Debian .deb files (GoogleTest, Google Benchmark, CLI11, nlohmann-json) into
# a private prefix for hosts without a package registry. --speed-runs N repeats the speed
# label N times to measure the spread of every ratio. --update-docs regenerates the docs'
# Results page (docs/pages/results.md and docs/results/*.png) and the table of the
# Speed-check stability page from this run, for this GPU (needs python3 with matplotlib:
# apt-get install python3-matplotlib). The docs are rewritten only when everything passed:
# after a failure or a skip (a lesson, a test, a speed run, a benchmark) no docs file changes.
# The end names every failure; exit 0 when all passed, else 1.
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
build=""
no_build=0
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --platform|--deps|--speed-runs|--update-docs|--build-dir)
      [ $# -ge 2 ] || die_usage "$1 needs a value" ;;&
    --platform) platform=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    --no-build) no_build=1; shift ;;
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

# A GPU first: without one every lesson skips, and the Results page would become a page of
# skips. The device nodes the drivers create (HIP_LESSONS_DEV names another folder than /dev:
# the tests' stand-in).
dev=${HIP_LESSONS_DEV:-/dev}
case "$platform" in
  nvidia) nodes=("$dev"/nvidia[0-9]*) ;;
  amd) nodes=("$dev"/kfd) ;;
  auto) nodes=("$dev"/nvidia[0-9]* "$dev"/kfd) ;;
esac
found=""
for node in "${nodes[@]}"; do [ -e "$node" ] && found=$node && break; done
if [ -z "$found" ]; then
  case "$platform" in nvidia) want=NVIDIA ;; amd) want=AMD ;; auto) want="AMD or NVIDIA" ;; esac
  echo "error: gpu-report measures the GPU at hand, and this machine has no $want GPU" \
       "(no ${nodes[*]#"$dev"/} in $dev); nothing was built, and no docs file was changed" >&2
  exit 1
fi

mkdir -p "$out"
cmake_args=("$@")
if [ -n "$deps" ]; then
  prefix=$(mktemp -d)
  for f in "$deps"/*.deb; do dpkg -x "$f" "$prefix"; done
  export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  cmake_args+=(-DCMAKE_PREFIX_PATH="$prefix/usr")
fi
build=${build:-$source_dir/build/gpu-$platform}
build_step=()
if [ "$no_build" = 1 ]; then
  build_step=(--no-build)
  echo "gpu-report: running the build in $build as it is (--no-build)"
else
  echo "gpu-report: building in $build, a build of its own with the docs off (a full build" \
       "the first time; --build-dir DIR --no-build runs an existing one)"
fi
failures=()  # what did not pass, named at the end

{ nvidia-smi 2>/dev/null || rocm-smi 2>/dev/null || true; } > "$out/gpu.txt"

"$source_dir/ctest/quickstart.sh" test --platform "$platform" --no-install --build-dir "$build" \
  ${build_step[@]+"${build_step[@]}"} --ctest "--timeout 600" \
  -- ${cmake_args[@]+"${cmake_args[@]}"} -DHIP_LESSONS_BUILD_DOCS=OFF \
  > "$out/test.log" 2>&1 || failures+=("the test suite failed ($out/test.log)")
tail -n 25 "$out/test.log"
# quickstart's own count: "N passed, N failed, N skipped"
skipped=$(sed -nE 's/^[0-9]+ passed, [0-9]+ failed, ([0-9]+) skipped$/\1/p' "$out/test.log" | tail -n 1)
if [ -n "$skipped" ] && [ "$skipped" -gt 0 ]; then
  failures+=("$skipped tests skipped ($out/test.log)")
fi

# The speed checks again, verbosely, N times: every ratio with its threshold, and the spread.
# A skipped speed test is counted as a skip, never as a pass.
for ((run = 1; run <= speed_runs; run++)); do
  log="$out/speed-run$run.log"
  ctest --test-dir "$build" -L speed -V --no-tests=error > "$log" 2>&1
  code=$?
  total=$(sed -nE 's/.*tests passed.* out of ([0-9]+).*/\1/p' "$log" | tail -n 1)
  failed=$(sed -nE 's/.* ([0-9]+) tests? failed.*/\1/p' "$log" | tail -n 1)
  run_skips=$(grep -cE '^[[:space:]]*[0-9]+ - .*\(Skipped\)$' "$log")
  total=${total:-0} failed=${failed:-0}
  echo "speed run $run: $(( total - failed - run_skips )) passed, $failed failed, $run_skips skipped"
  if [ "$code" != 0 ] || [ "$failed" -gt 0 ] || [ "$run_skips" -gt 0 ] || [ "$total" = 0 ]; then
    failures+=("speed run $run: $failed failed, $run_skips skipped of $total (exit $code, $log)")
  fi
done
grep -h -E '^[0-9]+: speed   ' "$out"/speed-run*.log 2>/dev/null | sed -E 's/^[0-9]+: //' \
  | sort > "$out/speed-ratios.txt" || true

"$source_dir/ctest/quickstart.sh" lessons --platform "$platform" --no-install --build-dir "$build" \
  --no-build > "$out/lessons.log" 2>&1 || failures+=("the lesson tour failed ($out/lessons.log)")
mkdir -p "$out/results"
cp "$build"/results/*.json "$out/results/" 2>/dev/null || true  # reports and traces
sed -n '/^Summary/,$p' "$out/lessons.log"
# Every row of the tour's summary that is not a pass ("  03_multi_stream   skipped  ...").
while read -r name result; do
  failures+=("lesson $name: $result")
done < <(awk '/^Summary/ { table = 1; next }
              table && $1 ~ /^[0-9][0-9]_/ && $2 != "pass" { print $1, $2 }' "$out/lessons.log")
if ! grep -q '^Summary' "$out/lessons.log"; then
  failures+=("the lesson tour printed no summary ($out/lessons.log)")
fi

if [ "$bench" = 1 ]; then
  for binary in "$build"/bin/*_bench; do
    [ -e "$binary" ] || continue
    name=$(basename "$binary")
    "$binary" --benchmark_out="$out/results/$name.json" --benchmark_out_format=json \
      > "$out/results/$name.txt" 2>&1
    code=$?
    case "$code" in
      0) ;;
      77) failures+=("$name skipped (exit 77, $out/results/$name.txt)") ;;
      *) failures+=("$name failed (exit $code, $out/results/$name.txt)") ;;
    esac
  done
fi
if [ -n "$docs_gpu" ] && [ ${#failures[@]} -gt 0 ]; then
  echo "gpu-report: no docs file was changed: the Results pages show a run where everything" \
       "passed, and this one did not (below)" >&2
elif [ -n "$docs_gpu" ]; then
  "${PYTHON:-/usr/bin/python3}" "$source_dir/docs/tools/make_results_page.py" --input "$out/results" \
    --page "$source_dir/docs/pages/results.md" --plots "$source_dir/docs/results" \
    --gpu "$docs_gpu" || failures+=("make_results_page.py failed")
  "${PYTHON:-/usr/bin/python3}" "$source_dir/docs/tools/make_timeline_plots.py" \
    --input "$out/results" --plots "$source_dir/docs/results" ||
    failures+=("make_timeline_plots.py failed")
  if [ "$speed_runs" -gt 0 ]; then
    # Judged by the thresholds of the platform the build resolved ("auto" picks one).
    built_for=$(sed -n 's/^HIP_LESSONS_PLATFORM_RESOLVED:[A-Z]*=//p' "$build/CMakeCache.txt")
    "${PYTHON:-/usr/bin/python3}" "$source_dir/docs/tools/make_stability_page.py" \
      --page "$source_dir/docs/pages/speed_stability.md" --machine "$docs_gpu" \
      --platform "${built_for:-$platform}" "$out"/speed-run*.log ||
      failures+=("make_stability_page.py failed")
  fi
fi
if [ ${#failures[@]} -gt 0 ]; then
  echo "gpu-report: FAILED (logs in $out):" >&2
  printf '  %s\n' "${failures[@]}" >&2
  exit 1
fi
echo "gpu-report: everything passed (logs in $out)"
