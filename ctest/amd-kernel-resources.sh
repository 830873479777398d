#!/usr/bin/env bash
# Compiles one HIP source for one AMD target, device code only, and keeps what the compiler
# says about each kernel's resources: the -Rpass-analysis=kernel-resource-usage remarks
# (SGPRs, VGPRs, AGPRs, LDS, "Occupancy [waves/SIMD]") and the assembly, whose
# .amdgpu_metadata block holds what the HIP runtime reads (.vgpr_count, .max_flat_workgroup_size,
# .wavefront_size).
#
#   ctest/amd-kernel-resources.sh REMARKS_FILE ASM_FILE -- COMPILER ARGS...
#
# The compile command must name one --offload-arch and --cuda-device-only; this script adds
# -S -o ASM_FILE and the remark flags. Exit 0 with both files written, 1 when the compile
# fails (its messages are printed), 2 on bad usage. Used by
# tools/compiler_occupancy/CMakeLists.txt.
set -euo pipefail

if [ $# -lt 4 ] || [ "$3" != "--" ]; then
  echo "usage: $0 REMARKS_FILE ASM_FILE -- COMPILER ARGS..." >&2
  exit 2
fi
remarks=$1
asm=$2
shift 3

messages=$(mktemp)
trap 'rm -f "$messages"' EXIT
if ! "$@" -S -o "$asm" -Rpass-analysis=kernel-resource-usage -fno-caret-diagnostics \
       -fno-color-diagnostics 2>"$messages"; then
  cat "$messages" >&2
  echo "error: the resource report compile failed: $*" >&2
  rm -f "$asm"
  exit 1
fi
# The remarks to their file; warnings to the build log (the "In file included from" lines that
# precede each remark would only repeat the include chain).
grep -F -- '[-Rpass-analysis=kernel-resource-usage]' "$messages" >"$remarks.tmp" || true
grep -F -- 'warning:' "$messages" >&2 || true
mv "$remarks.tmp" "$remarks"
