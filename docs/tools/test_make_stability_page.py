#!/usr/bin/env python3
"""Unit tests of make_stability_page.py on small made-up logs (ctest docs.stability_page_tool)."""
import pathlib
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_stability_page as tool  # noqa: E402

LOG = """\
1: Test command: /build/bin/lesson05_queue_env "--speed-check"
1: speed   ok    CUDA_DEVICE_MAX_CONNECTIONS=1: depth-first / breadth-first time = 10.24 (needs >=
1:               4.00)
1: check   ok    something else
2: Test command: /build/bin/lesson04_occupancy "--speed-check"
2: speed   ok    traced / untraced triad = 1.01 (needs <= 1.05)
2: speed   FAIL  triad: occupancy grid / one block per CU = 2.50 (needs >= 3.00)
"""

# The same checks as the full suite's Testing/Temporary/LastTest.log writes them.
LAST_TEST_LOG = """\
321/550 Test: lesson05.speed
Command: "/build/bin/lesson05_queue_env" "--speed-check"
Output:
----------------------------------------------------------
speed   ok    CUDA_DEVICE_MAX_CONNECTIONS=1: depth-first / breadth-first time = 9.71 (needs >=
              4.00)
"""


class StabilityPage(unittest.TestCase):
    def runs(self, *logs):
        with tempfile.TemporaryDirectory() as folder:
            paths = []
            for i, text in enumerate(logs):
                path = pathlib.Path(folder) / f"speed-run{i}.log"
                path.write_text(text)
                paths.append(path)
            return tool.read_runs(paths)

    def test_a_wrapped_speed_line_is_joined(self):
        checks, _ = self.runs(LOG)
        key = ("05", "CUDA_DEVICE_MAX_CONNECTIONS=1: depth-first / breadth-first time", ">=", 4.0)
        self.assertEqual(checks[key], [10.24])

    def test_the_full_suites_last_test_log_names_the_lesson_too(self):
        checks, _ = self.runs(LOG, LAST_TEST_LOG)
        key = ("05", "CUDA_DEVICE_MAX_CONNECTIONS=1: depth-first / breadth-first time", ">=", 4.0)
        self.assertEqual(checks[key], [10.24, 9.71])

    def test_failures_are_counted_per_lesson(self):
        checks, failures = self.runs(LOG, LOG)
        self.assertEqual(failures, 2)
        self.assertEqual(checks[("04", "triad: occupancy grid / one block per CU", ">=", 3.0)],
                         [2.5, 2.5])

    def test_headroom_of_ratio_checks(self):
        self.assertAlmostEqual(tool.headroom(">=", 3.0, 4.0, 4.2), 0.25)
        self.assertAlmostEqual(tool.headroom("<=", 1.5, 1.0, 1.2), 0.2)

    def test_an_overhead_bound_is_judged_by_its_unused_allowance(self):
        self.assertTrue(tool.is_overhead_bound("<=", 1.05))
        self.assertFalse(tool.is_overhead_bound("<=", 1.35))
        self.assertFalse(tool.is_overhead_bound(">=", 1.05))
        self.assertAlmostEqual(tool.headroom("<=", 1.05, 1.0, 1.01), 0.8)
        self.assertAlmostEqual(tool.headroom("<=", 1.05, 1.0, 1.0), 1.0)
        self.assertLess(tool.headroom("<=", 1.05, 1.0, 1.04), tool.MIN_HEADROOM)

    def test_table_flags_short_headroom(self):
        checks, _ = self.runs(LOG)
        text, short = tool.table(checks, 1)
        self.assertEqual(short, 1)  # the failing triad check: 2.50 is below its threshold
        row = "| 04 | traced / untraced triad | <= 1.05 | 1.01 | 1.01 | 80% (overhead) | yes |"
        self.assertIn(row, text)


