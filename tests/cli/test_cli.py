"""End-to-end tests of the `ptlint` executable: formats, exit codes, noqa, config, walking,
fixes. Run by ctest with PTLINT pointing at the built binary; standard library only."""
import json
import os
import time
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

PTLINT = os.environ.get("PTLINT", "build/ptlint")

AMP_SOURCE = "import torch\n\nwith torch.cuda.amp.autocast():\n    pass\n"
AMP_FIXED = 'import torch\n\nwith torch.amp.autocast("cuda"):\n    pass\n'
CLEAN_SOURCE = "import torch\n\nx = torch.zeros(3)\n"


def run(args, cwd, stdin=None):
    proc = subprocess.run([PTLINT, *args], cwd=cwd, input=stdin, capture_output=True, timeout=120)
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


class Workdir(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ptlint-cli-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, name, content, mode="w"):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, mode) as f:
            f.write(content)
        return path

    def read(self, name, mode="r"):
        with open(os.path.join(self.dir, name), mode) as f:
            return f.read()

    def check(self, *args, stdin=None):
        return run(["check", *args], self.dir, stdin)


class ExitCodes(Workdir):
    def test_clean_tree_exits_0(self):
        self.write("ok.py", CLEAN_SOURCE)
        code, out, _ = self.check(".")
        self.assertEqual(code, 0)
        self.assertIn("All checks passed!", out)

    def test_findings_exit_1(self):
        self.write("train.py", AMP_SOURCE)
        code, out, _ = self.check("--output-format", "concise", ".")
        self.assertEqual(code, 1)
        self.assertIn("train.py:3:6: PTL101", out)

    def test_exit_zero(self):
        self.write("train.py", AMP_SOURCE)
        self.assertEqual(self.check("--exit-zero", ".")[0], 0)

    def test_missing_path_exits_2_and_still_lints_the_rest(self):
        self.write("train.py", AMP_SOURCE)
        code, out, err = self.check("--output-format", "concise", "train.py", "nope.py")
        self.assertEqual(code, 2)
        self.assertIn("nope.py", err)
        self.assertIn("PTL101", out)

    def test_bad_flag_value_exits_2(self):
        code, _, err = self.check("--select", "E501", ".")
        self.assertEqual(code, 2)
        self.assertIn("E501", err)


class OutputFormats(Workdir):
    def setUp(self):
        super().setUp()
        # Non-ASCII before the finding: columns count code points, not bytes.
        self.path = self.write("train.py", "import torch\nnamé = 'é'; ctx = torch.cuda.amp.autocast()\n")

    def test_json_fields(self):
        code, out, _ = self.check("--output-format", "json", ".")
        self.assertEqual(code, 1)
        rows = json.loads(out)
        self.assertEqual(len(rows), 1)
        row = rows[0]
        self.assertEqual(set(row), {"code", "message", "filename", "location", "end_location", "fix",
                                    "noqa_row", "url", "severity", "cell"})
        self.assertEqual(row["code"], "PTL101")
        self.assertEqual(row["filename"], os.path.realpath(self.path))
        self.assertEqual(row["location"], {"row": 2, "column": 19})
        self.assertEqual(row["end_location"], {"row": 2, "column": 44})
        self.assertEqual(row["noqa_row"], 2)
        self.assertTrue(row["url"].startswith("file:///") and row["url"].endswith("/PTL101.md"), row["url"])
        self.assertIsNone(row["cell"])
        self.assertEqual(row["severity"], "warning")
        fix = row["fix"]
        self.assertEqual(fix["applicability"], "safe")
        self.assertTrue(fix["message"])
        self.assertEqual(fix["edits"][0]["location"]["row"], 2)
        for edit in fix["edits"]:
            self.assertEqual(set(edit), {"content", "location", "end_location"})

    def test_json_lines(self):
        _, out, _ = self.check("--output-format", "json-lines", ".")
        lines = [json.loads(line) for line in out.splitlines() if line.strip()]
        self.assertEqual([r["code"] for r in lines], ["PTL101"])

    def test_sarif_structure(self):
        _, out, _ = self.check("--output-format", "sarif", ".")
        sarif = json.loads(out)
        self.assertEqual(sarif["version"], "2.1.0")
        run0 = sarif["runs"][0]
        self.assertEqual(run0["tool"]["driver"]["name"], "ptlint")
        rule_ids = {r["id"] for r in run0["tool"]["driver"]["rules"]}
        self.assertIn("PTL101", rule_ids)
        result = run0["results"][0]
        self.assertEqual(result["ruleId"], "PTL101")
        self.assertIn(result["level"], {"warning", "error", "note"})
        self.assertTrue(result["message"]["text"])
        region = result["locations"][0]["physicalLocation"]["region"]
        self.assertEqual((region["startLine"], region["startColumn"]), (2, 19))
        self.assertTrue(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("train.py"))

    def test_github(self):
        _, out, _ = self.check("--output-format", "github", ".")
        self.assertRegex(out, r"^::warning title=ptlint \(PTL101\),file=.*train\.py,line=2,col=19,endLine=2,endColumn=44::")

    def test_full_shows_source_and_caret(self):
        _, out, _ = self.check("--output-format", "full", ".")
        self.assertIn("2 | namé = 'é'; ctx = torch.cuda.amp.autocast()", out)
        caret_line = [l for l in out.splitlines() if "^" in l][0]
        self.assertEqual(caret_line.index("^") - caret_line.index("|") - 2, 18)
        self.assertIn("= help:", out)

    def test_statistics(self):
        _, out, _ = self.check("--statistics", ".")
        self.assertRegex(out, r"(?m)^1\tPTL101\t\[\*\] deprecated-cuda-amp$")


