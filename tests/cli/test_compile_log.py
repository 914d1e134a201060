"""`ptlint check --compile-log`: torch.compile logs recorded from real runs
(tests/compile_logs/, PyTorch 2.6 and 2.14) reported on the scripts that made them, in every
output format, with noqa, select and ignore, and the errors of cut or garbled logs."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

PTLINT = os.environ.get("PTLINT", "build/ptlint")
LOGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compile_logs")
VERSIONS = [v for v in ("2.6", "2.14") if os.path.isdir(os.path.join(LOGS, "logs", v))]


def run(args, cwd):
    proc = subprocess.run([PTLINT, *args], cwd=cwd, capture_output=True, timeout=120)
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


class Project(unittest.TestCase):
    """The recorded scripts copied into a project of another machine: /work/src/x.py in the
    logs maps to <tmp>/project/src/x.py by path suffix."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ptlint-compile-log-")
        shutil.copytree(os.path.join(LOGS, "src"), os.path.join(self.dir, "project", "src"))

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def log(self, version, name):
        return os.path.join(LOGS, "logs", version, name)

    def check(self, *args):
        return run(["check", "--no-cache", *args], self.dir)

    def findings(self, log, *extra):
        code, out, err = self.check("--compile-log", log, "--output-format", "json", *extra, "project")
        return code, json.loads(out), err


class CompileLogFormats(Project):
    def test_json_has_runtime_findings_with_url(self):
        for version in VERSIONS:
            with self.subTest(version=version):
                code, items, err = self.findings(self.log(version, "item_int.log"))
                self.assertEqual(code, 1, err)
                breaks = [i for i in items if i["code"] == "PTL901"]
                self.assertTrue(breaks, err)
                for b in breaks:
                    self.assertTrue(b["filename"].endswith(os.path.join("src", "item_int.py")))
                    self.assertTrue(b["url"].endswith("PTL901.md"), b["url"])
                    self.assertIn("item_int.log:", b["message"])

    def test_every_output_format(self):
        version = VERSIONS[-1]
        log = self.log(version, "print_break.log")
        for fmt, needle in (("full", "PTL901"), ("concise", "PTL901"), ("json-lines", '"PTL901"'),
                            ("sarif", '"ruleId": "PTL901"'), ("github", "PTL901")):
            with self.subTest(format=fmt):
                code, out, err = self.check("--compile-log", log, "--output-format", fmt, "project")
                self.assertEqual(code, 1, err)
                self.assertIn(needle, out)

    def test_trace_folder_and_file(self):
        for version in VERSIONS:
            with self.subTest(version=version):
                folder = self.log(version, "recompile_limit.trace")
                code, items, err = self.findings(folder)
                self.assertIn("PTL902", [i["code"] for i in items], err)
                one = sorted(os.listdir(folder))[0]
                code, items, err = self.findings(os.path.join(folder, one))
                self.assertIn("PTL902", [i["code"] for i in items], err)


class CompileLogSelection(Project):
    def test_noqa_select_ignore(self):
        log = self.log(VERSIONS[-1], "print_break.log")
        code, items, _ = self.findings(log, "--ignore", "PTL901")
        self.assertNotIn("PTL901", [i["code"] for i in items])
        code, items, _ = self.findings(log, "--select", "PTL901")
        self.assertEqual({i["code"] for i in items}, {"PTL901"})
        row = next(i for i in items if i["code"] == "PTL901")["location"]["row"]
        path = os.path.join(self.dir, "project", "src", "print_break.py")
        with open(path) as f:
            lines = f.read().split("\n")
        lines[row - 1] += "  # noqa: PTL901"
        with open(path, "w") as f:
            f.write("\n".join(lines))
        code, items, _ = self.findings(log, "--select", "PTL901")
        self.assertEqual(items, [])

    def test_off_without_a_log(self):
        code, out, _ = self.check("--output-format", "json", "project")
        self.assertNotIn("PTL90", out)

    def test_confirmed_by_the_run(self):
        code, items, _ = self.findings(self.log(VERSIONS[-1], "print_break.log"))
        static = [i for i in items if i["code"] == "PTL502"]
        self.assertTrue(static)
        self.assertIn("confirmed by the run", static[0]["message"])
        runtime = [i for i in items if i["code"] == "PTL901"]
        self.assertIn("static analysis found it too (PTL502)", runtime[0]["message"])


class CompileLogErrors(Project):
    def test_unmatched_paths_are_named(self):
        os.remove(os.path.join(self.dir, "project", "src", "item_int.py"))
        code, items, err = self.findings(self.log(VERSIONS[-1], "item_int.log"))
        self.assertIn("/work/src/item_int.py", err)
        self.assertIn("matched no checked file", err)

    def test_cut_trace_names_the_line_and_keeps_static_findings(self):
        folder = self.log(VERSIONS[-1], "print_break.trace")
        name = sorted(os.listdir(folder))[0]
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        cut = os.path.join(self.dir, "cut.log")
        with open(cut, "wb") as f:
            f.write(data[: len(data) * 2 // 3].rsplit(b"\n", 1)[0] + b"\n" + b'V1204 16:01:02.123456 1 x.py:1] {"artifact": {"na')
        code, items, err = self.findings(cut)
        self.assertEqual(code, 2)
        self.assertRegex(err, r"cut\.log:\d+: ")
        self.assertIn("PTL502", [i["code"] for i in items])  # the static findings are kept

    def test_garbled_text_log(self):
        log = os.path.join(self.dir, "garbled.log")
        with open(self.log(VERSIONS[-1], "print_break.log"), "rb") as f:
            data = f.read()
        with open(log, "wb") as f:
            f.write(b"\x00\xff\xfe garbage\n" + data)
        code, items, err = self.findings(log)
        self.assertEqual(code, 2)
        self.assertIn("garbled.log:1: not text", err)
        self.assertIn("PTL502", [i["code"] for i in items])

    def test_missing_log(self):
        code, items, err = self.findings(os.path.join(self.dir, "nope.log"))
        self.assertEqual(code, 2)
        self.assertIn("nope.log: no such file or folder", err)


if __name__ == "__main__":
    unittest.main()
