"""The notebook fixture harness: each tests/notebooks/*.ipynb holds its expectations in its
cells, as the Python fixtures do:

    x = torch.cuda.amp.GradScaler()  # expect: PTL101

- `# expect: CODE[, CODE]` on a line of a code cell: findings that start on that line of that
  cell, exactly (cell numbers count every cell, rows count within the cell). Any finding no
  line expects fails.
- `<notebook>.ipynb.fixed`: the byte-exact notebook `ptlint check --fix` writes. A notebook
  whose findings offer fixes must have one; re-checking it must offer no further fix.
- `# ptlint-test: unsafe-fixes` in the first cell adds `--unsafe-fixes`.
Set PTLINT_UPDATE_GOLDENS=1 to (re)write the `.fixed` files. Standard library only."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

PTLINT = os.environ.get("PTLINT", "build/ptlint")
HERE = os.path.dirname(os.path.abspath(__file__))
EXPECT = re.compile(r"#\s*expect:\s*([A-Z0-9, ]+)")


def cell_text(cell):
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def expectations(notebook):
    expected = []
    for number, cell in enumerate(notebook["cells"], start=1):
        if cell.get("cell_type") != "code":
            continue
        for row, line in enumerate(cell_text(cell).split("\n"), start=1):
            m = EXPECT.search(line)
            if m:
                for code in m.group(1).split(","):
                    if code.strip():
                        expected.append((number, row, code.strip()))
    return sorted(expected)


def flags(notebook):
    cells = [c for c in notebook["cells"] if c.get("cell_type") == "code"]
    header = cell_text(cells[0]) if cells else ""
    return ["--unsafe-fixes"] if "# ptlint-test: unsafe-fixes" in header else []


def check(path, *args):
    proc = subprocess.run([PTLINT, "check", "--no-cache", *args, path], capture_output=True, timeout=120)
    return proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")


class Notebooks(unittest.TestCase):
    def test_fixtures(self):
        fixtures = sorted(glob.glob(os.path.join(HERE, "*.ipynb")))
        self.assertGreater(len(fixtures), 0)
        for path in fixtures:
            with self.subTest(notebook=os.path.basename(path)):
                self.check_fixture(path)

    def check_fixture(self, path):
        with open(path, encoding="utf-8") as f:
            notebook = json.load(f)
        extra = flags(notebook)
        code, out, err = check(path, "--output-format", "json", *extra)
        self.assertIn(code, (0, 1), err)
        rows = json.loads(out)
        found = sorted((r["cell"], r["location"]["row"], r["code"]) for r in rows)
        self.assertEqual(found, expectations(notebook), "findings (cell, row, code) differ from the # expect: comments")
        fixable = [r for r in rows if r["fix"] and (r["fix"]["applicability"] == "safe" or
                                                     (extra and r["fix"]["applicability"] == "unsafe"))]
        golden = path + ".fixed"
        work = tempfile.mkdtemp(prefix="ptlint-nb-")
        try:
            copy = os.path.join(work, os.path.basename(path))
            shutil.copyfile(path, copy)
            code, out, err = check(copy, "--fix", *extra)
            self.assertIn(code, (0, 1), err)
            with open(copy, "rb") as f:
                fixed = f.read()
            with open(path, "rb") as f:
                original = f.read()
            if not fixable:
                self.assertEqual(fixed, original, "a notebook without fixes must stay byte-identical")
                self.assertFalse(os.path.exists(golden), "a golden for a notebook without fixes")
                return
            if os.environ.get("PTLINT_UPDATE_GOLDENS"):
                with open(golden, "wb") as f:
                    f.write(fixed)
            self.assertTrue(os.path.exists(golden), f"missing golden {golden}")
            with open(golden, "rb") as f:
                self.assertEqual(fixed, f.read(), "the fixed notebook differs from its golden")
            json.loads(fixed.decode("utf-8"))  # still a notebook
            code, out, _ = check(copy, "--output-format", "json", *extra)
            again = [r for r in json.loads(out) if r["fix"] and (r["fix"]["applicability"] == "safe" or extra)]
            self.assertEqual(again, [], "the golden still offers fixes")
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