class Noqa(Workdir):
    def test_noqa_forms(self):
        self.write("a.py", textwrap.dedent("""\
            import torch
            a = torch.cuda.amp.autocast()  # noqa: PTL101
            b = torch.cuda.amp.autocast()  # noqa
            c = torch.cuda.amp.autocast()  # noqa: PTL1
            d = torch.cuda.amp.autocast()  # noqa: PTL201
            e = "torch.cuda.amp.autocast()  # noqa"
            """))
        self.write("b.py", "import torch\nf = torch.cuda.amp.autocast()  # NOQA: PTL101\n")
        _, out, _ = self.check("--output-format", "json", ".")
        rows = json.loads(out)
        self.assertEqual([r["location"]["row"] for r in rows], [5])

    def test_file_level(self):
        self.write("a.py", "# ptlint: noqa: PTL101\nimport torch\na = torch.cuda.amp.autocast()\n")
        self.write("b.py", "# ptlint: noqa\nimport torch\na = torch.cuda.amp.autocast()\n")
        self.assertEqual(self.check(".")[0], 0)


class Config(Workdir):
    def test_unknown_key_names_file_line_key(self):
        self.write("ptlint.toml", 'select = ["PTL1"]\nbogus = 1\n')
        self.write("a.py", AMP_SOURCE)
        code, _, err = self.check(".")
        self.assertEqual(code, 2)
        self.assertIn("ptlint.toml:2", err)
        self.assertIn("bogus", err)

    def test_bad_value(self):
        self.write("pyproject.toml", '[tool.ptlint]\ntorch-version = 2.6\n')
        code, _, err = self.check(".")
        self.assertEqual(code, 2)
        self.assertIn("pyproject.toml:2", err)
        self.assertIn("torch-version", err)

    def test_invalid_config_in_one_folder_hides_nothing_elsewhere(self):
        self.write("a/x.py", AMP_SOURCE)
        self.write("b/ptlint.toml", 'select = ["PTL1"]\nbogus = 1\n')
        self.write("b/y.py", AMP_SOURCE)
        self.write("c/ptlint.toml", "bogus = 2\n")
        self.write("c/z.py", AMP_SOURCE)
        code, out, err = self.check("--output-format", "concise", ".")
        self.assertEqual(code, 2, err)
        # The other files are still linted and reported; each invalid configuration is named once.
        self.assertIn(os.path.join("a", "x.py") + ":3:6: PTL101", out)
        self.assertNotIn("y.py", out)
        self.assertEqual(err.count("invalid configuration"), 2, err)
        self.assertIn(os.path.join("b", "ptlint.toml") + ":2", err)
        self.assertIn(os.path.join("c", "ptlint.toml") + ":1", err)
        # Named explicitly, a file under the invalid configuration is not checked, the others are.
        code, out, err = self.check("--output-format", "concise", "b/y.py", "a/x.py")
        self.assertEqual(code, 2, err)
        self.assertIn("x.py:3:6: PTL101", out)
        self.assertEqual(err.count("invalid configuration"), 1, err)
        self.assertNotIn("All checks passed", out)
        # Even with nothing else to report, the run does not pass.
        code, out, err = self.check("b")
        self.assertEqual(code, 2, err)
        self.assertNotIn("All checks passed", out)

    def test_nearest_config_wins(self):
        self.write("pyproject.toml", '[tool.ptlint]\nignore = ["PTL101"]\n')
        self.write("sub/ptlint.toml", 'select = ["PTL101"]\n')
        self.write("a.py", AMP_SOURCE)
        self.write("sub/b.py", AMP_SOURCE)
        _, out, _ = self.check("--output-format", "json", ".")
        self.assertEqual([os.path.basename(r["filename"]) for r in json.loads(out)], ["b.py"])

    def test_per_file_ignores_and_exclude(self):
        self.write("ptlint.toml", 'extend-exclude = ["vendored"]\n\n[per-file-ignores]\n"legacy/*.py" = ["PTL101"]\n')
        self.write("legacy/a.py", AMP_SOURCE)
        self.write("vendored/b.py", AMP_SOURCE)
        self.write("c.py", AMP_SOURCE)
        _, out, _ = self.check("--output-format", "json", ".")
        self.assertEqual([os.path.basename(r["filename"]) for r in json.loads(out)], ["c.py"])
        # Named explicitly, an excluded file is linted unless --force-exclude.
        self.assertEqual(self.check("vendored/b.py")[0], 1)
        self.assertEqual(self.check("--force-exclude", "vendored/b.py")[0], 0)

    def test_torch_version_gates_fix(self):
        self.write("a.py", "import torch\ns = torch.cuda.amp.GradScaler()\n")
        # torch.amp.GradScaler arrived in 2.3: at 2.2 the old spelling is the only one.
        _, out, _ = self.check("--output-format", "json", "--torch-version", "2.2", ".")
        self.assertEqual(json.loads(out), [])
        _, out, _ = self.check("--output-format", "json", "--torch-version", "2.3", ".")
        self.assertIsNotNone(json.loads(out)[0]["fix"])


