#!/usr/bin/env python3
"""Checks that a lesson README defines or links each glossary term where it first uses it.

    check_glossary_use.py [--glossary FILE] README [README...]
    check_glossary_use.py --terms            (lists each term, its anchor and its forms)

The glossary (docs/pages/glossary.md by default) has one `### Term` heading per entry. An
optional line `Forms: a, b, c` right under the heading lists other ways of writing the term
(`AQL`, `dispatch packet`); plurals (`AQL packets`, `priorities`) are found without being
listed. A form with a capital letter after its first character (`AQL`, `CU mask`) matches only
in that case; any other form matches in any case.

A README's first use of a term is the first place where one of its forms appears, read from
the top, outside fenced code blocks (the snippet and Expected-output blocks among them), code
spans, HTML comments, pictures, link targets, headings and the `## Sources` section. Where two
terms overlap, the longer one is the use (`origin stream` is a use of "Origin stream", not of
"Stream"). That first use must be either
- inside the text of a link to the term's glossary anchor,
  `[AQL packet](../../docs/pages/glossary.md#aql-packet)` (the anchor is GitHub's: the heading
  in lower case, punctuation dropped, spaces as `-`), or
- a bold in-place definition: `**AQL packet**: ...`, the bold text being one of the term's
  forms.

Each violation is printed as `FILE:LINE: TERM ...` with what is expected. Exit 0 when every
README passes, 1 when any term's first use is neither, 2 on bad usage (a README or the glossary
missing, a glossary without entries or with one form under two terms)."""
import argparse
import pathlib
import re
import sys

DEFAULT_GLOSSARY = pathlib.Path(__file__).resolve().parent.parent / "pages" / "glossary.md"
GLOSSARY_LINK = "../../docs/pages/glossary.md"


def github_slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"`|\*", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


class Term:
    def __init__(self, name, forms):
        self.name = name
        self.slug = github_slug(name)
        self.forms = [name] + [form for form in forms if form != name]

    def pattern(self, form):
        words = r"\s+".join(re.escape(word) for word in form.split())
        plural = r"(?:s|es)?"
        if form.endswith("y"):
            words = words[:-1] + r"(?:y|ies)"
            plural = ""
        flags = 0 if re.search(r"[A-Z]", form[1:]) else re.I
        return re.compile(rf"(?<![\w]){words}{plural}(?![\w])", flags)

    def is_form(self, text):
        text = " ".join(text.split()).strip().rstrip(".:,;")
        return any(self.pattern(form).fullmatch(text) for form in self.forms)


def read_glossary(path):
    terms = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        if not line.startswith("### "):
            continue
        forms = []
        for later in lines[number + 1:number + 4]:
            if later.startswith("Forms:"):
                forms = [form.strip() for form in later[len("Forms:"):].split(",") if form.strip()]
                break
        terms.append(Term(line[4:].strip(), forms))
    return terms


def glossary_problems(terms):
    owner = {}
    problems = []
    for term in terms:
        for form in term.forms:
            key = form.lower()
            if key in owner and owner[key] != term.name:
                problems.append(f"the form '{form}' belongs to both '{owner[key]}' and "
                                f"'{term.name}'")
            owner[key] = term.name
    return problems


def blank(text, start, end):
    """`text` with [start, end) replaced by spaces, newlines kept (so line numbers hold)."""
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def prose(text):
    """The README with everything that is not prose blanked out, positions unchanged."""
    sources = re.search(r"^## Sources\b", text, re.M)
    if sources:
        text = blank(text, sources.start(), len(text))
    for pattern in (r"^[ \t]*```.*?^[ \t]*```[^\n]*$", r"<!--.*?-->", r"`[^`\n]+`",
                    r"!\[[^\]]*\]\([^)]*\)", r"^#{1,6} [^\n]*$"):
        for match in list(re.finditer(pattern, text, re.S | re.M)):
            text = blank(text, match.start(), match.end())
    # Link targets are not prose; the link text is.
    for match in list(re.finditer(r"\[([^\]]*)\]\(([^)\s]*)\)", text)):
        text = blank(text, match.start(2), match.end(2))
    return text


