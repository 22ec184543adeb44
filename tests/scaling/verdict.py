"""The end of each scaling test: its failures, one per line, and its outcome."""


def report(test, failures):
    """Prints every failure and whether `test` passed; its exit status."""
    for f in failures:
        print("FAIL: " + f)
    print(f"{test}: " + ("failed" if failures else "passed"))
    return 1 if failures else 0
