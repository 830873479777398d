#!/usr/bin/env python3
"""Checks that the commands README.md and CONTRIBUTING.md print can run as printed from a fresh
clone, and that the repository's files cite sections of CONTRIBUTING.md that exist.

    ctest/check-documented-commands.py SOURCE_DIR

A command is a line of a fenced sh block, or an inline code span of two words or more (a span
of one word may name a file without running it: it is only looked for). Every script a
command names (a path ending in .sh or .py, or .ci/run):
  - lies inside the repository (no ../ or absolute path: a fresh clone has nothing beside it);
  - exists;
  - when it is the command itself (not an argument of bash, sh or python3), is executable and
    starts with a #! line, so that it runs as printed.
Every citation of a section, CONTRIBUTING.md followed by a comma and the section's title in
double quotes, in a file of ctest/, docs/tools/ or .ci/, names a "## " heading of
CONTRIBUTING.md.
Exit 0 when all hold, 1 naming each problem.
"""
import os
import re
import sys

DOCUMENTS = ["README.md", "CONTRIBUTING.md"]
SCRIPT = re.compile(r"(?<![\w./-])"  # not inside a longer word or path
                    r"((?:\.\./|\./|/)?(?:[\w.-]+/)*[\w.-]+\.(?:sh|py)|\.ci/run)"
                    r"(?![\w/-])")
CITATION = re.compile(r'CONTRIBUTING\.md, "([^"]+)"')


def commands(text):
    """The commands of a Markdown text: (line, whether it runs) for each line of a fenced sh
    block and each inline code span; a one-word span may only name a file."""
    fence = None
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fence = None if fence is not None else line.strip()[3:]
            continue
        if fence is not None:
            if fence in ("sh", "bash", "console"):
                yield line.split("  #")[0].strip(), True  # a trailing comment is not part of it
        else:
            for span in re.findall(r"`([^`]+)`", line):
                yield span, len(span.split()) > 1


def check_command(root, document, command, runs, problems):
    for match in SCRIPT.finditer(command):
        path = match.group(1)
        words_before = command[:match.start()].split()
        where = f"{document}: `{command}`"
        if path.startswith(("../", "/")):
            problems.append(f"{where} runs {path}, outside the repository")
            continue
        local = os.path.join(root, os.path.normpath(path))
        if not os.path.isfile(local):
            problems.append(f"{where} runs {path}, which the repository does not have")
            continue
        # After bash, python3 or an option it is an argument; first, it is the command.
        runs_itself = not words_before or words_before[-1] in {"sudo", "&&", ";", "|"}
        if runs and runs_itself:
            with open(local, "rb") as script:
                shebang = script.read(2) == b"#!"
            if not os.access(local, os.X_OK) or not shebang:
                problems.append(f"{where} runs {path} itself, but it is not an executable "
                                "script (chmod +x and a #! line, or write `bash " + path + "`)")


def main():
    if len(sys.argv) != 2:
        print("usage: check-documented-commands.py SOURCE_DIR", file=sys.stderr)
        return 2
    root = sys.argv[1]
    problems = []
    checked = 0
    for document in DOCUMENTS:
        with open(os.path.join(root, document), encoding="utf-8") as f:
            for command, runs in commands(f.read()):
                checked += 1
                check_command(root, document, command, runs, problems)
    with open(os.path.join(root, "CONTRIBUTING.md"), encoding="utf-8") as f:
        sections = set(re.findall(r"^## (.+?)\s*$", f.read(), flags=re.MULTILINE))
    citations = 0
    for folder in ["ctest", "docs/tools", ".ci"]:
        for name in sorted(os.listdir(os.path.join(root, folder))):
            path = os.path.join(root, folder, name)
            if not os.path.isfile(path):
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    for section in CITATION.findall(line):
                        citations += 1
                        if section not in sections:
                            problems.append(f"{folder}/{name}:{number} cites CONTRIBUTING.md's "
                                            f'"{section}", which has no such section '
                                            f"(sections: {', '.join(sorted(sections))})")
    for problem in problems:
        print("FAIL  " + problem)
    if problems:
        print(f"{len(problems)} problem(s)")
        return 1
    print(f"documented commands ok: {checked} commands and code spans of "
          f"{' and '.join(DOCUMENTS)}, {citations} citation(s) of CONTRIBUTING.md's sections")
    return 0


if __name__ == "__main__":
    sys.exit(main())
