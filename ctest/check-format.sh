#!/usr/bin/env bash
# Checks that every C++ and HIP source follows .clang-format (Google style, 100 columns), as CI
# does; exit 1 listing the files that differ. --fix rewrites them instead.
#   ctest/check-format.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/.."
formatter=${CLANG_FORMAT:-clang-format}
command -v "$formatter" >/dev/null || { echo "error: $formatter not found (apt-get install clang-format)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.hip' '*.hpp' '*.cpp' '*.h' '*.cu' '*.cuh')
if [ "${1:-}" = --fix ]; then
  "$formatter" -i --style=file "${files[@]}"
  echo "formatted ${#files[@]} files"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  # The real name, as --fix's in-place run sees it: clang-format reads .hip as C++, and the
  # name also decides which include counts as the file's main header.
  if ! "$formatter" --style=file --assume-filename="$f" <"$f" | cmp -s - "$f"; then
    bad+=("$f")
  fi
done
if [ ${#bad[@]} -gt 0 ]; then
  printf 'not formatted (run ctest/check-format.sh --fix):\n'
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "format ok: ${#files[@]} files follow .clang-format"
