#!/usr/bin/env python3
"""Checks that the generated tables of a docs page are what a program prints now.

    check_doc_tables.py PAGE [--update] -- PROGRAM [ARGS...]

PROGRAM prints blocks "<!-- generated: NAME -->" ... "<!-- end: NAME -->"; PAGE must hold each
block with the same lines. Exit 0 when all match, 1 when one differs or is missing from the page
(the first differing line is printed), 2 on bad usage or a failing program. --update writes the
program's blocks into the page instead (blocks already there are replaced in place).
"""
import re
import subprocess
import sys

BLOCK = re.compile(r"<!-- generated: (\S+) -->\n(.*?)<!-- end: \1 -->\n", re.S)


def main(argv):
    if "--" not in argv or argv.index("--") < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    split = argv.index("--")
    options, command = argv[1:split], argv[split + 1:]
    page, update = options[0], "--update" in options[1:]
    if not command:
        print("error: no program given after --", file=sys.stderr)
        return 2
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        print(f"error: {' '.join(command)} exited {run.returncode}\n{run.stderr}", file=sys.stderr)
        return 2
    generated = {m.group(1): m.group(0) for m in BLOCK.finditer(run.stdout)}
    if not generated:
        print(f"error: {command[0]} printed no generated block", file=sys.stderr)
        return 2
    try:
        with open(page, encoding="utf-8") as f:
            text = f.read()
    except OSError as error:
        print(f"error: cannot read {page}: {error}", file=sys.stderr)
        return 2
    in_page = {m.group(1): m.group(0) for m in BLOCK.finditer(text)}
    if update:
        for name, block in generated.items():
            text = text.replace(in_page[name], block) if name in in_page else text + "\n" + block
        with open(page, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"updated {len(generated)} block(s) in {page}")
        return 0
    failures = 0
    for name, block in generated.items():
        if name not in in_page:
            print(f"FAIL  {page} has no block '{name}'")
            failures += 1
            continue
        want, have = block.splitlines(), in_page[name].splitlines()
        if want != have:
            first = next((i for i, (w, h) in enumerate(zip(want, have)) if w != h),
                         min(len(want), len(have)))
            print(f"FAIL  block '{name}' differs at its line {first + 1}:\n"
                  f"  page:    {have[first] if first < len(have) else '(ends)'}\n"
                  f"  program: {want[first] if first < len(want) else '(ends)'}")
            failures += 1
        else:
            print(f"ok    block '{name}' ({len(want) - 2} lines)")
    print(f"{len(generated)} block(s) checked, {failures} differ"
          + (f"; rewrite them with: {sys.argv[0]} {page} --update -- {' '.join(command)}"
             if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
