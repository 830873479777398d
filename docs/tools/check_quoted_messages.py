#!/usr/bin/env python3
"""Checks that every message a Troubleshooting table quotes is one the code prints.

    check_quoted_messages.py --sources SOURCE_DIR FILE.md...

A quote is a code span (`...`) in the first column ("you see") of a table row: in a lesson
README the rows of its "## Troubleshooting" section, in any other file every table row. A
quote passes when each of its pieces can be printed by the project's sources (the C++ of
lessons/, common/ and tools/, tests aside, and the scripts and CMake modules of ctest/). The
rule, as QUOTE_RULE says it:
"""
import argparse
import functools
import pathlib
import re
import sys

QUOTE_RULE = """\
- `...` and `<words>` in a quote stand for any text: they split it into pieces, each checked
  on its own. Runs of blanks count as one blank.
- A piece must be made of string literals of the sources, in order: it may start inside one,
  and each literal after the first is taken from its start. A literal ends where its string
  ends or at a line break (`\\n`); literals written next to each other (`"a" "b"`) are one.
- Where a literal has a placeholder (`{}`, `{:.2}`, `%d`, `%s`) or ends, the quote may show a
  value there: nothing, one word (`3`, `/dev/kfd`, `nan`), followed by words that are all
  runtime words, quoted values or without letters (`main.hip:46: hipErrorOutOfMemory`,
  `--size 'abc'`, `>= 5.00`), or the whole of another literal (a check's name). Runtime words
  are HIP and CUDA API and error names, source locations and paths (VALUE_WORD). Other values
  with blanks are written `...`.
- A literal counts when it has a letter (a joiner such as `": "` is a value), and each literal
  a piece uses must match at least three of its characters.
- At least 60% of a piece's letters (runtime words aside) must come from literals, so that a
  literal made mostly of placeholders does not print anything. A word shown as a value scores
  none, and neither does a one-word literal (a name or a key such as `TEXT`) that follows
  another literal or fills a placeholder."""

SOURCE_SUFFIXES = {".hip", ".hpp", ".cpp", ".h", ".cu", ".in"}
SCRIPT_SUFFIXES = {".sh", ".cmake"}
WILD = "\x00"  # a placeholder inside a literal
END = "\x01"   # the end of a literal
MIN_LITERAL = 3
LITERAL_SHARE = 0.6
# Words the runtime, the compiler, the machine or the command line supply, never the project's
# text: HIP and CUDA API and error names, source locations, paths.
VALUE_WORD = re.compile(r"(?:hip|cuda|cu)[A-Z]\w*|CUDA_ERROR_\w+|"
                        r"[\w./-]+\.(?:hip|cpp|hpp)(?::\d+)?|[\w.~-]*/[\w./~*-]*")


def is_test(path):
    return path.name.startswith("test_") or "tests" in path.parts


def source_files(root):
    for folder in ("lessons", "common", "tools"):
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and path.suffix in SOURCE_SUFFIXES and not is_test(path):
                yield path
    for path in sorted((root / "ctest").glob("*")):
        if path.is_file() and path.suffix in SCRIPT_SUFFIXES:
            yield path


STRING_OR_SKIP = re.compile(
    r'//[^\n]*|/\*.*?\*/|'            # comments
    r"'(?:\\.|[^'\\\n])*'|"           # character literals
    r'"((?:\\.|[^"\\\n])*)"',         # string literals (the group)
    re.DOTALL)
SCRIPT_STRING_OR_SKIP = re.compile(
    r'(?:^|(?<=\s))#[^\n]*|'           # comments
    r'"((?:\\.|[^"\\\n])*)"|'          # double-quoted strings
    r"'([^'\n]*)'")                     # single-quoted strings
PLACEHOLDER = re.compile(r"\{[^{}]*\}|%[-+#0]*\d*(?:\.\d+)?l*[sdiufxXocegp]")  # not "50% of"
SHELL_VALUE = re.compile(r"\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z_0-9]*|\$[0-9#?@*]")
ESCAPES = {"n": "\n", "t": " ", '"': '"', "'": "'", "\\": "\\", "0": ""}


