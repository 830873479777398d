#!/usr/bin/env python3
"""Checks the structure every lesson shares: its README's sections, its Application flow
against the steps main.hip declares, the step marks of main(), and a stability-page row for
every speed check.

    check_lesson_structure.py LESSON_DIR [LESSON_DIR...]
    check_lesson_structure.py --speed-rows PAGE --lessons DIR

For a lesson folder (lessons/03_multi_stream):
- README.md has exactly these `## ` sections, in this order: REQUIRED below (lesson 01, which
  has no minimal.hip, without `First look`). `### ` subsections inside them are fine.
- What you will see holds a table (`| question | answer ... |`).
- First look shows the lesson's minimal.hip (a `<!-- snippet: NN_name/minimal.hip MARKER -->`
  block), the file exists, and CMakeLists.txt registers it (`MINIMAL minimal.hip`).
- Application flow's numbered items `N. **<title>.** ...` are the numbered steps main.hip
  declares, `hl::StepResult <name>("N. <title>...")` (or `hl::format("N. ...")`), in the same
  order with the same numbers; each README title starts with the string-literal part of
  main.hip's title (a dynamic tail, `+ r.many` or a `{}`, may be left out or written out;
  links and code marks in the README title are read as their text, a final `.` or `:` is
  ignored). A title with no dynamic tail must be the whole title.
- The harness page is linked, `](../../docs/pages/harness.md)`, in Application flow or in
  Key APIs and concepts.
- main() marks each step call with `// N.`, in the order 1, 2, ... of the declared steps.

With --speed-rows: every speed check a lesson declares (`hip_lessons_threshold(NN_NAME --flag
...)` in its CMakeLists.txt, and the `hl::at_least` / `hl::at_most` call of that flag in the
lesson's sources, which gives its name) has a row on the stability page: lesson NN, and the
declared name, or `<label>: <declared name>` for a check measured per setting.

Each problem is printed as `FILE:LINE: what is wrong; what is expected`. Exit 0 when nothing is
wrong, 1 when something is, 2 for bad usage (a folder that is not a lesson, a missing page)."""
import argparse
import pathlib
import re
import sys

REQUIRED = ["Description", "What you will see", "First look", "Application flow",
            "Key APIs and concepts", "Demonstrated API calls", "Expected output",
            "Troubleshooting", "On AMD you should see", "Exercises", "Sources"]
WITHOUT_FIRST_LOOK = {"01"}
HARNESS_LINK = "](../../docs/pages/harness.md)"
STRING = r'"(?:[^"\\\n]|\\.)*"'


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def sections(text):
    """[(title, line, start, end)] of the README's `## ` sections (outside code blocks)."""
    found = []
    fenced = False
    offset = 0
    for number, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("## "):
            found.append([line[3:].strip(), number, offset, len(text)])
        offset += len(line) + 1
    for here, after in zip(found, found[1:]):
        here[3] = after[2]
    return [tuple(s) for s in found]


def unquote(literal):
    return bytes(literal[1:-1], "utf-8").decode("unicode_escape")


def declared_steps(source):
    """[(number, literal title, has_tail, line)] of main.hip's numbered steps."""
    steps = []
    call = re.compile(r"\bhl::StepResult\s+\w+\s*\(\s*(hl::format\s*\(\s*)?((?:" + STRING +
                      r"\s*)+)", re.S)
    for match in call.finditer(source):
        literal = "".join(unquote(part) for part in re.findall(STRING, match.group(2)))
        after = source[match.end():].lstrip()
        has_tail = not after.startswith(")")
        if match.group(1):
            has_tail = "{" in literal
            literal = literal.split("{", 1)[0]
        numbered = re.match(r"(\d+)\. (.*)", literal, re.S)
        if numbered:
            steps.append((int(numbered.group(1)), numbered.group(2), has_tail,
                          line_of(source, match.start())))
    return steps


def plain(title):
    """A title as text: links as their text, no code marks, one space, no final . or :."""
    title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)
    title = title.replace("`", "")
    return " ".join(title.split()).rstrip(" .:")


def flow_steps(text, start, end):
    """[(number, title or None, line)] of the numbered items of a section."""
    items = []
    body = text[start:end]
    for match in re.finditer(r"^(\d+)\. (.*)$", body, re.M):
        bold = re.match(r"\*\*(.+?)\*\*", body[match.start(2):], re.S)
        items.append((int(match.group(1)), plain(bold.group(1)) if bold else None,
                      line_of(text, start + match.start())))
    return items


def main_marks(source):
    """[(number, line)] of the `// N.` marks inside main()."""
    begin = re.search(r"^int main\s*\(", source, re.M)
    if not begin:
        return None
    return [(int(m.group(1)), line_of(source, begin.start() + m.start()))
            for m in re.finditer(r"//\s*(\d+)\.", source[begin.start():])]


