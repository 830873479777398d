#!/usr/bin/env bash
# A lesson's --help fits a terminal of 100 columns (lessonNN.help_width, label unit):
#   expect-help-width.sh LESSON_BINARY
# Exit 0 when --help exits 0 and every line has at most 100 columns; 1 naming each longer line.
set -uo pipefail
binary=${1:?usage: expect-help-width.sh LESSON_BINARY}
help=$("$binary" --help 2>&1)
code=$?
[ "$code" = 0 ] || { printf '%s\n' "$help"; echo "FAIL: --help exited $code"; exit 1; }
long=$(printf '%s\n' "$help" | awk 'length > 100 { printf "line %d has %d columns: %s\n", NR, length, $0 }')
if [ -n "$long" ]; then
  printf '%s\n' "$long"
  echo "FAIL: $(basename "$binary") --help has lines over 100 columns"
  exit 1
fi
echo "help width ok: $(printf '%s\n' "$help" | wc -l) lines of $(basename "$binary") --help, each within 100 columns"
