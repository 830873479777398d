#!/usr/bin/env python3
"""Pastes each lesson's real output from a `ctest/quickstart.sh lessons` log into the
Expected output section of its README (between expected-output markers, or in place of the
placeholder line). Usage:

  fill_expected_output.py --log lessons.log --machine "NVIDIA H100 80GB HBM3, CUDA 13.0, ..."
                          [--lessons 03,08] [--lessons-dir lessons]

--lessons fills only the lessons named (numbers or folder names; default every lesson of the
log); --lessons-dir is the folder of the lessons (default: this repository's lessons/). Only a
run that passed is pasted: the log's Summary table must say `pass` for each lesson filled, and
its output must have no `skipped:` line. When a lesson named (or, without --lessons, any lesson
of the log) skipped or failed, nothing is written, the lessons are named, and the exit is 1.
Each README it changes is named with the lines before and after; one already up to date is said
to be unchanged.

A README keeps its Expected output short by naming the steps it shows:
`<!-- expected-output:begin steps=1,3 -->` pastes the lines before the first step heading,
steps 1 and 3 (each from its heading, "1. ...", to the next), a line for each step left out,
and the summary. A lesson without steps names the tables it leaves out instead:
`<!-- expected-output:begin omit="Device nodes|Environment variables" -->` drops each table
whose title starts so (to the next blank line). A line in the block says what was left out;
the docs' Results page has the run's JSON tables and plots, not its terminal output."""
import argparse
import pathlib
import re
import sys

LESSONS_DIR = pathlib.Path(__file__).resolve().parents[2] / "lessons"

BLOCK = re.compile(r"<!-- expected-output:begin( steps=[0-9,]+| omit=\"[^\"]+\")? -->\n.*?"
                   r"<!-- expected-output:end -->\n", re.S)
STEP_HEADING = re.compile(r"^(\d+)\. ")
PLACEHOLDER = "<!-- expected-output: filled from the H200 run -->\n"


def sections(log_text):
    parts = re.split(r"^=+\n== lesson (\d\d_\w+)\n=+\n", log_text, flags=re.M)
    found = {}
    for name, body in zip(parts[1::2], parts[2::2]):
        body = body.split("\nSummary (", 1)[0]
        found[name] = body.strip("\n") + "\n"
    return found


def results(log_text):
    """{lesson: result} from the Summary table that ends the log ("pass", "skipped", "FAIL (1)")."""
    table = log_text.split("\nSummary (", 1)
    if len(table) < 2:
        return {}
    found = {}
    for line in table[1].splitlines():
        row = re.match(r"^  (\d\d_\w+)\s+(pass|skipped|FAIL \(\d+\))(\s|$)", line)
        if row:
            found[row.group(1)] = row.group(2)
    return found


def refusal(name, output, result):
    """Why the output of `name` must not be pasted (None when it passed)."""
    if result is None:
        return "the log's Summary table has no row for it (was the run cut short?)"
    if result != "pass":
        return f"it did not pass ({result})"
    skip = next((line for line in output.splitlines() if line.startswith("skipped: ")), None)
    if skip:
        return f"its output has a skip: {skip[:70]}"
    return None


def select_steps(output, steps):
    """The lines of `output` before its first step, the steps in `steps` and the summary."""
    lines = output.splitlines()
    kept, current = [], None
    for number, line in enumerate(lines):
        heading = STEP_HEADING.match(line)
        if heading and (number == 0 or lines[number - 1] == ""):
            current = int(heading.group(1))
            if current not in steps:
                kept += [f"[step {current} left out here: run the lesson to see it]", ""]
        elif line.startswith("summary: "):
            current = None
        if current is None or current in steps:
            kept.append(line)
    return "\n".join(kept).rstrip("\n") + "\n"


def omit_tables(output, titles):
    """`output` without the tables whose title line starts with one of `titles`."""
    kept, skipping = [], False
    for line in output.splitlines():
        if skipping:
            skipping = line != ""
            continue
        title = next((t for t in titles if line.startswith(t)), None)
        if title is not None and (not kept or kept[-1] == ""):
            kept += [f"[left out here: the table \"{line.strip()}\"; run the lesson to see it]",
                     ""]
            skipping = True
            continue
        kept.append(line)
    return "\n".join(kept).rstrip("\n") + "\n"


