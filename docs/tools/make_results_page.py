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
import textwrap


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

# The title of each table the lessons write, by its JSON key (the lesson prints a longer one
# with the run's numbers; the JSON keeps only the key). A key not listed is read as words.
TABLE_TITLES = {
    "runtime_behaviour": "Scheduling knobs and variables, as this release reads them",
    "bandwidth": "Bandwidth of each vectorAdd variant against a device-to-device copy",
    "small_kernels": "Kernels round-robin over streams: one-block kernels, then GPU-filling ones",
    "pipeline": "Copy in, compute, copy out: sequential against pipelined in chunks",
    "device_limits": "Residency budgets of one compute unit",
    "article_grid": "The article's grid against the occupancy-sized grid (triad)",
    "lower_residency": "What lowers resident blocks: dynamic shared memory, registers",
    "queues": "Hardware queues: one chain of dependent kernels per stream",
    "serialization": "The serialization switch, in child processes",
    "wait": "Waiting for the GPU: one policy per child process",
    "amd_copy_path": "AMD: pinned copies, and launches behind a 20 ms kernel",
    "partitions": "Partitions asked for and granted",
    "scaling": "The kernel on the whole device and on k units",
    "side_by_side": "Two disjoint partitions at once, each with its share of the work",
    "launch_cost": "What one launch costs, per kernel",
    "methods": "One batch of vector adds, every way",
    "graph_update": "New inputs for every node of an instantiated graph",
    "trace_gaps": "Gaps between kernels in the block trace",
    "settings": "The victim's launch-to-completion latency in each setting",
}
# Patterns of keys made per item: "device0", "occupancy.triad", "sweep_fma_chain".
TABLE_PATTERNS = [
    (r"device(\d+)", "Device {0}"),
    (r"occupancy\.(\w+)", "Resident blocks per compute unit: {0}"),
    (r"sweep_(\w+)", "Block size x blocks per compute unit: {0}"),
]
# Words of benchmark case names, as a reader says them.
LEGEND_WORDS = {"cu": "CU", "sm": "SM", "amd": "AMD", "gpu": "GPU", "d2d": "device-to-device"}
LEGEND_NAMES = {"copy_case": "device-to-device copy", "occupancy_grid": "occupancy-sized grid",
                "one_element_per_thread": "one element per thread"}


def words(key):
    """`fma_chain` -> "FMA chain"-like reading: underscores as spaces, known acronyms kept."""
    parts = [LEGEND_WORDS.get(w.lower(), w) for w in re.split(r"[_\s]+", key) if w]
    if parts and parts[0] == "fma":
        parts[0] = "FMA"
    return " ".join(parts)


def table_title(key):
    """A readable title for a table's JSON key."""
    if key in TABLE_TITLES:
        return TABLE_TITLES[key]
    for pattern, title in TABLE_PATTERNS:
        match = re.fullmatch(pattern, key)
        if match:
            return title.format(*(words(g) for g in match.groups()))
    text = words(key)
    return text[:1].upper() + text[1:]


def legend(family):
    """A benchmark family ("triad_case/occupancy_grid", "BM_copy") as a legend entry."""
    parts = []
    for part in family.split("/"):
        part = re.sub(r"^BM_", "", part)
        if part in LEGEND_NAMES:
            parts.append(LEGEND_NAMES[part])
            continue
        part = re.sub(r"_case$", "", part)
        name, _, value = part.partition(":")
        parts.append(words(name) + (f" {value}" if value else ""))
    return ", ".join(p for p in parts if p)


