#!/usr/bin/env python3
"""Writes the table of docs/pages/speed_stability.md from repeated runs of the speed label.

Input: the logs of `ctest -L speed -V` (one file per run, as ctest/gpu-report.sh writes them:
speed-run1.log, speed-run2.log, ...). Every speed check prints one line,

    speed   ok    <name> = <ratio> (needs >= <threshold>)

and the table gives, per check, the threshold, the lowest and highest ratio over the runs,
and the headroom of the worst run: how far its ratio could move toward the threshold before
the check fails, as a fraction of the ratio (>= checks: 1 - threshold / lowest; <= checks:
1 - highest / threshold). The project keeps every headroom at 25% or more.

An overhead bound, a <= check whose threshold lies between 1 and 1 / (1 - 25%) (traced /
untraced <= 1.05), could never keep 25% of its ratio: a ratio of 1, no overhead at all, leaves
1 - 1 / 1.05 = 5%. Its headroom is the share of the allowed overhead that the worst run left
unused, 1 - (highest - 1) / (threshold - 1), and the table says "(overhead)".

The lessons wrap their output within 100 columns, so a check's line may go on, indented, on
the next line(s) of the log; they are joined before matching.

Usage: make_stability_page.py --page docs/pages/speed_stability.md --machine "..." LOG...
Exit status 1 when a run failed a speed check or a headroom is under the rule's 25%.
"""
import argparse
import pathlib
import re
import sys

LINE = re.compile(r"^(?:\d+: )?speed   (ok|FAIL)  +(.+) = (-?[0-9.]+) \(needs (>=|<=) ([0-9.]+)\)$")
BEGIN = "<!-- stability-table:begin -->"
END = "<!-- stability-table:end -->"
MIN_HEADROOM = 0.25


PREFIX = re.compile(r"^(\d+: )?")


def joined_lines(lines):
    """The log's lines, each speed line joined with its indented continuation lines."""
    pending = None
    for line in lines:
        prefix = PREFIX.match(line).group(0)
        body = line[len(prefix):]
        if pending is not None:
            if body.startswith("  ") and body.strip():
                pending += " " + body.strip()
                continue
            yield pending
            pending = None
        if body.startswith("speed   "):
            pending = prefix + body.rstrip()
        else:
            yield line
    if pending is not None:
        yield pending


def read_runs(paths):
    """Returns {(lesson, name, comparison, threshold): [ratios]} and the failed-check count."""
    checks = {}
    failures = 0
    for path in paths:
        lesson = "??"
        for line in joined_lines(path.read_text(errors="replace").splitlines()):
            started = re.search(r"(?:Test command|^Command): .*/lesson(\d\d)_", line)
            if started:
                lesson = started.group(1)
            match = LINE.match(line)
            if not match:
                continue
            status, name, ratio, comparison, threshold = match.groups()
            failures += status == "FAIL"
            key = (lesson, name.strip(), comparison, float(threshold))
            checks.setdefault(key, []).append(float(ratio))
    return checks, failures


def is_overhead_bound(comparison, threshold):
    return comparison == "<=" and 1.0 < threshold < 1.0 / (1.0 - MIN_HEADROOM)


def headroom(comparison, threshold, lowest, highest):
    if comparison == ">=":
        return 1.0 - threshold / lowest if lowest > 0 else float("-inf")
    if is_overhead_bound(comparison, threshold):
        return 1.0 - max(highest - 1.0, 0.0) / (threshold - 1.0)
    return 1.0 - highest / threshold if threshold > 0 else float("-inf")


def table(checks, runs):
    rows = ["| lesson | speed check | threshold | lowest | highest | headroom of the worst run | >= 25% |",
            "|---|---|---|---|---|---|---|"]
    short = 0
    for (lesson, name, comparison, threshold), ratios in sorted(checks.items()):
        lowest, highest = min(ratios), max(ratios)
        room = headroom(comparison, threshold, lowest, highest)
        ok = room >= MIN_HEADROOM - 1e-9
        short += not ok
        seen = "" if len(ratios) == runs else f" ({len(ratios)} of {runs} runs)"
        kind = " (overhead)" if is_overhead_bound(comparison, threshold) else ""
        name = name.replace("|", "\\|")  # a table cell: |x - 1| must not split the row
        rows.append(f"| {lesson} | {name}{seen} | {comparison} {threshold:.2f} | {lowest:.2f} | "
                    f"{highest:.2f} | {100 * room:.0f}%{kind} | {'yes' if ok else '**no**'} |")
    return "\n".join(rows) + "\n", short


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", required=True, type=pathlib.Path)
    parser.add_argument("--machine", required=True, help="GPU, driver and toolkit of the runs")
    parser.add_argument("logs", nargs="+", type=pathlib.Path)
    args = parser.parse_args()
    checks, failures = read_runs(args.logs)
    if not checks:
        print("error: no speed check lines in the logs", file=sys.stderr)
        return 2
    text, short = table(checks, len(args.logs))
    block = (f"{BEGIN}\n{len(args.logs)} runs of `ctest -L speed -V` on {args.machine}; "
             f"{failures} failed speed check(s).\n\n{text}{END}")
    page = args.page.read_text()
    if BEGIN not in page or END not in page:
        print(f"error: {args.page} has no {BEGIN} ... {END} block", file=sys.stderr)
        return 2
    page = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, page, flags=re.S)
    args.page.write_text(page)
    print(f"{args.page}: {len(checks)} speed checks over {len(args.logs)} runs, "
          f"{failures} failure(s), {short} under {MIN_HEADROOM:.0%} headroom")
    return 1 if failures or short else 0


if __name__ == "__main__":
    sys.exit(main())
