#!/usr/bin/env python3
"""Tests of check_lesson_structure.py (docs.lesson_structure_tool) on a made-up lesson."""
import pathlib
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_lesson_structure as cls  # noqa: E402

MAIN = textwrap.dedent("""\
    hl::StepResult first(const Run& r) {
      hl::StepResult step("1. Two streams, two kernels");
      return step;
    }
    hl::StepResult second(const Run& r) {
      hl::StepResult step(
          "2. The same kernels traced: 1 stream against " + r.many);
      return step;
    }
    hl::StepResult third() {
      hl::StepResult step(hl::format("3. What one launch costs ({} empty kernels)", n));
      hl::StepResult child("Not a numbered step");
      return step;
    }
    int main(int argc, char** argv) {
      const hl::SpeedCheck& c = cli.add_speed_check(hl::at_least(
          "1-stream / 8-stream time", "--min-stream-speedup", HIP_LESSONS_09_MIN_STREAM_SPEEDUP));
      const hl::SpeedCheck& q = cli.add_speed_check(hl::at_most(queue + "=1: depth / breadth",
                                                                "--max-depth", 2.0));
      return hl::run_lesson(cli, argc, argv, [&](hl::Lesson& lesson) {
        lesson.report.step(first(r));   // 1.
        lesson.report.step(second(r));  // 2.
        lesson.report.step(third());    // 3.
      });
    }
    """)
SECTIONS = {
    "Description": "The idea.\n",
    "What you will see": "| question | answer in the run shown |\n|---|---|\n| a | b |\n",
    "First look": "<!-- snippet: 09_demo/minimal.hip core -->\n```cpp\nint x;\n```\n",
    "Application flow": textwrap.dedent("""\
        See [how a lesson is built](../../docs/pages/harness.md).

        1. **Two streams, two kernels.** Text.
        2. **The same kernels traced: 1 stream against 8
           streams.** Text that wraps.
        3. **What one launch costs.** Text.
        """),
}
CMAKE = ("hip_lessons_threshold(09_MIN_STREAM_SPEEDUP --min-stream-speedup 5 3 \"x\")\n"
         "hip_lessons_threshold(09_MAX_DEPTH --max-depth 2 2 \"y\")\n"
         "hip_lessons_add_lesson(09_demo MAIN main.hip MINIMAL minimal.hip)\n")
PAGE = ("| lesson | speed check | threshold |\n|---|---|---|\n"
        "| 09 | 1-stream / 8-stream time | >= 5.00 | 6.8 |\n"
        "| 09 | GPU_MAX_HW_QUEUES=1: depth / breadth (4 of 5 runs) | <= 2.00 | 1.1 |\n")


def readme(sections=None, order=None):
    sections = dict(SECTIONS, **(sections or {}))
    order = order or cls.REQUIRED
    default = "Text.\n"
    return "# Lesson 09\n\n" + "".join(f"## {t}\n\n{sections.get(t, default)}\n" for t in order)