def chosen(found, wanted):
    """The lessons of the log that `wanted` ("03,08", or folder names) names; all when empty."""
    if not wanted:
        return sorted(found)
    names = []
    for item in (w.strip() for w in wanted.split(",") if w.strip()):
        matches = [n for n in found if n == item or n.split("_", 1)[0] == item]
        if not matches:
            raise SystemExit(f"error: --lessons: '{item}' is not a lesson of the log "
                             f"(it has {', '.join(sorted(found)) or 'none'})")
        names += [m for m in matches if m not in names]
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log", required=True, type=pathlib.Path,
                        help="the log of ctest/quickstart.sh lessons")
    parser.add_argument("--machine", required=True,
                        help='the GPU and software of the run, e.g. "NVIDIA H100 80GB HBM3, '
                        'CUDA 13.0, driver 580.159"')
    parser.add_argument("--lessons", default="",
                        help="the lessons to fill, e.g. 03,08 (default: every lesson of the log)")
    parser.add_argument("--lessons-dir", type=pathlib.Path, default=LESSONS_DIR,
                        help="the folder of the lessons (default: %(default)s)")
    parser.add_argument("--command-prefix", default="build/nvidia/bin/")
    args = parser.parse_args()
    if args.lessons and pathlib.Path(args.lessons).is_dir():  # the older form: --lessons FOLDER
        args.lessons_dir, args.lessons = pathlib.Path(args.lessons), ""
    log_text = args.log.read_text()
    found = sections(log_text)
    if not found:
        print(f"error: {args.log} has no lesson (no '== lesson NN_name' heading): is it a log of "
              "ctest/quickstart.sh lessons?", file=sys.stderr)
        return 2
    names = chosen(found, args.lessons)
    result = results(log_text)
    refused = [(n, why) for n in names if (why := refusal(n, found[n], result.get(n)))]
    if refused:
        for name, why in refused:
            print(f"error: {name} is not pasted: {why}", file=sys.stderr)
        print("error: nothing was written: an Expected-output block shows a run that passed "
              "(name the lessons that did with --lessons)", file=sys.stderr)
        return 1
    for name in names:
        output = found[name]
        readme = args.lessons_dir / name / "README.md"
        if not readme.is_file():
            print(f"skip {name}: no README ({readme})")
            continue
        text = readme.read_text()
        binary = "lesson" + name
        marker = BLOCK.search(text)
        steps_text = marker.group(1) if marker and marker.group(1) else ""
        if steps_text.startswith(" omit="):
            output = omit_tables(output, steps_text.split("=", 1)[1].strip('"').split("|"))
        elif steps_text:
            steps = {int(n) for n in steps_text.split("=", 1)[1].split(",") if n}
            shown = {int(m.group(1)) for m in (STEP_HEADING.match(line)
                                               for line in output.splitlines()) if m}
            if steps - shown:
                print(f"error: {name}: the README shows steps {sorted(steps)}, and the run has "
                      f"no step {', '.join(map(str, sorted(steps - shown)))}; not filled",
                      file=sys.stderr)
                return 1
            output = select_steps(output, steps)
        block = (f"<!-- expected-output:begin{steps_text} -->\nA run of `{binary}` on the "
                 f"{args.machine} (your numbers will differ; the checks should not):\n\n"
                 f"```text\n{output}```\n<!-- expected-output:end -->\n")
        if marker:
            before = marker.group(0).count("\n")
            new_text = BLOCK.sub(lambda _: block, text, count=1)
        elif PLACEHOLDER in text:
            before = 1
            new_text = text.replace(PLACEHOLDER, block)
        else:
            print(f"skip {name}: no Expected output marker in {readme}")
            continue
        if new_text == text:
            print(f"unchanged {readme}: its Expected output is this run already")
            continue
        readme.write_text(new_text)
        print(f"filled {readme}: Expected output replaced ({before} lines before, "
              f"{block.count(chr(10))} now)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
