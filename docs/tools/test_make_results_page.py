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


class Readable(unittest.TestCase):
    def test_table_titles_are_words_not_json_keys(self):
        title = make_results_page.table_title
        self.assertEqual(title("small_kernels"),
                         "Kernels round-robin over streams: one-block kernels, then GPU-filling ones")
        self.assertEqual(title("amd_copy_path"),
                         "AMD: pinned copies, and launches behind a 20 ms kernel")
        self.assertEqual(title("device0"), "Device 0")
        self.assertEqual(title("sweep_fma_chain"), "Block size x blocks per compute unit: FMA chain")
        self.assertEqual(title("occupancy.triad"), "Resident blocks per compute unit: triad")
        self.assertEqual(title("some_new_table"), "Some new table")

    def test_benchmark_legends_are_words(self):
        legend = make_results_page.legend
        self.assertEqual(legend("triad_case/occupancy_grid"), "triad, occupancy-sized grid")
        self.assertEqual(legend("fma_chain_case/one_block_per_cu"), "FMA chain, one block per CU")
        self.assertEqual(legend("copy_case"), "device-to-device copy")
        self.assertEqual(legend("small_kernels/streams:8"), "small kernels, streams 8")
        self.assertEqual(legend("BM_sync_round_trip/blocking"), "sync round trip, blocking")

    def test_check_lines_read_as_the_run_printed_them(self):
        lines = make_results_page.check_lines({"checks": [
            {"name": "1000 elements", "kind": "correctness", "passed": True, "detail": "match"},
            {"name": "never overlap", "kind": "correctness", "passed": False, "detail": "2 ran"},
            {"name": "queue size", "kind": "skip", "passed": None, "detail": "NVIDIA build"},
            {"name": "8 streams / 1 stream", "label": "32 SMs", "kind": "speed", "passed": True,
             "enforced": True, "ratio": 7.204, "threshold": 5.0, "comparison": ">="},
            {"name": "a very long check name " * 6, "kind": "correctness", "passed": True,
             "detail": ""}]})
        self.assertEqual(lines[:4], [
            "check   ok    1000 elements  (match)",
            "check   FAIL  never overlap: 2 ran",
            "check   skip  queue size: NVIDIA build",
            "speed   ok    32 SMs: 8 streams / 1 stream = 7.20 (needs >= 5.00)"])
        self.assertTrue(all(len(line) <= 100 for line in lines))
        self.assertTrue(lines[5].startswith(" " * 14) and lines[5][14] != " ")


if __name__ == "__main__":
    unittest.main()