class LessonStructure(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.lessons = pathlib.Path(self.dir.name) / "lessons"
        self.lesson = self.lessons / "09_demo"
        self.lesson.mkdir(parents=True)
        self.write(readme(), MAIN)
        (self.lesson / "minimal.hip").write_text("int main() {}\n")
        (self.lesson / "CMakeLists.txt").write_text(CMAKE)
        self.page = pathlib.Path(self.dir.name) / "speed_stability.md"
        self.page.write_text(PAGE)

    def tearDown(self):
        self.dir.cleanup()

    def write(self, readme_text, main_text):
        (self.lesson / "README.md").write_text(readme_text)
        (self.lesson / "main.hip").write_text(main_text)

    def problems(self):
        return cls.check_lesson(self.lesson)

    def test_a_lesson_in_shape_passes(self):
        self.assertEqual(self.problems(), [])
        self.assertEqual(cls.main([str(self.lesson)]), 0)

    def test_declared_steps_literal_part_and_tail(self):
        self.assertEqual([(n, t, tail) for n, t, tail, _ in cls.declared_steps(MAIN)],
                         [(1, "Two streams, two kernels", False),
                          (2, "The same kernels traced: 1 stream against ", True),
                          (3, "What one launch costs (", True)])

    def test_missing_extra_and_misplaced_sections(self):
        order = [t for t in cls.REQUIRED if t != "Troubleshooting"] + ["Speed checks"]
        self.write(readme(order=order), MAIN)
        found = self.problems()
        self.assertTrue(any("'## Speed checks' is not one of the required" in p for p in found))
        self.assertTrue(any("missing section '## Troubleshooting'; expected after "
                            "'## Expected output'" in p for p in found), found)
        order = list(cls.REQUIRED)
        order[1], order[2] = order[2], order[1]
        self.write(readme(order=order), MAIN)
        self.assertTrue(any("'## First look' is out of order; expected '## What you will see'"
                            in p for p in self.problems()))

    def test_lesson_01_has_no_first_look(self):
        lesson01 = self.lessons / "01_env"
        self.lesson.rename(lesson01)
        self.lesson = lesson01
        (lesson01 / "minimal.hip").unlink()
        self.write(readme(order=[t for t in cls.REQUIRED if t != "First look"]), MAIN)
        self.assertEqual(self.problems(), [])

    def test_first_look_needs_the_snippet_and_the_registration(self):
        self.write(readme({"First look": "No code.\n"}), MAIN)
        (self.lesson / "CMakeLists.txt").write_text("hip_lessons_add_lesson(09_demo)\n")
        found = self.problems()
        self.assertTrue(any("First look shows no snippet of minimal.hip" in p for p in found))
        self.assertTrue(any("minimal.hip is not registered" in p for p in found))

    def test_step_titles_numbers_and_the_harness_link(self):
        flow = SECTIONS["Application flow"].replace("Two streams, two kernels.",
                                                    "Two streams.").replace(
            "traced: 1 stream against 8\n   streams.", "traced.").replace(
            "See [how a lesson is built](../../docs/pages/harness.md).", "")
        self.write(readme({"Application flow": flow + "4. **Extra.** x\n"}), MAIN)
        found = self.problems()
        self.assertTrue(any("Application flow numbers its steps [1, 2, 3, 4]; main.hip "
                            "declares [1, 2, 3]" in p for p in found), found)
        self.assertTrue(any("step 1 is titled 'Two streams'" in p and
                            "the title must be 'Two streams, two kernels'" in p for p in found))
        self.assertTrue(any("README.md:" in p and "step 2 is titled 'The same kernels traced'"
                            in p and "must start with 'The same kernels traced: 1 stream "
                            "against'" in p for p in found), found)
        self.assertTrue(any("the harness page is not linked" in p for p in found))
        self.assertEqual(len(found), 4, found)

    def test_a_complete_title_cannot_be_extended(self):
        flow = SECTIONS["Application flow"].replace("Two streams, two kernels.",
                                                    "Two streams, two kernels, and a third.")
        self.write(readme({"Application flow": flow}), MAIN)
        found = self.problems()
        self.assertEqual(len(found), 1, found)
        self.assertIn("the title must be 'Two streams, two kernels'", found[0])

    def test_main_marks_in_order(self):
        self.write(readme(), MAIN.replace("// 2.", "// 3.", 1).replace("third());    // 3.",
                                                                     "third());"))
        found = self.problems()
        self.assertEqual(len(found), 1, found)
        self.assertIn("main.hip:", found[0])
        self.assertIn("main() marks the steps [1, 3]; expected [1, 2, 3]", found[0])

    def test_speed_rows(self):
        self.assertEqual(cls.check_speed_rows(self.page, self.lessons), [])
        self.page.write_text(PAGE.replace("| 09 | 1-stream / 8-stream time |",
                                          "| 09 | 8 streams over 1 |"))
        found = cls.check_speed_rows(self.page, self.lessons)
        self.assertEqual(len(found), 1, found)
        self.assertIn("CMakeLists.txt:1: speed check '1-stream / 8-stream time' "
                      "(--min-stream-speedup, declared at", found[0])
        self.assertIn("has no row on", found[0])
        self.page.write_text(PAGE.replace("GPU_MAX_HW_QUEUES=1: depth", "1: depth"))
        self.assertEqual(len(cls.check_speed_rows(self.page, self.lessons)), 1)
        self.assertEqual(cls.main(["--speed-rows", str(self.page), "--lessons",
                                   str(self.lessons)]), 1)

    def test_bad_usage(self):
        self.assertEqual(cls.main([str(self.lessons)]), 2)
        self.assertEqual(cls.main(["--speed-rows", "nope.md", "--lessons", "."]), 2)


if __name__ == "__main__":
    unittest.main()
