#!/usr/bin/env python3
"""Doxygen input filter for Markdown pages:
- a picture linked relative to the page (`![caption](../results/plot.png)`, which resolves
  when the Markdown file is read on its own) is given to Doxygen by its file name, which
  Doxygen finds on IMAGE_PATH and copies into the site;
- in a table row, an apostrophe inside a code span is written `&apos;` (shown the same):
  Doxygen 1.9.4 pairs such apostrophes with text of later rows and then warns "found </tt> tag
  without matching <tt>" (a quoted message such as `unknown option '--sise'`);
- the `##`/`###` headings of the pages that are linked by heading (ANCHORED_PAGES: the glossary
  and the harness page) get a Doxygen label made from the heading's GitHub anchor
  (`### AQL packet` on glossary.md: `{#glossary_aql_packet}`), and a link to such an anchor
  (`](glossary.md#aql-packet)` on a page, `](../../docs/pages/glossary.md#aql-packet)` from a
  lesson) becomes `](@ref glossary_aql_packet)`; a link to a whole page (`](results.md)`)
  becomes `](@ref results)`. So the same Markdown links work on GitHub and on the site, and a
  link to an anchor that does not exist is a Doxygen warning (an error in this build).
Everything else passes through unchanged."""
import pathlib
import re
import sys

RELATIVE_IMAGE = re.compile(r"(!\[[^\]]*\]\()(?:\.\./|\./)[^)\s]*/([^/)\s]+\.(?:png|svg|jpg))\)")
CODE_SPAN = re.compile(r"`[^`\n]+`")
ANCHORED_PAGES = ("glossary", "harness")
HEADING = re.compile(r"^(#{2,3}) (.*?)\s*$")
PAGE_LINK = re.compile(r"\]\((?:\.\./\.\./docs/pages/)?([a-z_]+)\.md(?:#([a-z0-9_-]+))?\)")


def github_slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"`|\*\*|\*", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def label(page, slug):
    return f"{page}_{slug.replace('-', '_')}"


def link(match):
    page, anchor = match.groups()
    return f"](@ref {label(page, anchor) if anchor else page})"


def outside_code(line, change):
    """`change` applied to the parts of `line` that are not code spans."""
    parts = re.split(r"(`[^`\n]+`)", line)
    return "".join(part if part.startswith("`") else change(part) for part in parts)


def filtered(text, page=""):
    lines = []
    fenced = False
    for line in RELATIVE_IMAGE.sub(r"\1\2)", text).split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            if line.startswith("|"):
                line = CODE_SPAN.sub(lambda span: span.group(0).replace("'", "&apos;"), line)
            heading = HEADING.match(line)
            if page in ANCHORED_PAGES and heading and "{#" not in line:
                line = f"{line.rstrip()} {{#{label(page, github_slug(heading.group(2)))}}}"
            line = outside_code(line, lambda part: PAGE_LINK.sub(link, part))
        lines.append(line)
    return "\n".join(lines)


if __name__ == "__main__":
    path = pathlib.Path(sys.argv[1])
    with open(path, encoding="utf-8") as source:
        sys.stdout.write(filtered(source.read(), path.stem))