def check_lines(report):
    """The lesson's check lines as the terminal prints them: ok, FAIL, skip, and the speed
    checks with their ratio and threshold."""
    lines = []
    for check in report.get("checks", []):
        kind, name = check.get("kind"), check.get("name", "")
        detail = check.get("detail") or ""
        if kind == "speed":
            label = f"{check['label']}: " if check.get("label") else ""
            status = "-" if not check.get("enforced") else ("ok" if check.get("passed") else "FAIL")
            ratio = check.get("ratio")
            shown = f"{ratio:.2f}" if isinstance(ratio, (int, float)) else "-"
            line = (f"speed   {status:<6}{label}{name} = {shown} (needs "
                    f"{check.get('comparison', '')} {check.get('threshold', 0):.2f})")
        elif kind == "skip":
            line = f"check   skip  {name}: {detail}"
        else:
            status = "ok" if check.get("passed") else "FAIL"
            shown = f"  ({detail})" if detail and check.get("passed") else (
                f": {detail}" if detail else "")
            suffix = " (schedule check, shown, not enforced)" if kind == "schedule" else ""
            line = f"check   {status:<6}{name}{shown}{suffix}"
        lines.extend(textwrap.wrap(line, 100, subsequent_indent=" " * 14,
                                   break_long_words=False, break_on_hyphens=False) or [line])
    return lines


def lesson_title(path, lessons_dir):
    """"Lesson 03: streams and concurrency", from the lesson's README where it exists."""
    readme = lessons_dir / path.stem / "README.md"
    if readme.is_file():
        first = readme.read_text(encoding="utf-8").split("\n", 1)[0]
        if first.startswith("# "):
            return first[2:].strip()
    number, _, name = path.stem.partition("_")
    return f"Lesson {number}: {words(name)}"


sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_timeline_plots  # noqa: E402
LESSONS = pathlib.Path(__file__).resolve().parent.parent.parent / "lessons"


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
                          label=legend(family))
            axes.set_xscale("log", base=axis_base(series[unit]))
            if "time" in unit:
                axes.set_yscale("log")
            axes.set_xlabel(x_label(name, families))
            axes.legend(fontsize=9, loc="best")
        else:
            labels = list(single[unit])
            axes.bar(range(len(labels)), [single[unit][label] for label in labels])
            axes.set_xticks(range(len(labels)), [legend(label) for label in labels],
                            rotation=20, fontsize=9, ha="right")
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
    parser.add_argument("--lessons", type=pathlib.Path, default=LESSONS,
                        help="the lessons folder, for each lesson's title (default: %(default)s)")
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
        out.append(f"## {lesson_title(path, args.lessons)}")
        out.append("")
        if report.get("summary"):
            out.append(f"Summary: {report['summary']}.")
            out.append("")
        for name, rows in report.get("tables", {}).items():
            if name in SETUP_TABLES:
                continue
            out.append(f"**{table_title(name)}**")
            out.append("")
            out.append(markdown_table(rows))
        lines = check_lines(report)
        if lines:
            out.append("Its checks, as the run printed them:")
            out.append("")
            out.append("```text\n" + "\n".join(lines) + "\n```")
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
                lesson = pathlib.Path(path.stem[len("lesson"):-len("_bench")])  # 02_vector_add
                out.append(f"### {lesson_title(lesson, args.lessons)}: benchmarks")
                out.append("")
                out.append(f"![{caption}]({relative.as_posix()})")
                out.append("")
    # The timelines of this run's traces, drawn now (so the page never shows an older run's),
    # each with its alt text: what the picture shows, with the run's numbers.
    alt_texts = {}
    for trace in sorted(args.input.glob("[0-9][0-9]_*.trace.json")):
        number = trace.name[:2]
        text = make_timeline_plots.plot(number, load(trace),
                                        args.plots / f"lesson{number}_timeline.png")
        if text:
            alt_texts[number] = text
    timelines = [args.plots / f"lesson{number}_timeline.png" for number in sorted(alt_texts)]
    if timelines:
        out.append("## Timelines")
        out.append("")
        out.append("Each lesson's block trace (`--trace`), drawn by "
                   "`docs/tools/make_timeline_plots.py`: where and when the blocks of its key "
                   "comparison ran.")
        out.append("")
        for plot in timelines:
            number = plot.name[len("lesson"):len("lesson") + 2]
            relative = pathlib.Path("..") / args.plots.name / plot.name
            alt = alt_texts[number].replace("[", "(").replace("]", ")")
            folders = sorted(args.lessons.glob(f"{number}_*"))
            out.append(f"### {lesson_title(folders[0], args.lessons) if folders else 'Lesson ' + number}")
            out.append("")
            out.append(f"![{alt}]({relative.as_posix()})")
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
