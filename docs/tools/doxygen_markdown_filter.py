#!/usr/bin/env python3
"""Doxygen input filter for Markdown pages:
- a picture linked relative to the page (`![caption](../results/plot.png)`, which resolves
  when the Markdown file is read on its own) is given to Doxygen by its file name, which
  Doxygen finds on IMAGE_PATH and copies into the site;
- in a table row, an apostrophe inside a code span is written `&apos;` (shown the same):
  Doxygen 1.9.4 pairs such apostrophes with text of later rows and then warns "found </tt> tag
  without matching <tt>" (a quoted message such as `unknown option '--sise'`).
Everything else passes through unchanged."""
import re
import sys

RELATIVE_IMAGE = re.compile(r"(!\[[^\]]*\]\()(?:\.\./|\./)[^)\s]*/([^/)\s]+\.(?:png|svg|jpg))\)")
CODE_SPAN = re.compile(r"`[^`\n]+`")


def filtered(text):
    lines = []
    fenced = False
    for line in RELATIVE_IMAGE.sub(r"\1\2)", text).split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("|"):
            line = CODE_SPAN.sub(lambda span: span.group(0).replace("'", "&apos;"), line)
        lines.append(line)
    return "\n".join(lines)


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as page:
        sys.stdout.write(filtered(page.read()))
