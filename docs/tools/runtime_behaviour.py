#!/usr/bin/env python3
"""The runtime-behaviour table (docs/runtime_behaviour.tsv): its docs page, and the check that
no README states a default that disagrees with it.

    runtime_behaviour.py page --table docs/runtime_behaviour.tsv --out docs/pages/runtime_behaviour.md
    runtime_behaviour.py check-page --table ... --page docs/pages/runtime_behaviour.md
    runtime_behaviour.py check-defaults --table ... FILE.md...

`page` writes the page from the table; `check-page` fails when the committed page differs
from what `page` would write. `check-defaults` fails when a file states a default for a knob
of the table that the table contradicts, by the rule in STATED_DEFAULT_RULE (also printed on
the page), and lists every such statement with its file and line.
"""
import argparse
import dataclasses
import pathlib
import re
import sys

FIELDS = ["knob", "platform", "setting", "versions", "default", "effect", "source"]

STATED_DEFAULT_RULE = """\
A file *states a default* when, in one sentence of prose or one table row (fenced code blocks,
such as program output, are not read), a setting of the table (say `GPU_MAX_HW_QUEUES`) is
followed by the word `default` and a value, in one of these forms:

- `SETTING ... default V`, `default: V`, `default is V`, `default of V`, `defaults to V`,
  `(default V`: the nearest setting-like name before the word `default` (an upper-case
  variable such as `DEBUG_HIP_FORCE_GRAPH_QUEUES`, or a `hip`/`cu` API) is the one meant,
  and only a setting of the table is checked;
- `SETTING ... V (default)`;
- `default SETTING=V`;
- a table whose header has a column `default`: each row states that column's value for the
  first setting named in its other cells.

(`by default` is not one of them: `LAZY by default on Linux` states nothing.) V is a number or
one of `on`, `off`, `true`, `false`, `yes`, `no`, `enabled`, `disabled`,
`all`, `auto`, `lazy`, `eager`, `spin`, `absent`, or a word in backticks (no blank or `/`,
so a path is not a value); anything else after
`default` (`the default stream`, `default: ROCr's choice`) is not a statement. `1`, `true`,
`on`, `yes` and `enabled` are the same value, as are `0`, `false`, `off`, `no`, `disabled`.

The statement must agree with the table. When the sentence names releases (`ROCm 5.4`,
`HIP 6.1`, `CUDA 12.2`, `rocm-6.2.0`, ranges such as `ROCm 5.0-5.3`, or `current sources`,
`current HIP` for the newest sources read), V must be the default of a row of that setting for
one of them. When
it names none, V must be the default of every row of that setting: a default that differs
between releases, or that no source establishes, is not restated but linked to this page.
Generated pages that record a program's output (the Results and Speed-check stability pages)
are not read: the program is what to fix."""

VALUE_WORDS = ("on|off|true|false|yes|no|enabled|disabled|all|auto|lazy|eager|spin|absent")
VALUE = rf"(?:`(?P<q>[^`\s/]+)`|(?P<v>-?\d+(?:\.\d+)?|(?:{VALUE_WORDS})\b))"
SAME = {"1": "1", "true": "1", "on": "1", "yes": "1", "enabled": "1",
        "0": "0", "false": "0", "off": "0", "no": "0", "disabled": "0"}


@dataclasses.dataclass
class Row:
    knob: str
    platform: str
    setting: str
    versions: str
    default: str
    effect: str
    source: str
    line: int


# The largest build number: a bound without one covers every build of its major.minor.
EVERY_BUILD = 10 ** 9


@dataclasses.dataclass
class Range:
    lowest: tuple = None  # (major, minor, build): the first build it covers
    highest: tuple = None  # (major, minor, build): the last build it covers
    development_only: bool = False

    def contains(self, version):
        """Whether the range covers \\p version: "current", (major, minor, build), or
        (major, minor), which stands for every build of that release and so is covered when any
        of them is."""
        # A range open at the top reaches the newest sources read, so it covers "current".
        if version == "current":
            return self.development_only or self.highest is None
        if self.development_only:
            return False
        first, last = (version, version) if len(version) == 3 else (
            (*version, 0), (*version, EVERY_BUILD))
        return not (self.lowest and last < self.lowest) and not (
            self.highest and self.highest < first)


