#!/usr/bin/python3
"""Draws each lesson's block trace (`--trace` output, Chrome Trace Event Format) as a PNG
timeline for the docs: one panel per traced run, one row per stream, one bar per launch, all
panels of a lesson on one time axis so their spans compare.

    make_timeline_plots.py --input RESULTS_DIR --plots docs/results

Reads RESULTS_DIR/NN_name.trace.json (as ctest/quickstart.sh lessons writes them) and writes
docs/results/lessonNN_timeline.png."""
import argparse
import collections
import json
import pathlib
import sys


def pyplot():
    """matplotlib's pyplot with a file backend, imported when a plot is drawn: the tables and
    their tests need no matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # (after the backend is chosen)

    return plt

# What the reader should see in each lesson's picture (its caption in the README).
CAPTIONS = {
    "03": "the same kernels on one stream run one after another; on several streams they overlap",
    "04": "blocks of an occupancy-sized grid, by compute unit: the waves of resident blocks",
    "05": "depth-first issue through one hardware queue serializes chains; breadth-first does not",
    "06": "each partition's blocks stay on its units; two partitions run side by side",
    "07": "the gaps between individual launches, a graph replay and a persistent kernel",
    "08": "the victim's last launch in each setting and the aggressor blocks on its compute unit",
}


MAX_ROWS = 16  # rows drawn per panel


def runs_of(trace):
    """{run: {"streams": {tid: [(ts, dur, name)]}, "units": {...}}} from the trace events."""
    names = {}
    for event in trace["traceEvents"]:
        if event.get("ph") == "M" and event.get("name") == "process_name":
            names[event["pid"]] = event["args"]["name"]
    runs = collections.OrderedDict()
    for event in trace["traceEvents"]:
        if event.get("ph") != "X":
            continue
        process = names.get(event["pid"], str(event["pid"]))
        run, _, kind = process.rpartition(": ")
        track = "streams" if kind == "streams" else "units"
        runs.setdefault(run, {"streams": collections.defaultdict(list),
                              "units": collections.defaultdict(list)})
        runs[run][track][event["tid"]].append((event["ts"], event["dur"], event["name"]))
    return runs


def victim_unit_rows(tracks):
    """Lesson 08's moment: the victim's launch and the aggressor blocks on the victim's unit
    (its --trace holds whole aggressor rounds, on every unit, beside the victim)."""
    units = [tid for tid, slices in tracks["units"].items()
             if any(name.startswith("victim") for _, _, name in slices)]
    if not units:
        return None
    return {"victim": tracks["streams"].get(0, []),
            f"aggressor, unit {units[0]}": [s for s in tracks["units"][units[0]]
                                            if s[2].startswith("aggressor")]}


def plot(number, trace, path):
    runs = runs_of(trace)
    if not runs:
        return False
    span = max(ts + dur for run in runs.values() for track in run.values()
               for slices in track.values() for ts, dur, _ in slices)
    unit = ("ms", 1e3) if span >= 10000 else ("us", 1.0)
    plt = pyplot()
    figure, axes_list = plt.subplots(len(runs), 1, figsize=(7, 1.0 + 1.3 * len(runs)),
                                     squeeze=False, sharex=True)
    for axes, (run, tracks) in zip(axes_list[:, 0], runs.items()):
        # Launches by stream when the run has several launches; a single launch is drawn by
        # compute unit, where its blocks show the residency waves.
        launches = sum(len(slices) for slices in tracks["streams"].values())
        rows = tracks["streams"] if launches > 1 else tracks["units"]
        label = "stream" if rows is tracks["streams"] else "unit"
        if number == "08" and victim_unit_rows(tracks):
            rows, label = victim_unit_rows(tracks), ""
        title = run
        if len(rows) > MAX_ROWS:  # a whole GPU's units: the first few show the pattern
            title = f"{run} (first {MAX_ROWS} of {len(rows)} {label}s)"
            rows = dict(sorted(rows.items())[:MAX_ROWS])
        for y, (tid, slices) in enumerate(sorted(rows.items())):
            axes.broken_barh([(ts / unit[1], max(dur / unit[1], span / unit[1] / 1000))
                              for ts, dur, _ in slices], (y - 0.4, 0.8), color=f"C{y % 10}")
        axes.set_yticks(range(len(rows)), [f"{label} {tid}".strip() for tid in sorted(rows)],
                        fontsize=8 if len(rows) < 12 else 6)
        axes.set_title(title, fontsize=10, loc="left")
        axes.set_xlim(0, span / unit[1])
        axes.grid(True, axis="x", alpha=0.3)
    axes_list[-1, 0].set_xlabel(f"time since the first block started ({unit[0]})")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", required=True, type=pathlib.Path)
    parser.add_argument("--plots", required=True, type=pathlib.Path)
    args = parser.parse_args()
    args.plots.mkdir(parents=True, exist_ok=True)
    traces = sorted(args.input.glob("[0-9][0-9]_*.trace.json"))
    if not traces:
        print(f"error: no NN_name.trace.json in {args.input}", file=sys.stderr)
        return 2
    for path in traces:
        number = path.name[:2]
        out = args.plots / f"lesson{number}_timeline.png"
        with open(path) as handle:
            if plot(number, json.load(handle), out):
                print(f"wrote {out}: {CAPTIONS.get(number, '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
