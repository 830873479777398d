#!/usr/bin/env bash
# Quick start: set up, build, then either run the lessons in order or run the test suite.
#
#   ctest/quickstart.sh lessons [options] [-- extra cmake arguments]
#   ctest/quickstart.sh test    [options] [-- extra cmake arguments]
#
# Options:
#   --platform auto|amd|nvidia   GPU platform (default auto: AMD when ROCm sees an AMD GPU,
#                                else NVIDIA when nvcc exists, else AMD via Debian's hipcc)
#   --build-dir DIR              build directory (default build/<platform>, auto resolved:
#                                build/nvidia or build/amd)
#   --ctest "ARGS"               extra ctest arguments for 'test', e.g. --ctest "-LE speed"
#   --no-install                 never install packages, only print the install command
#   --no-build                   use the build directory as it is (already configured and
#                                built): skip setting up, configuring and building
# Options may stand before or after the mode, and take --opt value or --opt=value. 'test'
# ends with "N passed, N failed, N skipped"; a --ctest selection that matches no test fails.
#
# Run it as yourself, not with sudo: the build tree is yours, so the README's next commands
# work. Missing Debian packages are installed only when CMake cannot find them, and only that
# step is privileged: `sudo apt-get install ...` (plain apt-get as root, in a container), or,
# where sudo cannot ask for a password (no terminal) or with --no-install, the exact command is
# printed instead. A host without a package registry passes its dependencies with
# -- -DCMAKE_PREFIX_PATH=/path/to/prefix (or the CMAKE_PREFIX_PATH environment variable).
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
die_usage() { echo "error: $*" >&2; echo "Run '$0 --help' for the options." >&2; exit 2; }

# Options may come before or after the mode, as --opt value or --opt=value.
mode=""
platform=auto
build_dir=""
ctest_args=""
may_install=1
build=1
cmake_args=()
while [ $# -gt 0 ]; do
  arg=$1
  value_given=0
  case "$arg" in
    --*=*) value=${arg#*=}; arg=${arg%%=*}; value_given=1 ;;
  esac
  remaining=$#
  next=${2-}
  # Sets value (and how many words it took) for an option that needs one; $1 says what.
  takes_value() {
    if [ "$value_given" = 1 ]; then shift_by=1; return 0; fi
    [ "$remaining" -ge 2 ] || die_usage "$arg needs a value: $1"
    value=$next
    shift_by=2
  }
  case "$arg" in
    lessons|test)
      [ -z "$mode" ] || die_usage "give one mode, 'lessons' or 'test', not both '$mode' and '$arg'"
      mode=$arg; shift_by=1 ;;
    -h|--help) usage; exit 0 ;;
    --platform) takes_value "auto, amd or nvidia"; platform=$value ;;
    --build-dir) takes_value "a directory"; build_dir=$value ;;
    --ctest) takes_value "ctest arguments, e.g. --ctest \"-L lesson02\""; ctest_args=$value ;;
    --no-install) may_install=0; shift_by=1 ;;
    --no-build) build=0; shift_by=1 ;;
    --) shift; cmake_args=("$@"); break ;;
    *) die_usage "unknown argument '$1'" ;;
  esac
  shift "$shift_by"
done
[ -n "$mode" ] || die_usage "give the mode: 'lessons' or 'test'"
case "$platform" in
  auto|amd|nvidia) ;;
  *) die_usage "--platform '$platform' is not one of auto, amd, nvidia" ;;
esac