class Walk(Workdir):
    def reported_files(self, *paths):
        """The files with findings, relative to the work folder, sorted."""
        _, out, _ = self.check("--output-format", "json", *paths)
        return sorted(os.path.relpath(r["filename"], os.path.realpath(self.dir)) for r in json.loads(out))

    def test_gitignore_and_hidden(self):
        subprocess.run(["git", "init", "-q", self.dir], check=True)
        self.write(".gitignore", "generated/\nscratch_*.py\n")
        self.write("generated/a.py", AMP_SOURCE)
        self.write("scratch_1.py", AMP_SOURCE)
        self.write(".venv/lib.py", AMP_SOURCE)
        self.write("src/train.py", AMP_SOURCE)
        self.write("src/stub.pyi", "import torch\nx = torch.cuda.amp.autocast\n")
        self.assertEqual(self.reported_files("."), ["src/stub.pyi", "src/train.py"])

    def test_gitignore_applies_below_the_repository_root(self):
        # The walk starts in a subfolder: the `.git` it needs is above it.
        subprocess.run(["git", "init", "-q", self.dir], check=True)
        self.write(".gitignore", "generated/\n")
        self.write("pkg/generated/a.py", AMP_SOURCE)
        self.write("pkg/train.py", AMP_SOURCE)
        self.assertEqual(self.reported_files("pkg"), ["pkg/train.py"])
        # Outside any repository a .gitignore means nothing, as for git itself.
        shutil.rmtree(os.path.join(self.dir, ".git"))
        self.assertEqual(self.reported_files("pkg"), ["pkg/generated/a.py", "pkg/train.py"])


