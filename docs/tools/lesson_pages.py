#!/usr/bin/env python3
"""Turns lesson READMEs into Doxygen pages whose code comes from the compiled sources.

A README shows code like this, so it reads well on its own:

    <!-- snippet: 02_vector_add/kernels.hpp correct_launch -->
    ```cpp
    ...the lines between the two `//! [correct_launch]` markers...
    ```

`refresh` copies each marked region into its README block again (after an edit of the source).
`check` fails when a README's block differs from the marked region of the source (so the
README cannot drift from code that compiles and is tested), when a marker does not resolve,
when a lesson has no README, or when its Expected output does not open with a "Run it" line
for the run shown. `generate` writes one page per lesson in which each such
block is replaced by Doxygen's `\\snippet`, so the site shows the source itself. It empties
its output folder first, so the page of a lesson that no longer exists cannot reach the site;
it refuses (exit 2) a folder that holds files it did not write.
"""
import argparse
import pathlib
import re
import sys
import textwrap

SNIPPET = re.compile(r"<!-- snippet: (\S+) (\S+) -->\n```[a-z+]*\n(.*?)```\n", re.S)
LESSON_LINK = re.compile(r"\]\(\.\./(\d\d)_[a-z0-9_]+/README\.md\)")
# A README links a docs page as ../../docs/pages/<name>.md (so it reads on GitHub); on the site
# that is the page's Doxygen id, which is its file name.
DOCS_PAGE_LINK = re.compile(r"\]\(\.\./\.\./docs/pages/([a-z_]+)\.md\)")


# The lessons print within 100 columns (hl::kTextWidth), so their output reads in a terminal
# and in the docs' code boxes without wrapping.
MAX_OUTPUT_WIDTH = 100
# A README's Expected output shows the steps that carry the lesson's point, its central
# timeline included (the Results page has the whole run); the cap only stops a whole run pasted.
MAX_EXPECTED_LINES = 150
EXPECTED = re.compile(r"<!-- expected-output:begin[^>]*-->\n.*?```text\n(.*?)```", re.S)
# Before its Expected output a README says how to run the lesson: a "Run it" line naming the
# binary where the build puts it (build/<platform>/bin), with the arguments of the run shown.
RUN_IT = re.compile(r"## Expected output\n\n(Run it[^\n]*`build/nvidia/bin/([^`]*)`[^\n]*)\n")


def lesson_dirs(lessons):
    return sorted(p for p in lessons.iterdir() if p.is_dir() and re.match(r"\d\d_", p.name))


def marked_region(lessons, file, marker):
    # Lesson files are named from lessons/ (02_vector_add/kernels.hpp), shared ones from the
    # repository root (common/include/hip_lessons/timing.hpp).
    path = lessons / file
    if not path.is_file():
        path = lessons.parent / file
    if not path.is_file():
        raise ValueError(f"snippet file {file} does not exist")
    lines = path.read_text().splitlines()
    tag = f"//! [{marker}]"
    where = [i for i, line in enumerate(lines) if line.strip() == tag]
    if len(where) != 2:
        raise ValueError(f"marker [{marker}] appears {len(where)} times in {file}, expected 2")
    return textwrap.dedent("\n".join(lines[where[0] + 1:where[1]])) + "\n"


