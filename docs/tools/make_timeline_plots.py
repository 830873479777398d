#!/usr/bin/python3
"""Draws each lesson's block trace (`--trace` output, Chrome Trace Event Format) as a PNG
timeline for the docs, and writes beside each PNG its alt text (what the picture shows, with
the run's own numbers) for the README and the Results page.

    make_timeline_plots.py --input RESULTS_DIR --plots docs/results

Reads RESULTS_DIR/NN_name.trace.json (as ctest/quickstart.sh lessons and ctest/gpu-report.sh
write them) and writes docs/results/lessonNN_timeline.png and lessonNN_timeline.txt (the alt
text). Each lesson is drawn the way its point shows (LAYOUTS):
- "launches": one row per kernel launch, coloured by stream, so kernels that run one after
  another form a staircase and kernels that overlap stand side by side (lesson 03);
- "units": one row per compute unit, each resident block in its own lane, coloured by the wave
  it belongs to (lesson 04's waves of resident blocks);
- "gaps": each run on one row over the whole span (gaps narrower than a pixel merged, so they
  cannot alias into false stripes), then the first launches of each run zoomed on one shared
  axis, where the gaps between individual launches are visible (lesson 07);
- "auto": one row per stream where a run has several launches, else one row per unit.
All panels of a lesson but the zoomed ones share one time axis, so their spans compare."""
import argparse
import collections
import json
import pathlib
import sys


def pyplot():
    """matplotlib's pyplot with a file backend, imported when a plot is drawn: the reader, the
    layouts and their tests need no matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # (after the backend is chosen)

    return plt


# What the reader should see in each lesson's picture: the first sentence of its alt text.
CAPTIONS = {
    "03": "the same one-block kernels, one row per kernel: on one stream they run one after "
          "another (a staircase); on several streams they run side by side",
    "04": "blocks of an occupancy-sized grid by compute unit, each block in its own lane and "
          "coloured by its wave: a grid of twice the resident blocks runs in two waves",
    "05": "depth-first issue through one hardware queue serializes the chains; breadth-first "
          "does not",
    "06": "each partition's blocks stay on its units; two partitions run side by side",
    "07": "individual launches, a graph replay and a persistent kernel over the whole batch, "
          "then their first launches zoomed: the gaps between individual launches",
    "08": "the victim's last launch in each setting and the aggressor blocks on its compute unit",
}
LAYOUTS = {"03": "launches", "04": "units", "07": "gaps"}

MAX_ROWS = 16  # launch or stream rows drawn per panel
MAX_UNITS = 8  # unit rows drawn per panel: enough to show the pattern, few enough to read
ZOOM_LAUNCHES = 12  # launches of each run shown by the zoomed panels of the "gaps" layout
PIXELS = 650  # about the width of a panel's time axis, in pixels


def runs_of(trace):
    """{run: {"streams": {tid: [(ts, dur, name, args)]}, "units": {...}}} from the trace
    events; a profiler's process ("<run>: profiler (...)") is not part of the block trace."""
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
        track = {"streams": "streams", "compute units": "units", "units": "units"}.get(kind)
        if track is None:
            continue
        runs.setdefault(run, {"streams": collections.defaultdict(list),
                              "units": collections.defaultdict(list)})
        runs[run][track][event["tid"]].append(
            (event["ts"], event["dur"], event["name"], event.get("args", {})))
    return runs


def launch_rows(tracks, limit=MAX_ROWS):
    """One row per launch, in start order: ({label: [slice]}, how many launches there were).
    Each slice's args name its stream (the colour)."""
    launches = sorted((s + (stream,) for stream, slices in tracks["streams"].items()
                       for s in slices), key=lambda s: (s[0], s[3].get("launch", 0)))
    rows = collections.OrderedDict()
    for ts, dur, name, args, stream in launches[:limit]:
        number = args.get("launch", len(rows))
        rows[f"{name[:16]} #{number} (stream {stream})"] = [
            (ts, dur, name, dict(args, stream=stream))]
    return rows, len(launches)


def merged(slices, resolution):
    """\\p slices with every gap shorter than \\p resolution closed: what a row can show at its
    scale without drawing gaps the pixels cannot hold (they would alias into false patterns)."""
    out = []
    for ts, dur, *rest in sorted(slices, key=lambda s: s[0]):
        if out and ts - (out[-1][0] + out[-1][1]) < resolution:
            start = out[-1][0]
            out[-1] = (start, max(start + out[-1][1], ts + dur) - start, *out[-1][2:])
        else:
            out.append((ts, dur, *rest))
    return out


