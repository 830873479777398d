#!/usr/bin/env python3
"""Checks the labels of every registered test against the GPU resource lock.

    ctest/check-test-labels.py CTEST BUILD_DIR

`ctest -L gpu` must select every test that needs a GPU (the closing hint of
ctest/quickstart.sh test prints it), and `ctest -j` must never run two of them at once:
  - a test that holds the "gpu" resource lock is labelled gpu, or unit (a unit test runs
    anywhere and uses a GPU only where there is one);
  - a test labelled gpu holds the "gpu" resource lock.
Exit 0 when both hold, 1 naming each test that breaks one, 2 when ctest cannot list the tests.
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
    problems = []
    needing_gpu = 0
    for test in tests:
        properties = {p["name"]: p["value"] for p in test.get("properties", [])}
        labels = properties.get("LABELS", [])
        locked = "gpu" in properties.get("RESOURCE_LOCK", [])
        needing_gpu += "gpu" in labels
        if locked and "gpu" not in labels and "unit" not in labels:
            problems.append(f"{test['name']} holds the gpu lock but has neither the label gpu "
                            f"nor unit (labels: {', '.join(labels) or 'none'})")
        if "gpu" in labels and not locked:
            problems.append(f"{test['name']} is labelled gpu but does not hold the gpu lock")
    for problem in problems:
        print("FAIL  " + problem)
    if problems:
        print(f"{len(problems)} test(s) break the label rules")
        return 1
    print(f"test labels ok: {len(tests)} tests, {needing_gpu} labelled gpu, each holding the gpu lock, "
          "and every other test that holds it a unit test")
    return 0


if __name__ == "__main__":
    sys.exit(main())
