#!/usr/bin/python3
"""Builds docs/pages/results.md and its plots from a GPU run's JSON files.

Input: a folder with each lesson's `--json` report (NN_name.json) and each benchmark
binary's Google Benchmark JSON (lessonNN_name_bench.json), as written by
ctest/gpu-report.sh. Output: one PNG plot per benchmark binary (a line per benchmark
family, against its size/count argument) in --plots, and a Markdown page with the GPU, every
lesson's tables, and the plots.

    make_results_page.py --input RESULTS_DIR --page docs/pages/results.md --plots docs/results
"""
import argparse
import collections
import json
import math
import pathlib
import re
import sys


def pyplot():
    """matplotlib's pyplot with a file backend, imported when a plot is drawn: the tables and
    their tests need no matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # (after the backend is chosen)

    return plt


# Lesson 01's set-up tables describe the machine, not measurements.
SETUP_TABLES = {"versions", "environment", "device_nodes"}

# What each benchmark binary's argument is, and what its plot shows. A benchmark whose
# argument has a name (Google Benchmark's ArgName, "/streams:8") is labelled by that name.
PLOTS = {
    "lesson02_vector_add_bench": (
        "array length (elements of 4-byte floats)",
        "Bandwidth of each vectorAdd variant beside a device-to-device copy of the same arrays:"
        " small arrays cannot fill the GPU; at large sizes compare each line with the copy."),
    "lesson03_multi_stream_bench": (
        None,
        "Small one-block kernels spread over more streams, and the copy/compute pipeline cut"
        " into more chunks: where the time stops falling is where the hardware stops adding"
        " concurrency."),
    "lesson04_occupancy_bench": (
        "threads per block",
        "A memory-bound and a compute-bound kernel at each block size, launched with the"
        " occupancy-sized grid, one block per compute unit, or one element per thread."),
    "lesson05_queue_env_bench": (
        "setting",
        "The round trip of a short kernel under each waiting policy, each in its own process."),
    "lesson06_cu_masking_bench": (
        "compute units (SMs) in the partition",
        "A compute-bound kernel on partitions of the device: its time should grow as the"
        " partition shrinks, in proportion to the units taken away."),
    "lesson07_batch_launch_bench": (
        "kernels per batch",
        "The cost per kernel of individual launches, a graph replay, one fused kernel, a"
        " persistent kernel and a cooperative kernel: the gap between the lines is launch"
        " overhead."),
}
NAMED_ARGUMENTS = {"streams": "streams", "chunks": "pipeline chunks"}


sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from make_timeline_plots import CAPTIONS as TIMELINE_CAPTIONS  # noqa: E402


def load(path):
    with open(path) as handle:
        return json.load(handle)


def row_value(row):
    """The quantity a benchmark row is best plotted by, and its axis label."""
    if "bytes_per_second" in row:
        return row["bytes_per_second"] / 1e12, "bandwidth (TB/s, 10^12 bytes/s)"
    if "time_per_kernel" in row:
        return row["time_per_kernel"] * 1e6, "time per kernel (us)"
    speedups = [k for k in row if k.startswith("speedup")]
    if speedups:
        return row[speedups[0]], speedups[0].replace("_", " ")
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[row.get("time_unit", "ns")]
    return row["real_time"] * scale, "time per iteration (us)"


def benchmark_series(document):
    """Groups Google Benchmark rows by unit into {unit: {family: [(argument, value)]}}, where
    the argument is the last numeric part of the name ("/4096" or "/streams:8"); rows without
    one go into {unit: {name: value}}."""
    series = collections.defaultdict(lambda: collections.defaultdict(list))
    single = collections.defaultdict(dict)
    for row in document.get("benchmarks", []):
        if row.get("run_type") == "aggregate":
            continue
        parts = row["name"].replace("/manual_time", "").split("/")
        value, unit = row_value(row)
        numeric = [i for i, p in enumerate(parts) if re.fullmatch(r"(\w+:)?\d+", p)]
        if not numeric:
            single[unit]["/".join(parts)] = value
            continue
        argument = int(parts[numeric[-1]].split(":")[-1])
        family = "/".join(p for i, p in enumerate(parts) if i != numeric[-1])
        series[unit][family].append((argument, value))
    return series, single


def x_label(name, families):
    """The quantity on a plot's x axis: the benchmark's named argument, else the binary's."""
    names = {f.split(":")[0].split("/")[-1] for f in families if ":" in f}
    for family in families:
        for part in family.split("/"):
            if part in NAMED_ARGUMENTS:
                names.add(part)
    if len(names) == 1:
        return NAMED_ARGUMENTS.get(next(iter(names)), next(iter(names)))
    return PLOTS.get(name, ("benchmark argument", ""))[0] or "benchmark argument"


def axis_base(families):
    """10 when the arguments are powers of ten (1, 10, ..., 10000 batch sizes), else 2: the
    ticks then fall on the values the benchmark ran."""
    values = {x for points in families.values() for x, _ in points}
    decades = all(v > 0 and 10 ** round(math.log10(v)) == v for v in values)
    return 10 if decades and len(values) > 2 else 2