# Under sudo every file of the build would belong to root, and the README's next commands
# (the docs, ctest --test-dir) would fail for the user with "Permission denied".
if [ "$(id -u)" = 0 ] && [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
  echo "error: run ctest/quickstart.sh as $SUDO_USER, without sudo: it asks sudo itself, only" \
       "to install missing packages (as root the build tree would belong to root)" >&2
  exit 2
fi

source_dir=$(cd "$(dirname "$0")/.." && pwd)
has_nvcc() { command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || [ -n "${CUDA_PATH:-}" ]; }
has_hipcc() { command -v hipcc >/dev/null || [ -x /opt/rocm/bin/hipcc ] || [ -n "${ROCM_PATH:-}" ]; }
# "auto" is resolved here, with CMake's rule, so the build directory is named for the platform
# it holds (build/nvidia or build/amd, the paths the README and the docs use).
if [ "$platform" = auto ]; then
  if [ -e /dev/kfd ] && has_hipcc; then platform=amd
  elif has_nvcc; then platform=nvidia
  else platform=amd
  fi
  echo "quickstart: platform auto -> $platform"
fi
build_dir=${build_dir:-$source_dir/build/$platform}
jobs=$(nproc 2>/dev/null || echo 2)

# How packages get installed: as root with apt-get itself; as a user through sudo, when sudo
# can ask for a password (a terminal) or needs none; otherwise not at all.
as_root=()
can_install() {
  [ "$may_install" = 1 ] && command -v apt-get >/dev/null || return 1
  if [ "$(id -u)" = 0 ]; then as_root=(); return 0; fi
  command -v sudo >/dev/null || return 1
  [ -t 0 ] || sudo -n true 2>/dev/null || return 1
  as_root=(sudo)
}
apt_updated=0
install_packages() {
  if can_install; then
    echo "quickstart: installing what is missing:" \
         "${as_root[*]:+${as_root[*]} }apt-get install --no-install-recommends $*"
    if [ "$apt_updated" = 0 ]; then "${as_root[@]}" apt-get update -qq; apt_updated=1; fi
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends "$@"
  else
    echo "quickstart: missing: $*" >&2
    echo "quickstart: install them with:  sudo apt-get install $*" >&2
    echo "quickstart: then run this command again (or pass a prefix that has them:" \
         "-- -DCMAKE_PREFIX_PATH=...)" >&2
    exit 1
  fi
}

if [ "$build" = 0 ]; then
  if [ ! -f "$build_dir/lessons.tsv" ]; then
    echo "error: --no-build needs a configured and built --build-dir; $build_dir/lessons.tsv does not exist" >&2
    exit 2
  fi
else
# 1. Tools: a C++ compiler, CMake, and a GPU compiler (Debian's hipcc when there is none).
tools=()
command -v cmake >/dev/null || tools+=(cmake)
command -v g++ >/dev/null || command -v c++ >/dev/null || tools+=(g++)
command -v ninja >/dev/null || tools+=(ninja-build)
if [ "$platform" = amd ] && ! has_hipcc; then
  tools+=(hipcc libamdhip64-dev)
fi
if [ "$platform" = nvidia ] && ! has_nvcc; then
  echo "error: --platform nvidia needs the CUDA toolkit (nvcc); install it from NVIDIA" >&2
  exit 1
fi
if [ ${#tools[@]} -gt 0 ]; then
  # Ninja is optional: without it CMake uses Makefiles.
  if ! can_install && [ "${tools[*]}" = "ninja-build" ]; then tools=(); else install_packages "${tools[@]}"; fi
fi

# 2. Configure; install what CMake reports missing, then configure again.
# Ninja when there is one, unless the build exists or the cmake arguments name a generator.
generator=()
if command -v ninja >/dev/null && [ ! -f "$build_dir/CMakeCache.txt" ]; then generator=(-G Ninja); fi
for arg in ${cmake_args[@]+"${cmake_args[@]}"}; do
  case "$arg" in -G*) generator=() ;; esac
done
configure() {
  cmake -S "$source_dir" -B "$build_dir" "${generator[@]}" \
    -DHIP_LESSONS_PLATFORM="$platform" ${cmake_args[@]+"${cmake_args[@]}"}
}
# The first configure's messages are kept in a log and shown once it is done: when it stops only
# because Debian packages are missing, a line says which, instead of CMake's error, and the
# second configure, after the install, is shown as it runs.
configure_log="$build_dir/quickstart-configure.log"
mkdir -p "$build_dir"
echo "quickstart: configuring $build_dir"
if configure > "$configure_log" 2>&1; then
  cat "$configure_log"
else
  missing="$build_dir/missing-debian-packages.txt"
  if [ -s "$missing" ]; then
    echo "quickstart: configure stopped: these Debian packages are missing: $(cat "$missing")" \
         "(CMake's messages: $configure_log)"
    # shellcheck disable=SC2046
    install_packages $(cat "$missing")
    configure
  else
    cat "$configure_log"
    echo "error: configuring failed (see the CMake messages above)" >&2
    exit 1
  fi
fi

# 3. Build.
cmake --build "$build_dir" -j "$jobs"
fi

# 4a. Run the test suite.
if [ "$mode" = test ]; then
  log="$build_dir/quickstart-test.log"
  set +e
  # shellcheck disable=SC2086
  ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -j "$jobs" $ctest_args 2>&1 |
    tee "$log"
  code=${PIPESTATUS[0]}
  set -e
  # CTest ends with "100% tests passed, 0 tests failed out of N" (3.25, Debian 12), or with
  # "100% tests passed out of N" when none failed (newer releases).
  result_line=$(grep -E '^[0-9]+% tests passed' "$log" | tail -n 1 || true)
  total=$(sed -nE 's/.* out of ([0-9]+).*/\1/p' <<<"$result_line")
  failed=$(sed -nE 's/.* ([0-9]+) tests? failed.*/\1/p' <<<"$result_line")
  failed=${failed:-0}
  skipped=$(grep -cE '^[[:space:]]*[0-9]+ - .*\(Skipped\)$' "$log" || true)
  if [ -z "$total" ]; then
    echo "quickstart: ctest ran no test (exit $code)" >&2
    exit $(( code == 0 ? 1 : code ))
  fi
  echo
  echo "$(( total - failed - skipped )) passed, $failed failed, $skipped skipped"
  if [ "$skipped" -gt 0 ]; then
    # The skips that are gpu tests, and the others by name (docs.rendered_pages, say, skips
    # until the docs are built): the hint accounts for every skip counted above.
    skipped_names=$(sed -nE 's/^[[:space:]]*[0-9]+ - (.*) \(Skipped\)$/\1/p' "$log")
    gpu_names=$(ctest --test-dir "$build_dir" -N -L gpu 2>/dev/null |
                sed -nE 's/^[[:space:]]*Test[[:space:]]+#[0-9]+: (.*)$/\1/p' || true)
    others=$(grep -vxF -f <(printf '%s\n' "$gpu_names") <<<"$skipped_names" || true)
    other_count=$(grep -c . <<<"$others" || true)
    echo "quickstart: a skipped test needs what this machine lacks; it is never counted as" \
         "passed."
    if [ $(( skipped - other_count )) -gt 0 ]; then
      echo "quickstart: $(( skipped - other_count )) of the $skipped skipped need a GPU (or a GPU" \
           "tool such as compute-sanitizer). The tests that need a GPU:" \
           "ctest --test-dir ${build_dir#"$PWD"/} -N -L gpu"
    fi
    if [ "$other_count" -gt 0 ]; then
      echo "quickstart: $other_count of the $skipped skipped for another reason, which its" \
           "output above gives: ${others//$'\n'/, }"
    fi
  fi
  exit "$code"
fi

# 4b. Run the lessons in order, then a summary table.
results_dir="$build_dir/results"
mkdir -p "$results_dir"
failed=0
summary=()
while IFS=$'\t' read -r name binary tour_args; do
  [ -n "$name" ] || continue
  echo
  echo "=================================================================="
  echo "== lesson $name"
  echo "=================================================================="
  log="$results_dir/$name.log"
  args="${tour_args//;/ }"
  set +e
  # shellcheck disable=SC2086
  # Lessons that record block traces also write one (open it in ui.perfetto.dev).
  trace=()
  # Not `--help | grep -q`: under pipefail grep's early exit can fail the writer, and the pipe.
  if grep -q -- '--trace' <<<"$("$binary" --help 2>/dev/null)"; then
    trace=(--trace "$results_dir/$name.trace.json")
  fi
  { echo "\$ $(basename "$binary") $args"
    "$binary" $args --json "$results_dir/$name.json" ${trace[@]+"${trace[@]}"} 2>&1; } | tee "$log"
  code=${PIPESTATUS[0]}
  set -e
  case "$code" in
    0) result=pass ;;
    77) result=skipped ;;
    *) result="FAIL ($code)"; failed=1 ;;
  esac
  # The lesson wraps its summary within 100 columns, continuation lines indented: join them.
  figure=$(awk '/^(summary|skipped): / && !found { found = 1; sub(/^(summary|skipped): /, "");
                                                   text = $0; next }
                found && /^  +[^ ]/ { sub(/^ +/, ""); text = text " " $0; next }
                found { exit }
                END { print text }' "$log")
  summary+=("$name"$'\t'"$result"$'\t'"${figure:-}")
done < "$build_dir/lessons.tsv"

echo
echo "Summary ($build_dir, logs and JSON in $results_dir)"
printf '  %-18s  %-10s  %s\n' lesson result "key figure"
printf '  %-18s  %-10s  %s\n' ------------------ ---------- ----------
last_skip=""
for row in "${summary[@]}"; do
  IFS=$'\t' read -r name result figure <<<"$row"
  # A skip reason shared with the row above (no GPU, say) is said once.
  if [ "$result" = skipped ] && [ "$figure" = "$last_skip" ]; then shown="(same reason)"
  else shown=$figure
  fi
  [ "$result" = skipped ] && last_skip=$figure
  # The key figure wraps under itself so that the summary stays within 100 columns.
  first=1
  while IFS= read -r part; do
    if [ $first = 1 ]; then printf '  %-18s  %-10s  %s\n' "$name" "$result" "$part"
    else printf '  %-18s  %-10s  %s\n' "" "" "$part"
    fi
    first=0
  done < <(printf '%s\n' "$shown" | fold -s -w 66 | sed 's/ *$//')
done
exit $failed
