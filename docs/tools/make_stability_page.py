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

A threshold has one source, the lesson's CMakeLists.txt (hip_lessons_threshold: flag, NVIDIA
default, AMD default). A run made under a threshold that has moved since is judged against the
threshold in force now, and the table says what it ran under ("<= 2.50 (ran under 2.25)"). The
new threshold is the lesson's one CMake threshold that no other check of the runs uses; where
that is not one, the row says "rerun". --rejudge does this to the table already on the page,
without logs; --check fails (exit 1) when that would change the page.

Usage: make_stability_page.py --page docs/pages/speed_stability.md --machine "..." LOG...
       make_stability_page.py --page docs/pages/speed_stability.md --rejudge [--check]
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
ROOT = pathlib.Path(__file__).resolve().parents[2]
THRESHOLD = re.compile(r"hip_lessons_threshold\((\d\d)_\w+\s+(--[\w-]+)\s+([0-9.]+)\s+([0-9.]+)")


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


def cmake_thresholds(root=ROOT, platform="nvidia"):
    """{lesson: [threshold, ...]}: each lesson's speed-check defaults for \\p platform."""
    found = {}
    for path in sorted(pathlib.Path(root).glob("lessons/*/CMakeLists.txt")):
        for lesson, _flag, nvidia, amd in THRESHOLD.findall(path.read_text()):
            found.setdefault(lesson, []).append(float(nvidia if platform == "nvidia" else amd))
    return found


def thresholds_now(checks, cmake):
    """{key of checks: the threshold in force now, or None when that cannot be told}. A logged
    threshold that is still a CMake default of its lesson stands; a moved one is the lesson's
    one CMake default that no logged check of the lesson uses."""
    now = {}
    for key in checks:
        lesson, _name, _comparison, ran_under = key
        defaults = cmake.get(lesson, [])
        if any(abs(ran_under - d) < 1e-9 for d in defaults):
            now[key] = ran_under
            continue
        used = [k[3] for k in checks if k[0] == lesson]
        free = [d for d in defaults if not any(abs(d - u) < 1e-9 for u in used)]
        now[key] = free[0] if len(free) == 1 else None
    return now


def is_overhead_bound(comparison, threshold):
    return comparison == "<=" and 1.0 < threshold < 1.0 / (1.0 - MIN_HEADROOM)


def headroom(comparison, threshold, lowest, highest):
    if comparison == ">=":
        return 1.0 - threshold / lowest if lowest > 0 else float("-inf")
    if is_overhead_bound(comparison, threshold):
        return 1.0 - max(highest - 1.0, 0.0) / (threshold - 1.0)
    return 1.0 - highest / threshold if threshold > 0 else float("-inf")


def table(checks, runs, now=None):
    """The table of \\p checks over \\p runs runs, each judged against its threshold \\p now
    (thresholds_now(); by default the one it ran under); the number of rows under 25%."""
    now = now or {key: key[3] for key in checks}
    rows = ["| lesson | speed check | threshold | lowest | highest | headroom of the worst run | >= 25% |",
            "|---|---|---|---|---|---|---|"]
    short = 0
    for key, ratios in sorted(checks.items()):
        lesson, name, comparison, ran_under = key
        threshold = now[key] if now[key] is not None else ran_under
        lowest, highest = min(ratios), max(ratios)
        room = headroom(comparison, threshold, lowest, highest)
        ok = room >= MIN_HEADROOM - 1e-9
        short += not ok and now[key] is not None
        seen = "" if len(ratios) == runs else f" ({len(ratios)} of {runs} runs)"
        kind = " (overhead)" if is_overhead_bound(comparison, threshold) else ""
        moved = "" if abs(threshold - ran_under) < 1e-9 else f" (ran under {ran_under:.2f})"
        verdict = "rerun" if now[key] is None else "yes" if ok else "**no**"
        name = name.replace("|", "\\|")  # a table cell: |x - 1| must not split the row
        rows.append(f"| {lesson} | {name}{seen} | {comparison} {threshold:.2f}{moved} | "
                    f"{lowest:.2f} | {highest:.2f} | {100 * room:.0f}%{kind} | {verdict} |")
    return "\n".join(rows) + "\n", short


ROW = re.compile(r"^\| (\d\d) \| (.+?) \| (>=|<=) ([0-9.]+)(?: \(ran under ([0-9.]+)\))? \| "
                 r"([0-9.]+) \| ([0-9.]+) \| .* \| .* \|$")


def read_table(block):
    """The checks of a table table() wrote, as read_runs() gives them (each check's lowest and
    highest ratio, and as many ratios as it had runs), and the number of runs."""
    runs = int(re.search(r"^(\d+) runs of", block, re.M).group(1))
    checks = {}
    for line in block.splitlines():
        m = ROW.match(line)
        if not m:
            continue
        lesson, name, comparison, shown, ran_under, lowest, highest = m.groups()
        seen = re.search(r" \((\d+) of \d+ runs\)$", name)
        name = name[:seen.start()] if seen else name
        count = int(seen.group(1)) if seen else runs
        ratios = [float(lowest)] + [float(highest)] * (count - 1) if count > 1 else [float(lowest)]
        checks[(lesson, name.replace("\\|", "|"), comparison, float(ran_under or shown))] = ratios
    return checks, runs


def rejudge(page_path, check, root=ROOT, platform="nvidia"):
    """The table on the page judged against today's CMake thresholds of \\p platform; with
    \\p check, only whether that changes the page (exit 1 when it does)."""
    page = page_path.read_text()
    old = re.search(re.escape(BEGIN) + "(.*?)" + re.escape(END), page, flags=re.S)
    if not old:
        print(f"error: {page_path} has no {BEGIN} ... {END} block", file=sys.stderr)
        return 2
    checks, runs = read_table(old.group(1))
    if not checks:
        print(f"error: no table rows in {page_path}", file=sys.stderr)
        return 2
    text, short = table(checks, runs, thresholds_now(checks, cmake_thresholds(root, platform)))
    heading = old.group(1).split("\n\n")[0].strip()
    new = page.replace(old.group(0), f"{BEGIN}\n{heading}\n\n{text}{END}")
    if check:
        if new != page:
            print(f"FAIL  {page_path}: a threshold of the table is not the one CMake sets now; "
                  f"run docs/tools/make_stability_page.py --page {page_path} --rejudge")
            return 1
        print(f"ok    {page_path}: every threshold is the one CMake sets")
        return 0
    page_path.write_text(new)
    print(f"{page_path}: {len(checks)} speed checks judged against today's thresholds, "
          f"{short} under {MIN_HEADROOM:.0%} headroom")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", required=True, type=pathlib.Path)
    parser.add_argument("--machine", help="GPU, driver and toolkit of the runs")
    parser.add_argument("--platform", choices=("nvidia", "amd"), default="nvidia",
                        help="whose CMake thresholds judge the runs (default: nvidia)")
    parser.add_argument("--rejudge", action="store_true",
                        help="judge the page's table against today's CMake thresholds")
    parser.add_argument("--check", action="store_true", help="with --rejudge: only compare")
    parser.add_argument("logs", nargs="*", type=pathlib.Path)
    args = parser.parse_args()
    if args.rejudge:
        return rejudge(args.page, args.check, ROOT, args.platform)
    if not args.machine or not args.logs:
        parser.error("--machine and the logs are needed, unless --rejudge")
    checks, failures = read_runs(args.logs)
    if not checks:
        print("error: no speed check lines in the logs", file=sys.stderr)
        return 2
    thresholds = thresholds_now(checks, cmake_thresholds(ROOT, args.platform))
    text, short = table(checks, len(args.logs), thresholds)
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