def plot_benchmark(name, document, plots_dir):
    """One PNG per benchmark binary, one panel per unit, stacked so the image stays 700 px
    wide (it fits the docs page and a README)."""
    series, single = benchmark_series(document)
    units = sorted(set(series) | set(single))
    if not units:
        return None
    plt = pyplot()
    figure, all_axes = plt.subplots(len(units), 1, figsize=(7, 3.8 * len(units)), squeeze=False)
    for axes, unit in zip(all_axes[:, 0], units):
        if series.get(unit):
            families = sorted(series[unit])
            for family in families:
                points = sorted(series[unit][family])
                axes.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                          label=family.replace("_", " "))
            axes.set_xscale("log", base=axis_base(series[unit]))
            if "time" in unit:
                axes.set_yscale("log")
            axes.set_xlabel(x_label(name, families))
            axes.legend(fontsize=9, loc="best")
        else:
            labels = list(single[unit])
            axes.bar(range(len(labels)), [single[unit][label] for label in labels])
            axes.set_xticks(range(len(labels)), labels, rotation=20, fontsize=9, ha="right")
            axes.set_xlabel(PLOTS.get(name, ("benchmark",))[0] or "benchmark")
        axes.set_ylabel(unit)
        axes.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    path = plots_dir / f"{name}.png"
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def markdown_table(rows):
    if not rows:
        return ""
    headers = list(rows[0].keys())
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        cells = []
        for h in headers:
            value = row.get(h, "")
            if value is None:  # a figure the row has not got (JSON null), as the lesson prints it
                value = "-"
            elif isinstance(value, bool):  # as the lesson prints it, not Python's True
                value = "yes" if value else "no"
            elif isinstance(value, float):
                value = int(value) if value.is_integer() else float(f"{value:.4g}")
            # Markdown (and Doxygen) would read "|" as a cell's end and "<uuid>" as a tag.
            cells.append(str(value).replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", required=True, type=pathlib.Path)
    parser.add_argument("--page", required=True, type=pathlib.Path)
    parser.add_argument("--plots", required=True, type=pathlib.Path)
    parser.add_argument("--gpu", default="", help="text describing the GPU and software")
    args = parser.parse_args()
    args.plots.mkdir(parents=True, exist_ok=True)

    lessons = sorted(p for p in args.input.glob("[0-9][0-9]_*.json")
                     if not p.name.endswith(".trace.json"))  # traces: make_timeline_plots.py
    benches = sorted(args.input.glob("lesson*_bench.json"))
    if not lessons and not benches:
        print(f"error: no lesson or benchmark JSON in {args.input}", file=sys.stderr)
        return 2

    out = ["# Results {#results}", ""]
    out.append("Measured by `ctest/gpu-report.sh` (the lesson tour with `--json`, then every "
               "lesson's Google Benchmark cases). Regenerate for your GPU with the commands at "
               "the end of this page.")
    if args.gpu:
        out += ["", f"GPU and software: {args.gpu}."]
    out.append("")
    for path in lessons:
        report = load(path)
        out.append(f"## Lesson {path.stem.replace('_', ' ', 1)}")
        out.append("")
        if report.get("summary"):
            out.append(f"Summary: {report['summary']}.")
            out.append("")
        for name, rows in report.get("tables", {}).items():
            if name in SETUP_TABLES:
                continue
            out.append(f"**{name}**")
            out.append("")
            out.append(markdown_table(rows))
        checks = [c for c in report.get("checks", []) if c.get("kind") == "speed"]
        for check in checks:
            label = f"{check['label']}: " if check.get("label") else ""
            out.append(f"- speed check {label}{check['name']}: {check['ratio']:.2f} "
                       f"(needs {check['comparison']} {check['threshold']:.2f})")
        out.append("")
    if benches:
        out.append("## Benchmarks")
        out.append("")
        for path in benches:
            plot = plot_benchmark(path.stem, load(path), args.plots)
            if plot:
                caption = PLOTS.get(path.stem, ("", "Google Benchmark cases of this lesson."))[1]
                # Relative to the page, so the Markdown file shows its images when read as it
                # is; Doxygen finds the same file name on its IMAGE_PATH.
                relative = pathlib.Path("..") / args.plots.name / plot.name
                out.append(f"### {path.stem}")
                out.append("")
                out.append(f"![{caption}]({relative.as_posix()})")
                out.append("")
    timelines = sorted(args.plots.glob("lesson[0-9][0-9]_timeline.png"))
    if timelines:
        out.append("## Timelines")
        out.append("")
        out.append("Each lesson's block trace (`--trace`), drawn by "
                   "`docs/tools/make_timeline_plots.py`: where and when the blocks of its key "
                   "comparison ran.")
        out.append("")
        for plot in timelines:
            number = plot.name[len("lesson"):len("lesson") + 2]
            caption = TIMELINE_CAPTIONS.get(number, "block trace")
            relative = pathlib.Path("..") / args.plots.name / plot.name
            out.append(f"### Lesson {number}")
            out.append("")
            out.append(f"![Lesson {number}: {caption}]({relative.as_posix()})")
            out.append("")
    out.append("## Regenerating this page for your GPU")
    out.append("")
    out.append("```sh\nctest/gpu-report.sh /tmp/report --update-docs \"your GPU, driver, runtime\"\n"
               "cmake --build build/nvidia --target docs   # or build/amd\n```")
    # The page's Sources section is written by hand: keep it.
    previous = args.page.read_text() if args.page.is_file() else ""
    if "\n## Sources\n" in previous:
        out.append("")
        out.append("## Sources\n" + previous.split("\n## Sources\n", 1)[1].rstrip("\n"))
    args.page.write_text("\n".join(out) + "\n")
    print(f"wrote {args.page} ({len(lessons)} lessons, {len(benches)} benchmark files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