def first_uses(terms, text):
    """{term name: (start, end)} of each term's first use in `text` (already prose only)."""
    found = []
    for index, term in enumerate(terms):
        for form in term.forms:
            for match in term.pattern(form).finditer(text):
                found.append((match.start(), -(match.end() - match.start()), index))
    found.sort()
    taken = []  # (start, end) of uses kept: a shorter match inside a longer one is not a use
    first = {}
    for start, negative_length, index in found:
        end = start - negative_length
        if any(s <= start and end <= e for s, e in taken):
            continue
        taken.append((start, end))
        first.setdefault(terms[index].name, (start, end))
    return first


def check_text(terms, text, name="README"):
    """Violations as 'name:line: term ...' strings."""
    clean = prose(text)
    links = [(m.start(1), m.end(1), m.group(2)) for m in
             re.finditer(r"\[([^\]]*)\]\(([^)\s]*)\)", text)]
    bolds = [(m.start(1), m.end(1), m.group(1)) for m in
             re.finditer(r"\*\*(?=\S)(.+?)(?<=\S)\*\*", text, re.S)]
    problems = []
    by_name = {term.name: term for term in terms}
    for term_name, (start, end) in sorted(first_uses(terms, clean).items(),
                                          key=lambda item: item[1]):
        term = by_name[term_name]
        line = text.count("\n", 0, start) + 1
        written = " ".join(text[start:end].split())
        link = next((l for l in links if l[0] <= start and end <= l[1]), None)
        if link:
            target = link[2]
            page, _, anchor = target.partition("#")
            if page.endswith("glossary.md") and anchor == term.slug:
                continue
            if page.endswith("glossary.md"):
                problems.append(f"{name}:{line}: {term.name}: first use '{written}' links "
                                f"#{anchor or '(no anchor)'}, expected {GLOSSARY_LINK}#{term.slug}")
                continue
        bold = next((b for b in bolds if b[0] <= start and end <= b[1]), None)
        if bold and term.is_form(bold[2]):
            continue
        where = "inside other bold text" if bold else ("inside a link to " + link[2]
                                                       if link else "plain")
        problems.append(f"{name}:{line}: {term.name}: first use '{written}' is {where}; link it "
                        f"as [{written}]({GLOSSARY_LINK}#{term.slug}) or define it there as "
                        f"**{written}**")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("readmes", nargs="*", type=pathlib.Path, metavar="README")
    parser.add_argument("--glossary", type=pathlib.Path, default=DEFAULT_GLOSSARY,
                        help="the glossary page (default: %(default)s)")
    parser.add_argument("--terms", action="store_true",
                        help="list the glossary's terms with their anchors and forms, then exit")
    args = parser.parse_args(argv)
    if not args.glossary.is_file():
        print(f"error: --glossary {args.glossary}: no such file", file=sys.stderr)
        return 2
    terms = read_glossary(args.glossary)
    if not terms:
        print(f"error: {args.glossary} has no '### Term' entries", file=sys.stderr)
        return 2
    problems = glossary_problems(terms)
    if problems:
        for problem in problems:
            print(f"error: {args.glossary}: {problem}", file=sys.stderr)
        return 2
    if args.terms:
        for term in terms:
            print(f"{term.name}\t#{term.slug}\t{', '.join(term.forms[1:])}")
        return 0
    if not args.readmes:
        parser.print_usage(sys.stderr)
        print("error: name at least one README (or --terms)", file=sys.stderr)
        return 2
    missing = [str(path) for path in args.readmes if not path.is_file()]
    if missing:
        print(f"error: no such README: {', '.join(missing)}", file=sys.stderr)
        return 2
    count = 0
    for path in args.readmes:
        problems = check_text(terms, path.read_text(encoding="utf-8"), str(path))
        for problem in problems:
            print(problem)
        count += len(problems)
    print(f"{len(args.readmes)} README(s) checked against {len(terms)} glossary terms: "
          f"{count} first use(s) without a glossary link or a bold definition")
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main())
