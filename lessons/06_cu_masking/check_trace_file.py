#!/usr/bin/env python3
"""Runs a lesson with --trace FILE and checks FILE is a Chrome Trace Event Format trace.

    check_trace_file.py <lesson binary> [lesson args...]

Exit 0 when the lesson passed and FILE is a JSON object whose "traceEvents" list holds at least
one complete event (ph "X") and every complete event has a name, pid, tid and numeric ts and
dur >= 0; 77 when the lesson skipped (no GPU); 1 otherwise, saying what was wrong.
"""
import json
import numbers
import os
import subprocess
import sys
import tempfile


def problem_with(trace):
    """What is wrong with the parsed trace, or None."""
    if not isinstance(trace, dict):
        return "the file is not a JSON object"
    events = trace.get("traceEvents")
    if not isinstance(events, list) or not events:
        return "no non-empty traceEvents list"
    complete = [e for e in events if isinstance(e, dict) and e.get("ph") == "X"]
    if not complete:
        return "no complete events (ph X)"
    for i, event in enumerate(complete):
        for key in ("name", "pid", "tid"):
            if key not in event:
                return f"complete event {i} has no {key}: {event}"
        for key in ("ts", "dur"):
            value = event.get(key)
            if not isinstance(value, numbers.Real) or isinstance(value, bool) or value < 0:
                return f"complete event {i} has {key} = {value!r}, not a number >= 0: {event}"
    return None


def main(argv):
    if len(argv) < 2:
        print("usage: check_trace_file.py <lesson binary> [lesson args...]", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "trace.json")
        run = subprocess.run(argv[1:] + ["--trace", path], check=False)
        if run.returncode == 77:
            print("skipped: the lesson skipped (exit 77)")
            return 77
        if run.returncode != 0:
            print(f"FAIL the lesson exited {run.returncode}")
            return 1
        try:
            with open(path, encoding="utf-8") as f:
                trace = json.load(f)
        except (OSError, ValueError) as error:
            print(f"FAIL {path} is not readable JSON: {error}")
            return 1
        problem = problem_with(trace)
        if problem:
            print(f"FAIL {path}: {problem}")
            return 1
        complete = sum(1 for e in trace["traceEvents"] if e.get("ph") == "X")
        print(f"ok   {path}: {complete} complete events in the Chrome Trace Event Format")
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
