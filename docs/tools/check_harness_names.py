#!/usr/bin/env python3
"""Fails when a lesson's main.hip uses an `hl::` name that the harness page does not explain.

    check_harness_names.py [--page FILE] [--lessons DIR]

The harness page (docs/pages/harness.md, "How a lesson is built") explains a name in a
`### hl::Name` heading or in the first cell of a table row, `` | `hl::Name` | ... ``. Every
`hl::Name` in lessons/*/main.hip outside `//` comments counts (`hl::BlockRule::kWholeWarps` is
a use of `hl::BlockRule`). Each name the page lacks is printed as `FILE:LINE: hl::Name` at its
first use in that file. Exit 0 when the page explains every name, 1 when it lacks any, 2 when
the page or the lessons folder is missing or the page explains no name."""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
NAME = re.compile(r"\bhl::([A-Za-z_]\w*)")
EXPLAINED = re.compile(r"^(?:### `?hl::([A-Za-z_]\w*)`?\s*(?:\{#[^}]*\})?\s*$"
                       r"|\|\s*`hl::([A-Za-z_]\w*)`\s*\|)", re.M)


def explained_names(page_text):
    return {a or b for a, b in EXPLAINED.findall(page_text)}


def code_only(line):
    """The line without its `//` comment and without string literals."""
    line = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
    return line.split("//", 1)[0]


def used_names(source_text):
    """{name: first line number} of the hl:: names the source uses."""
    first = {}
    for number, line in enumerate(source_text.splitlines(), 1):
        for name in NAME.findall(code_only(line)):
            first.setdefault(name, number)
    return first


def problems(page_text, sources):
    """'FILE:LINE: hl::Name ...' for each name a source uses that the page does not explain;
    `sources` maps a file name to its text."""
    known = explained_names(page_text)
    found = []
    for name, text in sources.items():
        for used, line in sorted(used_names(text).items(), key=lambda item: item[1]):
            if used not in known:
                found.append(f"{name}:{line}: hl::{used} is used here but not explained on the "
                             "harness page (add a '| `hl::" + used + "` | what it is | example |'"
                             " row or a '### hl::" + used + "' heading)")
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog=__doc__.split("\n\n", 2)[2],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--page", type=pathlib.Path, default=ROOT / "docs/pages/harness.md")
    parser.add_argument("--lessons", type=pathlib.Path, default=ROOT / "lessons")
    args = parser.parse_args(argv)
    if not args.page.is_file():
        print(f"error: --page {args.page}: no such file", file=sys.stderr)
        return 2
    if not args.lessons.is_dir():
        print(f"error: --lessons {args.lessons}: no such folder", file=sys.stderr)
        return 2
    page = args.page.read_text(encoding="utf-8")
    if not explained_names(page):
        print(f"error: {args.page} explains no hl:: name", file=sys.stderr)
        return 2
    mains = sorted(args.lessons.glob("[0-9][0-9]_*/main.hip"))
    found = problems(page, {str(p): p.read_text(encoding="utf-8") for p in mains})
    for problem in found:
        print(problem)
    used = set()
    for path in mains:
        used |= set(used_names(path.read_text(encoding="utf-8")))
    print(f"{len(mains)} main.hip files use {len(used)} distinct hl:: names; the harness page "
          f"explains {len(explained_names(page))}; {len(found)} use(s) unexplained")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
