#!/usr/bin/env python3
"""Tests of check_harness_names.py (docs.harness_names_tool) on a made-up page and main.hip."""
import pathlib
import sys
import textwrap
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_harness_names as chn  # noqa: E402

PAGE = textwrap.dedent("""\
    # How a lesson is built {#harness}

    ### hl::StepResult

    What a step found.

    | name | what it is | example |
    |---|---|---|
    | `hl::format` | Builds a message. | `hl::format("{}", 1)` |
    | `hl::BlockRule` | What --block accepts. | `hl::BlockRule::kWholeWarps` |
    Mentioning `hl::median` in prose explains nothing.
    """)
SOURCE = textwrap.dedent("""\
    // hl::commented_out is not a use
    hl::StepResult step(hl::format("{} hl::in_a_string", 3));
    cli.add_block_size(block, hl::BlockRule::kWholeWarps);
    const double m = hl::median(samples);  // hl::ratio in a comment
    const double n = hl::median(more);
    """)


class HarnessNames(unittest.TestCase):
    def test_headings_and_first_table_cells_explain_prose_does_not(self):
        self.assertEqual(chn.explained_names(PAGE), {"StepResult", "format", "BlockRule"})

    def test_uses_outside_comments_and_strings_with_first_line(self):
        self.assertEqual(chn.used_names(SOURCE),
                         {"StepResult": 2, "format": 2, "BlockRule": 3, "median": 4})

    def test_an_unexplained_name_is_reported_once_per_file_at_its_first_use(self):
        found = chn.problems(PAGE, {"a/main.hip": SOURCE, "b/main.hip": "hl::format(x);\n"})
        self.assertEqual(len(found), 1, found)
        self.assertTrue(found[0].startswith("a/main.hip:4: hl::median is used here but not "
                                            "explained"), found[0])

    def test_the_real_page_explains_every_name(self):
        self.assertEqual(chn.main([]), 0)


if __name__ == "__main__":
    unittest.main()