def check_lesson(lesson):
    problems = []
    number = lesson.name[:2]
    readme, main_hip = lesson / "README.md", lesson / "main.hip"
    if not readme.is_file() or not main_hip.is_file():
        return [f"{lesson}: a lesson needs README.md and main.hip"]
    text = readme.read_text(encoding="utf-8")
    source = main_hip.read_text(encoding="utf-8")
    required = [s for s in REQUIRED if not (s == "First look" and number in WITHOUT_FIRST_LOOK)]
    found = sections(text)
    titles = [s[0] for s in found]
    by_title = {s[0]: s for s in found}
    for title, line, _, _ in found:
        if title not in required:
            problems.append(f"{readme}:{line}: section '## {title}' is not one of the required "
                            f"sections; make it a '### ' subsection of one (the sections, in "
                            f"order: {', '.join(required)})")
    for index, title in enumerate(required):
        if title not in by_title:
            before = next((by_title[t] for t in reversed(required[:index]) if t in by_title),
                          None)
            where = f"after '## {before[0]}' (line {before[1]})" if before else "first"
            at = line_of(text, before[3]) if before else 1
            problems.append(f"{readme}:{at}: missing section '## {title}'; expected {where}")
    present = [t for t in titles if t in required]
    expected_order = [t for t in required if t in present]
    if present != expected_order:
        for got, want in zip(present, expected_order):
            if got != want:
                problems.append(f"{readme}:{by_title[got][1]}: section '## {got}' is out of "
                                f"order; expected '## {want}' here (order: "
                                f"{', '.join(required)})")
                break

    if "What you will see" in by_title:
        _, line, start, end = by_title["What you will see"]
        if not re.search(r"^\|.*\|\s*$", text[start:end], re.M):
            problems.append(f"{readme}:{line}: What you will see has no table; expected "
                            "'| question | answer in the run shown |' rows")
    if number not in WITHOUT_FIRST_LOOK:
        if "First look" in by_title:
            _, line, start, end = by_title["First look"]
            if f"<!-- snippet: {lesson.name}/minimal.hip " not in text[start:end]:
                problems.append(f"{readme}:{line}: First look shows no snippet of minimal.hip; "
                                f"expected '<!-- snippet: {lesson.name}/minimal.hip MARKER -->' "
                                "and its fenced block")
        if not (lesson / "minimal.hip").is_file():
            problems.append(f"{lesson}/minimal.hip: missing; every lesson but 01 has a plain "
                            "first look there")
        cmake = lesson / "CMakeLists.txt"
        if (lesson / "minimal.hip").is_file() and (
                not cmake.is_file() or not re.search(r"\bMINIMAL\s+minimal\.hip\b",
                                                     cmake.read_text(encoding="utf-8"))):
            problems.append(f"{cmake}:1: minimal.hip is not registered; expected "
                            "'MINIMAL minimal.hip' in hip_lessons_add_lesson(...)")

    declared = declared_steps(source)
    numbers = [d[0] for d in declared]
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"{main_hip}:{declared[0][3] if declared else 1}: the numbered steps "
                        f"are {numbers}; expected 1, 2, ... in the order of the source")
    if "Application flow" in by_title:
        _, line, start, end = by_title["Application flow"]
        flow = flow_steps(text, start, end)
        if [f[0] for f in flow] != numbers:
            problems.append(f"{readme}:{line}: Application flow numbers its steps "
                            f"{[f[0] for f in flow]}; main.hip declares {numbers}")
        wanted = {d[0]: d for d in declared}
        for step, title, item_line in flow:
            if step not in wanted:
                continue
            _, literal, has_tail, source_line = wanted[step]
            expected = plain(literal).rstrip(" .:;,(/-") if has_tail else plain(literal)
            if title is None:
                problems.append(f"{readme}:{item_line}: step {step} has no bold title; expected "
                                f"'{step}. **{expected}{'...' if has_tail else ''}.**'")
            elif not title.startswith(expected) or (not has_tail and title != expected):
                rule = "start with" if has_tail else "be"
                problems.append(f"{readme}:{item_line}: step {step} is titled '{title}'; "
                                f"{main_hip}:{source_line} declares '{step}. {literal}"
                                f"{'...' if has_tail else ''}', so the title must {rule} "
                                f"'{expected}'")
    linked = [t for t in ("Application flow", "Key APIs and concepts")
              if t in by_title and HARNESS_LINK in text[by_title[t][2]:by_title[t][3]]]
    if not linked:
        where = by_title.get("Application flow", (None, 1))[1]
        problems.append(f"{readme}:{where}: the harness page is not linked; expected "
                        "'[how a lesson is built](../../docs/pages/harness.md)' in Application "
                        "flow or Key APIs and concepts")

    marks = main_marks(source)
    if marks is None:
        problems.append(f"{main_hip}:1: no 'int main(' found")
    elif [m[0] for m in marks] != numbers:
        at = marks[0][1] if marks else line_of(source, re.search(r"^int main", source,
                                                                 re.M).start())
        problems.append(f"{main_hip}:{at}: main() marks the steps {[m[0] for m in marks]}; "
                        f"expected {numbers}: a '// N.' comment on each step's call, in order")
    return problems


