#!/usr/bin/env python3
"""Tests of check_quoted_messages.py on made-up sources and tables (docs.quoted_messages_tool)."""
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_quoted_messages as q  # noqa: E402

SOURCES = r'''
#include <string>
// A comment: "The following argument was not expected" is not printed.
void f(int index, int count) {
  throw UsageError("--device " + std::to_string(index) + " does not exist: this machine has " +
                   std::to_string(count) + " GPU(s), valid indices are 0.." +
                   std::to_string(count - 1));
  std::cerr << "error: " << what << '\n';
  out << format("this user cannot open {}", path);
  out << "check   skip  " + name + ": " + reason;
  step.skip("two processes under MPS", "MPS was not asked for");
  text << "element " << i << " of " << n << ": expected " << e << ", got " << a;
  check.name = format("{}: victim p99 / alone p99", s.name);
  const char* name = "MPS, aggressor at 50% of SMs";
  const char* packed = "@block {} {} {} {} {} {} {} {}";
  const char* joined = "a message written "
                       "over two lines";
  const char* c = "diagnosis: {}\n  fix: {}";
}
'''


class Printing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.corpus = q.Corpus([(SOURCES, False),
                               ('echo "error: --platform \'$platform\' is not one of x"', True)])

    def assertPrinted(self, piece):
        self.assertTrue(self.corpus.prints(piece), piece)

    def assertNotPrinted(self, piece):
        self.assertFalse(self.corpus.prints(piece), piece)

    def test_values_where_the_code_joins_them(self):
        self.assertPrinted("error: --device 3 does not exist: this machine has 1 GPU(s), "
                           "valid indices are 0..0")
        self.assertPrinted("this user cannot open /dev/kfd")
        self.assertPrinted("element 17 of 4096: expected 1.5, got nan")

    def test_a_name_fills_a_placeholder_or_follows_a_literal(self):
        self.assertPrinted("check   skip  two processes under MPS: MPS was not asked for")
        self.assertPrinted("MPS, aggressor at 50% of SMs: victim p99 / alone p99")

    def test_blanks_and_adjacent_literals_and_line_breaks(self):
        self.assertPrinted("check skip two processes under MPS")
        self.assertPrinted("a message written over two lines")
        self.assertPrinted("fix: ...")

    def test_a_script_value(self):
        self.assertPrinted("error: --platform 'rocm' is not one of x")

    def test_text_no_literal_has_fails(self):
        self.assertNotPrinted("error: The following argument was not expected")  # a comment
        self.assertNotPrinted("--device 3 is not there")
        self.assertNotPrinted("this user cannot read /dev/kfd")
        self.assertNotPrinted("element 17 of 4096: wanted 1.5")

    def test_placeholders_do_not_print_free_text(self):
        self.assertNotPrinted("--block 2048 is below the moon")  # the "@block {} ..." literal

    def test_runtime_words_alone_pass(self):
        self.assertPrinted("hipErrorNoBinaryForGpu")


class Tables(unittest.TestCase):
    def test_first_column_spans_of_the_troubleshooting_rows(self):
        text = ("## Troubleshooting\n\n| you see | why | what to do |\n|---|---|---|\n"
                "| `this user cannot open /dev/kfd` \\| `x` | `not a quote` | `nor this` |\n"
                "\n## Exercises\n\n| `not read` | | |\n")
        self.assertEqual([quote for _, quote in q.quotes(text, whole_file=False)],
                         ["this user cannot open /dev/kfd", "x"])

    def test_pieces_split_at_ellipses_and_angle_brackets(self):
        self.assertEqual(q.pieces("check FAIL <setting>: exit 1: ..."),
                         ["check FAIL ", ": exit 1: "])

    def test_check_file_names_the_row(self):
        corpus = q.Corpus([(SOURCES, False)])
        with tempfile.TemporaryDirectory() as folder:
            page = pathlib.Path(folder) / "page.md"
            page.write_text("| you see | why |\n|---|---|\n| `1 required TEXT missing` | |\n"
                            "| `this user cannot open /dev/kfd` | |\n")
            count, problems = q.check_file(corpus, page)
        self.assertEqual(count, 2)
        self.assertEqual(len(problems), 1)
        self.assertIn("page.md:3", problems[0])
        self.assertIn("1 required TEXT missing", problems[0])


if __name__ == "__main__":
    unittest.main()
