#!/usr/bin/env bash
# Proves, for one AMD target, that the built binaries' traced kernels read a real device clock and
# the whole hardware unit id (amd_trace_reads.hpp), not a constant or a partial id.
#
#   ctest/check-amd-trace-reads.sh TARGET CHECKER OBJDUMP OBJCOPY BUNDLER -- BINARY...
#
# For each BINARY (a host executable): its .hip_fatbin section (one clang offload bundle per HIP
# source, each starting at a 4096-byte boundary) is taken out with OBJCOPY; each bundle's code
# object for TARGET is unbundled with BUNDLER and disassembled with OBJDUMP, which must be the
# llvm-objdump of the compiler's own LLVM (an older one cannot decode newer targets); CHECKER
# (hip_lessons_amd_trace_reads_check) then checks every listing. A binary without device code,
# or without code for TARGET (a source not built for it), is named and passed over.
# Exit: the checker's (0 every traced kernel reads what it must, 1 one does not or nothing was
# checked), 1 when a tool fails, 2 on bad usage, 77 when OBJDUMP is missing (nothing to run).
set -u
usage="usage: check-amd-trace-reads.sh TARGET CHECKER OBJDUMP OBJCOPY BUNDLER -- BINARY..."
if [ $# -lt 7 ] || [ "$6" != "--" ]; then
  echo "error: $usage" >&2
  exit 2
fi
target=$1 checker=$2 objdump=$3 objcopy=$4 bundler=$5
shift 6
require_tool() {
  if [ -z "$2" ] || [ ! -x "$2" ]; then
    echo "skipped: no $1 to read the code objects with ('$2'); configure looks for the one of" \
         "the AMD compiler's own LLVM beside the compiler"
    exit 77
  fi
}
require_tool llvm-objdump "$objdump"
require_tool llvm-objcopy "$objcopy"
require_tool clang-offload-bundler "$bundler"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
listings=()
for binary in "$@"; do
  name=$(basename "$binary")
  if ! "$objcopy" -O binary --only-section=.hip_fatbin "$binary" "$work/$name.fatbin"; then
    echo "error: $objcopy could not read $binary"
    exit 1
  fi
  if [ ! -s "$work/$name.fatbin" ]; then
    echo "note: $name has no device code"
    continue
  fi
  bundles=0
  while IFS=: read -r offset _; do
    [ $((offset % 4096)) -eq 0 ] || continue
    bundle="$work/$name.$bundles.bundle"
    tail -c +$((offset + 1)) "$work/$name.fatbin" >"$bundle"
    if ! entries=$("$bundler" --list --type=o "--input=$bundle"); then
      echo "error: $bundler could not list the bundle at offset $offset of $name"
      exit 1
    fi
    entry=$(printf '%s\n' "$entries" | grep -E -- "--${target}(:.*)?$" | head -n 1)
    if [ -z "$entry" ]; then
      echo "note: $name bundle $bundles has no code object for $target"
      bundles=$((bundles + 1))
      continue
    fi
    object="$work/$name.$bundles.$target.co"
    listing="$work/$name.$bundles.$target.s"
    if ! "$bundler" --unbundle --type=o "--input=$bundle" "--targets=$entry" "--output=$object" ||
       ! "$objdump" -d --demangle "$object" >"$listing"; then
      echo "error: could not unbundle or disassemble the $target code object of $name"
      exit 1
    fi
    listings+=("$listing")
    bundles=$((bundles + 1))
  done < <(grep -obUa '__CLANG_OFFLOAD_BUNDLE__' "$work/$name.fatbin")
done
if [ ${#listings[@]} -eq 0 ]; then
  echo "error: none of the binaries has a code object for $target: nothing to check"
  exit 1
fi
(cd "$work" && "$checker" "$target" "${listings[@]##*/}")
