#!/usr/bin/env python3
"""Fails when a generated HTML page shows Markdown that Doxygen did not render: a literal
`**` (Doxygen 1.9.4 leaves bold that starts with `code` unrendered) outside code. Prints each
page and the text around the first such place.

    check_rendered_pages.py HTML_DIR [--skip-if-missing]

Exit 0 when every page rendered, 1 listing the pages that did not, 2 when HTML_DIR has no
pages (77 with --skip-if-missing: the docs were not built, which is a skip, not a pass)."""
import html
import pathlib
import re
import sys

# Code, and the API reference's declarations (where `char **argv` is C++, not Markdown).
CODE = re.compile(r"<(pre|code)\b.*?</\1>|<div class=\"fragment\">.*?</div><!-- fragment -->"
                  r"|<div class=\"memproto\">.*?</div>|<td class=\"mem(?:Item|Template)\w*\"[^>]*>.*?</td>",
                  re.S)
TAG = re.compile(r"<[^>]+>")


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--skip-if-missing"]):
        print(__doc__, file=sys.stderr)
        return 2
    pages = sorted(pathlib.Path(sys.argv[1]).glob("*.html"))
    if not pages:
        if sys.argv[2:] == ["--skip-if-missing"]:
            print(f"skipped: no HTML pages in {sys.argv[1]}; build the 'docs' target first")
            return 77
        print(f"error: no HTML pages in {sys.argv[1]}; build the docs first", file=sys.stderr)
        return 2
    bad = 0
    for page in pages:
        text = html.unescape(TAG.sub("", CODE.sub("", page.read_text(errors="replace"))))
        where = text.find("**")
        if where >= 0:
            bad += 1
            context = " ".join(text[max(0, where - 60):where + 60].split())
            print(f"{page.name}: literal '**' (unrendered bold): ...{context}...")
    print(f"{len(pages)} pages checked, {bad} with unrendered Markdown")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
