#!/usr/bin/env bash
# Checks the shape every lesson keeps (CONTRIBUTING.md, "Adding a lesson"):
#   - every lesson has a main.hip (a README or main.hip is as long as the reader needs: no
#     line caps; the README's sections are checked by docs/tools/check_lesson_structure.py);
#   - no main.hip builds a table cell by hand (std::to_string(, hl::fixed(, add_row():
#     tables are hl::ResultTable, text is hl::format;
#   - every lesson has a row in README.md's and docs/mainpage.md's lesson tables;
#   - no header of a lesson takes a StepResult& (a helper below main.hip returns its result,
#     e.g. hl::Verdicts; the step in main.hip records it);
#   - every header of common/include/hip_lessons is used by at least two lessons, directly or
#     through another common header (common/ holds only what lessons share);
#   - the GPU helpers (device.hpp, timing.hpp, buffers.hpp, streams.hpp, hip_check.hpp) do not
#     reach the command line or the report (cli.hpp, results.hpp, step_result.hpp, report.hpp,
#     lesson.hpp), directly or through another common header.
# Exit 0 when all hold, 1 listing each violation.
#   ctest/check-lesson-shape.sh [SOURCE_DIR]
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
failures=0
fail() { echo "FAIL  $*"; failures=$((failures + 1)); }

lessons=(lessons/[0-9][0-9]_*/)
for dir in "${lessons[@]}"; do
  main=${dir}main.hip
  [ -f "$main" ] || { fail "$main is missing"; continue; }
  if hits=$(grep -nE 'std::to_string\(|hl::fixed\(|add_row\(' "$main"); then
    fail "$main formats cells by hand (use hl::ResultTable / hl::format):"$'\n'"$hits"
  fi
  # Where do I add a check? In main.hip: helpers below it return, they do not record.
  for header in "$dir"*.hpp; do
    [ -f "$header" ] || continue
    if hits=$(grep -nE 'StepResult ?&' "$header"); then
      fail "$header takes a StepResult& (return the result, e.g. hl::Verdicts; main.hip records):"$'\n'"$hits"
    fi
  done
  # A lesson a reader cannot find from the front pages does not exist for them.
  number=$(basename "$dir" | cut -c1-2)
  grep -qF "(${dir}README.md)" README.md || fail "README.md's lesson table has no link to ${dir}README.md"
  grep -qE "^\| @ref lesson${number} \|" docs/mainpage.md ||
    fail "docs/mainpage.md's lesson table has no row '| @ref lesson${number} |'"
done

# The common headers each file includes, followed through common headers.
common=common/include/hip_lessons
includes_of() { grep -ohE '#include "hip_lessons/[a-z_]+\.hpp"' "$@" 2>/dev/null |
  sed -E 's/.*hip_lessons\/([a-z_]+\.hpp)"/\1/' | sort -u; }
closure() {
  local seen=" " queue next header
  queue=$(includes_of "$@")
  while [ -n "$queue" ]; do
    next=""
    for header in $queue; do
      case "$seen" in *" $header "*) continue ;; esac
      seen="$seen$header "
      next="$next $(includes_of "$common/$header")"
    done
    queue=$(echo $next)
  done
  echo $seen
}
declare -A users
for dir in "${lessons[@]}"; do
  mapfile -t sources < <(find "$dir" -name '*.hip' -o -name '*.hpp' -o -name '*.cpp')
  for header in $(closure "${sources[@]}"); do users[$header]=$((${users[$header]:-0} + 1)); done
done
for path in "$common"/*.hpp; do
  header=$(basename "$path")
  count=${users[$header]:-0}
  [ "$count" -ge 2 ] || fail "$common/$header is used by $count lesson(s) (common/ is for what two or more share)"
done

# The layers: a GPU helper knows nothing of how results are reported.
for helper in device.hpp timing.hpp buffers.hpp streams.hpp hip_check.hpp; do
  reached=" $(closure "$common/$helper") "
  for report_header in cli.hpp results.hpp step_result.hpp report.hpp lesson.hpp; do
    case "$reached" in
      *" $report_header "*)
        fail "$common/$helper reaches $report_header (a GPU helper must not depend on the report)" ;;
    esac
  done
done

if [ $failures -gt 0 ]; then
  echo "$failures violation(s) of the lesson shape"
  exit 1
fi
echo "lesson shape ok: ${#lessons[@]} lessons, each with a main.hip, no hand-made cells, no" \
  "lesson header taking a StepResult&, each in the front pages' lesson tables, every common" \
  "header shared, GPU helpers apart from the report"
