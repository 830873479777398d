#!/usr/bin/env bash
# Checks that every C++ and HIP source follows .clang-format (Google style, 100 columns), as CI
# does; exit 1 listing the files that differ. --fix rewrites them instead. The files are those
# git tracks and those it does not track yet (a new lesson before `git add`), ignored ones aside.
#   ctest/check-format.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/.."
formatter=${CLANG_FORMAT:-clang-format}
command -v "$formatter" >/dev/null || { echo "error: $formatter not found (apt-get install clang-format)" >&2; exit 2; }
# Tracked and untracked, not ignored; a tracked file deleted from the work tree is left out.
mapfile -t files < <(git ls-files --cached --others --exclude-standard \
                       '*.hip' '*.hpp' '*.cpp' '*.h' '*.cu' '*.cuh' | sort -u |
                       while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done)
if [ "${1:-}" = --fix ]; then
  [ ${#files[@]} -gt 0 ] &&  # clang-format with no file reads standard input
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
