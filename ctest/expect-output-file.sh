#!/usr/bin/env bash
# One case of the output-file rules, on a real lesson binary:
#   ctest/expect-output-file.sh <case> <flag> -- <lesson binary> [args...]
# Sets up the path for <case> in a fresh temporary directory, runs the lesson with
# "<flag> <path>", and checks what the path and the exit code became. The lesson's own result
# does not matter here (0, or 77 on a machine without a GPU: the report is written either
# way); what is checked is the file. Cases:
#   new, regular, symlink, fifo, stdout, chardev  the report arrives, the path keeps its kind
#   directory, missing_parent                     exit 2 before any GPU work, nothing written
#   full, file_size_limit                         exit 1 naming the path and the reason, and
#                                                 no partial or temporary file left behind
set -uo pipefail
case_name=${1:?case}; flag=${2:?flag}; shift 2
[ "${1:-}" = "--" ] && shift
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL ($case_name): $*"; echo "--- output:"; cat "$work/out" 2>/dev/null; exit 1; }
is_report() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "lesson" in d' "$1" \
  2>/dev/null || python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert "lesson" in d' "$(cat "$1")" 2>/dev/null; }
run() { "$@" >"$work/stdout" 2>"$work/stderr"; code=$?; cat "$work/stdout" "$work/stderr" >"$work/out"; }
ok_code() { [ "$code" = 0 ] || [ "$code" = 77 ] || fail "exit $code, expected 0 (or 77 without a GPU)"; }

case $case_name in
  new) run "$@" "$flag" "$work/new.json"; ok_code; is_report "$work/new.json" || fail "no report" ;;
  regular)
    echo old >"$work/r.json"; chmod 640 "$work/r.json"
    run "$@" "$flag" "$work/r.json"; ok_code; is_report "$work/r.json" || fail "not replaced"
    [ "$(stat -c %a "$work/r.json")" = 640 ] || fail "mode changed to $(stat -c %a "$work/r.json")" ;;
  symlink)
    echo old >"$work/target.json"; ln -s target.json "$work/link.json"
    run "$@" "$flag" "$work/link.json"; ok_code
    [ -L "$work/link.json" ] || fail "the symlink was replaced by a file"
    is_report "$work/target.json" || fail "the target did not get the report" ;;
  fifo)
    mkfifo "$work/pipe"; (cat "$work/pipe" >"$work/read") & reader=$!
    run "$@" "$flag" "$work/pipe"; ok_code; wait $reader
    [ -p "$work/pipe" ] || fail "the FIFO was replaced"
    is_report "$work/read" || fail "the FIFO's reader got no report" ;;
  stdout)
    run "$@" "$flag" -; ok_code
    is_report "$work/stdout" || fail "standard output is not the JSON report alone"
    grep -q "^lesson" "$work/stderr" || fail "the human report did not go to standard error"
    [ ! -e ./- ] || fail "a file named '-' was created" ;;
  chardev) run "$@" "$flag" /dev/null; ok_code; [ -c /dev/null ] || fail "/dev/null is no longer a device" ;;
  directory|missing_parent)
    target=$work; [ "$case_name" = missing_parent ] && target=$work/missing/r.json
    run "$@" "$flag" "$target"; [ "$code" = 2 ] || fail "exit $code, expected 2"
    grep -q "^error: $flag '$target' cannot be written" "$work/stderr" || fail "no clear error"
    grep -q "^skipped\|^check" "$work/stdout" && fail "the lesson ran before refusing the path"
    [ -z "$(ls -A "$work" | grep -v '^out$\|^stdout$\|^stderr$')" ] || fail "something was written" ;;
  full)
    run "$@" "$flag" /dev/full; [ "$code" = 1 ] || fail "exit $code, expected 1"
    grep -q "/dev/full': No space left on device" "$work/stderr" || fail "no path and reason"
    [ -c /dev/full ] || fail "/dev/full was replaced" ;;
  file_size_limit)
    # A file-size limit of 0 makes any write of the report fail.
    # Its output goes through a pipe, which the limit does not cover.
    (ulimit -f 0; "$@" "$flag" "$work/big.json" 2>&1) | cat >"$work/out"; code=${PIPESTATUS[0]}
    cp "$work/out" "$work/stderr"
    [ "$code" = 1 ] || fail "exit $code, expected 1"
    grep -q "big.json': File too large" "$work/stderr" || fail "no path and reason"
    leftovers=$(ls -A "$work" | grep -v '^out$\|^stdout$\|^stderr$')
    [ -z "$leftovers" ] || fail "left behind: $leftovers" ;;
  *) echo "expect-output-file: unknown case '$case_name'" >&2; exit 2 ;;
esac
echo "ok ($case_name): exit $code"