class Fixes(Workdir):
    def test_fix_rewrites_and_exits_0(self):
        path = self.write("a.py", AMP_SOURCE)
        os.chmod(path, 0o754)
        code, out, _ = self.check("--fix", ".")
        self.assertEqual(code, 0, out)
        self.assertEqual(self.read("a.py"), AMP_FIXED)
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o754)
        self.assertIn("1 fixed", out)

    def test_fix_leaves_files_without_findings_byte_identical(self):
        # No rule can match these (no trigger word): they are never parsed, and never written.
        untouched = {"plain.py": "print('hello')\n", "empty.py": "", "clean.py": CLEAN_SOURCE,
                     "crlf.py": "x = 1\r\ny = 2\r\n"}
        for name, content in untouched.items():
            self.write(name, content.encode("utf-8"), mode="wb")
        before = {n: os.stat(os.path.join(self.dir, n)).st_mtime_ns for n in untouched}
        self.write("a.py", AMP_SOURCE)
        self.check("--fix", "--unsafe-fixes", ".")
        for name, content in untouched.items():
            self.assertEqual(self.read(name, mode="rb"), content.encode("utf-8"), name)
            self.assertEqual(os.stat(os.path.join(self.dir, name)).st_mtime_ns, before[name], name)
        self.assertEqual(self.read("a.py"), AMP_FIXED)
        code, out, _ = self.check("--stdin-filename", "plain.py", "--fix", "-", stdin=b"print('hello')\n")
        self.assertEqual((code, out), (0, "print('hello')\n"))

    def test_diff_writes_nothing(self):
        self.write("a.py", AMP_SOURCE)
        code, out, _ = self.check("--diff", ".")
        self.assertEqual(code, 1)
        self.assertIn("-with torch.cuda.amp.autocast():", out)
        self.assertIn('+with torch.amp.autocast("cuda"):', out)
        self.assertEqual(self.read("a.py"), AMP_SOURCE)
        self.write("a.py", AMP_FIXED)
        self.assertEqual(self.check("--diff", ".")[0], 0)

    def test_diff_of_a_large_file_has_one_hunk_per_fix(self):
        # Three one-line fixes in a 4,500-line module: three hunks of the changed lines with 3 lines
        # of context each, the same as `diff -u` prints, not one hunk replacing the file.
        body = "".join(f"x{i} = {i}\n" for i in range(1500))
        amp = "with torch.cuda.amp.autocast():\n    pass\n"
        source = "import torch\n" + body + amp + body + amp + body + amp
        self.write("big.py", source)
        fixed = source.replace("torch.cuda.amp.autocast()", 'torch.amp.autocast("cuda")')
        self.write("expected.py", fixed)
        code, out, _ = self.check("--diff", "big.py")
        self.assertEqual(code, 1)
        hunks = [line for line in out.splitlines() if line.startswith("@@")]
        self.assertEqual(len(hunks), 3, out)
        changed = [line for line in out.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
        self.assertEqual(len(changed), 6, out)
        reference = subprocess.run(["diff", "-u", "big.py", "expected.py"], cwd=self.dir, capture_output=True, text=True)
        body_of = lambda text: text[text.index("@@"):]
        self.assertEqual(body_of(out).rstrip("\n").split("\n")[:len(body_of(reference.stdout).rstrip("\n").split("\n"))],
                         body_of(reference.stdout).rstrip("\n").split("\n"))

    def test_crlf_and_bom_preserved(self):
        source = ("\ufeff" + AMP_SOURCE.replace("\n", "\r\n")).encode("utf-8")
        self.write("a.py", source, mode="wb")
        self.check("--fix", ".")
        expected = ("\ufeff" + AMP_FIXED.replace("\n", "\r\n")).encode("utf-8")
        self.assertEqual(self.read("a.py", mode="rb"), expected)

    def test_bom_columns(self):
        self.write("a.py", ("\ufeff" + AMP_SOURCE).encode("utf-8"), mode="wb")
        _, out, _ = self.check("--output-format", "json", ".")
        self.assertEqual(json.loads(out)[0]["location"], {"row": 3, "column": 6})

    def test_non_utf8_file_reported_others_linted(self):
        self.write("bad.py", b"x = '\xff\xfe'\n", mode="wb")
        self.write("good.py", AMP_SOURCE)
        code, out, err = self.check("--fix", "--output-format", "concise", ".")
        self.assertEqual(code, 2)
        self.assertIn("bad.py", err)
        self.assertIn("UTF-8", err)
        self.assertEqual(self.read("bad.py", mode="rb"), b"x = '\xff\xfe'\n")
        self.assertEqual(self.read("good.py"), AMP_FIXED)

    def test_syntax_error_file_gets_no_fix(self):
        broken = "import torch\nwith torch.cuda.amp.autocast():\n    pass\ndef broken(:\n"
        self.write("a.py", broken)
        self.check("--fix", ".")
        self.assertEqual(self.read("a.py"), broken)
        code, out, _ = self.check("--select", "PTL000", "--output-format", "concise", ".")
        self.assertEqual(code, 1)
        self.assertIn("a.py:4", out)
        self.assertIn("PTL000", out)


class Cache(Workdir):
    def test_warm_cache_gives_same_results_and_corrupt_cache_is_ignored(self):
        self.write("a.py", AMP_SOURCE)
        cold = self.check("--output-format", "json", ".")
        cache_dir = os.path.join(self.dir, ".ptlint_cache")
        self.assertTrue(os.path.exists(os.path.join(cache_dir, "CACHEDIR.TAG")))
        self.assertEqual(self.check("--output-format", "json", "."), cold)
        # An edit invalidates the entry.
        self.write("a.py", AMP_FIXED)
        self.assertEqual(self.check(".")[0], 0)
        self.write("a.py", AMP_SOURCE)
        # Corrupt and foreign caches are ignored, never trusted.
        for junk in ("{not json", '{"format": 1, "build": "other", "entries": {}}',
                     '{"format": 1, "build": 7, "entries": []}'):
            with open(os.path.join(cache_dir, "results.json"), "w") as f:
                f.write(junk)
            self.assertEqual(self.check("--output-format", "json", "."), cold)

    def test_a_result_that_read_a_helper_of_another_file_is_cached_until_that_file_changes(self):
        self.write("pyproject.toml", "[project]\nname = 'p'\n")
        self.write("utils.py", "def get_device():\n    return 'cuda'\n")
        self.write("train.py", "from torch.utils.data import DataLoader\n\nfrom utils import get_device\n\n"
                   "loader = DataLoader(list(range(8)), batch_size=4, num_workers=2, pin_memory=True)\n\n\n"
                   "def step(model):\n    for x in loader:\n        model(x.to(get_device()))\n")
        _, out, _ = self.check("--output-format", "concise", "--select", "PTL402", ".")
        self.assertIn("train.py:10:15: PTL402", out)
        results = os.path.join(self.dir, ".ptlint_cache", "results.json")
        with open(results) as f:
            doc = json.load(f)
        entry = doc["entries"][os.path.realpath(os.path.join(self.dir, "train.py"))]
        # The entry records the helper's file and the hash of the text read.
        self.assertEqual([r[0] for r in entry["reads"]], [os.path.realpath(os.path.join(self.dir, "utils.py"))])
        for d in entry["diagnostics"]:
            d["message"] = "cached: " + d["message"]
        with open(results, "w") as f:
            json.dump(doc, f)
        # Unchanged: the result comes from the cache.
        _, out, _ = self.check("--output-format", "concise", "--select", "PTL402", ".")
        self.assertIn("train.py:10:15: PTL402 cached: ", out)
        # The helper now returns the host: train.py is linted again, and the finding is gone.
        self.write("utils.py", "def get_device():\n    return 'cpu'\n")
        code, out, _ = self.check("--output-format", "concise", "--select", "PTL402", ".")
        self.assertEqual(code, 0, out)
        # And back: found again, freshly linted.
        self.write("utils.py", "def get_device():\n    return 'cuda'\n")
        _, out, _ = self.check("--output-format", "concise", "--select", "PTL402", ".")
        self.assertIn("train.py:10:15: PTL402", out)
        self.assertNotIn("cached", out)

    def test_an_edit_that_keeps_the_size_and_puts_the_mtime_back_is_seen(self):
        # Old enough files are trusted by their stat (size, inode, mtime, ctime) without being
        # read: an edit of the same size with the mtime set back still changes the ctime.
        clean = AMP_SOURCE.replace("torch.cuda.amp.autocast()", "torch.autocast('cpu')    ")
        self.assertEqual(len(clean), len(AMP_SOURCE))
        path = self.write("a.py", clean)
        hour_ago = time.time() - 3600
        os.utime(path, (hour_ago, hour_ago))
        self.assertEqual(self.check(".")[0], 0)
        self.assertEqual(self.check(".")[0], 0)  # from the cache
        self.write("a.py", AMP_SOURCE)
        os.utime(path, (hour_ago, hour_ago))
        code, out, _ = self.check("--output-format", "concise", ".")
        self.assertEqual(code, 1, out)
        self.assertIn("a.py:3:6: PTL101", out)

    def test_no_cache_writes_nothing(self):
        self.write("a.py", AMP_SOURCE)
        self.check("--no-cache", ".")
        self.assertFalse(os.path.exists(os.path.join(self.dir, ".ptlint_cache")))


class Stdin(Workdir):
    def test_lint_stdin(self):
        code, out, _ = self.check("--stdin-filename", "train.py", "--output-format", "json", "-",
                                  stdin=AMP_SOURCE.encode())
        self.assertEqual(code, 1)
        self.assertTrue(json.loads(out)[0]["filename"].endswith("train.py"))

    def test_fix_stdin_prints_fixed_source(self):
        code, out, _ = self.check("--stdin-filename", "train.py", "--fix", "-", stdin=AMP_SOURCE.encode())
        self.assertEqual(code, 0)
        self.assertEqual(out, AMP_FIXED)

    def test_stdin_uses_config_of_the_named_path(self):
        self.write("ptlint.toml", 'ignore = ["PTL101"]\n')
        code, _, _ = self.check("--stdin-filename", os.path.join(self.dir, "train.py"), "-", stdin=AMP_SOURCE.encode())
        self.assertEqual(code, 0)


class Rules(Workdir):
    def test_rule_all_json(self):
        code, out, _ = run(["rule", "--all", "--output-format", "json"], self.dir)
        self.assertEqual(code, 0)
        rules = json.loads(out)
        codes = [r["code"] for r in rules]
        self.assertEqual(codes, sorted(codes))
        self.assertIn("PTL000", codes)
        self.assertIn("PTL101", codes)
        for r in rules:
            for heading in ("## What it does", "## Why is this bad?", "## Example", "## Use instead",
                            "## Fix safety", "## References"):
                self.assertIn(heading, r["explanation"], r["code"])

    def test_rule_docs(self):
        code, out, _ = run(["rule", "PTL101"], self.dir)
        self.assertEqual(code, 0)
        self.assertIn("deprecated-cuda-amp", out)
        self.assertIn("## Why is this bad?", out)
        self.assertEqual(run(["rule", "PTL999"], self.dir)[0], 2)

    def test_version(self):
        code, out, _ = run(["--version"], self.dir)
        self.assertEqual(code, 0)
        self.assertRegex(out.strip(), r"^ptlint \d+\.\d+\.\d+$")


PROJECTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "projects")