def check(lessons):
    problems = []
    for lesson in lesson_dirs(lessons):
        readme = lesson / "README.md"
        if not readme.is_file():
            problems.append(f"{lesson.name}: no README.md (every lesson needs its page)")
            continue
        text = readme.read_text()
        if not text.startswith("# "):
            problems.append(f"{readme}: the first line must be the '# Title' heading")
        count = 0
        for match in SNIPPET.finditer(text):
            count += 1
            file, marker, shown = match.groups()
            try:
                source = marked_region(lessons, file, marker)
            except ValueError as error:
                problems.append(f"{readme}: {error}")
                continue
            if textwrap.dedent(shown) != source:
                problems.append(f"{readme}: the block for {file} [{marker}] differs from the "
                                f"source; copy the marked region again")
        if "<!-- snippet:" in text and count != text.count("<!-- snippet:"):
            problems.append(f"{readme}: a '<!-- snippet: FILE MARKER -->' line is not followed "
                            "by a fenced code block")
        if "<!-- expected-output: filled from" in text:
            problems.append(f"{readme}: Expected output still holds the placeholder")
        run_it = RUN_IT.search(text)
        shown = re.search(r"```text\n\$ ([^\n]*)\n", text[text.find("expected-output:begin"):])
        if not run_it:
            problems.append(f"{readme}: the Expected output section must open with a 'Run it' "
                            "line that names `build/nvidia/bin/<binary> <arguments>`")
        elif shown and run_it.group(2).split() != shown.group(1).split():
            problems.append(f"{readme}: the 'Run it' line runs `{run_it.group(2)}`, but the "
                            f"output shown is of `{shown.group(1).strip()}`")
        for block in EXPECTED.findall(text):
            if len(block.splitlines()) > MAX_EXPECTED_LINES:
                problems.append(f"{readme}: Expected output has {len(block.splitlines())} lines "
                                f"(at most {MAX_EXPECTED_LINES}); name fewer steps in its "
                                "expected-output:begin marker")
            for number, line in enumerate(block.splitlines(), 1):
                if len(line) > MAX_OUTPUT_WIDTH:
                    problems.append(f"{readme}: Expected output line {number} has {len(line)} "
                                    f"columns (at most {MAX_OUTPUT_WIDTH}): {line[:60]}...")
                    break
    return problems


def refresh(lessons):
    for lesson in lesson_dirs(lessons):
        readme = lesson / "README.md"
        if not readme.is_file():
            continue
        text = readme.read_text()

        def current(match):
            file, marker, _ = match.groups()
            fence = match.group(0).split("\n", 2)[1]
            return (f"<!-- snippet: {file} {marker} -->\n{fence}\n"
                    f"{marked_region(lessons, file, marker)}```\n")

        updated = SNIPPET.sub(current, text)
        if updated != text:
            readme.write_text(updated)
            print(f"refreshed {readme}")


# Marks a folder as generate's own, so emptying it never removes a file the tool did not write.
OWN_FOLDER_MARK = ".lesson_pages_output"
OWN_PAGE = re.compile(r"lesson\d\d\.md")


def empty_own_folder(out):
    """Removes the pages a previous `generate` wrote to \p out (made when missing). A folder
    with other files, and no mark, is not the tool's: exit 2 naming them, nothing removed."""
    out.mkdir(parents=True, exist_ok=True)
    entries = list(out.iterdir())
    marked = (out / OWN_FOLDER_MARK).exists()
    foreign = [e for e in entries if e.name != OWN_FOLDER_MARK and
               not (e.is_file() and (marked or OWN_PAGE.fullmatch(e.name)))]
    if foreign:
        names = ", ".join(sorted(e.name for e in foreign)[:5])
        print(f"error: --out {out} holds files lesson_pages.py did not write ({names}); "
              "name an empty folder or the one it generated before", file=sys.stderr)
        sys.exit(2)
    for entry in entries:
        if entry.name != OWN_FOLDER_MARK:
            entry.unlink()
    (out / OWN_FOLDER_MARK).write_text("Generated by docs/tools/lesson_pages.py; emptied by "
                                       "each `generate`.\n")


def generate(lessons, out):
    empty_own_folder(out)
    for lesson in lesson_dirs(lessons):
        number = lesson.name[:2]
        if not (lesson / "README.md").is_file():
            continue  # `check` reports it
        text = (lesson / "README.md").read_text()
        title, _, body = text.partition("\n")
        body = SNIPPET.sub(lambda m: f"\\snippet {m.group(1)} {m.group(2)}\n", body)
        body = LESSON_LINK.sub(lambda m: f"](@ref lesson{m.group(1)})", body)
        body = DOCS_PAGE_LINK.sub(lambda m: f"](@ref {m.group(1)})", body)
        page = f"{title} {{#lesson{number}}}\n{body}"
        (out / f"lesson{number}.md").write_text(page)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["check", "generate", "refresh"])
    parser.add_argument("--lessons", required=True, type=pathlib.Path)
    parser.add_argument("--out", type=pathlib.Path)
    args = parser.parse_args()
    if args.command == "check":
        problems = check(args.lessons)
        for problem in problems:
            print(f"error: {problem}")
        print(f"{len(lesson_dirs(args.lessons))} lesson pages checked, {len(problems)} problem(s)")
        return 1 if problems else 0
    if args.command == "refresh":
        refresh(args.lessons)
        return 0
    if args.out is None:
        parser.error("generate needs --out")
    generate(args.lessons, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