THRESHOLD = re.compile(r"hip_lessons_threshold\(\s*(\d\d)_(\w+)\s+(--[\w-]+)")
ROW = re.compile(r"^\| (\d\d) \| ((?:[^|\\]|\\.)+?) \| ([<>]=) ", re.M)


def declared_name(sources, flag):
    """A regex for the name of the speed check declared with \\p flag, and where: literal
    parts as they are, any other expression (`queue + "=1: ..."`) as `.+`."""
    call = re.compile(r"\bhl::at_(?:least|most)\s*\(((?:" + STRING + r"|[^\"()]|\([^()]*\))*?),"
                      r"\s*\"" + re.escape(flag) + r"\"", re.S)
    for path, text in sources:
        match = call.search(text)
        if not match:
            continue
        parts = re.split(r"(" + STRING + r")", match.group(1))
        pattern = "".join(re.escape(unquote(p)) if p.startswith('"') else
                          (".+" if p.strip(" \t\n+") else "") for p in parts)
        return pattern, f"{path}:{line_of(text, match.start())}"
    return None, None


def check_speed_rows(page, lessons):
    problems = []
    text = page.read_text(encoding="utf-8")
    rows = [(m.group(1), re.sub(r" \(\d+ of \d+ runs\)$", "", m.group(2)).replace("\\|", "|"))
            for m in ROW.finditer(text)]
    for lesson in sorted(p for p in lessons.iterdir() if re.match(r"\d\d_", p.name)):
        cmake = lesson / "CMakeLists.txt"
        if not cmake.is_file():
            continue
        cmake_text = cmake.read_text(encoding="utf-8")
        sources = [(p, p.read_text(encoding="utf-8")) for p in sorted(lesson.iterdir())
                   if p.suffix in (".hip", ".hpp")]
        for match in THRESHOLD.finditer(cmake_text):
            number, name, flag = match.groups()
            where = f"{cmake}:{line_of(cmake_text, match.start())}"
            pattern, declared_at = declared_name(sources, flag)
            if pattern is None:
                problems.append(f"{where}: HIP_LESSONS_{number}_{name} ({flag}) has no "
                                f"hl::at_least/at_most(\"<name>\", \"{flag}\", ...) in "
                                f"{lesson.name}'s sources")
                continue
            full = re.compile(r"(?:.+: )?" + pattern)
            if not any(n == number and full.fullmatch(cell) for n, cell in rows):
                shown = re.sub(r"\\(.)", r"\1", pattern).replace(".+", "<...>")
                problems.append(f"{where}: speed check '{shown}' ({flag}, declared at "
                                f"{declared_at}) has no row on {page}; expected a row "
                                f"'| {number} | {shown} | ...' (measure it: ctest/gpu-report.sh "
                                "--speed-runs 5 --update-docs)")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog=__doc__.split("\n\n", 2)[2],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("lessons_dirs", nargs="*", type=pathlib.Path, metavar="LESSON_DIR")
    parser.add_argument("--speed-rows", type=pathlib.Path, metavar="PAGE",
                        help="check that every declared speed check has a row on PAGE")
    parser.add_argument("--lessons", type=pathlib.Path, help="the lessons folder (--speed-rows)")
    args = parser.parse_args(argv)
    if args.speed_rows:
        if not args.speed_rows.is_file():
            print(f"error: --speed-rows {args.speed_rows}: no such file", file=sys.stderr)
            return 2
        if args.lessons is None or not args.lessons.is_dir():
            print(f"error: --speed-rows needs --lessons DIR, a folder (got {args.lessons})",
                  file=sys.stderr)
            return 2
        problems = check_speed_rows(args.speed_rows, args.lessons)
        checked = "every declared speed check against " + str(args.speed_rows)
    else:
        if not args.lessons_dirs:
            parser.print_usage(sys.stderr)
            print("error: name a lesson folder (or --speed-rows PAGE --lessons DIR)",
                  file=sys.stderr)
            return 2
        bad = [str(d) for d in args.lessons_dirs
               if not d.is_dir() or not re.match(r"\d\d_", d.resolve().name)]
        if bad:
            print(f"error: not a lesson folder (lessons/NN_name): {', '.join(bad)}",
                  file=sys.stderr)
            return 2
        problems = [p for d in args.lessons_dirs for p in check_lesson(d)]
        checked = f"{len(args.lessons_dirs)} lesson(s)"
    for problem in problems:
        print(problem)
    print(f"checked {checked}: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
