#!/usr/bin/env bash
# Checks that a lesson's --help shows, for each speed-check flag, the threshold CMake
# configured for this platform: the number a user reads in --help, the number ctest's speed
# test enforces and the number the tour prints must be one number.
#   ctest/expect-help-defaults.sh <lesson binary> <flag> <cmake value> [<flag> <cmake value>...]
# Exit 0 when every default matches (compared as numbers), 1 otherwise, 2 on bad usage.
set -uo pipefail
if [ $# -lt 3 ] || [ $(( ($# - 1) % 2 )) -ne 0 ]; then
  echo "usage: $0 <binary> <flag> <value> [<flag> <value>...]" >&2
  exit 2
fi
binary=$1
shift
help=$("$binary" --help 2>&1) || { echo "FAIL: '$binary --help' exited non-zero" >&2; exit 1; }
failed=0
while [ $# -gt 0 ]; do
  flag=$1 expected=$2
  shift 2
  line=$(printf '%s\n' "$help" | grep -E -- "^ +${flag}( |=)" | head -n 1)
  # CLI11 shows "--flag X=0.75" (or "--flag X [0.75]" in other versions).
  shown=$(printf '%s\n' "$line" | sed -nE -e "s/^ +${flag} [A-Z]+=([^ ]+).*/\1/p" \
                                          -e "s/^ +${flag} [A-Z]+ \[([^]]*)\].*/\1/p" | head -n 1)
  if [ -z "$line" ]; then
    echo "FAIL: $flag is not in --help"
    failed=1
  elif awk -v a="$shown" -v b="$expected" 'BEGIN { exit !(a != "" && a + 0 == b + 0) }'; then
    echo "ok    $flag: --help default $shown = CMake $expected"
  else
    echo "FAIL: $flag: --help shows default '${shown}', CMake configured $expected"
    failed=1
  fi
done
exit $failed