class Project(Workdir):
    """Findings that come from other files of the project (the project index)."""

    def setUp(self):
        super().setUp()
        shutil.rmtree(self.dir)
        shutil.copytree(os.path.join(PROJECTS, "nanogpt"), self.dir)

    def test_one_file_checked_alone_sees_where_it_is_compiled(self):
        # As a pre-commit hook runs it: only model.py, which compiles nothing itself.
        code, out, _ = self.check("--output-format", "full", "--no-cache", "model.py")
        self.assertEqual(code, 1, out)
        self.assertIn("model.py:19:36: PTL501", out)
        self.assertIn("= note: train.py:8:13: `GPT` is compiled here", out)
        self.assertNotIn("model.py:35", out)  # Critic is compiled nowhere

    def test_a_finding_whose_note_lies_far_into_another_file_is_cached(self):
        # The note's range is train.py's bytes, past the end of model.py: still a valid entry.
        self.write("train.py", "#" * 79 + "\n" + ("# padding\n" * 2000) + self.read("train.py"))
        self.assertGreater(os.path.getsize(os.path.join(self.dir, "train.py")),
                           2 * os.path.getsize(os.path.join(self.dir, "model.py")))
        self.check(".")
        results = os.path.join(self.dir, ".ptlint_cache", "results.json")
        with open(results) as f:
            doc = json.load(f)
        for d in doc["entries"][os.path.realpath(os.path.join(self.dir, "model.py"))]["diagnostics"]:
            d["message"] = "cached: " + d["message"]
        with open(results, "w") as f:
            json.dump(doc, f)
        _, out, _ = self.check("--output-format", "concise", ".")
        self.assertIn("model.py:19:36: PTL501 cached: ", out)

    def test_warm_run_follows_an_edit_of_the_compiling_file(self):
        code, out, _ = self.check("--output-format", "concise", ".")
        self.assertIn("model.py:19:36: PTL501", out)
        self.assertIn("layers.py:15:12: PTL501", out)
        # train.py stops compiling: model.py's and layers.py's cached results are stale.
        train = self.read("train.py").replace("model = torch.compile(model)", "model = model")
        self.write("train.py", train)
        code, out, _ = self.check("--output-format", "concise", ".")
        self.assertEqual(code, 0, out)
        self.assertNotIn("PTL501", out)
        # And back.
        self.write("train.py", train.replace("model = model", "model = torch.compile(model)"))
        code, out, _ = self.check("--output-format", "concise", ".")
        self.assertIn("model.py:19:36: PTL501", out)

    def test_warm_run_relints_the_edited_file_and_its_dependents_only(self):
        self.write("other.py", AMP_SOURCE)
        self.check(".")
        results = os.path.join(self.dir, ".ptlint_cache", "results.json")
        with open(results) as f:
            doc = json.load(f)
        entry = lambda name: doc["entries"][os.path.realpath(os.path.join(self.dir, name))]
        # model.py's result records where its findings come from.
        self.assertEqual(entry("model.py")["depends"], [os.path.realpath(os.path.join(self.dir, "train.py"))])
        self.assertNotIn("depends", entry("other.py"))
        # Marked entries show which results a warm run takes from the cache.
        for name in ("model.py", "other.py"):
            for d in entry(name)["diagnostics"]:
                d["message"] = "cached: " + d["message"]
        with open(results, "w") as f:
            json.dump(doc, f)
        train = self.read("train.py")
        # An edit of train.py that changes nothing it tells model.py: both results stay cached.
        self.write("train.py", train + "# a comment\n")
        _, out, _ = self.check("--output-format", "concise", ".")
        self.assertIn("model.py:19:36: PTL501 cached: ", out)
        self.assertIn("other.py:3:6: PTL101 [*] cached: ", out)
        # train.py stops compiling: model.py (which depends on it) is re-linted, other.py is not.
        self.write("train.py", train.replace("model = torch.compile(model)", "model = model"))
        _, out, _ = self.check("--output-format", "concise", ".")
        self.assertNotIn("PTL501", out)
        self.assertIn("other.py:3:6: PTL101 [*] cached: ", out)
        # And back: the finding returns, freshly linted.
        self.write("train.py", train)
        _, out, _ = self.check("--output-format", "concise", ".")
        self.assertIn("model.py:19:36: PTL501", out)
        self.assertNotIn("PTL501 cached", out)
        self.assertIn("other.py:3:6: PTL101 [*] cached: ", out)

    def test_project_scan_cache_is_rewritten_only_when_it_changes(self):
        scan = os.path.join(self.dir, ".ptlint_cache", "project-scan.json")
        # Files edited within a timestamp tick of the cache's writing are read again and the cache
        # rewritten (they may change again in that tick): these were edited an hour ago.
        for dirpath, _, filenames in os.walk(self.dir):
            for name in filenames:
                os.utime(os.path.join(dirpath, name), (time.time() - 3600, time.time() - 3600))
        self.check(".")
        with open(scan) as f:
            first = json.load(f)
        self.assertTrue(first["summaries"])  # train.py's compile reaches summarised modules
        before = os.stat(scan)
        # An unchanged project: nothing is written (the file keeps its inode and mtime).
        self.check(".")
        after = os.stat(scan)
        self.assertEqual((before.st_ino, before.st_mtime_ns), (after.st_ino, after.st_mtime_ns))
        # train.py no longer compiles anything: the summaries it used are dropped, so it is rewritten.
        self.write("train.py", self.read("train.py").replace("model = torch.compile(model)", "model = model"))
        _, out, _ = self.check("--output-format", "concise", ".")
        self.assertNotIn("PTL501", out)
        with open(scan) as f:
            second = json.load(f)
        self.assertNotEqual(os.stat(scan).st_ino, after.st_ino)
        self.assertLess(len(second["summaries"]), len(first["summaries"]))

    def test_a_notebook_that_compiles_the_model_counts(self):
        # The training loop lives in a notebook: it compiles GPT from model.py.
        os.remove(os.path.join(self.dir, "train.py"))
        cells = ["import torch\n", "from model import GPT\n",
                 "model = torch.compile(GPT(config))\n"]
        notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                    "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                               "source": [c]} for c in cells]}
        self.write("train.ipynb", json.dumps(notebook, indent=1) + "\n")
        code, out, _ = self.check("--output-format", "concise", "--no-cache", "model.py")
        self.assertEqual(code, 1, out)
        self.assertIn("model.py:19:36: PTL501", out)


