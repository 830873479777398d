#!/usr/bin/env python3
"""Tests of make_results_page.py's tables (docs.results_page_tool): a cell reads as the lesson
printed it. Needs no matplotlib (only drawing the plots does)."""
import pathlib
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_results_page  # noqa: E402


class Tables(unittest.TestCase):
    def test_cells_read_as_the_lesson_prints_them(self):
        table = make_results_page.markdown_table(
            [{"property": "concurrent kernels", "value": True, "unit": None},
             {"property": "managed memory", "value": False, "unit": "MiB"},
             {"property": "memory", "value": 139.80000001, "unit": "GiB"},
             {"property": "SMs", "value": 132.0, "unit": "a|b <uuid>"}]).splitlines()
        self.assertEqual(table[0], "| property | value | unit |")
        self.assertEqual(table[2], "| concurrent kernels | yes | - |")
        self.assertEqual(table[3], "| managed memory | no | MiB |")
        self.assertEqual(table[4], "| memory | 139.8 | GiB |")
        self.assertEqual(table[5], "| SMs | 132 | a\\|b &lt;uuid&gt; |")


if __name__ == "__main__":
    unittest.main()