def stream_rows(tracks, limit=MAX_ROWS):
    rows = collections.OrderedDict(
        (f"stream {tid}", sorted(slices, key=lambda s: s[0]))
        for tid, slices in sorted(tracks["streams"].items()))
    return collections.OrderedDict(list(rows.items())[:limit]), len(rows)


def unit_rows(tracks, limit=MAX_UNITS):
    rows = collections.OrderedDict(
        (f"unit {tid}", sorted(slices, key=lambda s: s[0]))
        for tid, slices in sorted(tracks["units"].items()))
    return collections.OrderedDict(list(rows.items())[:limit]), len(rows)


def lanes_and_waves(slices):
    """Each block of one unit as (ts, dur, lane, wave): blocks resident at the same time get
    different lanes (the lowest free one), and a block's wave is how many blocks held its lane
    before it (0 for the first wave)."""
    lane_ends, lane_uses, placed = [], [], []
    for ts, dur, *_ in sorted(slices, key=lambda s: (s[0], s[1])):
        lane = next((i for i, end in enumerate(lane_ends) if end <= ts + 1e-9), None)
        if lane is None:
            lane_ends.append(0.0)
            lane_uses.append(0)
            lane = len(lane_ends) - 1
        placed.append((ts, dur, lane, lane_uses[lane]))
        lane_ends[lane] = ts + dur
        lane_uses[lane] += 1
    return placed


def victim_unit_rows(tracks):
    """Lesson 08's moment: the victim's launch and the aggressor blocks on the victim's unit
    (its --trace holds whole aggressor rounds, on every unit, beside the victim)."""
    units = [tid for tid, slices in tracks["units"].items()
             if any(s[2].startswith("victim") for s in slices)]
    if not units:
        return None
    return collections.OrderedDict(
        [("victim", tracks["streams"].get(0, [])),
         (f"aggressor, unit {units[0]}", [s for s in tracks["units"][units[0]]
                                          if s[2].startswith("aggressor")])])


def limited(run, rows, total, what):
    return run if total <= len(rows) else f"{run} (first {len(rows)} of {total} {what})"


def panels(number, runs):
    """What to draw: [(title, kind, rows)], kind "bars" (each row its colour), "launches"
    (coloured by stream), "lanes" (a unit's blocks in lanes, coloured by wave), "merged" (a
    whole run at its scale) or "zoom" (bars on the zoomed axis)."""
    layout = LAYOUTS.get(number, "auto")
    drawn = []
    for run, tracks in runs.items():
        launches = sum(len(s) for s in tracks["streams"].values())
        if number == "08" and victim_unit_rows(tracks):
            drawn.append((run, "bars", victim_unit_rows(tracks)))
        elif layout == "gaps":
            rows, total = stream_rows(tracks)
            drawn.append((f"{limited(run, rows, total, 'streams')}: the whole run", "merged",
                          rows))
        elif layout == "launches" and launches > 1:
            rows, total = launch_rows(tracks)
            drawn.append((f"{limited(run, rows, total, 'kernels')}: one row per kernel, "
                          "coloured by stream", "launches", rows))
        elif layout == "units" or launches <= 1:
            rows, total = unit_rows(tracks)
            drawn.append((limited(run, rows, total, "units"), "lanes", rows))
        else:
            rows, total = stream_rows(tracks)
            drawn.append((limited(run, rows, total, "streams"), "bars", rows))
    if layout == "gaps":
        for run, tracks in runs.items():
            launches = sorted((s for slices in tracks["streams"].values() for s in slices),
                              key=lambda s: s[0])
            if len(launches) > 1:
                shown = launches[:ZOOM_LAUNCHES]
                drawn.append((f"{run}: first {len(shown)} of {len(launches)} launches, zoomed",
                              "zoom", collections.OrderedDict([("launches", shown)])))
    return drawn


def span_of(slices):
    return max((ts + dur for ts, dur, *_ in slices), default=0.0)


def time_unit(span):
    return ("ms", 1e3) if span >= 10000 else ("us", 1.0)


def alt_text(number, runs):
    """What the picture shows, in words, with the run's numbers: the caption, then per run its
    launches, blocks, span and the most launches that ran at once."""
    parts = [f"Block trace of lesson {number}: "
             f"{CAPTIONS.get(number, 'where and when the blocks ran')}."]
    for run, tracks in runs.items():
        launches = sorted((ts, ts + dur) for slices in tracks["streams"].values()
                          for ts, dur, *_ in slices)
        blocks = sum(len(s) for s in tracks["units"].values())
        span = max(span_of([s for slices in tracks["units"].values() for s in slices]),
                   span_of([s for slices in tracks["streams"].values() for s in slices]))
        events = sorted([(start, 1) for start, _ in launches] + [(end, -1) for _, end in launches])
        running = peak = 0
        for _, step in events:
            running += step
            peak = max(peak, running)
        name, scale = time_unit(span)
        detail = f"{len(launches)} launch{'es' if len(launches) != 1 else ''}"
        detail += f" ({blocks} blocks on {len(tracks['units'])} units)" if blocks else ""
        detail += f" over {span / scale:.4g} {name}"
        if len(launches) > 1:
            detail += f", at most {peak} at once"
        parts.append(f"{run}: {detail}.")
    return " ".join(parts)


