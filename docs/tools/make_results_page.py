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
import pathlib
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)


# Lesson 01's set-up tables describe the machine, not measurements.
SETUP_TABLES = {"versions", "environment", "device_nodes"}


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


def plot_benchmark(name, document, plots_dir):
    series, single = benchmark_series(document)
    units = sorted(set(series) | set(single))
    if not units:
        return None
    figure, all_axes = plt.subplots(1, len(units), figsize=(7 * len(units), 4.2), squeeze=False)
    for axes, unit in zip(all_axes[0], units):
        if series.get(unit):
            for family, points in sorted(series[unit].items()):
                points.sort()
                axes.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                          label=family)
            axes.set_xscale("log", base=2)
            if "time" in unit:
                axes.set_yscale("log")
            axes.set_xlabel("benchmark argument (elements, kernels, streams, block size or SMs)")
            axes.legend(fontsize=7)
        else:
            labels = list(single[unit])
            axes.bar(range(len(labels)), [single[unit][label] for label in labels])
            axes.set_xticks(range(len(labels)), labels, rotation=20, fontsize=7, ha="right")
        axes.set_ylabel(unit)
        axes.grid(True, which="both", alpha=0.3)
    figure.suptitle(name)
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
            if isinstance(value, float):
                value = int(value) if value.is_integer() else float(f"{value:.4g}")
            cells.append(str(value))
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

    lessons = sorted(args.input.glob("[0-9][0-9]_*.json"))
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
            out.append(f"- speed check {check['name']}: {check['ratio']:.2f} "
                       f"(needs {check['comparison']} {check['threshold']:.2f})")
        out.append("")
    if benches:
        out.append("## Benchmarks")
        out.append("")
        for path in benches:
            plot = plot_benchmark(path.stem, load(path), args.plots)
            if plot:
                out.append(f"![{path.stem}]({plot.name})")
                out.append("")
    out.append("## Regenerating this page for your GPU")
    out.append("")
    out.append("```sh\nctest/gpu-report.sh /tmp/report --update-docs \"your GPU, driver, runtime\"\n"
               "cmake --build build/nvidia --target docs   # or build/amd\n```")
    args.page.write_text("\n".join(out) + "\n")
    print(f"wrote {args.page} ({len(lessons)} lessons, {len(benches)} benchmark files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