def literals(text, script=False):
    """The string literals of a C++ text (or a shell script or CMake module), adjacent ones
    joined, split at line breaks, with their placeholders replaced by WILD."""
    joined = []
    previous_end = None
    for match in (SCRIPT_STRING_OR_SKIP if script else STRING_OR_SKIP).finditer(text):
        body = next((group for group in match.groups() if group is not None), None)
        if body is None:
            continue
        if script:
            body = SHELL_VALUE.sub("{}", body)
        body = re.sub(r"\\(.)", lambda m: ESCAPES.get(m.group(1), m.group(1)), body)
        between = text[previous_end:match.start()] if previous_end is not None else None
        if joined and between is not None and between.strip() == "":
            joined[-1] += body
        else:
            joined.append(body)
        previous_end = match.end()
    for literal in joined:
        for line in literal.split("\n"):
            line = normalize(PLACEHOLDER.sub(WILD, line))
            if re.search(r"[A-Za-z]", line):  # not a joiner such as ": "
                yield line


def normalize(text):
    return re.sub(r"\s+", " ", text)


class Corpus:
    """Every literal of the sources, END after each, for matching quotes against."""

    def __init__(self, texts):
        """\\p texts: (text, whether it is a script) pairs."""
        self.literals = sorted({lit for text, script in texts for lit in literals(text, script)})
        self.text = "".join(lit + END for lit in self.literals)
        self.starts_by_char = {}
        self.one_word_starts = set()  # names and keys ("TEXT", "missing"): values, not text
        offset = 0
        for lit in self.literals:
            self.starts_by_char.setdefault(lit[0], []).append(offset)
            if " " not in lit.strip():
                self.one_word_starts.add(offset)
            offset += len(lit) + 1

    @classmethod
    def of(cls, root):
        return cls((path.read_text(encoding="utf-8", errors="replace"),
                    path.suffix in SCRIPT_SUFFIXES) for path in source_files(root))

    def prints(self, piece):
        """Whether \\p piece can be printed by the literals (QUOTE_RULE)."""
        return _Match(self, normalize(piece).strip()).found()


def letters(text):
    return sum(ch.isalpha() for ch in text)


def is_value_token(token):
    """A word the project does not write: without letters, a runtime word (VALUE_WORD), or a
    value in quotes as the lessons echo what they were given ('abc')."""
    bare = token.strip("()[]{}:;,.'\"")
    quoted = re.fullmatch(r"'[^']*'[:;,.)]*", token) is not None
    return letters(token) == 0 or quoted or VALUE_WORD.fullmatch(bare) is not None


def own_letters(piece):
    """The letters of \\p piece that the project's text must supply (runtime words aside)."""
    return sum(letters(token) for token in piece.split() if not is_value_token(token))


