#!/usr/bin/env python3
"""Tests of lesson_pages.py (docs.lesson_pages_tool) on made-up lessons: a removed lesson's page
does not survive the next `generate`, a folder the tool did not make is never emptied, and the
Expected-output rules (a lesson's central timeline fits; 100 columns)."""
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import lesson_pages  # noqa: E402


def readme(title, output_lines, width=20):
    block = "\n".join(["$ lesson09_demo"] + ["x" * width] * (output_lines - 1))
    return (f"# {title}\n\n## Expected output\n\n"
            "Run it as `build/nvidia/bin/lesson09_demo`:\n\n"
            "<!-- expected-output:begin steps=1 -->\n```text\n" + block + "\n```\n"
            "<!-- expected-output:end -->\n")


class Generate(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        root = pathlib.Path(self.dir.name)
        self.lessons, self.out = root / "lessons", root / "out"
        for name in ("08_old", "09_demo"):
            (self.lessons / name).mkdir(parents=True)
            (self.lessons / name / "README.md").write_text(readme(f"Lesson {name}", 5))

    def tearDown(self):
        self.dir.cleanup()

    def test_a_removed_lessons_page_is_gone_after_the_next_generate(self):
        lesson_pages.generate(self.lessons, self.out)
        self.assertEqual(sorted(p.name for p in self.out.glob("*.md")),
                         ["lesson08.md", "lesson09.md"])
        (self.lessons / "08_old" / "README.md").unlink()
        (self.lessons / "08_old").rmdir()
        lesson_pages.generate(self.lessons, self.out)
        self.assertEqual(sorted(p.name for p in self.out.glob("*.md")), ["lesson09.md"])

    def test_a_folder_it_did_not_make_is_left_alone(self):
        self.out.mkdir()
        mine = self.out / "notes.md"
        mine.write_text("the user's file\n")
        with self.assertRaises(SystemExit) as refused:
            lesson_pages.generate(self.lessons, self.out)
        self.assertEqual(refused.exception.code, 2)
        self.assertEqual(mine.read_text(), "the user's file\n")
        self.assertFalse((self.out / "lesson09.md").exists())

    def test_expected_output_holds_a_timeline_and_keeps_100_columns(self):
        readme_path = self.lessons / "09_demo" / "README.md"
        readme_path.write_text(readme("Lesson 09", 120))
        self.assertEqual([p for p in lesson_pages.check(self.lessons) if "09_demo" in p], [])
        readme_path.write_text(readme("Lesson 09", 5, width=101))
        self.assertTrue(any("101 columns" in p for p in lesson_pages.check(self.lessons)))
        readme_path.write_text(readme("Lesson 09", lesson_pages.MAX_EXPECTED_LINES + 1))
        self.assertTrue(any("Expected output has" in p for p in lesson_pages.check(self.lessons)))


if __name__ == "__main__":
    unittest.main()
