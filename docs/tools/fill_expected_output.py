#!/usr/bin/env python3
"""Pastes each lesson's real output from a `ctest/quickstart.sh lessons` log into the
Expected output section of its README (between expected-output markers, or in place of the
placeholder line). Usage: fill_expected_output.py --log lessons.log --lessons lessons
[--machine "NVIDIA H200, CUDA 13.0, driver 580"]

A README keeps its Expected output short by naming the steps it shows:
`<!-- expected-output:begin steps=1,3 -->` pastes the lines before the first step heading,
steps 1 and 3 (each from its heading, "1. ...", to the next), a line for each step left out,
and the summary. A lesson without steps names the tables it leaves out instead:
`<!-- expected-output:begin omit="Device nodes|Environment variables" -->` drops each table
whose title starts so (to the next blank line). The whole run is on the docs' Results page."""
import argparse
import pathlib
import re
import sys

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


def select_steps(output, steps):
    """The lines of `output` before its first step, the steps in `steps` and the summary."""
    lines = output.splitlines()
    kept, current = [], None
    for number, line in enumerate(lines):
        heading = STEP_HEADING.match(line)
        if heading and (number == 0 or lines[number - 1] == ""):
            current = int(heading.group(1))
            if current not in steps:
                kept += [f"[step {current} left out here: the docs' Results page has the whole "
                         "run]", ""]
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
            kept += [f"[left out here: the table \"{line.strip()}\"; the Results page has it]", ""]
            skipping = True
            continue
        kept.append(line)
    return "\n".join(kept).rstrip("\n") + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True, type=pathlib.Path)
    parser.add_argument("--lessons", required=True, type=pathlib.Path)
    parser.add_argument("--machine", default="NVIDIA H200, CUDA 13.0, driver 580")
    parser.add_argument("--command-prefix", default="build/nvidia/bin/")
    args = parser.parse_args()
    found = sections(args.log.read_text())
    for name, output in sorted(found.items()):
        readme = args.lessons / name / "README.md"
        if not readme.is_file():
            print(f"skip {name}: no README")
            continue
        text = readme.read_text()
        binary = "lesson" + name
        marker = BLOCK.search(text)
        steps_text = marker.group(1) if marker and marker.group(1) else ""
        if steps_text.startswith(" omit="):
            output = omit_tables(output, steps_text.split("=", 1)[1].strip('"').split("|"))
        elif steps_text:
            steps = {int(n) for n in steps_text.split("=", 1)[1].split(",") if n}
            output = select_steps(output, steps)
        block = (f"<!-- expected-output:begin{steps_text} -->\nA run of `{binary}` on an {args.machine} "
                 f"(your numbers will differ; the checks should not):\n\n```text\n{output}```\n"
                 "<!-- expected-output:end -->\n")
        if marker:
            text = BLOCK.sub(lambda _: block, text)
        elif PLACEHOLDER in text:
            text = text.replace(PLACEHOLDER, block)
        else:
            print(f"skip {name}: no Expected output marker")
            continue
        readme.write_text(text)
        print(f"filled {readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