class _Match:
    """One piece against the corpus. Each way of printing the piece is scored by how many of
    its letters come from literals (a word shown as a value scores none); the piece is printed
    when the best way scores LITERAL_SHARE of its letters."""

    def __init__(self, corpus, piece):
        self.text = corpus.text
        self.starts = corpus.starts_by_char
        self.wild_starts = corpus.starts_by_char.get(WILD, [])
        self.one_word_starts = corpus.one_word_starts
        self.piece = piece
        self.values = functools.lru_cache(maxsize=None)(self._values)
        self.rest_best = functools.lru_cache(maxsize=None)(self._rest_best)

    def candidates(self, i):
        return self.starts.get(self.piece[i], []) + self.wild_starts

    def word_ends(self, i):
        """Where a value that starts at \\p i can end, longest first: one word (maybe empty),
        or words that are all runtime words or without letters (`main.hip:46: hipErrorX`,
        `>= 5.00`); with a blank before and after, as code joins a value to the text around."""
        piece = self.piece
        ends = []
        j = i + (i < len(piece) and piece[i] == " ")
        first = True
        while j < len(piece):
            k = piece.find(" ", j)
            k = len(piece) if k < 0 else k
            if not first and not is_value_token(piece[j:k]):
                # punctuation joined to the next literal's text ends the value too: "(forms:"
                lead = len(piece[j:k]) - len(piece[j:k].lstrip("([{'\"<"))
                ends += range(j + 1, j + lead + 1)
                break
            ends += [k, k + 1] if k < len(piece) else [k]
            first = False
            j = k + 1
        return sorted(set(ends + list(range(i, min(ends, default=i) + 1))), reverse=True)

    def _values(self, i, depth):
        """(end, letters from literals) of each value that can start at \\p i: one word, or
        the whole of a literal."""
        found = {j: 0 for j in self.word_ends(i)}
        if depth < 2 and i < len(self.piece):
            for at in self.candidates(i):
                for j, ended, score in self.walk(i, at, 0, depth + 1):
                    if ended:
                        score = 0 if at in self.one_word_starts else score
                        found[j] = max(found.get(j, 0), score)
        return tuple(found.items())

    def walk(self, i, at, matched, depth, score=0):
        """Matches piece[i:] against the literal text from \\p at: yields (j, True, score) when
        the literal ends with the piece at j, (end of piece, False, score) when the piece ends
        first; score counts the letters that came from literals."""
        text, piece = self.text, self.piece
        while True:
            if i == len(piece):
                if matched >= MIN_LITERAL:
                    yield i, text[at] == END, score
                return
            ch = text[at]
            if ch == END:
                if matched >= MIN_LITERAL:
                    yield i, True, score
                return
            if ch == WILD:
                for j, value_score in self.values(i, depth):
                    yield from self.walk(j, at + 1, matched, depth, score + value_score)
                return
            if ch != piece[i]:
                return
            score += ch.isalpha()
            i, at, matched = i + 1, at + 1, matched + 1

    def best_after(self, walks, one_word=False):
        """The best score of \\p walks, each continued (after its literal ended) by a value
        and the rest of the piece; -1 when none prints the piece. A \\p one_word literal
        scores nothing: a name joined to a message is a value, not its text."""
        best = -1
        for j, ended, score in walks:
            score = 0 if one_word else score
            if not ended:
                best = max(best, score)
                continue
            for k, value_score in self.values(j, 0):
                rest = self.rest_best(k)
                if rest >= 0:
                    best = max(best, score + value_score + rest)
        return best

    def _rest_best(self, i):
        """The best score of piece[i:] printed from the start of a literal; -1 when none."""
        if i == len(self.piece):
            return 0
        return max((self.best_after(self.walk(i, at, 0, 0), at in self.one_word_starts)
                    for at in self.candidates(i)), default=-1)

    def found(self):
        piece = self.piece
        needed = LITERAL_SHARE * own_letters(piece)
        if needed == 0:
            return True  # only runtime words and numbers: nothing of the project's to check
        for start in self.word_ends(0):  # the piece may open with a value
            if start == len(piece):
                continue
            space = piece.find(" ", start)
            probe = piece[start:min(start + 4, space + 1 if space >= 0 else len(piece))]
            at = self.text.find(probe)
            while at != -1:
                if self.best_after(self.walk(start, at, 0, 0)) >= needed:
                    return True
                at = self.text.find(probe, at + 1)
        return False


def quotes(markdown, whole_file):
    """(line number, quote) for each code span in the first column of the file's table rows
    (only those of its "## Troubleshooting" section unless \\p whole_file)."""
    inside = whole_file
    for number, line in enumerate(markdown.splitlines(), 1):
        if line.startswith("## "):
            inside = whole_file or line.strip() == "## Troubleshooting"
            continue
        if not inside or not line.startswith("|") or re.match(r"^\|[-| :]+\|$", line):
            continue
        first = re.split(r"(?<!\\)\|", line)[1]
        for span in re.findall(r"`([^`]+)`", first.replace("\\|", "|")):
            yield number, span


def pieces(quote):
    return [p for p in re.split(r"\.\.\.|<[^<>]*>|…", quote) if p.strip()]


def check_file(corpus, path):
    whole_file = path.name != "README.md"
    problems = []
    count = 0
    for number, quote in quotes(path.read_text(encoding="utf-8"), whole_file):
        count += 1
        missing = [p.strip() for p in pieces(quote) if not corpus.prints(p)]
        if missing:
            problems.append(f"{path}:{number}: `{quote}`: no source prints "
                            + "; ".join(f"'{m}'" for m in missing))
    return count, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__ + QUOTE_RULE,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sources", required=True, type=pathlib.Path,
                        help="the project's root folder")
    parser.add_argument("files", nargs="+", type=pathlib.Path)
    args = parser.parse_args()
    corpus = Corpus.of(args.sources)
    failed = False
    for path in args.files:
        count, problems = check_file(corpus, path)
        for problem in problems:
            print("FAIL  " + problem)
        if problems:
            failed = True
            print(f"{path}: {len(problems)} of {count} quoted message(s) are not printed by any "
                  "source")
        else:
            print(f"{path}: {count} quoted message(s), each printed by the sources")
    if failed:
        print("A quoted message passes by these rules:\n" + QUOTE_RULE)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
