#!/usr/bin/env bash
# CI's build folders are its own (ctest repo.ci_build_folders): every build/ folder .ci/run
# names is build/ci-*, so that it never configures over the quick start's build/nvidia or
# build/amd (made with another generator, or other options).
#   ctest/check-ci-build-folders.sh [SOURCE_DIR]
set -euo pipefail
script=${1:-$(dirname "$0")/..}/.ci/run
[ -f "$script" ] || { echo "error: $script does not exist" >&2; exit 2; }
# Comment lines aside; a grep that finds nothing is the empty list, not an exit under set -e.
folders=$({ grep -vE '^\s*#' "$script" | grep -oE '(^|[^A-Za-z0-9_./-])build/[A-Za-z0-9_.-]+' ||
            true; } | sed -E 's/^[^b]//' | sort -u)
[ -n "$folders" ] || { echo "FAIL: $script names no build/ folder (has the layout changed?)"; exit 1; }
shared=$(grep -vE '^build/ci-' <<<"$folders" || true)
if [ -n "$shared" ]; then
  echo "FAIL: $script uses build folders that are not its own (build/ci-*):"
  sed 's/^/  /' <<<"$shared"
  exit 1
fi
echo "ci build folders ok: $(tr '\n' ' ' <<<"$folders")"
