#!/usr/bin/env python3
"""Unit tests of runtime_behaviour.py (ctest docs.runtime_behaviour_tool): the table reader,
the page, and the stated-default rule on planted agreements and disagreements."""
import pathlib
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import runtime_behaviour as tool  # noqa: E402

TABLE = HERE.parent / "runtime_behaviour.tsv"


class Table(unittest.TestCase):
    def test_the_table_reads_and_every_range_parses(self):
        rows = tool.read_table(TABLE)
        self.assertGreater(len(rows), 30)
        settings = {row.setting for row in rows}
        for needed in ("AMD_DIRECT_DISPATCH", "GPU_MAX_HW_QUEUES", "DEBUG_HIP_DYNAMIC_QUEUES",
                       "DEBUG_HIP_IGNORE_STREAM_PRIORITY", "GPU_FORCE_BLIT_COPY_SIZE",
                       "HSA_ENABLE_SDMA", "HSA_ENABLE_INTERRUPT", "GPU_ENABLE_WGP_MODE",
                       "HIP_VISIBLE_DEVICES", "CUDA_DEVICE_MAX_CONNECTIONS",
                       "CUDA_MODULE_LOADING", "cuGreenCtxCreate"):
            self.assertIn(needed, settings)

    def test_a_malformed_row_is_refused_with_its_line(self):
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "t.tsv"
            path.write_text("\t".join(tool.FIELDS) + "\nk\tAMD\tX\tnewest\t4\te\ts\n")
            with self.assertRaisesRegex(ValueError, r"t.tsv:2: 'newest' is not a version range"):
                tool.read_table(path)

    def test_ranges(self):
        self.assertTrue(tool.parse_range("5.5-").contains((10, 2)))
        self.assertFalse(tool.parse_range("5.5-").contains((5, 4)))
        self.assertTrue(tool.parse_range("5.5-").contains("current"))
        self.assertFalse(tool.parse_range("4.2-6.2").contains("current"))
        self.assertTrue(tool.parse_range("current").contains("current"))
        self.assertFalse(tool.parse_range("current").contains((99, 0)))
        self.assertFalse(tool.parse_range("7.11-").contains((7, 2)))
        self.assertTrue(tool.parse_range("4.4.1-").contains((10, 2)))
        for bad in ("5", "6.0-5.4", "latest", "5.5.5.5", "4.4.21432-4.4.21401"):
            with self.assertRaises(ValueError):
                tool.parse_range(bad)

    def test_a_build_bound_splits_a_release(self):
        # ROCm 4.5.0 ships HIP 4.4.21401, ROCm 4.5.1 and 4.5.2 ship HIP 4.4.21432.
        before, after = tool.parse_range("4.2-4.4.21401"), tool.parse_range("4.4.21432-4.4")
        self.assertTrue(before.contains((4, 4, 21401)))
        self.assertFalse(before.contains((4, 4, 21432)))
        self.assertTrue(after.contains((4, 4, 21432)))
        self.assertFalse(after.contains((4, 4, 21401)))
        self.assertFalse(after.contains((5, 0, 13601)))
        # Without its build, HIP 4.4 may be either: both rows may apply.
        self.assertTrue(before.contains((4, 4)) and after.contains((4, 4)))
        self.assertTrue(tool.parse_range("4.4").contains((4, 4, 21432)))
        self.assertFalse(tool.parse_range("4.4.21401").contains((4, 4, 21432)))

    def test_rows_are_keyed_by_the_hip_version(self):
        # ROCm 4.5.x ships HIP 4.4: its rows are keyed 4.4, none 4.5, and no row of a setting
        # overlaps another of the same setting, build numbers included.
        rows = tool.read_table(TABLE)
        self.assertFalse([r for r in rows if r.platform == "AMD" and "4.5" in r.versions])
        queue_size = [r for r in rows if r.setting == "ROC_AQL_QUEUE_SIZE"]
        in_force = {build: [r.default for r in queue_size
                            if tool.parse_range(r.versions).contains((4, 4, build))]
                    for build in (21401, 21432)}
        self.assertEqual(in_force, {21401: ["absent"], 21432: ["4096"]})
        for platform, setting in {(r.platform, r.setting) for r in rows}:
            ranges = [tool.parse_range(r.versions) for r in rows if r.platform == platform
                      and r.setting == setting and r.versions != "current"]
            for i, a in enumerate(ranges):
                for b in ranges[i + 1:]:
                    apart = (a.highest and b.lowest and a.highest < b.lowest) or (
                        b.highest and a.lowest and b.highest < a.lowest)
                    self.assertTrue(apart, f"{setting}: {a} overlaps {b}")


class Page(unittest.TestCase):
    def test_the_page_lists_every_row_and_the_rule(self):
        rows = tool.read_table(TABLE)
        page = tool.make_page(rows)
        self.assertTrue(page.startswith("# What the runtime does, by release {#runtime_behaviour}"))
        for row in rows:
            self.assertIn(f"`{row.setting}`", page)
        self.assertIn("What counts as stating a default", page)
        self.assertIn("`GPU-<uuid>`", page)  # in backticks, so Doxygen does not read HTML

    def test_a_stale_page_fails(self):
        with tempfile.TemporaryDirectory() as folder:
            page = pathlib.Path(folder) / "page.md"
            self.assertEqual(tool.main(["page", "--out", str(page)]), 0)
            self.assertEqual(tool.main(["check-page", "--page", str(page)]), 0)
            page.write_text(page.read_text().replace("| 4 |", "| 5 |", 1))
            self.assertEqual(tool.main(["check-page", "--page", str(page)]), 1)