VERSION = r"(\d+)\.(\d+)(?:\.(\d+))?"


def parse_range(text):
    """The releases of "A-B", "A-", "-B", "A", "all" or "current", where A and B are major.minor
    or major.minor.build (a build bound splits a release whose patch releases differ)."""
    if text == "all":
        return Range()
    if text == "current":
        return Range(development_only=True)
    m = re.fullmatch(rf"(?:{VERSION})?(-)?(?:{VERSION})?", text)
    if not m or (m[1] is None and m[5] is None) or (m[1] and m[5] and not m[4]):
        raise ValueError(f"'{text}' is not a version range (A-B, A-, -B, A, all, current; "
                         "A and B major.minor or major.minor.build)")

    def bound(major, minor, build, default_build):
        return (int(major), int(minor), int(build) if build else default_build)

    lowest = bound(m[1], m[2], m[3], 0) if m[1] else None
    highest = bound(m[5], m[6], m[7], EVERY_BUILD) if m[5] else None
    if m[1] and not m[4]:  # "A": that release (or build) only
        highest = bound(m[1], m[2], m[3], EVERY_BUILD if m[3] is None else int(m[3]))
    if lowest and highest and highest < lowest:
        raise ValueError(f"'{text}' is a reversed version range")
    return Range(lowest, highest)


