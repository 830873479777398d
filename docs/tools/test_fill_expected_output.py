#!/usr/bin/env python3
"""Unit tests of fill_expected_output.py on a made-up lesson run (ctest docs.expected_output_tool)."""
import contextlib
import io
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import fill_expected_output as tool  # noqa: E402

RUN = """\
lesson09_example  (seed 1)

Build
  item  value
  ----  -----
  built for  NVIDIA

Environment variables that change scheduling
  variable  value
  --------  -----
  FOO       -

1. First step
check   ok    one

2. Second step
check   ok    two

summary: all good
"""


class ExpectedOutput(unittest.TestCase):
    def test_steps_keeps_the_named_steps_and_says_what_it_left_out(self):
        out = tool.select_steps(RUN, {2})
        self.assertIn("2. Second step", out)
        self.assertNotIn("1. First step", out)
        self.assertIn("[step 1 left out here", out)
        self.assertNotIn("Results page", out)  # it has the tables, not the terminal output
        self.assertTrue(out.rstrip().endswith("summary: all good"))

    def test_omit_drops_a_table_by_its_title_up_to_the_blank_line(self):
        out = tool.omit_tables(RUN, ["Environment variables"])
        self.assertNotIn("FOO", out)
        self.assertIn('the table "Environment variables that change scheduling"', out)
        self.assertIn("built for  NVIDIA", out)
        self.assertIn("1. First step", out)

    def test_a_title_inside_a_paragraph_is_not_a_table(self):
        text = "Build\nEnvironment variables here\n\nrest\n"
        self.assertEqual(tool.omit_tables(text, ["Environment"]), text)

    def lessons(self, root, *names):
        """READMEs with an empty Expected-output block for each name; their paths."""
        readmes = {}
        for name in names:
            (root / "lessons" / name).mkdir(parents=True)
            readmes[name] = root / "lessons" / name / "README.md"
            readmes[name].write_text("## Expected output\n\n<!-- expected-output:begin -->\n"
                                     "old output\n<!-- expected-output:end -->\n\n## Next\n")
        return readmes

    def fill(self, root, runs, results, *options):
        """main() on a log of `runs` ({name: output}) whose Summary says `results`."""
        log = root / "tour.log"
        text = "".join(f"\n{'=' * 10}\n== lesson {name}\n{'=' * 10}\n$ lesson{name}\n{output}"
                       for name, output in runs.items())
        text += "\nSummary (build/nvidia, logs and JSON in build/nvidia/results)\n"
        text += "  lesson              result      key figure\n"
        text += "".join(f"  {name:<18}  {result:<10}  a figure\n"
                        for name, result in results.items())
        log.write_text(text)
        sys.argv = ["fill", "--log", str(log), "--lessons-dir", str(root / "lessons"),
                    "--machine", "NVIDIA H100 80GB HBM3, CUDA 13.0", *options]
        return tool.main()

    def test_a_readme_marker_with_omit_is_filled(self):
        with tempfile.TemporaryDirectory() as folder:
            root = pathlib.Path(folder)
            (root / "lessons" / "09_example").mkdir(parents=True)
            readme = root / "lessons" / "09_example" / "README.md"
            readme.write_text('## Expected output\n\n<!-- expected-output:begin omit="Build" -->\n'
                              "<!-- expected-output:end -->\n\n## Next\n")
            self.assertEqual(self.fill(root, {"09_example": RUN}, {"09_example": "pass"}), 0)
            text = readme.read_text()
            self.assertIn('<!-- expected-output:begin omit="Build" -->', text)
            self.assertIn('the table "Build"', text)
            self.assertNotIn("built for", text)
            self.assertIn("summary: all good", text)
            self.assertIn("on the NVIDIA H100 80GB HBM3, CUDA 13.0 (your numbers", text)
            self.assertNotIn(" an ", text)
            self.assertTrue(text.endswith("## Next\n"))

    def test_a_skipped_or_failed_lesson_is_not_pasted_and_nothing_is_written(self):
        skip = "lesson03_x  (seed 1)\nskipped: no GPU: hipGetDeviceCount failed\n"
        for results in ({"02_a": "pass", "03_b": "skipped"}, {"02_a": "pass", "03_b": "FAIL (1)"}):
            with tempfile.TemporaryDirectory() as folder:
                root = pathlib.Path(folder)
                readmes = self.lessons(root, "02_a", "03_b")
                errors = io.StringIO()
                with contextlib.redirect_stderr(errors):
                    code = self.fill(root, {"02_a": RUN, "03_b": skip}, results)
                self.assertEqual(code, 1)
                self.assertIn("03_b is not pasted", errors.getvalue())
                self.assertIn(results["03_b"], errors.getvalue())
                self.assertNotIn("02_a is not pasted", errors.getvalue())
                for readme in readmes.values():
                    self.assertIn("old output", readme.read_text())

    def test_a_skip_line_is_refused_even_when_the_summary_says_pass(self):
        with tempfile.TemporaryDirectory() as folder:
            root = pathlib.Path(folder)
            readmes = self.lessons(root, "02_a")
            with contextlib.redirect_stderr(io.StringIO()):
                code = self.fill(root, {"02_a": "skipped: no GPU\n"}, {"02_a": "pass"})
            self.assertEqual(code, 1)
            self.assertIn("old output", readmes["02_a"].read_text())

    def test_a_log_without_a_summary_row_is_refused(self):
        with tempfile.TemporaryDirectory() as folder:
            root = pathlib.Path(folder)
            readmes = self.lessons(root, "02_a")
            with contextlib.redirect_stderr(io.StringIO()):
                code = self.fill(root, {"02_a": RUN}, {})
            self.assertEqual(code, 1)
            self.assertIn("old output", readmes["02_a"].read_text())

    def test_lessons_fills_only_the_lessons_named_and_says_what_changed(self):
        with tempfile.TemporaryDirectory() as folder:
            root = pathlib.Path(folder)
            readmes = self.lessons(root, "02_a", "03_b", "08_c")
            skip = "skipped: no GPU\n"
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                code = self.fill(root, {"02_a": skip, "03_b": RUN, "08_c": RUN},
                                 {"02_a": "skipped", "03_b": "pass", "08_c": "pass"},
                                 "--lessons", "03,08_c")
            self.assertEqual(code, 0)
            self.assertIn("old output", readmes["02_a"].read_text())
            for name in ("03_b", "08_c"):
                self.assertIn("summary: all good", readmes[name].read_text())
                self.assertIn(f"filled {readmes[name]}", printed.getvalue())
            self.assertNotIn("02_a", printed.getvalue())
            with contextlib.redirect_stdout(io.StringIO()) as again:
                self.fill(root, {"03_b": RUN}, {"03_b": "pass"}, "--lessons", "03")
            self.assertIn("unchanged", again.getvalue())

    def test_a_lesson_not_in_the_log_is_an_error(self):
        with tempfile.TemporaryDirectory() as folder:
            root = pathlib.Path(folder)
            self.lessons(root, "02_a")
            with self.assertRaises(SystemExit) as raised:
                self.fill(root, {"02_a": RUN}, {"02_a": "pass"}, "--lessons", "05")
            self.assertIn("'05' is not a lesson of the log", str(raised.exception))

    def test_a_step_the_readme_shows_that_the_run_lacks_is_refused(self):
        with tempfile.TemporaryDirectory() as folder:
            root = pathlib.Path(folder)
            readme = self.lessons(root, "02_a")["02_a"]
            readme.write_text(readme.read_text().replace("begin -->", "begin steps=1,5 -->"))
            with contextlib.redirect_stderr(io.StringIO()) as errors:
                code = self.fill(root, {"02_a": RUN}, {"02_a": "pass"})
            self.assertEqual(code, 1)
            self.assertIn("no step 5", errors.getvalue())
            self.assertIn("old output", readme.read_text())

if __name__ == "__main__":
    unittest.main()
