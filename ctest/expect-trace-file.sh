#!/usr/bin/env bash
# A lesson's --trace file, checked (one gpu test per tracing lesson):
#   ctest/expect-trace-file.sh -- <lesson binary> [args...]
# Runs the lesson with "--check --trace FILE" and parses FILE as the Chrome Trace Event Format
# that Perfetto and docs/tools/make_timeline_plots.py read: a JSON object whose "traceEvents"
# is a non-empty list with at least one complete event (ph "X"), every complete event having
# numeric ts and dur >= 0 and pid, tid and name. The lesson's own exit stands when it is not 0
# (77: skipped, no GPU; 1: a check failed); a missing or malformed file is exit 1, naming the
# first bad event.
set -uo pipefail
[ "${1:-}" = "--" ] && shift
[ $# -ge 1 ] || { echo "usage: expect-trace-file.sh -- <lesson binary> [args...]" >&2; exit 2; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$@" --check --trace "$work/trace.json"; code=$?
[ "$code" = 0 ] || exit "$code"
python3 - "$work/trace.json" <<'PY'
import json
import sys

path = sys.argv[1]
try:
    with open(path) as f:
        document = json.load(f)
except (OSError, ValueError) as error:
    sys.exit(f"FAIL: the --trace file is not readable JSON: {error}")
events = document.get("traceEvents") if isinstance(document, dict) else None
if not isinstance(events, list) or not events:
    sys.exit("FAIL: the --trace file has no non-empty \"traceEvents\" list")


def is_time(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


complete = 0
for i, event in enumerate(events):
    if not isinstance(event, dict) or event.get("ph") != "X":
        continue  # metadata events ("M") name the processes and tracks
    missing = [key for key in ("pid", "tid", "name") if key not in event]
    bad_times = [key for key in ("ts", "dur") if not is_time(event.get(key))]
    if missing or bad_times:
        sys.exit(f"FAIL: traceEvents[{i}] {json.dumps(event)[:200]}: missing {missing}, "
                 f"ts/dur not numbers >= 0: {bad_times}")
    complete += 1
if complete == 0:
    sys.exit("FAIL: no complete event (ph \"X\") in traceEvents")
print(f"ok: {complete} complete events among {len(events)} trace events")
PY