def read_table(path):
    """The rows of the table; ValueError naming the line for a malformed one."""
    rows, header = [], None
    for number, line in enumerate(pathlib.Path(path).read_text().splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        if header is None:
            if fields != FIELDS:
                raise ValueError(f"{path}:{number}: the header must be {FIELDS}")
            header = fields
            continue
        if len(fields) != len(FIELDS) or not all(fields):
            raise ValueError(f"{path}:{number}: {len(fields)} fields (some empty?), need 7")
        row = Row(*fields, line=number)
        if row.platform not in ("AMD", "NVIDIA"):
            raise ValueError(f"{path}:{number}: platform '{row.platform}'")
        try:
            parse_range(row.versions)
        except ValueError as error:
            raise ValueError(f"{path}:{number}: {error}") from None
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------------------------
# The page


def code_spans(text):
    """Puts identifiers, paths and placeholders in backticks, so that Doxygen and GitHub show
    them as code (and Doxygen does not read GPU-<uuid> as HTML)."""
    def one(token):
        core = token.strip(",;:\"")
        while core.startswith("(") and core.count("(") > core.count(")"):
            core = core[1:]
        while core.endswith(")") and core.count(")") > core.count("("):
            core = core[:-1]
        special = re.search(r"[_/<>*]|::|\(\)", core) or re.fullmatch(
            r"(?:hip|cu|cuda|hsa)[A-Z]\w*", core)
        if not re.search("[A-Za-z]", core) or not special or core.startswith("`"):
            return token
        start = token.index(core)
        return f"{token[:start]}`{core}`{token[start + len(core):]}"
    return " ".join(one(token) for token in text.split(" "))


def platform_table(rows, platform):
    out = ["| knob | setting | releases | default | what it does | source (repository, path at tag or commit) |",
           "|---|---|---|---|---|---|"]
    for row in rows:
        if row.platform != platform:
            continue
        releases = {"all": "all", "current": "current sources"}.get(row.versions, row.versions)
        # " at " rather than "@": Doxygen reads "@" as the start of a command.
        cells = [row.knob, f"`{row.setting}`", releases, row.default, code_spans(row.effect),
                 code_spans(row.source.replace(" @ ", " at "))]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def make_page(rows):
    return f"""\
# What the runtime does, by release {{#runtime_behaviour}}

<!-- Generated by docs/tools/runtime_behaviour.py from docs/runtime_behaviour.tsv: edit the
table, then run `python3 docs/tools/runtime_behaviour.py page` (the docs.runtime_behaviour_page
test fails when this page is stale). -->

Several scheduling knobs changed what they do, or their default, between runtime releases:
what an empty `HIP_VISIBLE_DEVICES` means, whether direct dispatch is on, how streams are
spread over hardware queues, whether stream priorities count. This page is the one place the
project states them, each row with the source it was read from. Lesson 01 compiles the same
table in, asks `hipRuntimeGetVersion` which release it runs on, and prints that release's
rows with the value in force. The lesson READMEs link here instead of restating a default
that depends on the release.

How to read it:

- **releases** are the runtime's own version, as `hipRuntimeGetVersion` reports it: HIP's
  major.minor on AMD and the CUDA runtime's on NVIDIA. HIP carries the ROCm release's number
  in ROCm 4.2, 4.3 and from 5.0 on, but ROCm 4.5.x ships HIP 4.4, so the AMD rows of ROCm 4.5
  are keyed 4.4. `A-B` is A to B, `A-` A and later, `-B` up to B. `current sources` are
  development sources that no release is known to ship yet; lesson 01 never picks those rows.
  An open range (`5.5-`) ends at the newest source read: the value was the same there and in
  the last release read, but not every release between was read.
- HIP reports a build number as its third part (ROCm 5.2.3's HIP is 5.2.21153). Where a patch
  release changed a value, a bound names the build: ROCm 4.5.0 ships HIP 4.4.21401, ROCm 4.5.1
  and 4.5.2 ship 4.4.21432, so `4.2-4.4.21401` ends with ROCm 4.5.0 and `4.4.21432-4.4`
  starts with 4.5.1. Other patch releases cannot be told apart this way (ROCm 5.7.0 and
  5.7.1 both report HIP 5.7.31921, 6.2.1 and 6.2.2 both 6.2.41134).
- **default** is what applies when the setting is left alone. `absent`: the setting does not
  exist in those releases (setting it does nothing). `not established`: the sources read do
  not settle it; the row says what is known.
- **what it does** is read from the source named, not measured, except where a lesson
  measured it on the H200 (NVIDIA rows). No AMD row has been run by this project.

The AMD rows start at ROCm 4.2, the release of the article this project corrects, and go to
the development sources of 2026. Releases that exist and were read only in part: ROCm 6.3 to
7.2, the 7.11 to 7.14 series and 10.0 to 10.2 (their changelog was read, their code was not).

## AMD (HIP and ROCm)

{platform_table(rows, "AMD")}

## NVIDIA (CUDA)

{platform_table(rows, "NVIDIA")}

## What counts as stating a default

The `docs.stated_defaults.*` tests run `runtime_behaviour.py check-defaults` over every lesson
README and every page here, one test per file, and fail on a statement the table contradicts.

{STATED_DEFAULT_RULE}

## Sources

Each row names what it was read from. HIP's version per ROCm release: ROCm/HIP `bin/hipvars.pm`
(rocm-4.2.0 to rocm-5.4.4) and `VERSION` (rocm-5.5.0 to rocm-6.2.2); the build numbers of ROCm
4.5: ROCm/hipamd `CMakeLists.txt` at rocm-4.5.0 (the build is the hipamd commit's date,
`%y%W%w`: bedc5f61 in rocm-4.5.0 gives 21401, f9dccde4 in rocm-4.5.2 gives 21432) and the
package names `hip-runtime-amd_4.4.21432` in repo.radeon.com's ROCm 4.5.1 and 4.5.2 folders. The git repositories were read at release tags with
`git show TAG:path`: ROCm/ROCclr and ROCm/hipamd (ROCm 4.2 to 5.6), ROCm/HIP (4.3), ROCm/clr
(5.6 to 6.2.2, the `release/rocm-rel-6.3.0.1` branch), ROCm/ROCR-Runtime (4.2 to 6.2.4). Newer
AMD sources are single files of ROCm/rocm-systems at the commits named (`projects/clr`,
`projects/rocr-runtime`), its `projects/clr/CHANGELOG.md` at commit 03eb8e35 (HIP 7.0 to
10.2), and pull-request threads of ROCm/rocm-systems. The NVIDIA rows come from the CUDA
Programming Guide (docs.nvidia.com/cuda), the CUDA Driver and Runtime API references, and the
headers of CUDA 13.0 installed here.
"""


# ---------------------------------------------------------------------------------------------
# The stated-default check

SETTING_CHARS = r"[A-Za-z0-9_]"


# The AMD rows are keyed by HIP's version; a ROCm release names the HIP it ships. Only ROCm 4.5
# differs (ROCm/HIP bin/hipvars.pm @ rocm-4.5.0, rocm-4.5.2: HIP 4.4).
HIP_OF_ROCM = {(4, 5): (4, 4)}


def versions_named(sentence):
    """The releases a sentence names: (platform, version) pairs; version is (major, minor) or
    "current". A ROCm release stands for the HIP version it ships."""
    named = set()
    for m in re.finditer(r"\b(ROCm|HIP|CUDA|rocm-)\s*(?:<=|>=|<|>|≤|≥)?\s*(\d+)\.(\d+)"
                         r"(?:\.\d+)*(?:\s*(?:-|–|to|and|or|,)\s*(\d+)\.(\d+))?", sentence):
        platform = "NVIDIA" if m[1] == "CUDA" else "AMD"
        as_hip = (lambda v: HIP_OF_ROCM.get(v, v)) if m[1] in ("ROCm", "rocm-") else (lambda v: v)
        first = as_hip((int(m[2]), int(m[3])))
        named.add((platform, first))
        if m[4]:
            last = as_hip((int(m[4]), int(m[5])))
            named.add((platform, last))
            # Every minor between, so that "ROCm 5.0-5.3" names 5.1 and 5.2 as well.
            if last[0] == first[0]:
                named.update((platform, (first[0], minor)) for minor in range(first[1], last[1]))
    if re.search(r"\bcurrent (?:sources|develop|HIP|ROCm|CUDA)|\bdevelopment (?:sources|branch)",
                 sentence):
        named.update({("AMD", "current"), ("NVIDIA", "current")})
    return named


def canonical(value):
    value = value.strip().strip("`").lower()
    return SAME.get(value, value)


def setting_pattern(rows):
    names = sorted({row.setting for row in rows}, key=len, reverse=True)
    return re.compile(rf"(?<!{SETTING_CHARS})(?:{'|'.join(map(re.escape, names))})"
                      rf"(?!{SETTING_CHARS})")


# Any name that looks like a setting (an upper-case variable, a hip/cu API): the nearest one
# before "default" is the one meant, and it may be one the table does not list.
ANY_SETTING = re.compile(r"(?<![A-Za-z0-9_])(?:[A-Z][A-Z0-9]*_[A-Z0-9_]+|(?:hip|cu|cuda)[A-Z]\w*)")


def statements(sentence, settings):
    """(setting, value) for each default the sentence states (see STATED_DEFAULT_RULE)."""
    found = []
    mentions = [(m.start(), m.group()) for m in ANY_SETTING.finditer(sentence)]

    def nearest_before(position):
        before = [name for start, name in mentions if start < position]
        if not before or not settings.fullmatch(before[-1]):
            return None
        return before[-1]

    for m in re.finditer(rf"\bdefault\s+`?({settings.pattern})=([^\s`,;)]+)`?", sentence):
        found.append((m[1], m[2], m.start()))
    # "by default" never introduces a value ("LAZY by default on Linux").
    for m in re.finditer(rf"(?<!\bby )\bdefaults?\b(?:\s*(?:is|of|to|=|:)\s*|\s+){VALUE}",
                         sentence):
        if re.match(rf"defaults?\s+`?({settings.pattern})=", sentence[m.start():]):
            continue  # the SETTING=V form above
        setting = nearest_before(m.start())
        if setting:
            found.append((setting, m["q"] or m["v"], m.start()))
    for m in re.finditer(rf"{VALUE}\s*\(default\)", sentence):
        setting = nearest_before(m.start())
        if setting:
            found.append((setting, m["q"] or m["v"], m.start()))
    return [(setting, value) for setting, value, _ in sorted(found, key=lambda f: f[2])]


def judge(rows, setting, value, sentence):
    """None when the table agrees with "SETTING default VALUE" in \\p sentence, else why not."""
    own = [row for row in rows if row.setting == setting]
    platforms = {row.platform for row in own}
    named = [v for p, v in versions_named(sentence) if p in platforms]
    listing = "; ".join(f"{row.versions}: {row.default}" for row in own)
    if named:
        if any(parse_range(row.versions).contains(v) and canonical(row.default) == canonical(value)
               for row in own for v in named):
            return None
        return (f"{setting} default '{value}' is not the table's for the releases named "
                f"(table: {listing})")
    if all(canonical(row.default) == canonical(value) for row in own):
        return None
    if any(canonical(row.default) == canonical(value) for row in own):
        return (f"{setting} default '{value}' holds only in some releases (table: {listing}); "
                f"name the release or link docs/pages/runtime_behaviour.md")
    return f"{setting} default '{value}' disagrees with the table ({listing})"


def sentences(text):
    """(line number, sentence) of prose and table cells, outside fenced code blocks; plus
    (line number, setting-free statement) pairs for tables with a 'default' column."""
    out, rows_of_tables = [], []
    paragraph, start = [], 0
    header = None
    in_code = False
    lines = text.splitlines()

    def flush():
        nonlocal paragraph
        if paragraph:
            joined = " ".join(part.strip() for part in paragraph)
            for piece in re.split(r"(?<=[.!?])\s+(?=[A-Z`(*\[])", joined):
                out.append((start, piece))
        paragraph = []

    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            flush()
            in_code = not in_code
            continue
        if in_code:
            continue
        if line.startswith("|"):
            flush()
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if all(re.fullmatch(r":?-+:?", c) for c in cells):
                continue
            if header is None:
                header = [c.lower() for c in cells]
                continue
            for cell in cells:
                out.append((number, cell))
            if "default" in header and len(cells) == len(header):
                rows_of_tables.append((number, cells, header.index("default")))
            continue
        header = None
        if not line.strip() or line.startswith("#") or re.match(r"\s*([-*]|\d+\.)\s", line):
            flush()
            if not line.strip() or line.startswith("#"):
                continue
        if not paragraph:
            start = number
        paragraph.append(line)
    flush()
    return out, rows_of_tables


def check_file(rows, path):
    """Each stated default of \\p path the table contradicts, as 'path:line: why'."""
    settings = setting_pattern(rows)
    problems = []  # (line, text), reported in line order
    prose, tables = sentences(pathlib.Path(path).read_text())
    for number, sentence in prose:
        for setting, value in statements(sentence, settings):
            why = judge(rows, setting, value, sentence)
            if why:
                problems.append((number, f"{path}:{number}: {why}"))
    for number, cells, column in tables:
        others = " | ".join(c for i, c in enumerate(cells) if i != column)
        named = settings.search(others)
        value = re.match(VALUE, cells[column])
        if named and value:
            why = judge(rows, named.group(), value["q"] or value["v"], " | ".join(cells))
            if why:
                problems.append((number, f"{path}:{number}: {why}"))
    return [text for _, text in sorted(problems)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    default_table = pathlib.Path(__file__).resolve().parents[1] / "runtime_behaviour.tsv"
    default_page = pathlib.Path(__file__).resolve().parents[1] / "pages" / "runtime_behaviour.md"
    for name in ("page", "check-page", "check-defaults"):
        command = sub.add_parser(name)
        command.add_argument("--table", type=pathlib.Path, default=default_table)
        if name == "page":
            command.add_argument("--out", type=pathlib.Path, default=default_page)
        if name == "check-page":
            command.add_argument("--page", type=pathlib.Path, default=default_page)
        if name == "check-defaults":
            command.add_argument("files", nargs="+", type=pathlib.Path)
    args = parser.parse_args(argv)
    try:
        rows = read_table(args.table)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.command == "page":
        args.out.write_text(make_page(rows))
        print(f"wrote {args.out}")
        return 0
    if args.command == "check-page":
        if not args.page.is_file() or args.page.read_text() != make_page(rows):
            print(f"FAIL  {args.page} is not what {args.table} gives; run "
                  f"python3 docs/tools/runtime_behaviour.py page")
            return 1
        print(f"ok    {args.page} matches {args.table}")
        return 0
    problems = [p for path in args.files for p in check_file(rows, path)]
    for problem in problems:
        print(f"FAIL  {problem}")
    if problems:
        print(f"{len(problems)} stated default(s) disagree with {args.table} "
              f"(docs/pages/runtime_behaviour.md, 'What counts as stating a default')")
        return 1
    print(f"ok    no stated default in {len(args.files)} file(s) disagrees with {args.table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
