"""The terminal as Ruff's: colour, context lines, "did you mean", Ruff's flags and subcommands,
its CI output formats, and `extend` in configuration files. Standard library only."""
import json
import os
import pty
import subprocess
import tempfile
import shutil
import unittest
import xml.etree.ElementTree as ET

PTLINT = os.environ.get("PTLINT", "build/ptlint")

AMP_SOURCE = "import torch\n\nwith torch.cuda.amp.autocast():\n    pass\n"
AMP_FIXED = 'import torch\n\nwith torch.amp.autocast("cuda"):\n    pass\n'
CLEAN_SOURCE = "import torch\n\nx = torch.zeros(3)\n"
ESC = "\x1b["


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "TERM",
                                                            "CI_PROJECT_DIR", "PTLINT_CACHE_DIR",
                                                            "PTLINT_OUTPUT_FORMAT")}
    env.update(extra)
    return env


def run(args, cwd, stdin=None, env=None):
    proc = subprocess.run([PTLINT, *args], cwd=cwd, input=stdin, capture_output=True, timeout=120,
                          env=env or clean_env())
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


def run_on_tty(args, cwd, env=None):
    """Runs with stdout on a pseudo-terminal; returns (exit code, what the terminal showed)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([PTLINT, *args], cwd=cwd, stdout=slave, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=env or clean_env(TERM="xterm"))
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    code = proc.wait(timeout=120)
    os.close(master)
    proc.stderr.close()
    return code, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


class Workdir(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ptlint-term-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, name, content):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content)
        return path

    def read(self, name):
        with open(os.path.join(self.dir, name)) as f:
            return f.read()

    def check(self, *args, stdin=None, env=None):
        return run(["check", "--no-cache", *args], self.dir, stdin, env)


class Colour(Workdir):
    def setUp(self):
        super().setUp()
        self.write("train.py", AMP_SOURCE)

    def test_terminal_is_coloured_as_ruff(self):
        code, shown = run_on_tty(["check", "--no-cache", "train.py"], self.dir)
        self.assertEqual(code, 1)
        self.assertIn("\x1b[1mtrain.py\x1b[0m\x1b[36m:\x1b[0m3", shown)  # bold path, cyan separator
        self.assertIn("\x1b[1;31mPTL101\x1b[0m", shown)                  # red bold code
        self.assertIn("[\x1b[36m*\x1b[0m]", shown)                       # cyan fix mark
        self.assertIn("\x1b[1;94m", shown)                               # gutter in bright blue
        self.assertRegex(shown, r"\x1b\[1;(91|33)m\^+")                    # coloured carets

    def test_pipe_is_plain(self):
        code, out, _ = self.check("--output-format", "full", "train.py")
        self.assertEqual(code, 1)
        self.assertNotIn(ESC, out)

    def test_no_color_wins_on_a_terminal(self):
        _, shown = run_on_tty(["check", "--no-cache", "train.py"], self.dir, env=clean_env(TERM="xterm", NO_COLOR="1"))
        self.assertNotIn(ESC, shown)
        self.assertIn("PTL101", shown)

    def test_color_flag(self):
        _, out, _ = self.check("--color", "always", "--output-format", "concise", "train.py")
        self.assertIn("\x1b[1;31mPTL101\x1b[0m", out)
        _, out, _ = self.check("--color", "always", "--output-format", "concise", "train.py",
                               env=clean_env(NO_COLOR="1"))
        self.assertIn(ESC, out, "--color always wins over NO_COLOR")
        _, shown = run_on_tty(["check", "--no-cache", "--color", "never", "train.py"], self.dir)
        self.assertNotIn(ESC, shown)
        code, _, err = self.check("--color", "sometimes", "train.py")
        self.assertEqual(code, 2)
        self.assertIn("sometimes", err)

    def test_force_color_colours_a_pipe(self):
        _, out, _ = self.check("--output-format", "concise", "train.py", env=clean_env(FORCE_COLOR="1"))
        self.assertIn(ESC, out)

    def test_machine_formats_never_coloured(self):
        _, out, _ = self.check("--color", "always", "--output-format", "json", "train.py")
        self.assertNotIn(ESC, out)
        json.loads(out)

    def test_success_line_green(self):
        self.write("train.py", CLEAN_SOURCE)
        _, out, _ = self.check("--color", "always", "train.py")
        self.assertIn("\x1b[1;32mAll checks passed!\x1b[0m", out)


class Context(Workdir):
    def test_two_lines_around_with_carets(self):
        self.write("train.py", "import torch\n\nx = 1\ny = 2\nwith torch.cuda.amp.autocast():\n    pass\nz = 3\nw = 4\nv = 5\n")
        _, out, _ = self.check("--output-format", "full", "train.py")
        expected = ("train.py:5:6: PTL101 [*] ")
        self.assertIn(expected, out)
        block = out[out.index(expected):].split("\n")
        self.assertEqual(block[1:8], [
            "  |",
            "3 | x = 1",
            "4 | y = 2",
            "5 | with torch.cuda.amp.autocast():",
            "  |      ^^^^^^^^^^^^^^^^^^^^^^^^^ PTL101",
            "6 |     pass",
            "7 | z = 3",
        ])
        self.assertEqual(block[8], "  |")
        self.assertTrue(block[9].startswith("  = help: "))

    def test_context_stops_at_file_edges_and_blank_lines(self):
        self.write("train.py", AMP_SOURCE)
        _, out, _ = self.check("--output-format", "full", "train.py")
        lines = out.split("\n")
        first = lines.index("  |")
        self.assertEqual(lines[first + 1], "1 | import torch")
        self.assertEqual(lines[first + 2], "2 |")
        self.assertEqual(lines[first + 3], "3 | with torch.cuda.amp.autocast():")
        self.assertEqual(lines[first + 5], "4 |     pass")

    def test_gutter_width_follows_the_widest_row(self):
        self.write("train.py", "import torch\n" + "\n" * 7 + "a = 1\nwith torch.cuda.amp.autocast():\n    pass\n")
        _, out, _ = self.check("--output-format", "full", "train.py")
        self.assertIn(" 9 | a = 1\n10 | with torch.cuda.amp.autocast():\n   |      ^", out)

    def test_notebook_context_stays_in_its_cell(self):
        cells = [["import torch\n"], ["with torch.cuda.amp.autocast():\n", "    pass"], ["x = 1\n"]]
        nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None}
                        for c in cells],
              "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        self.write("nb.ipynb", json.dumps(nb))
        _, out, _ = self.check("--output-format", "full", "nb.ipynb")
        self.assertIn("nb.ipynb:cell 2:1:6: PTL101", out)
        block = out.split("\n")
        start = block.index("  |")
        self.assertEqual(block[start + 1:start + 5], ["1 | with torch.cuda.amp.autocast():",
                                                      "  |      ^^^^^^^^^^^^^^^^^^^^^^^^^ PTL101",
                                                      "2 |     pass", "  |"])


class DidYouMean(Workdir):
    def test_mistyped_flag(self):
        code, out, err = self.check("--unsafe-fix", ".")
        self.assertEqual(code, 2)
        self.assertIn("error: unexpected argument '--unsafe-fix' found", err)
        self.assertIn("tip: a similar argument exists: '--unsafe-fixes'", err)
        self.assertEqual(out, "")
        self.assertIn("'--statistics'", self.check("--statistcs", ".")[2])

    def test_mistyped_flag_with_value(self):
        code, _, err = self.check("--selct=PTL1", ".")
        self.assertEqual(code, 2)
        self.assertIn("'--select'", err)

    def test_mistyped_subcommand(self):
        code, _, err = run(["chekc", "."], self.dir)
        self.assertEqual(code, 2)
        self.assertIn("error: unrecognized subcommand 'chekc'", err)
        self.assertIn("tip: a similar subcommand exists: 'check'", err)

    def test_mistyped_value(self):
        code, _, err = self.check("--output-format", "jsn", ".")
        self.assertEqual(code, 2)
        self.assertIn("invalid value 'jsn'", err)
        self.assertIn("tip: a similar value exists: 'json'", err)

    def test_no_suggestion_for_nonsense(self):
        code, _, err = self.check("--zzzzzzzzzz", ".")
        self.assertEqual(code, 2)
        self.assertNotIn("tip:", err)


class Flags(Workdir):
    def test_fix_only_reports_fixed_not_remaining(self):
        self.write("train.py", AMP_SOURCE)
        self.write("other.py", "import torch\nt = torch.zeros(3)\nt.data = torch.ones(3)\n")
        code, out, _ = self.check("--fix-only", ".")
        self.assertEqual(code, 0)
        self.assertEqual(out, "Fixed 1 error.\n")
        self.assertEqual(self.read("train.py"), AMP_FIXED)

    def test_fix_only_with_nothing_to_fix_prints_nothing(self):
        self.write("train.py", CLEAN_SOURCE)
        code, out, _ = self.check("--fix-only", ".")
        self.assertEqual((code, out), (0, ""))

    def test_fix_only_stdin(self):
        code, out, err = self.check("--fix-only", "--stdin-filename", "t.py", "-", stdin=AMP_SOURCE.encode())
        self.assertEqual(code, 0)
        self.assertEqual(out, AMP_FIXED)
        self.assertNotIn("PTL101", err)

    def test_exit_non_zero_on_fix(self):
        self.write("train.py", AMP_SOURCE)
        code, out, _ = self.check("--fix", "--exit-non-zero-on-fix", ".")
        self.assertEqual(code, 1)
        self.assertIn("1 fixed, 0 remaining", out)
        code, _, _ = self.check("--fix", "--exit-non-zero-on-fix", ".")
        self.assertEqual(code, 0, "nothing left to fix")
        self.write("train.py", AMP_SOURCE)
        self.assertEqual(self.check("--fix-only", "--exit-non-zero-on-fix", ".")[0], 1)

    def test_no_fix_negates_fix_last_wins(self):
        self.write("train.py", AMP_SOURCE)
        code, _, _ = self.check("--fix", "--no-fix", ".")
        self.assertEqual(code, 1)
        self.assertEqual(self.read("train.py"), AMP_SOURCE)
        code, _, _ = self.check("--no-fix", "--fix", ".")
        self.assertEqual(code, 0)
        self.assertEqual(self.read("train.py"), AMP_FIXED)

    def test_no_unsafe_fixes_overrides_config(self):
        fixture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "attention", "PTL601.py")
        with open(fixture) as f:
            source = f.read()
        self.write("ptlint.toml", "unsafe-fixes = true\n")
        self.write("attn.py", source)
        self.check("--fix", "--no-unsafe-fixes", "--select", "PTL601", "attn.py")
        self.assertEqual(self.read("attn.py"), source, "--no-unsafe-fixes beats the configuration")
        self.write("ptlint.toml", "unsafe-fixes = false\n")
        self.check("--no-unsafe-fixes", "--unsafe-fixes", "--fix", "--select", "PTL601", "attn.py")
        self.assertNotEqual(self.read("attn.py"), source, "the last of the pair wins")
        code, _, err = self.check("--no-show-fixes", "--no-force-exclude", "--no-fix-only", "--no-respect-gitignore", ".")
        self.assertNotIn("unexpected argument", err)

    def test_negations_hidden_from_help(self):
        _, out, _ = run(["check", "--help"], self.dir)
        self.assertIn("--fix-only", out)
        self.assertNotIn("--no-fix ", out)

    def test_exclude_and_extend_exclude(self):
        self.write("a/x.py", AMP_SOURCE)
        self.write("b/y.py", AMP_SOURCE)
        self.write("dist/z.py", AMP_SOURCE)
        _, out, _ = self.check("--output-format", "concise", "--extend-exclude", "a", ".")
        self.assertNotIn("x.py", out)
        self.assertIn("y.py", out)
        self.assertNotIn("z.py", out, "the default excludes stay")
        _, out, _ = self.check("--output-format", "concise", "--exclude", "a", ".")
        self.assertIn("z.py", out, "--exclude replaces the default list")
        self.assertNotIn("x.py", out)

    def test_isolated_ignores_config(self):
        self.write("ptlint.toml", "ignore = [\"PTL101\"]\n")
        self.write("train.py", AMP_SOURCE)
        self.assertEqual(self.check(".")[0], 0)
        self.assertEqual(self.check("--isolated", ".")[0], 1)
        code, _, err = self.check("--isolated", "--config", "ptlint.toml", ".")
        self.assertEqual(code, 2)
        self.assertIn("--isolated", err)

    def test_respect_gitignore_flag(self):
        subprocess.run(["git", "init", "-q", self.dir], check=True, timeout=60)
        self.write(".gitignore", "gen/\n")
        self.write("gen/g.py", AMP_SOURCE)
        self.write("ptlint.toml", "respect-gitignore = false\n")
        _, out, _ = self.check("--output-format", "concise", ".")
        self.assertIn("g.py", out)
        _, out, _ = self.check("--output-format", "concise", "--respect-gitignore", ".")
        self.assertNotIn("g.py", out)

    def test_cache_dir(self):
        self.write("train.py", AMP_SOURCE)
        cache = os.path.join(self.dir, "deep", "cache")
        code, _, _ = run(["check", "--cache-dir", cache, "."], self.dir)
        self.assertEqual(code, 1)
        self.assertTrue(os.path.isdir(cache))
        self.assertFalse(os.path.exists(os.path.join(self.dir, ".ptlint_cache")))
        env = clean_env(PTLINT_CACHE_DIR=os.path.join(self.dir, "envcache"))
        run(["check", "."], self.dir, env=env)
        self.assertTrue(os.path.isdir(os.path.join(self.dir, "envcache")))

    def test_quiet_silent_verbose(self):
        self.write("train.py", AMP_SOURCE)
        code, out, _ = self.check("-q", "--output-format", "concise", ".")
        self.assertEqual(code, 1)
        self.assertIn("PTL101", out)
        self.assertNotIn("Found", out)
        code, out, err = self.check("-s", ".")
        self.assertEqual((code, out, err), (1, "", ""))
        code, out, err = self.check("-v", "--output-format", "concise", ".")
        self.assertEqual(code, 1)
        self.assertIn("Found 1 file to check", err)
        self.assertIn("Checked 1 file in", err)
        self.assertIn("PTL101", out)


    def test_statistics_as_ruff(self):
        fixture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "attention", "PTL601.py")
        with open(fixture) as f:
            self.write("attn.py", f.read())
        self.write("train.py", AMP_SOURCE * 12)
        code, out, _ = self.check("--statistics", "--select", "PTL101,PTL601", ".")
        self.assertEqual(code, 1)
        rows = [line for line in out.split("\n") if "\t" in line]
        self.assertRegex(rows[0], r"^\d\d\tPTL101\t\[\*\] deprecated-cuda-amp$")
        self.assertRegex(rows[1], r"^ \d\tPTL601\t\[ \] hand-rolled-attention$")  # its fixes are unsafe
        _, out, _ = self.check("--statistics", "--select", "PTL601", "attn.py")
        self.assertRegex(out, r"^\d+\tPTL601\thand-rolled-attention\n", "no fix column when nothing is fixable")


class Subcommands(Workdir):
    def test_version(self):
        code, out, _ = run(["version"], self.dir)
        self.assertEqual(code, 0)
        self.assertRegex(out, r"^ptlint \d+\.\d+\.\d+\n$")
        self.assertEqual(out, run(["--version"], self.dir)[1])
        code, out, _ = run(["version", "--output-format", "json"], self.dir)
        self.assertEqual(json.loads(out)["version"], out and json.loads(out)["version"])
        self.assertIn(json.loads(out)["version"], run(["--version"], self.dir)[1])

    def test_config(self):
        code, out, _ = run(["config"], self.dir)
        self.assertEqual(code, 0)
        keys = out.split()
        for key in ("extend", "select", "extend-select", "ignore", "exclude", "torch-version"):
            self.assertIn(key, keys)
        code, out, _ = run(["config", "torch-version"], self.dir)
        self.assertEqual(code, 0)
        self.assertIn("Default value:", out)
        self.assertIn("Type: str", out)
        code, _, err = run(["config", "selct"], self.dir)
        self.assertEqual(code, 2)
        self.assertIn("'select'", err)

    def test_every_config_key_is_one_the_loader_knows(self):
        _, out, _ = run(["config"], self.dir)
        _, _, err = self.check_config("bogus-key = 1\n")
        for key in out.split():
            self.assertIn(key, err)

    def check_config(self, text):
        self.write("ptlint.toml", text)
        self.write("ok.py", CLEAN_SOURCE)
        return self.check(".")

    def test_shell_completion(self):
        for shell in ("bash", "zsh", "fish"):
            code, out, _ = run(["generate-shell-completion", shell], self.dir)
            self.assertEqual(code, 0, shell)
            self.assertIn("--fix-only", out)
            self.assertIn("check", out)
        code, _, err = run(["generate-shell-completion", "tcsh"], self.dir)
        self.assertEqual(code, 2)
        self.assertIn("bash", err)
        if shutil.which("bash"):
            _, script, _ = run(["generate-shell-completion", "bash"], self.dir)
            path = self.write("c.bash", script)
            probe = subprocess.run(["bash", "-c", f"source {path}; COMP_WORDS=(ptlint check --fix-o); COMP_CWORD=2; "
                                    "_ptlint; echo ${COMPREPLY[@]}"], capture_output=True, text=True, timeout=30)
            self.assertEqual(probe.stdout.strip(), "--fix-only")


# A finding's help (the why, one sentence) is shown by `full` alone, above the fix title; the
# machine formats keep their keys, and SARIF carries it in `message.markdown`.
QR_SOURCE = "import torch\n\ny = torch.qr(a)\n"
QR_HELP = "Deprecated since PyTorch 1.9."
QR_FIX = "Use `torch.linalg.qr` instead of `torch.qr`"


class Help(Workdir):
    def setUp(self):
        super().setUp()
        self.write("train.py", QR_SOURCE)

    def out(self, fmt):
        code, out, err = self.check("--select", "PTL106", "--output-format", fmt, "train.py")
        self.assertEqual(code, 1, err)
        return out

    def test_full_shows_the_help_then_the_fix_title(self):
        lines = self.out("full").split("\n")
        self.assertTrue(lines[0].startswith("train.py:3:5: PTL106 [*] `torch.qr` is deprecated;"), lines[0])
        self.assertNotIn(QR_HELP, lines[0])
        at = lines.index("  = help: " + QR_HELP)
        self.assertEqual(lines[at - 1], "  |")
        self.assertEqual(lines[at + 1], "  = help: " + QR_FIX)

    def test_line_formats_show_the_message_only(self):
        for fmt in ("concise", "pylint", "github", "azure", "grouped"):
            out = self.out(fmt)
            self.assertIn("`torch.qr` is deprecated", out, fmt)
            self.assertNotIn(QR_HELP, out, fmt)

    def test_json_keeps_its_keys(self):
        keys = {"code", "message", "filename", "location", "end_location", "fix", "noqa_row", "url", "severity", "cell"}
        [row] = json.loads(self.out("json"))
        self.assertEqual(set(row), keys)
        self.assertNotIn(QR_HELP, json.dumps(row))
        self.assertEqual(set(json.loads(self.out("json-lines").splitlines()[0])), keys)

    def test_sarif_markdown_adds_the_help(self):
        [result] = json.loads(self.out("sarif"))["runs"][0]["results"]
        text = result["message"]["text"]
        self.assertNotIn(QR_HELP, text)
        self.assertEqual(result["message"]["markdown"], text + "\n\n" + QR_HELP)

    def test_a_finding_without_help_has_no_extra_line(self):
        self.write("train.py", AMP_SOURCE)
        code, out, err = self.check("--select", "PTL101", "--output-format", "full", "train.py")
        helps = [l for l in out.split("\n") if l.startswith("  = help: ")]
        self.assertEqual(len(helps), 1, out)  # the fix title alone
        code, out, err = self.check("--select", "PTL101", "--output-format", "sarif", "train.py")
        self.assertNotIn("markdown", json.loads(out)["runs"][0]["results"][0]["message"])


class CiFormats(Workdir):
    def setUp(self):
        super().setUp()
        self.write("train.py", AMP_SOURCE)
        self.path = os.path.realpath(os.path.join(self.dir, "train.py"))

    def fmt(self, name, *extra, env=None):
        code, out, err = self.check("--output-format", name, *extra, "train.py", env=env)
        self.assertEqual(code, 1, err)
        return out

    def test_pylint(self):
        self.assertEqual(self.fmt("pylint").split("\n")[0].split(" [PTL101] ")[0], "train.py:3:")
        self.assertNotIn("Found", self.fmt("pylint"))

    def test_azure(self):
        line = self.fmt("azure").split("\n")[0]
        self.assertRegex(line, r"^##vso\[task\.logissue type=(warning|error);sourcepath=[^;]*train\.py;"
                               r"linenumber=3;columnnumber=6;code=PTL101;\]\S")

    def test_gitlab(self):
        report = json.loads(self.fmt("gitlab"))
        self.assertEqual(len(report), 1)
        item = report[0]
        self.assertEqual(item["check_name"], "PTL101")
        self.assertTrue(item["description"].startswith("PTL101: "))
        self.assertIn(item["severity"], ("minor", "major"))
        self.assertRegex(item["fingerprint"], r"^[0-9a-f]+$")
        self.assertEqual(item["location"]["path"], "train.py")
        self.assertEqual(item["location"]["positions"]["begin"], {"line": 3, "column": 6})
        again = json.loads(self.fmt("gitlab"))
        self.assertEqual(again[0]["fingerprint"], item["fingerprint"], "stable from run to run")
        env = clean_env(CI_PROJECT_DIR=os.path.dirname(self.dir))
        moved = json.loads(self.fmt("gitlab", env=env))
        self.assertEqual(moved[0]["location"]["path"], os.path.join(os.path.basename(self.dir), "train.py"))

    def test_gitlab_fingerprints_unique(self):
        self.write("train.py", AMP_SOURCE + "with torch.cuda.amp.autocast():\n    pass\n")
        prints = [i["fingerprint"] for i in json.loads(self.fmt("gitlab"))]
        self.assertEqual(len(prints), 2)
        self.assertEqual(len(set(prints)), 2)

    def test_junit(self):
        root = ET.fromstring(self.fmt("junit"))
        self.assertEqual(root.tag, "testsuites")
        self.assertEqual((root.get("name"), root.get("tests"), root.get("failures")), ("ptlint", "1", "1"))
        suite = root.find("testsuite")
        self.assertTrue(suite.get("name").endswith("train.py"))
        case = suite.find("testcase")
        self.assertEqual(case.get("name"), "org.ptlint.PTL101")
        self.assertEqual((case.get("line"), case.get("column")), ("3", "6"))
        failure = case.find("failure")
        self.assertTrue(failure.text.startswith("line 3, col 6, "))

    def test_junit_without_findings(self):
        self.write("train.py", CLEAN_SOURCE)
        code, out, _ = self.check("--output-format", "junit", "train.py")
        self.assertEqual(code, 0)
        case = ET.fromstring(out).find("testsuite/testcase")
        self.assertEqual(case.get("name"), "No errors found")

    def test_junit_escapes(self):
        path = self.write("a&b<c>.py", AMP_SOURCE)
        code, out, _ = self.check("--output-format", "junit", path)
        self.assertEqual(code, 1)
        ET.fromstring(out)

    def test_rdjson(self):
        doc = json.loads(self.fmt("rdjson"))
        self.assertEqual(doc["source"]["name"], "ptlint")
        self.assertEqual(doc["severity"], "WARNING")
        d = doc["diagnostics"][0]
        self.assertEqual(d["code"]["value"], "PTL101")
        self.assertEqual(d["location"]["range"]["start"], {"line": 3, "column": 6})
        self.assertEqual(d["suggestions"][0]["range"]["start"]["line"], 3)

    def test_format_from_the_environment(self):
        out = self.fmt("pylint")
        code, env_out, _ = self.check("train.py", env=clean_env(PTLINT_OUTPUT_FORMAT="pylint"))
        self.assertEqual((code, env_out), (1, out))
        self.assertEqual(self.check("train.py", env=clean_env(PTLINT_OUTPUT_FORMAT="nope"))[0], 2)

    def test_grouped(self):
        self.write("train.py", AMP_SOURCE + "\n" * 8 + "with torch.cuda.amp.autocast():\n    pass\n")
        out = self.fmt("grouped")
        lines = out.split("\n")
        self.assertEqual(lines[0], "train.py:")
        self.assertTrue(lines[1].startswith("   3:6 PTL101 [*] "), lines[1])
        self.assertTrue(lines[2].startswith("  13:6 PTL101 [*] "), lines[2])
        self.assertEqual(lines[3], "")
        self.assertIn("Found 2 errors.", out)


class Extend(Workdir):
    def test_extend_merges_as_ruff(self):
        self.write("base.toml", 'ignore = ["PTL101"]\nextend-exclude = ["gen"]\n')
        self.write("proj/ptlint.toml", 'extend = "../base.toml"\n')
        self.write("proj/train.py", AMP_SOURCE)
        self.write("proj/gen/g.py", "import torch\nt = torch.zeros(3)\nt.data = torch.ones(3)\n")
        code, out, err = run(["check", "--no-cache", "--output-format", "concise", "."], os.path.join(self.dir, "proj"))
        self.assertEqual(code, 0, out + err)

    def test_child_select_drops_base_ignore(self):
        self.write("base.toml", 'ignore = ["PTL101"]\n')
        self.write("proj/pyproject.toml", '[tool.ptlint]\nextend = "../base.toml"\nselect = ["PTL1"]\n')
        self.write("proj/train.py", AMP_SOURCE)
        code, out, _ = run(["check", "--no-cache", "--output-format", "concise", "."], os.path.join(self.dir, "proj"))
        self.assertEqual(code, 1)
        self.assertIn("PTL101", out)

    def test_child_key_wins(self):
        self.write("base.toml", 'unsafe-fixes = false\nselect = ["PTL2"]\n')
        self.write("proj/ptlint.toml", 'extend = "../base.toml"\nselect = ["PTL101"]\n')
        self.write("proj/train.py", AMP_SOURCE)
        code, out, _ = run(["check", "--no-cache", "--output-format", "concise", "."], os.path.join(self.dir, "proj"))
        self.assertIn("PTL101", out)

    def test_cycle_refused(self):
        self.write("a.toml", 'extend = "b.toml"\n')
        self.write("b.toml", 'extend = "ptlint.toml"\n')
        self.write("ptlint.toml", 'extend = "a.toml"\n')
        self.write("train.py", AMP_SOURCE)
        code, _, err = self.check(".")
        self.assertEqual(code, 2)
        self.assertIn("circular", err)
        self.assertIn("extend", err)

    def test_self_extend_and_missing_file(self):
        self.write("ptlint.toml", 'extend = "ptlint.toml"\n')
        self.write("train.py", AMP_SOURCE)
        code, _, err = self.check(".")
        self.assertEqual(code, 2)
        self.assertIn("circular", err)
        self.write("ptlint.toml", 'extend = "nope.toml"\n')
        code, _, err = self.check(".")
        self.assertEqual(code, 2)
        self.assertIn("nope.toml", err)
        self.assertIn("ptlint.toml:1", err)

    def test_base_errors_name_the_base(self):
        self.write("base.toml", 'selct = ["PTL1"]\n')
        self.write("ptlint.toml", 'extend = "base.toml"\n')
        self.write("train.py", AMP_SOURCE)
        code, _, err = self.check(".")
        self.assertEqual(code, 2)
        self.assertIn("base.toml", err)


if __name__ == "__main__":
    unittest.main()
