#!/usr/bin/env python3
"""Checks the labels of every registered test against the GPU resource lock.

    ctest/check-test-labels.py CTEST BUILD_DIR

`ctest -L gpu` must select every test that needs a GPU (the closing hint of
ctest/quickstart.sh test prints it), and `ctest -j` must never run a test that times work or
checks overlap beside another GPU test. The GPU is split into lanes, resource locks "gpu",
"gpu_lane_1", ... (ctest/HipLessonsTests.cmake):
  - a test that holds a lane is labelled gpu, or unit (a unit test runs anywhere and uses a
    GPU only where there is one);
  - a test labelled gpu holds a lane;
  - a test that holds only some of the lanes shares the GPU, so it must time nothing and
    enforce no overlap: it is a compute-sanitizer run (label sanitize) or a malformed
    environment (lessonNN.environment.*), and it holds exactly one lane; every other GPU test
    (speed, check, profiler, bench, ...) holds them all.
Exit 0 when all hold, 1 naming each test that breaks one, 2 when ctest cannot list the tests.
"""
import json
import subprocess
import sys


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    ctest, build_dir = sys.argv[1:]
    listing = subprocess.run([ctest, "--test-dir", build_dir, "--show-only=json-v1"],
                             capture_output=True, text=True, check=False)
    if listing.returncode != 0:
        print(f"error: ctest could not list the tests of {build_dir}: {listing.stderr}",
              file=sys.stderr)
        return 2
    tests = json.loads(listing.stdout).get("tests", [])
    lanes = set()
    for test in tests:
        for p in test.get("properties", []):
            if p["name"] == "RESOURCE_LOCK":
                lanes.update(lock for lock in p["value"]
                             if lock == "gpu" or lock.startswith("gpu_lane_"))
    problems = []
    needing_gpu = 0
    shared = 0
    for test in tests:
        properties = {p["name"]: p["value"] for p in test.get("properties", [])}
        labels = properties.get("LABELS", [])
        held = lanes.intersection(properties.get("RESOURCE_LOCK", []))
        locked = bool(held)
        needing_gpu += "gpu" in labels
        if locked and held != lanes:
            shared += 1
            may_share = "sanitize" in labels or ".environment." in test["name"]
            if not may_share:
                problems.append(f"{test['name']} shares the GPU (holds {', '.join(sorted(held))} "
                                f"of {len(lanes)} lanes) but is neither a sanitizer run nor an "
                                "environment test: a test that may time or check overlap holds "
                                "every lane (GPU, not GPU_SHARED)")
            elif len(held) != 1:
                problems.append(f"{test['name']} holds {len(held)} of {len(lanes)} lanes: a "
                                "GPU_SHARED test holds exactly one")
        if locked and "gpu" not in labels and "unit" not in labels:
            problems.append(f"{test['name']} holds a GPU lane but has neither the label gpu "
                            f"nor unit (labels: {', '.join(labels) or 'none'})")
        if "gpu" in labels and not locked:
            problems.append(f"{test['name']} is labelled gpu but holds no GPU lane")
    for problem in problems:
        print("FAIL  " + problem)
    if problems:
        print(f"{len(problems)} test(s) break the label rules")
        return 1
    print(f"test labels ok: {len(tests)} tests, {needing_gpu} labelled gpu, each holding a GPU lane "
          f"({len(lanes)} lanes; {shared} sanitizer and environment tests share the GPU, one lane "
          "each; every other GPU test holds them all), and every other test that holds one a "
          "unit test")
    return 0


if __name__ == "__main__":
    sys.exit(main())
