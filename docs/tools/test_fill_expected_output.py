#!/usr/bin/env python3
"""Unit tests of fill_expected_output.py on a made-up lesson run (ctest docs.expected_output_tool)."""
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

    def test_a_readme_marker_with_omit_is_filled(self):
        with tempfile.TemporaryDirectory() as folder:
            root = pathlib.Path(folder)
            (root / "lessons" / "09_example").mkdir(parents=True)
            readme = root / "lessons" / "09_example" / "README.md"
            readme.write_text('## Expected output\n\n<!-- expected-output:begin omit="Build" -->\n'
                              "<!-- expected-output:end -->\n\n## Next\n")
            log = root / "tour.log"
            log.write_text("=" * 10 + "\n== lesson 09_example\n" + "=" * 10 + "\n" + RUN)
            sys.argv = ["fill", "--log", str(log), "--lessons", str(root / "lessons")]
            self.assertEqual(tool.main(), 0)
            text = readme.read_text()
            self.assertIn('<!-- expected-output:begin omit="Build" -->', text)
            self.assertIn('the table "Build"', text)
            self.assertNotIn("built for", text)
            self.assertIn("summary: all good", text)
            self.assertTrue(text.endswith("## Next\n"))


if __name__ == "__main__":
    unittest.main()
