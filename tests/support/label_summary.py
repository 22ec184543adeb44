#!/usr/bin/env python3
"""The per-label table of one CTest run, and whether a label ran nothing.

CTest's own summary counts a skipped test (SKIP_RETURN_CODE) as run: a
suite whose separate-node scenarios could all skip themselves would end
"100% tests passed". This table counts, for every label of the tests that
the run selected (and "(none)" for tests without a label), how many ran,
passed, failed and were skipped, and fails when a label ran nothing at all:
every one of its tests skipped or not run. A label that may legitimately
run nothing on a machine (its probe failed: no namespaces, no /dev/fuse) is
declared optional with the reason, which the table prints.

    label_summary.py --tests TESTS.json --junit RESULTS.xml [--optional LABEL=REASON]...

TESTS.json is `ctest --show-only=json-v1` with the run's own selection
(-L, -LE, -R ...), RESULTS.xml its `--output-junit`. Exit code 0 when every
label that is not optional ran at least one test, 1 otherwise, 2 when the
inputs are unusable (no test selected, a selected test with no result).
"""
import argparse
import collections
import json
import sys
import xml.etree.ElementTree as ElementTree

NO_LABEL = "(none)"


def labels_of(tests_json):
    """Test name -> its labels (NO_LABEL alone for a test without any)."""
    out = {}
    for test in tests_json.get("tests", []):
        labels = []
        for prop in test.get("properties", []):
            if prop.get("name") == "LABELS":
                labels = list(prop.get("value", []))
        out[test["name"]] = labels or [NO_LABEL]
    return out


def outcomes(junit):
    """Test name -> passed, failed or skipped. A test that did not run for
    another reason than its skip code (a missing program) failed."""
    out = {}
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        status = case.get("status")
        if status == "run":
            out[case.get("name")] = "passed"
        elif status == "notrun" and case.find("skipped") is not None and \
                "SKIP_RETURN_CODE" in (case.find("skipped").get("message") or ""):
            out[case.get("name")] = "skipped"
        elif status == "disabled":
            out[case.get("name")] = "skipped"
        else:
            out[case.get("name")] = "failed"
    return out


def table(labels, results):
    """Label -> Counter of ran, passed, failed, skipped."""
    rows = collections.defaultdict(collections.Counter)
    for name, test_labels in labels.items():
        outcome = results[name]
        for label in test_labels:
            rows[label][outcome] += 1
            if outcome != "skipped":
                rows[label]["ran"] += 1
    return rows


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tests", required=True, help="ctest --show-only=json-v1 of the run's selection")
    p.add_argument("--junit", required=True, help="the run's ctest --output-junit")
    p.add_argument("--optional", action="append", default=[], metavar="LABEL=REASON",
                   help="a label that may run nothing on this machine, and why")
    args = p.parse_args(argv)
    optional = {}
    for item in args.optional:
        label, sep, reason = item.partition("=")
        if not sep or not label or not reason:
            p.error(f"--optional {item!r}: expected LABEL=REASON")
        optional[label] = reason
    with open(args.tests) as f:
        labels = labels_of(json.load(f))
    results = outcomes(args.junit)
    if not labels:
        print("label summary: the run selected no test", file=sys.stderr)
        return 2
    missing = sorted(set(labels) - set(results))
    if missing:
        print(f"label summary: {len(missing)} selected tests have no result (the run stopped early?): "
              + ", ".join(missing[:5]), file=sys.stderr)
        return 2
    rows = table(labels, results)
    width = max(len("label"), *(len(label) for label in rows))
    print(f"{'label':<{width}}  {'ran':>5} {'passed':>6} {'failed':>6} {'skipped':>7}")
    empty = []
    for label in sorted(rows, key=lambda x: (x == NO_LABEL, x)):
        r = rows[label]
        note = ""
        if r["ran"] == 0:
            if label in optional:
                note = f"  ran nothing, optional here: {optional[label]}"
            else:
                note = "  ran nothing: FAILED"
                empty.append(label)
        print(f"{label:<{width}}  {r['ran']:>5} {r['passed']:>6} {r['failed']:>6} {r['skipped']:>7}{note}")
    for label, reason in sorted(optional.items()):
        if label in rows and rows[label]["ran"] > 0:
            print(f"(label {label} was declared optional, {reason}, and ran {rows[label]['ran']})")
    if empty:
        print(f"label summary: {', '.join(empty)} ran nothing: every test skipped or not run; "
              "declare a label optional (with the reason) only where this machine cannot run it")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