class StatedDefaults(unittest.TestCase):
    rows = tool.read_table(TABLE)

    def problems(self, text):
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "README.md"
            path.write_text(text)
            return tool.check_file(self.rows, path)

    def test_an_agreeing_default_passes(self):
        self.assertEqual(self.problems("`GPU_MAX_HW_QUEUES` (default 4) sets the queues.\n"), [])
        self.assertEqual(self.problems("HSA_ENABLE_INTERRUPT is on by default; `1` (default).\n"),
                         [])
        self.assertEqual(self.problems("`CUDA_DEVICE_MAX_CONNECTIONS` defaults to 8.\n"), [])

    def test_a_planted_disagreement_fails(self):
        problems = self.problems("Intro.\n\n`GPU_MAX_HW_QUEUES` (default 8) sets the queues.\n")
        self.assertEqual(len(problems), 1)
        self.assertIn("README.md:3: GPU_MAX_HW_QUEUES default '8' disagrees", problems[0])

    def test_every_form_of_the_rule_is_read(self):
        for text in ("`GPU_MAX_HW_QUEUES` has the default: 8.",
                     "GPU_MAX_HW_QUEUES: the default is 8.",
                     "GPU_MAX_HW_QUEUES defaults to `8`.",
                     "`GPU_MAX_HW_QUEUES` 8 (default) queues.",
                     "Expected with the default `GPU_MAX_HW_QUEUES=8`."):
            self.assertEqual(len(self.problems(text + "\n")), 1, text)

    def test_a_rocm_release_names_the_hip_it_ships(self):
        # ROCm 4.5 ships HIP 4.4: the 4.4 row (50) is the one a sentence about ROCm 4.5 means.
        self.assertEqual(self.problems("In ROCm 4.5 `ROC_ACTIVE_WAIT_TIMEOUT` has default 50.\n"),
                         [])
        self.assertEqual(self.problems("In HIP 4.4 `ROC_ACTIVE_WAIT_TIMEOUT` has default 50.\n"),
                         [])
        self.assertEqual(
            len(self.problems("In ROCm 4.5 `ROC_ACTIVE_WAIT_TIMEOUT` has default 10.\n")), 1)

    def test_a_version_dependent_default_needs_its_release(self):
        self.assertEqual(len(self.problems("`ROC_ACTIVE_WAIT_TIMEOUT` (default 0) spins.\n")), 1)
        self.assertEqual(self.problems("`ROC_ACTIVE_WAIT_TIMEOUT` (default 0 from ROCm 5.4).\n"), [])
        self.assertEqual(self.problems("In HIP 5.2 `ROC_ACTIVE_WAIT_TIMEOUT` has default 10.\n"),
                         [])
        self.assertEqual(self.problems("`ROC_ACTIVE_WAIT_TIMEOUT` default 10 in ROCm 5.0-5.3.\n"),
                         [])
        self.assertEqual(len(self.problems("`ROC_ACTIVE_WAIT_TIMEOUT` default 50 in ROCm 5.2.\n")),
                         1)
        self.assertEqual(self.problems("`DEBUG_HIP_DYNAMIC_QUEUES` (default 1 in current sources).\n"),
                         [])
        self.assertEqual(len(self.problems("`DEBUG_HIP_DYNAMIC_QUEUES` (default 1).\n")), 1)

    def test_a_table_with_a_default_column(self):
        table = ("| variable | default | what |\n|---|---|---|\n"
                 "| `AMD_DIRECT_DISPATCH` | false | dispatch |\n"
                 "| `GPU_MAX_HW_QUEUES` | 4 | queues |\n"
                 "| `AMD_DIRECT_DISPATCH` | on in ROCm 6.2 | dispatch |\n")
        problems = self.problems(table)
        self.assertEqual(len(problems), 1)
        self.assertIn("README.md:3: AMD_DIRECT_DISPATCH default 'false'", problems[0])

    def test_what_is_not_a_statement(self):
        for text in ("```text\nGPU_MAX_HW_QUEUES unset (default 8)\n```\n",
                     "`GPU_MAX_HW_QUEUES` works on the legacy default stream.\n",
                     "`HSA_ENABLE_SDMA` (default: ROCr's choice per GPU).\n",
                     "`GPU_MAX_HW_QUEUES` and `SOME_OTHER_FLAG` (default 8).\n",
                     "The default 8 of `GPU_MAX_HW_QUEUES`.\n",
                     "`CUDA_MODULE_LOADING` is LAZY by default on Linux.\n"):
            self.assertEqual(self.problems(text), [], text)

    def test_the_command_line_exit_codes(self):
        with tempfile.TemporaryDirectory() as folder:
            good = pathlib.Path(folder) / "good.md"
            bad = pathlib.Path(folder) / "bad.md"
            good.write_text("`GPU_MAX_HW_QUEUES` (default 4).\n")
            bad.write_text("`GPU_MAX_HW_QUEUES` (default 8).\n")
            self.assertEqual(tool.main(["check-defaults", str(good)]), 0)
            self.assertEqual(tool.main(["check-defaults", str(good), str(bad)]), 1)


if __name__ == "__main__":
    unittest.main()