class ThresholdsNow(unittest.TestCase):
    """One source for a threshold: the lesson's CMakeLists.txt; runs under a moved one are
    judged against the threshold in force now."""

    CMAKE = ("hip_lessons_threshold(05_MAX_BREADTH_VS_IDEAL --max-breadth-vs-ideal 2.5 6.0\n"
             "  \"what\")\nhip_lessons_threshold(05_MAX_BLOCKING_CPU --max-blocking-cpu 0.25 0.25\n")
    RAN = {("05", "breadth / ideal", "<=", 2.25): [1.24, 1.3, 1.74],
           ("05", "blocking-sync CPU / wall", "<=", 0.25): [0.01, 0.02, 0.02]}

    def test_cmake_thresholds_are_read_per_platform(self):
        with tempfile.TemporaryDirectory() as root:
            lesson = pathlib.Path(root) / "lessons" / "05_queue_env"
            lesson.mkdir(parents=True)
            (lesson / "CMakeLists.txt").write_text(self.CMAKE)
            self.assertEqual(tool.cmake_thresholds(root), {"05": [2.5, 0.25]})
            self.assertEqual(tool.cmake_thresholds(root, "amd"), {"05": [6.0, 0.25]})

    def test_a_moved_threshold_is_judged_as_it_is_now(self):
        now = tool.thresholds_now(self.RAN, {"05": [2.5, 0.25]})
        self.assertEqual(now[("05", "breadth / ideal", "<=", 2.25)], 2.5)
        self.assertEqual(now[("05", "blocking-sync CPU / wall", "<=", 0.25)], 0.25)
        text, short = tool.table(self.RAN, 3, now)
        self.assertEqual(short, 0)
        self.assertIn("| 05 | breadth / ideal | <= 2.50 (ran under 2.25) | 1.24 | 1.74 | 30% | yes |",
                      text)
        # Judged as it ran, the same row is short of the 25% headroom.
        text, short = tool.table(self.RAN, 3)
        self.assertEqual(short, 1)
        self.assertIn("| <= 2.25 | 1.24 | 1.74 | 23% | **no** |", text)

    def test_the_command_line_judges_by_the_platforms_thresholds(self):
        # An AMD run of lesson 05 under its AMD default (6.0): judged by the NVIDIA defaults,
        # 6.0 looks moved and the row takes NVIDIA's 2.5, which the ratio 3.1 misses.
        with tempfile.TemporaryDirectory() as root:
            page = pathlib.Path(root) / "page.md"
            page.write_text(f"{tool.BEGIN}\nold\n{tool.END}\n")
            log = pathlib.Path(root) / "speed-run1.log"
            log.write_text("5: Test command: /build/bin/lesson05_queue_env --speed-check\n"
                           "5: speed   ok    breadth / ideal = 3.10 (needs <= 6.00)\n"
                           "5: speed   ok    blocking-sync CPU / wall = 0.02 (needs <= 0.25)\n")
            lesson = pathlib.Path(root) / "lessons" / "05_queue_env"
            lesson.mkdir(parents=True)
            (lesson / "CMakeLists.txt").write_text(self.CMAKE)
            for platform, shown in (("amd", "| <= 6.00 | 3.10 | 3.10 | 48% | yes |"),
                                     ("nvidia", "| <= 2.50 (ran under 6.00) | 3.10 | 3.10 |")):
                argv = ["make_stability_page.py", "--page", str(page), "--machine", "a GPU",
                        "--platform", platform, str(log)]
                with mock.patch.object(sys, "argv", argv), \
                        mock.patch.object(tool, "ROOT", pathlib.Path(root)), \
                        mock.patch("builtins.print"):
                    tool.main()
                self.assertIn(shown, page.read_text(), platform)

    def test_a_moved_threshold_that_cannot_be_told_says_rerun(self):
        now = tool.thresholds_now(self.RAN, {"05": [2.5, 3.0, 0.25]})  # two candidates
        self.assertIsNone(now[("05", "breadth / ideal", "<=", 2.25)])
        text, short = tool.table(self.RAN, 3, now)
        self.assertEqual(short, 0)
        self.assertIn("| <= 2.25 | 1.24 | 1.74 | 23% | rerun |", text)

    def test_the_pages_table_reads_back_and_is_rejudged(self):
        text, _ = tool.table(self.RAN, 3)
        block = "3 runs of `ctest -L speed -V` on a GPU; 0 failed speed check(s).\n\n" + text
        checks, runs = tool.read_table(block)
        self.assertEqual(runs, 3)
        self.assertEqual({k: (min(v), max(v), len(v)) for k, v in checks.items()},
                         {k: (min(v), max(v), len(v)) for k, v in self.RAN.items()})
        with tempfile.TemporaryDirectory() as root:
            lesson = pathlib.Path(root) / "lessons" / "05_queue_env"
            lesson.mkdir(parents=True)
            (lesson / "CMakeLists.txt").write_text(self.CMAKE)
            page = pathlib.Path(root) / "page.md"
            page.write_text(f"intro\n{tool.BEGIN}\n{block}{tool.END}\nafter\n")
            self.assertEqual(tool.rejudge(page, check=True, root=root), 1)
            self.assertEqual(tool.rejudge(page, check=False, root=root), 0)
            self.assertIn("<= 2.50 (ran under 2.25)", page.read_text())
            self.assertTrue(page.read_text().endswith(f"{tool.END}\nafter\n"))
            self.assertEqual(tool.rejudge(page, check=True, root=root), 0)
            # Judged by AMD's thresholds, the same table's 2.50 is not the one CMake sets there.
            self.assertEqual(tool.rejudge(page, check=True, root=root, platform="amd"), 1)


if __name__ == "__main__":
    unittest.main()