class ProjectRules(Workdir):
    """PTL603 and PTL702 asking the whole project, and models handed across files."""

    def use(self, name):
        shutil.rmtree(self.dir)
        shutil.copytree(os.path.join(PROJECTS, name), self.dir)

    def test_flex_attention_compiled_in_another_file_is_quiet_until_that_compile_goes(self):
        self.use("flexattn")
        code, out, _ = self.check("--select", "PTL603", "--output-format", "concise", ".")
        self.assertEqual(code, 1, out)
        self.assertIn("nets/attention.py:26:16: PTL603", out)  # under torch.compiler.disable
        self.assertIn("evaluate.py:12:9: PTL603", out)
        self.assertNotIn("nets/attention.py:22:", out)  # forward of the model train.py compiles
        self.assertNotIn("nets/kernels.py:14:", out)  # flex_attention = torch.compile(flex_attention)
        # train.py stops compiling the model: the cached result of attention.py is stale.
        train = self.read("train.py")
        self.write("train.py", train.replace("torch.compile(Model(64, 4, 2))", "Model(64, 4, 2)"))
        code, out, _ = self.check("--select", "PTL603", "--output-format", "concise", ".")
        self.assertIn("nets/attention.py:22:16: PTL603", out)

    def test_flex_attention_is_quiet_when_a_compile_reaches_unresolved_code(self):
        self.use("flexunknown")
        code, out, _ = self.check("--select", "PTL603", "--output-format", "concise", "--no-cache", ".")
        self.assertEqual(code, 0, out)

    def test_cublas_config_set_in_a_utility_module(self):
        self.use("determinism")
        code, out, _ = self.check("--select", "PTL702", "--output-format", "concise", "train.py")
        self.assertEqual(code, 0, out)
        # The utility stops setting it: the warm run reports train.py.
        seed = self.read("utils/seed.py")
        self.write("utils/seed.py", seed.replace('"CUBLAS_WORKSPACE_CONFIG": ":4096:8", ', ""))
        code, out, _ = self.check("--select", "PTL702", "--output-format", "concise", "train.py")
        self.assertEqual(code, 1, out)
        self.assertIn("train.py:9:5: PTL702", out)

    def test_model_handed_to_a_trainer_that_compiles_it(self):
        self.use("trainerlike")
        code, out, _ = self.check("--select", "PTL501", "--output-format", "full", "--no-cache",
                                  "project/models/unet.py")
        self.assertEqual(code, 1, out)
        self.assertIn("unet.py:14:12: PTL501", out)
        self.assertIn("litelib/trainer.py:15:26: `Trainer.model` is compiled here", out)
        self.assertNotIn("unet.py:41", out)  # training_loss is not forward

    def test_timm_like_registry(self):
        self.use("timmlike")
        code, out, _ = self.check("--select", "PTL501", "--output-format", "concise", "--no-cache", ".")
        self.assertEqual(code, 1, out)
        for where in ("layers/attention.py:28:29", "layers/drop.py:13:8", "models/convnext.py:58:20"):
            self.assertIn(where + ": PTL501", out)
        self.assertNotIn("attention.py:41", out)  # attention_map: never reached
        self.assertNotIn("validate.py", out)


if __name__ == "__main__":
    unittest.main()