def draw_panel(axes, title, kind, rows, limit):
    """One panel: \\p rows over 0..\\p limit microseconds."""
    name, scale = time_unit(limit)
    waves = 0
    for y, (label, slices) in enumerate(rows.items()):
        if kind == "lanes":
            placed = lanes_and_waves(slices)
            lanes = max((lane for _, _, lane, _ in placed), default=0) + 1
            height = 0.8 / lanes
            for ts, dur, lane, wave in placed:
                axes.broken_barh([(ts / scale, max(dur / scale, limit / scale / PIXELS))],
                                 (y - 0.4 + lane * height, height * 0.85),
                                 color=f"C{wave % 10}", linewidth=0)
                waves = max(waves, wave + 1)
            continue
        if kind == "merged":
            slices = merged(slices, limit / PIXELS)
        for ts, dur, _, args in slices:
            color = {"bars": f"C{y % 10}", "launches": f"C{args.get('stream', 0) % 10}"}.get(
                kind, "C0")
            axes.broken_barh([(ts / scale, max(dur / scale, limit / scale / PIXELS))],
                             (y - 0.35, 0.7), color=color, linewidth=0.8,
                             edgecolor="white" if kind == "zoom" else None)
    axes.set_yticks(range(len(rows)), list(rows), fontsize=8)
    axes.set_ylim(-0.6, len(rows) - 0.4)
    axes.invert_yaxis()  # the first row on top: a staircase reads down and to the right
    if kind == "merged":
        title += f" (gaps under {limit / PIXELS:.2g} us merged at this scale)"
    axes.set_title(title, fontsize=9, loc="left")
    axes.set_xlim(0, limit / scale)
    axes.grid(True, axis="x", alpha=0.3)
    axes.tick_params(axis="x", labelsize=8)
    if waves > 1:
        from matplotlib.patches import Patch

        axes.legend(handles=[Patch(color=f"C{w % 10}", label=f"wave {w + 1}")
                             for w in range(waves)], fontsize=7, loc="upper right")
    return name


def plot(number, trace, path):
    """Draws the lesson's picture to \\p path and its alt text beside it (.txt); returns the
    alt text, or None when the trace holds no run."""
    runs = runs_of(trace)
    if not runs:
        return None
    drawn = panels(number, runs)
    span = max((span_of(s) for _, kind, rows in drawn if kind != "zoom"
                for s in rows.values()), default=0.0) or 1.0
    zoom_span = max((span_of(s) for _, kind, rows in drawn if kind == "zoom"
                     for s in rows.values()), default=0.0) or 1.0
    plt = pyplot()
    heights = [0.7 + 0.24 * max(len(rows), 1) * (2 if kind == "lanes" else 1)
               for _, kind, rows in drawn]
    figure, axes_list = plt.subplots(len(drawn), 1, figsize=(8, 0.6 + sum(heights)),
                                     squeeze=False, gridspec_kw={"height_ratios": heights})
    last_full = [a for a, (_, kind, _) in zip(axes_list[:, 0], drawn) if kind != "zoom"][-1]
    for axes, (title, kind, rows) in zip(axes_list[:, 0], drawn):
        name = draw_panel(axes, title, kind, rows, zoom_span if kind == "zoom" else span)
        if kind == "zoom" or axes is last_full:
            axes.set_xlabel(f"time since the first block started ({name})"
                            + (", zoomed" if kind == "zoom" else ""), fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    text = alt_text(number, runs)
    path.with_suffix(".txt").write_text(text + "\n")
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", required=True, type=pathlib.Path,
                        help="the folder holding NN_name.trace.json files")
    parser.add_argument("--plots", required=True, type=pathlib.Path,
                        help="where the PNGs and their alt texts go (docs/results)")
    args = parser.parse_args()
    traces = sorted(args.input.glob("[0-9][0-9]_*.trace.json"))
    if not traces:
        print(f"error: --input {args.input}: no NN_name.trace.json there", file=sys.stderr)
        return 2
    args.plots.mkdir(parents=True, exist_ok=True)
    for path in traces:
        number = path.name[:2]
        out = args.plots / f"lesson{number}_timeline.png"
        with open(path) as handle:
            text = plot(number, json.load(handle), out)
        if text:
            print(f"wrote {out}: {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
