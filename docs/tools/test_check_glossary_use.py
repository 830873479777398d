#!/usr/bin/env python3
"""Tests of check_glossary_use.py (docs.glossary_use_tool) on a made-up glossary and README,
and of the docs filter's glossary anchors (the site's label of a heading is made from the same
anchor the checker expects)."""
import contextlib
import io
import pathlib
import sys
import tempfile
import textwrap
import unittest

TOOLS = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS))
import check_glossary_use as cgu  # noqa: E402
import doxygen_markdown_filter  # noqa: E402

GLOSSARY = textwrap.dedent("""\
    # Glossary {#glossary}

    ## Queues

    ### AQL packet

    Forms: AQL, dispatch packet

    A command in a queue.

    ### Stream

    A queue of work.

    ### Origin stream

    Forms: origin

    The stream work forks from.

    ### CU

    Forms: compute unit

    A compute unit.

    ### Stream priority

    Forms: priority

    A number.
    """)
LINK = "../../docs/pages/glossary.md"


class Checker(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.glossary = pathlib.Path(self.dir.name) / "glossary.md"
        self.glossary.write_text(GLOSSARY)
        self.terms = cgu.read_glossary(self.glossary)

    def tearDown(self):
        self.dir.cleanup()

    def problems(self, text):
        return cgu.check_text(self.terms, textwrap.dedent(text), "R.md")

    def test_reads_terms_forms_and_anchors(self):
        aql = self.terms[0]
        self.assertEqual((aql.name, aql.slug), ("AQL packet", "aql-packet"))
        self.assertEqual(aql.forms, ["AQL packet", "AQL", "dispatch packet"])
        self.assertEqual([t.slug for t in self.terms][1:],
                         ["stream", "origin-stream", "cu", "stream-priority"])

    def test_plain_first_use_fails_with_its_line(self):
        problems = self.problems("""\
            # Title

            Intro line.
            HIP writes one AQL packet per launch.
            """)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("R.md:4: AQL packet: first use 'AQL packet'"),
                        problems[0])
        self.assertIn(f"[AQL packet]({LINK}#aql-packet)", problems[0])
        self.assertIn("**AQL packet**", problems[0])

    def test_link_to_its_anchor_passes_and_later_uses_are_free(self):
        self.assertEqual(self.problems(f"""\
            One [AQL packet]({LINK}#aql-packet) per launch; later AQL is fine.
            """), [])

    def test_link_to_another_anchor_fails(self):
        problems = self.problems(f"One [AQL packet]({LINK}#stream) per launch.\n")
        self.assertEqual(len(problems), 1)
        self.assertIn(f"links #stream, expected {LINK}#aql-packet", problems[0])

    def test_bold_definition_passes_other_bold_does_not(self):
        self.assertEqual(self.problems("**Streams**: queues of work. A stream ...\n"), [])
        problems = self.problems("1. **Run on two streams.** Two kernels.\n")
        self.assertEqual(len(problems), 1)
        self.assertIn("inside other bold text", problems[0])

    def test_code_comments_snippets_headings_and_sources_are_not_uses(self):
        text = """\
            # Lesson on streams

            ## Streams and the AQL packet

            <!-- a stream in a comment -->
            `hipStream_t stream` in code, and a picture ![one stream](a.png).
            <!-- snippet: 03_multi_stream/main.hip fork -->
            ```cpp
            hipStream_t stream;  // AQL
            ```
            Then [a link whose target says stream](../stream.md) at line 11.

            ## Sources

            - AQL packet, stream: somewhere.
            """
        problems = self.problems(text)
        self.assertEqual(len(problems), 1, problems)
        self.assertTrue(problems[0].startswith("R.md:11: Stream: first use 'stream' is inside a "
                                               "link to ../stream.md"), problems[0])

    def test_longer_term_is_the_use_and_plural_and_wrapped_forms_match(self):
        problems = self.problems(f"""\
            The [origin stream]({LINK}#origin-stream) comes first. Then two
            streams run; their
            priorities differ, and compute
            units run them. A stream
            priority wraps.
            """)
        self.assertEqual([p.split(":")[2].strip() for p in problems],
                         ["Stream", "Stream priority", "CU"])
        self.assertIn("R.md:2: Stream", problems[0])
        self.assertIn("first use 'priorities'", problems[1])
        self.assertIn("first use 'compute units'", problems[2])
        wrapped = self.problems("A stream\npriority.\n")
        self.assertEqual(len(wrapped), 1)
        self.assertIn("R.md:1: Stream priority: first use 'stream priority'", wrapped[0])

    def test_acronyms_match_in_their_case_only(self):
        self.assertEqual(self.problems("a cu, a Cu, accurate, CU-free is a use\n")[0][:14],
                         "R.md:1: CU: fi")
        self.assertEqual(self.problems("a cu, a Cu, accurate\n"), [])

    def test_command_line(self):
        readme = pathlib.Path(self.dir.name) / "README.md"
        readme.write_text("Line one.\nA stream.\n")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(cgu.main(["--glossary", str(self.glossary), str(readme)]), 1)
        self.assertIn(f"{readme}:2: Stream:", out.getvalue())
        readme.write_text(f"Line one.\nA [stream]({LINK}#stream).\n")
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(cgu.main(["--glossary", str(self.glossary), str(readme)]), 0)
        with contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(cgu.main(["--glossary", str(self.glossary), "nope.md"]), 2)
            self.assertEqual(cgu.main(["--glossary", str(self.glossary)]), 2)
        self.assertIn("no such README: nope.md", err.getvalue())

    def test_a_form_under_two_terms_is_bad_input(self):
        self.glossary.write_text(GLOSSARY + "\n### Queue origin\n\nForms: origin\n")
        with contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertEqual(cgu.main(["--glossary", str(self.glossary), "--terms"]), 2)
        self.assertIn("'origin' belongs to both 'Origin stream' and 'Queue origin'",
                      err.getvalue())


class SiteAnchors(unittest.TestCase):
    def test_filter_labels_glossary_headings_by_the_checkers_anchor(self):
        page = doxygen_markdown_filter.filtered(GLOSSARY, "glossary")
        self.assertIn("### AQL packet {#glossary_aql_packet}", page)
        self.assertIn("## Queues {#glossary_queues}", page)
        other = doxygen_markdown_filter.filtered(GLOSSARY, "results")
        self.assertNotIn("{#results_", other)

    def test_filter_turns_readme_links_into_refs_outside_code(self):
        text = (f"A [AQL]({LINK}#aql-packet), the [page](../../docs/pages/harness.md), "
                f"`[kept]({LINK}#aql-packet)`, [x](results.md#a-b).")
        self.assertEqual(doxygen_markdown_filter.filtered(text, "lesson03"),
                         "A [AQL](@ref glossary_aql_packet), the [page](@ref harness), "
                         f"`[kept]({LINK}#aql-packet)`, [x](@ref results_a_b).")

    def test_the_real_glossary_has_one_label_per_heading(self):
        real = TOOLS.parent / "pages" / "glossary.md"
        terms = cgu.read_glossary(real)
        self.assertGreater(len(terms), 40)
        self.assertEqual(cgu.glossary_problems(terms), [])
        page = doxygen_markdown_filter.filtered(real.read_text(), "glossary")
        for term in terms:
            self.assertIn(f"{{#glossary_{term.slug.replace('-', '_')}}}", page)
        self.assertEqual(len({t.slug for t in terms}), len(terms))


if __name__ == "__main__":
    unittest.main()
