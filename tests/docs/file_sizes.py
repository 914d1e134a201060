#!/usr/bin/env python3
"""No source file grows past what one reads in a sitting.

    python3 tests/docs/file_sizes.py <repo root>

Every .cpp and .h under rules/, analysis/ and workspace/ holds at most 700 lines, under server/
at most 400 (its files are one layer or one feature each). A file past its limit is split along
its concerns, each part named for what it does.
"""
import glob
import os
import sys

LIMITS = {"rules": 700, "analysis": 700, "workspace": 700, "server": 400}
# Files allowed past their limit while a split is under way; an entry no longer past it must go.
ALLOWED: set[str] = set()


def lines(path):
    with open(path, "rb") as f:
        return f.read().count(b"\n")


def main(root):
    failures = []
    checked = 0
    for folder, limit in LIMITS.items():
        for path in sorted(glob.glob(os.path.join(root, folder, "**", "*"), recursive=True)):
            if not path.endswith((".cpp", ".h")) or not os.path.isfile(path):
                continue
            rel = os.path.relpath(path, root)
            count = lines(path)
            checked += 1
            if count > limit and rel not in ALLOWED:
                failures.append(f"{rel}: {count} lines, over {limit}: split it along its concerns")
            elif count <= limit and rel in ALLOWED:
                failures.append(f"{rel}: {count} lines, within {limit}: remove it from ALLOWED")
    for rel in sorted(ALLOWED):
        if not os.path.exists(os.path.join(root, rel)):
            failures.append(f"{rel}: in ALLOWED but missing: remove it")
    for failure in failures:
        print("FAIL:", failure)
    if failures:
        return 1
    print(f"PASS: {checked} sources within their limits ({len(ALLOWED)} allowed past them)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
