#!/usr/bin/env python3
"""Tests of make_timeline_plots.py (docs.timeline_plots_tool) on made-up block traces in the
format --trace writes (common/profiler/chrome_trace.cpp): what each lesson's picture draws and
its alt text. Needs no matplotlib; with --draw it also draws the made-up lessons 03, 04 and 07
(exit 77 when matplotlib is missing: a skip, not a pass)."""
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_timeline_plots as mtp  # noqa: E402


def trace(runs):
    """runs: [(run, [(stream, kernel, [(unit, start_us, end_us)])])] as a trace document."""
    events, pid = [], 0
    for run, launches in runs:
        pid += 3
        for offset, kind in ((0, "streams"), (1, "compute units"), (2, "profiler (cupti)")):
            events.append({"name": "process_name", "ph": "M", "pid": pid + offset,
                           "args": {"name": f"{run}: {kind}"}})
        events.append({"name": "profiled", "ph": "X", "pid": pid + 2, "tid": 9, "ts": 0,
                       "dur": 1, "args": {}})
        for number, (stream, kernel, blocks) in enumerate(launches):
            start, end = min(b[1] for b in blocks), max(b[2] for b in blocks)
            events.append({"name": kernel, "ph": "X", "pid": pid, "tid": stream, "ts": start,
                           "dur": end - start, "args": {"launch": number, "blocks": len(blocks)}})
            for i, (unit, s, e) in enumerate(blocks):
                events.append({"name": f"{kernel} block {i}", "ph": "X", "pid": pid + 1,
                               "tid": unit, "ts": s, "dur": e - s,
                               "args": {"launch": number, "stream": stream, "block": i}})
    return {"traceEvents": events}


LESSON03 = trace([
    ("1 stream", [(0, "spin", [(k, k * 100.0, k * 100.0 + 98)]) for k in range(16)]),
    ("8 streams", [(k % 8, "spin", [(k, (k // 8) * 100.0, (k // 8) * 100.0 + 98)])
                   for k in range(16)])])
LESSON04 = trace([("2 x grid", [(0, "triad", [(u, w * 140.0, w * 140.0 + 138) for w in (0, 1)
                                              for u in range(12) for _ in range(4)])])])
LESSON07 = trace([
    ("individual launches", [(0, "add", [(0, i * 7.0, i * 7.0 + 3)]) for i in range(300)]),
    ("persistent kernel", [(0, "persistent", [(u, 0.0, 50.0) for u in range(12)])])])


class Layouts(unittest.TestCase):
    def test_profiler_tracks_are_not_block_trace(self):
        runs = mtp.runs_of(LESSON03)
        self.assertEqual(list(runs), ["1 stream", "8 streams"])
        self.assertEqual(sorted(runs["1 stream"]["units"]), list(range(16)))

    def test_lesson03_one_row_per_kernel_a_staircase_on_one_stream(self):
        drawn = mtp.panels("03", mtp.runs_of(LESSON03))
        self.assertEqual([(title.split(":")[0], kind, len(rows)) for title, kind, rows in drawn],
                         [("1 stream", "launches", 16), ("8 streams", "launches", 16)])
        starts = [slices[0][0] for slices in drawn[0][2].values()]
        self.assertEqual(starts, sorted(starts))
        self.assertEqual(len(set(starts)), 16)  # one after another: 16 distinct starts
        self.assertEqual(len({s[0][0] for s in drawn[1][2].values()}), 2)  # 8 at a time
        self.assertIn("(stream 7)", list(drawn[1][2])[7])

    def test_lesson04_lanes_and_waves_by_unit(self):
        drawn = mtp.panels("04", mtp.runs_of(LESSON04))
        title, kind, rows = drawn[0]
        self.assertEqual(kind, "lanes")
        self.assertIn(f"first {mtp.MAX_UNITS} of 12 units", title)
        placed = mtp.lanes_and_waves(rows["unit 0"])
        self.assertEqual(sorted({lane for _, _, lane, _ in placed}), [0, 1, 2, 3])
        self.assertEqual(sorted(wave for _, _, _, wave in placed), [0] * 4 + [1] * 4)
        self.assertTrue(all(wave == (ts >= 140) for ts, _, _, wave in placed))

    def test_lesson07_whole_runs_merged_then_gaps_zoomed(self):
        drawn = mtp.panels("07", mtp.runs_of(LESSON07))
        self.assertEqual([kind for _, kind, _ in drawn], ["merged", "merged", "zoom"])
        title, _, rows = drawn[2]
        self.assertIn(f"first {mtp.ZOOM_LAUNCHES} of 300 launches, zoomed", title)
        shown = rows["launches"]
        gaps = [b[0] - (a[0] + a[1]) for a, b in zip(shown, shown[1:])]
        self.assertEqual(gaps, [4.0] * (mtp.ZOOM_LAUNCHES - 1))
        # Where a pixel holds 5 us, a 4 us gap is merged (never drawn as aliased stripes);
        # where it holds 3 us, the gap stays.
        whole = drawn[0][2]["stream 0"]
        self.assertEqual(len(mtp.merged(whole, 5.0)), 1)
        self.assertEqual(mtp.merged(whole, 5.0)[0][:2], (0.0, 299 * 7.0 + 3))
        self.assertEqual(len(mtp.merged(whole, 3.0)), 300)

    def test_alt_text_says_what_each_run_shows(self):
        text = mtp.alt_text("03", mtp.runs_of(LESSON03))
        self.assertTrue(text.startswith("Block trace of lesson 03: the same one-block kernels"))
        self.assertIn("1 stream: 16 launches (16 blocks on 16 units) over 1598 us, at most 1 at "
                      "once.", text)
        self.assertIn("8 streams: 16 launches (16 blocks on 16 units) over 198 us, at most 8 at "
                      "once.", text)


def draw():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("skipped: matplotlib is not installed for this Python (drawing needs it)")
        return 77
    with tempfile.TemporaryDirectory() as folder:
        for number, document in (("03", LESSON03), ("04", LESSON04), ("07", LESSON07)):
            path = pathlib.Path(folder) / f"lesson{number}_timeline.png"
            text = mtp.plot(number, document, path)
            if not path.stat().st_size or path.with_suffix(".txt").read_text() != text + "\n":
                print(f"FAIL  lesson {number}: no picture or no alt text written")
                return 1
            print(f"ok    lesson {number}: {path.stat().st_size} bytes; {text[:60]}...")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--draw"]:
        sys.exit(draw())
    unittest.main()
