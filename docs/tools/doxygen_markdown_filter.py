#!/usr/bin/env python3
"""Doxygen input filter for Markdown pages: a picture linked relative to the page
(`![caption](../results/plot.png)`, which resolves when the Markdown file is read on its own)
is given to Doxygen by its file name, which Doxygen finds on IMAGE_PATH and copies into the
site. Everything else passes through unchanged."""
import re
import sys

RELATIVE_IMAGE = re.compile(r"(!\[[^\]]*\]\()(?:\.\./|\./)[^)\s]*/([^/)\s]+\.(?:png|svg|jpg))\)")

with open(sys.argv[1], encoding="utf-8") as page:
    sys.stdout.write(RELATIVE_IMAGE.sub(r"\1\2)", page.read()))
