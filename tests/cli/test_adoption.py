"""The binary as a Ruff user adopting ptlint drives it: rule selectors are validated everywhere,
unused `# noqa` codes (PTL001), documentation links, the walk's hidden and virtual-environment
folders, inline `--config` overrides and the adoption flags. Standard library only."""
import json
import os
import re
import shutil
import subprocess
import textwrap
import unittest
import urllib.parse

from test_cli import AMP_FIXED, AMP_SOURCE, CLEAN_SOURCE, PTLINT, Workdir, run


class Selectors(Workdir):
    def test_unknown_code_on_the_command_line_is_a_usage_error_with_a_suggestion(self):
        self.write("data.py", AMP_SOURCE)
        for flag in ("--select", "--extend-select", "--ignore"):
            code, out, err = self.check(flag, "PTL4O1", "data.py")
            self.assertEqual(code, 2, flag)
            self.assertIn("PTL4O1", err)
            self.assertIn(flag, err)
            self.assertIn("did you mean `PTL401`?", err)
            self.assertNotIn("All checks passed", out)

    def test_unknown_prefix_is_a_usage_error(self):
        self.write("data.py", AMP_SOURCE)
        code, out, err = self.check("--select", "PTL99", "data.py")
        self.assertEqual(code, 2)
        self.assertIn("`PTL99`", err)
        self.assertNotIn("All checks passed", out)

    def test_one_bad_selector_in_a_list_is_named(self):
        code, _, err = self.check("--select", "PTL1,PTL60,PTL999", ".")
        self.assertEqual(code, 2)
        self.assertIn("`PTL999`", err)

    def test_known_codes_prefixes_and_all_are_accepted(self):
        self.write("data.py", AMP_SOURCE)
        for selector in ("PTL101", "PTL1", "PTL10", "PTL", "ALL", "PTL000", "PTL001"):
            code, _, err = self.check("--select", selector, "data.py")
            self.assertIn(code, (0, 1), f"{selector}: {err}")

    def test_config_file_selectors_name_file_line_and_key(self):
        self.write("pyproject.toml", '[tool.ptlint]\nselect = ["PTL1"]\nignore = [\n  "PTL601",\n  "PTL40x",\n]\n')
        self.write("a.py", AMP_SOURCE)
        code, _, err = self.check(".")
        self.assertEqual(code, 2)
        self.assertIn("pyproject.toml:5", err)
        self.assertIn("tool.ptlint.ignore", err)
        self.assertIn("`PTL40x`", err)
        self.assertIn("did you mean `PTL401`?", err)

    def test_per_file_ignores_selectors_are_validated(self):
        self.write("ptlint.toml", '[per-file-ignores]\n"tests/**" = ["PTL5O1"]\n')
        self.write("a.py", AMP_SOURCE)
        code, _, err = self.check(".")
        self.assertEqual(code, 2)
        self.assertIn("ptlint.toml:2", err)
        self.assertIn("per-file-ignores.tests/**", err)
        self.assertIn("did you mean `PTL501`?", err)

    def test_unknown_rule_documentation_suggests_the_nearest(self):
        code, _, err = run(["rule", "PTL4O1"], self.dir)
        self.assertEqual(code, 2)
        self.assertIn("did you mean `PTL401`?", err)

    def test_selectors_follow_the_registry(self):
        # Every code `ptlint rule --all` lists is a valid selector, and nothing else of its length.
        _, out, _ = run(["rule", "--all", "--output-format", "json"], self.dir)
        codes = [r["code"] for r in json.loads(out)]
        self.assertIn("PTL001", codes)
        for c in codes:
            self.assertEqual(self.check("--select", c, "--exit-zero", ".")[0], 0, c)
        unused = next(f"PTL{n:03d}" for n in range(999, 0, -1) if f"PTL{n:03d}" not in codes)
        self.assertEqual(self.check("--select", unused, ".")[0], 2)


class UnusedNoqa(Workdir):
    SOURCE = textwrap.dedent("""\
        import torch
        a = torch.cuda.amp.autocast()  # noqa: PTL101
        b = torch.zeros(1)  # noqa: PTL101
        c = torch.zeros(1)  # noqa: PTL101, F401
        d = torch.cuda.amp.autocast()  # noqa: PTL101, PTL601
        e = torch.zeros(1)  # noqa: PTL999
        f = torch.zeros(1)  # noqa
        g = torch.zeros(1)  # noqa: E501
        h = torch.zeros(1)  # type: ignore  # noqa: PTL201
        """)

    def test_off_by_default(self):
        self.write("a.py", self.SOURCE)
        self.assertEqual(self.check(".")[0], 0)

    def test_reports_unused_and_unknown_codes(self):
        self.write("a.py", self.SOURCE)
        code, out, _ = self.check("--extend-select", "PTL001", "--output-format", "json", ".")
        self.assertEqual(code, 1)
        rows = {r["location"]["row"]: r for r in json.loads(out)}
        self.assertEqual(sorted(rows), [3, 4, 5, 6, 9])
        self.assertEqual(rows[3]["message"], "Unused `noqa` directive (unused: `PTL101`)")
        self.assertEqual(rows[6]["message"], "Unused `noqa` directive (unknown: `PTL999`)")
        self.assertEqual(rows[5]["message"], "Unused `noqa` directive (unused: `PTL601`)")
        self.assertTrue(all(r["code"] == "PTL001" and r["fix"]["applicability"] == "safe" for r in rows.values()))

    def test_non_enabled_code(self):
        self.write("a.py", "import torch\nb = torch.zeros(1)  # noqa: PTL000\n")
        _, out, _ = self.check("--extend-select", "PTL001", "--output-format", "json", ".")
        self.assertEqual(json.loads(out)[0]["message"], "Unused `noqa` directive (non-enabled: `PTL000`)")

    def test_fix_removes_only_what_has_no_effect(self):
        self.write("a.py", self.SOURCE)
        code, _, err = self.check("--extend-select", "PTL001", "--fix", ".")
        self.assertEqual(code, 0, err)
        self.assertEqual(self.read("a.py"), textwrap.dedent("""\
            import torch
            a = torch.cuda.amp.autocast()  # noqa: PTL101
            b = torch.zeros(1)
            c = torch.zeros(1)  # noqa: F401
            d = torch.cuda.amp.autocast()  # noqa: PTL101
            e = torch.zeros(1)
            f = torch.zeros(1)  # noqa
            g = torch.zeros(1)  # noqa: E501
            h = torch.zeros(1)  # type: ignore
            """))

    def test_explanation_after_the_codes_is_kept(self):
        self.write("a.py", "import torch\nb = torch.zeros(1)  # noqa: PTL101 -- old amp\n")
        self.check("--extend-select", "PTL001", "--fix", ".")
        self.assertNotIn("PTL101", self.read("a.py"))


class DocsLinks(Workdir):
    """Every link resolves: findings link to the rule pages installed with the binary (the build
    folder's rule-docs/, or <prefix>/share/doc/ptlint/rules/ once installed), unless a public
    documentation URL was configured at build time."""
    FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")

    def setUp(self):
        super().setUp()
        self.write("train.py", AMP_SOURCE)

    def open_link(self, url, code):
        """The page a link points at; it must be the rule's own page."""
        parsed = urllib.parse.urlparse(url)
        public = os.environ.get("PTLINT_DOCS_URL", "")
        if public:  # a build for a published site (-DPTLINT_DOCS_URL): not fetched here (no network)
            self.assertTrue(url.startswith(public.split("{code}")[0]) and code in url, url)
            return None
        self.assertEqual(parsed.scheme, "file", url)
        path = urllib.parse.unquote(parsed.path)
        with open(path, encoding="utf-8") as f:
            page = f.read()
        title = page.split("\n", 1)[0]
        self.assertTrue(title.startswith("# ") and f"({code})" in title, f"{url} is not the page of {code}: {title!r}")
        return page

    def test_every_link_of_a_json_report_opens_its_rule_page(self):
        _, out, err = self.check("--output-format", "json", "--select", "ALL", "--no-cache", self.FIXTURES)
        rows = json.loads(out)
        codes = {r["code"] for r in rows}
        self.assertGreater(len(codes), 40, err)
        opened = set()
        for r in rows:
            if r["url"] not in opened:
                self.open_link(r["url"], r["code"])
                opened.add(r["url"])
        self.assertEqual(len(opened), len(codes))

    def test_sarif_help(self):
        _, out, _ = self.check("--output-format", "sarif", ".")
        driver = json.loads(out)["runs"][0]["tool"]["driver"]
        self.assertTrue(driver["informationUri"].startswith("https://"))
        for rule in driver["rules"]:
            self.open_link(rule["helpUri"], rule["id"])
            self.assertIn(rule["helpUri"], rule["help"]["text"])
            self.assertIn("## What it does", rule["help"]["markdown"])

    def test_rule_json_url(self):
        _, out, _ = run(["rule", "--all", "--output-format", "json"], self.dir)
        for r in json.loads(out):
            self.open_link(r["url"], r["code"])

    def test_an_installed_copy_links_to_its_own_pages(self):
        # <prefix>/bin/ptlint beside <prefix>/share/doc/ptlint/rules/, as cmake --install, the
        # .deb and the wheel lay them out; a path with a space and a `#` is percent-encoded.
        prefix = os.path.join(self.dir, "pre fix#1")
        os.makedirs(os.path.join(prefix, "bin"))
        shutil.copy2(PTLINT, os.path.join(prefix, "bin", "ptlint"))
        pages = os.path.join(prefix, "share", "doc", "ptlint", "rules")
        os.makedirs(pages)
        _, listing, _ = run(["rule", "--all", "--output-format", "json"], self.dir)
        for r in json.loads(listing):
            _, page, _ = run(["rule", r["code"]], self.dir)
            with open(os.path.join(pages, r["code"] + ".md"), "w", encoding="utf-8") as f:
                f.write(page)
        with open(os.path.join(pages, "README.md"), "w", encoding="utf-8") as f:
            f.write("# ptlint rules\n")
        proc = subprocess.run([os.path.join(prefix, "bin", "ptlint"), "check", "--output-format", "json", "."],
                              cwd=self.dir, capture_output=True, text=True)
        row = json.loads(proc.stdout)[0]
        self.assertEqual(row["url"], "file://" + urllib.parse.quote(pages) + "/PTL101.md")
        self.open_link(row["url"], "PTL101")

    def test_rule_docs_cite_public_sources_only(self):
        _, out, _ = run(["rule", "--all"], self.dir)
        for needle in ("/work/", "seeds/", "ptlint seeds", "SPEC", "../shared", "shared/"):
            self.assertFalse(needle in out, f"the rule docs cite `{needle}`")


class WalkConventions(Workdir):
    def reported(self, *paths):
        _, out, _ = self.check("--output-format", "json", "--no-cache", *paths)
        return sorted(os.path.relpath(r["filename"], os.path.realpath(self.dir)) for r in json.loads(out))

    def test_hidden_folders_and_virtual_environments_are_skipped(self):
        self.write(".hidden/bad.py", AMP_SOURCE)
        self.write("env/pyvenv.cfg", "home = /usr/bin\n")
        self.write("env/lib/python3.11/site/x.py", AMP_SOURCE)
        self.write("pkg/.cache/y.py", AMP_SOURCE)
        self.write("pkg/train.py", AMP_SOURCE)
        self.write(".top.py", AMP_SOURCE)  # a hidden *file* is still Python source
        self.assertEqual(self.reported("."), [".top.py", "pkg/train.py"])

    def test_named_explicitly_they_are_linted(self):
        self.write(".hidden/bad.py", AMP_SOURCE)
        self.write("env/pyvenv.cfg", "home = /usr/bin\n")
        self.write("env/x.py", AMP_SOURCE)
        self.assertEqual(self.reported(".hidden/bad.py", "env/x.py"), [".hidden/bad.py", "env/x.py"])
        self.assertEqual(self.reported(".hidden"), [".hidden/bad.py"])


class InlineConfig(Workdir):
    def setUp(self):
        super().setUp()
        self.write("a.py", AMP_SOURCE)

    def test_key_value_overrides_the_config_file(self):
        self.write("pyproject.toml", '[tool.ptlint]\nselect = ["PTL101"]\n')
        self.assertEqual(self.check("a.py")[0], 1)
        code, out, err = self.check("--config", "ignore = ['PTL101']", "a.py")
        self.assertEqual((code, err), (0, ""))
        self.assertIn("All checks passed!", out)

    def test_several_and_with_a_file(self):
        self.write("other.toml", 'select = ["PTL6"]\n')
        # The file selects only PTL6: nothing; an inline setting selects PTL1 again.
        self.assertEqual(self.check("--config", "other.toml", "a.py")[0], 0)
        self.assertEqual(self.check("--config", "other.toml", "--config", "select = ['PTL1']", "a.py")[0], 1)
        self.assertEqual(self.check("--config", "select = ['PTL1']", "--config", "ignore = ['PTL101']", "a.py")[0], 0)

    def test_flags_win_over_inline_settings(self):
        self.assertEqual(self.check("--config", "ignore = ['PTL101']", "--ignore", "PTL6", "a.py")[0], 1)

    def test_errors(self):
        for value, needle in (("nope.toml", "No such file"), ("bogus = 1", "`bogus`: unknown key"),
                              ("ignore = [", "neither a file nor a TOML"),
                              ("ignore = ['PTL1O1']", "did you mean `PTL101`?")):
            code, out, err = self.check("--config", value, "a.py")
            self.assertEqual(code, 2, value)
            self.assertIn(needle, err)
            self.assertIn("--config", err)
            self.assertEqual(out, "")


DDP_SOURCE = "from torch.nn.parallel import DistributedDataParallel as DDP\nm = DDP(net, find_unused_parameters=True)\n"


class RuffFlags(Workdir):
    def test_output_file(self):
        self.write("a.py", AMP_SOURCE)
        code, out, err = self.check("--output-format", "json", "--output-file", "reports/lint.json", "a.py")
        self.assertEqual((code, out), (1, ""))
        self.assertEqual(json.loads(self.read("reports/lint.json"))[0]["code"], "PTL101")
        code, _, err = self.check("--output-file", "a.py/x.json", "a.py")
        self.assertEqual(code, 2)
        self.assertIn("--output-file", err)

    def test_extend_ignore(self):
        self.write("pyproject.toml", '[tool.ptlint]\nignore = ["PTL301"]\n')
        self.write("a.py", AMP_SOURCE)
        self.write("d.py", DDP_SOURCE)
        self.assertEqual(self.check("a.py", "d.py")[0], 1)
        self.assertEqual(self.check("--extend-ignore", "PTL101", "a.py", "d.py")[0], 0)
        code, _, err = self.check("--extend-ignore", "PTL102x", "a.py")
        self.assertEqual(code, 2)
        self.assertIn("--extend-ignore", err)

    def test_per_file_ignores(self):
        self.write("tests/a.py", AMP_SOURCE)
        self.write("src/a.py", AMP_SOURCE)
        _, out, _ = self.check("--output-format", "json", "--per-file-ignores", "tests/*:PTL101", ".")
        self.assertEqual([os.path.relpath(r["filename"], os.path.realpath(self.dir)) for r in json.loads(out)],
                         ["src/a.py"])
        for bad, needle in (("tests/*", "expected GLOB:CODE"), ("tests/*:PTL1O1", "did you mean `PTL101`?")):
            code, _, err = self.check("--per-file-ignores", bad, ".")
            self.assertEqual(code, 2, bad)
            self.assertIn(needle, err)

    def test_fixable_and_unfixable(self):
        self.write("a.py", AMP_SOURCE)
        _, out, _ = self.check("--output-format", "json", "--unfixable", "PTL101", "a.py")
        self.assertIsNone(json.loads(out)[0]["fix"])
        self.assertEqual(self.check("--fix", "--unfixable", "PTL1", "a.py")[0], 1)
        self.assertEqual(self.read("a.py"), AMP_SOURCE)
        self.assertEqual(self.check("--fix", "--fixable", "PTL6", "a.py")[0], 1)
        self.assertEqual(self.read("a.py"), AMP_SOURCE)
        self.assertEqual(self.check("--fix", "--fixable", "PTL1", "--unfixable", "PTL6", "a.py")[0], 0)
        self.assertEqual(self.read("a.py"), AMP_FIXED)
        self.assertEqual(self.check("--unfixable", "PTL99", "a.py")[0], 2)

    def test_fixable_and_unfixable_config_keys(self):
        self.write("a.py", AMP_SOURCE)
        self.write("ptlint.toml", 'unfixable = ["PTL1"]\n')
        # Twice: the second run reads the results cache, which must not bring the fix back.
        for _ in range(2):
            _, out, _ = self.check("--output-format", "json", "a.py")
            self.assertIsNone(json.loads(out)[0]["fix"])
        self.assertEqual(self.check("--fix", "a.py")[0], 1)
        self.assertEqual(self.read("a.py"), AMP_SOURCE)
        _, out, _ = self.check("--show-settings", "a.py")
        self.assertIn('unfixable = ["PTL1"]', out)
        # The flag replaces the file's key, as in Ruff.
        _, out, _ = self.check("--output-format", "json", "--unfixable", "PTL6", "a.py")
        self.assertIsNotNone(json.loads(out)[0]["fix"])
        self.write("ptlint.toml", 'fixable = ["PTL6"]\n')
        _, out, _ = self.check("--output-format", "json", "a.py")
        self.assertIsNone(json.loads(out)[0]["fix"])
        self.assertEqual(self.check("--fix", "--fixable", "PTL101", "a.py")[0], 0)
        self.assertEqual(self.read("a.py"), AMP_FIXED)
        self.write("a.py", AMP_SOURCE)
        self.write("pyproject.toml", '[tool.ptlint]\nfixable = [\n  "PTL1",\n  "PTL1O1",\n]\n')
        os.remove(os.path.join(self.dir, "ptlint.toml"))
        code, _, err = self.check("a.py")
        self.assertEqual(code, 2)
        self.assertIn("pyproject.toml:4", err)
        self.assertIn("tool.ptlint.fixable", err)
        self.assertIn("did you mean `PTL101`?", err)

    def test_hidden_unsafe_fixes_hint(self):
        self.write("d.py", DDP_SOURCE)
        _, out, _ = self.check("--output-format", "concise", "d.py")
        self.assertIn("No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option).", out)
        self.write("a.py", AMP_SOURCE)
        _, out, _ = self.check("--output-format", "concise", "a.py", "d.py")
        self.assertIn("[*] 1 fixable with the `--fix` option (1 hidden fix can be enabled with the "
                      "`--unsafe-fixes` option).", out)
        _, out, _ = self.check("--output-format", "concise", "--unsafe-fixes", "a.py", "d.py")
        self.assertIn("[*] 2 fixable with the `--fix` option.", out)
        self.assertNotIn("hidden", out)

    def test_show_files(self):
        self.write("a.py", AMP_SOURCE)
        self.write("pkg/b.pyi", CLEAN_SOURCE)
        self.write(".hidden/c.py", AMP_SOURCE)
        code, out, _ = self.check("--show-files", ".")
        self.assertEqual(code, 0)
        root = os.path.realpath(self.dir)
        self.assertEqual([os.path.relpath(os.path.realpath(l), root) for l in out.splitlines()], ["a.py", "pkg/b.pyi"])

    def test_show_settings_torch_range_from_the_project(self):
        self.write("a.py", AMP_SOURCE)
        self.write("requirements.txt", "-r requirements-base.txt\n")
        self.write("requirements-base.txt", "torch>=2.1,<2.9 ; sys_platform == 'linux'\n")
        code, out, _ = self.check("--show-settings", "a.py")
        self.assertEqual(code, 0)
        self.assertIn('torch-version = ">=2.1,<2.9"  # 2.1 to 2.8, from ', out)
        self.assertIn("requirements-base.txt", out)
        os.remove(os.path.join(self.dir, "requirements.txt"))
        os.remove(os.path.join(self.dir, "requirements-base.txt"))
        os.makedirs(os.path.join(self.dir, ".git"))
        os.makedirs(os.path.join(self.dir, ".venv/lib/python3.11/site-packages/torch-2.4.1+cu121.dist-info"))
        code, out, _ = self.check("--show-settings", "a.py")
        self.assertIn("# 2.4 to 2.4, from ", out)
        self.assertIn("torch-2.4.1+cu121.dist-info", out)
        code, out, _ = self.check("--show-settings", "--torch-version", "~=2.2", "a.py")
        self.assertIn('torch-version = "~=2.2"  # 2.2 to 2.14, from --torch-version', out)

    def test_show_settings(self):
        self.write("pyproject.toml", '[tool.ptlint]\nextend-select = ["PTL001"]\ntorch-version = "2.4"\n')
        self.write("a.py", AMP_SOURCE)
        code, out, _ = self.check("--show-settings", "--ignore", "PTL601", "a.py")
        self.assertEqual(code, 0)
        self.assertIn("pyproject.toml", out)
        self.assertIn('extend-select = ["PTL001"]', out)
        self.assertIn('ignore = ["PTL601"]', out)
        self.assertIn('torch-version = ">=2.4"  # 2.4 to 2.14, from ', out)
        self.assertIn('"PTL001"', out.split("enabled rules = ")[1].splitlines()[0])
        self.assertNotIn('"PTL601"', out.split("enabled rules = ")[1].splitlines()[0])

    def test_add_noqa(self):
        self.write("a.py", textwrap.dedent("""\
            import torch
            from torch.nn.parallel import DistributedDataParallel as DDP
            a = torch.cuda.amp.autocast()  # keep this comment
            b = torch.cuda.amp.autocast()  # noqa: PTL6
            s = \"\"\"text
            more\"\"\" + str(torch.cuda.amp.autocast())
            m = DDP(net,
                    find_unused_parameters=True)
            """))
        code, _, err = self.check("--add-noqa", ".")
        self.assertEqual(code, 0, err)
        self.assertIn("Added 4 noqa directives.", err)
        self.assertEqual(self.read("a.py"), textwrap.dedent("""\
            import torch
            from torch.nn.parallel import DistributedDataParallel as DDP
            a = torch.cuda.amp.autocast()  # keep this comment  # noqa: PTL101
            b = torch.cuda.amp.autocast()  # noqa: PTL6, PTL101
            s = \"\"\"text
            more\"\"\" + str(torch.cuda.amp.autocast())  # noqa: PTL101
            m = DDP(net,  # noqa: PTL301
                    find_unused_parameters=True)
            """))
        self.assertEqual(self.check(".")[0], 0)
        # Nothing left to add: the file stays as it is.
        before = self.read("a.py")
        self.assertIn("Added 0 noqa directives.", self.check("--add-noqa", ".")[2])
        self.assertEqual(self.read("a.py"), before)

    def test_add_noqa_skips_lines_inside_strings(self):
        source = 'import torch\nx = f"""{torch.cuda.amp.autocast(\n)}"""\n'
        self.write("a.py", source)
        code, _, err = self.check("--add-noqa", ".")
        self.assertEqual(code, 0)
        self.assertIn("cannot take a comment", err)
        self.assertEqual(self.read("a.py"), source)

    def test_add_noqa_never_inside_an_unterminated_string(self):
        # The file has a syntax error already: a parser's recovery must not be trusted to say
        # where strings end; the lines after an unclosed opening quote are string text.
        for opening in ("'''", '"""', "r'''", 'b"""', "f'''{x}", "rb'''"):
            source = "import torch\ns = " + opening + "\ntorch.cuda.amp.autocast()\nx = torch.cuda.amp.autocast()\n"
            self.write("a.py", source)
            self.check("--add-noqa", "--select", "PTL101", ".")
            self.assertEqual(self.read("a.py"), source, opening)

    def test_add_noqa_never_after_a_continuation_or_in_a_string(self):
        import ast
        cases = [
            "x = torch.cuda.amp.autocast() if True \\\n    else None\n",
            "x = (torch.cuda.amp.autocast() if True \\\n    else None)\n",
            "x = torch.cuda.amp.autocast(enabled='''\n''')\n",
            'x = torch.cuda.amp.autocast(enabled=rb"""\n""")\n',
            "x = f'''{f\"{torch.cuda.amp.autocast()!r:>{10}}\"} {{\n'''\n",
            "x = f'''{f\"{torch.cuda.amp.autocast()}\"}\n'''\n",
        ]
        for body in cases:
            source = "import torch\n" + body
            ast.parse(source)
            self.write("a.py", source)
            self.check("--add-noqa", "--select", "PTL101", ".")
            after = self.read("a.py")
            self.assertEqual(ast.dump(ast.parse(after)), ast.dump(ast.parse(source)), after)

    def test_clean(self):
        self.write("a.py", AMP_SOURCE)
        self.check("a.py")
        self.assertTrue(os.path.isdir(os.path.join(self.dir, ".ptlint_cache")))
        code, out, _ = run(["clean"], self.dir)
        self.assertEqual(code, 0)
        self.assertIn("Removing cache at:", out)
        self.assertFalse(os.path.exists(os.path.join(self.dir, ".ptlint_cache")))
        self.assertEqual(run(["clean"], self.dir)[0], 0)

    def test_default_output_on_a_terminal_is_full(self):
        import pty
        self.write("a.py", AMP_SOURCE)
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(self.dir)
            os.execv(PTLINT, [PTLINT, "check", "--no-cache", "a.py"])
        chunks = []
        while True:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        os.waitpid(pid, 0)
        out = b"".join(chunks).decode("utf-8", "replace")
        out = re.sub(r"\x1b\[[0-9;]*m", "", out)  # a terminal is coloured (test_terminal.Colour)
        self.assertIn("^", out)          # the source line with carets: `full`
        self.assertIn(" = help:", out)
        # Piped, the default stays concise.
        _, piped, _ = self.check("--no-cache", "a.py")
        self.assertNotIn(" = help:", piped)


def notebook(*sources):
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": src}
        for src in sources]})


class Watch(Workdir):
    """`check --watch`: a re-check per change that matters, never held off by a busy file,
    notebooks included; lost events (the watch limit, a queue overflow) said and answered with a
    full re-check; a removed root ends the watch with exit 2."""

    def watch(self, *args, cwd=None, preexec=None):
        import queue
        import threading
        proc = subprocess.Popen([PTLINT, "check", "--watch", "--no-cache", "--output-format", "concise", *args],
                                cwd=cwd or self.dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                preexec_fn=preexec)
        lines = queue.Queue()
        threading.Thread(target=lambda: [lines.put(l) for l in proc.stdout], daemon=True).start()
        self.addCleanup(self.stop, proc)
        return proc, lines

    @staticmethod
    def stop(proc):
        if proc.poll() is None:
            proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()

    def read_until(self, lines, marker, timeout=30):
        import queue
        import time
        seen, deadline = [], time.time() + timeout
        while time.time() < deadline:
            try:
                line = lines.get(timeout=0.2)
            except queue.Empty:
                continue
            seen.append(line)
            if marker in line:
                return "".join(seen)
        self.fail(f"no `{marker}` within {timeout}s; got {''.join(seen)!r}")

    def test_rechecks_on_change(self):
        import time
        self.write("pkg/ok.py", CLEAN_SOURCE)
        proc, lines = self.watch(".")
        first = self.read_until(lines, "Watching for file changes.")
        self.assertIn("Starting linter in watch mode", first)
        self.assertIn("All checks passed!", first)
        time.sleep(0.3)
        self.write("pkg/new/train.py", AMP_SOURCE)  # a new folder, then a file in it
        second = self.read_until(lines, "Watching for file changes.")
        self.assertIn("File change detected", second)
        if "PTL101" not in second:  # the folder was seen before its file was written
            second = self.read_until(lines, "Watching for file changes.")
        self.assertIn("train.py:3:6: PTL101", second)
        self.write("pkg/new/train.py", AMP_FIXED)
        third = self.read_until(lines, "Watching for file changes.")
        self.assertIn("All checks passed!", third)
        self.write("notes.txt", "not python\n")  # irrelevant: no re-check
        time.sleep(1.0)
        self.assertTrue(lines.empty())

    def test_a_busy_log_file_does_not_hold_rechecks_off(self):
        import threading
        import time
        self.write("a.py", CLEAN_SOURCE)
        proc, lines = self.watch(".")
        self.read_until(lines, "Watching for file changes.")
        stop = threading.Event()

        def log():  # a training run's log, written every 100 ms
            with open(os.path.join(self.dir, "train.log"), "a") as f:
                while not stop.is_set():
                    f.write("step\n")
                    f.flush()
                    time.sleep(0.1)
        writer = threading.Thread(target=log)
        writer.start()
        try:
            time.sleep(0.5)
            self.assertTrue(lines.empty(), "a .log file is not a reason to check again")
            self.write("a.py", AMP_SOURCE)
            self.assertIn("a.py:3:6: PTL101", self.read_until(lines, "Watching for file changes.", timeout=5))
        finally:
            stop.set()
            writer.join()

    def test_a_python_file_written_continuously_is_checked_within_the_bounded_wait(self):
        import threading
        import time
        self.write("a.py", CLEAN_SOURCE)
        proc, lines = self.watch(".")
        self.read_until(lines, "Watching for file changes.")
        stop = threading.Event()

        def generate():  # a generated module rewritten every 100 ms
            while not stop.is_set():
                self.write("generated.py", CLEAN_SOURCE)
                time.sleep(0.1)
        writer = threading.Thread(target=generate)
        writer.start()
        try:
            self.write("a.py", AMP_SOURCE)
            self.assertIn("a.py:3:6: PTL101", self.read_until(lines, "Watching for file changes.", timeout=5))
        finally:
            stop.set()
            writer.join()

    def test_notebook_edits_are_rechecked(self):
        self.write("n.ipynb", notebook("import torch\n", "x = 1\n"))
        proc, lines = self.watch(".")
        self.assertIn("All checks passed!", self.read_until(lines, "Watching for file changes."))
        self.write("n.ipynb", notebook("import torch\n", "with torch.cuda.amp.autocast():\n    pass\n"))
        self.assertIn("n.ipynb:cell 2:1:6: PTL101", self.read_until(lines, "Watching for file changes.", timeout=5))

    def test_permission_changes_are_rechecked(self):
        self.write("a.py", AMP_SOURCE)
        proc, lines = self.watch(".")
        self.read_until(lines, "Watching for file changes.")
        os.chmod(os.path.join(self.dir, "a.py"), 0o000)
        self.assertIn("File change detected", self.read_until(lines, "Watching for file changes.", timeout=5))

    def test_queue_overflow_is_said_and_everything_checked_again(self):
        import signal
        self.write("a.py", CLEAN_SOURCE)
        proc, lines = self.watch(".")
        self.read_until(lines, "Watching for file changes.")
        proc.send_signal(signal.SIGSTOP)  # not reading while more events land than the queue holds
        try:
            with open("/proc/sys/fs/inotify/max_queued_events") as f:
                limit = int(f.read())
            self.assertLess(limit, 200000, "the queue limit is too large to overflow in a test")
            for i in range(limit + 2000):
                with open(os.path.join(self.dir, "n%d.txt" % (i % 50)), "w") as f:
                    f.write("x")
            self.write("sub/b.py", AMP_SOURCE)  # a folder and a file whose events may be lost
        finally:
            proc.send_signal(signal.SIGCONT)
        out = self.read_until(lines, "Watching for file changes.", timeout=10)
        self.assertIn("overflowed", out)
        self.assertIn("fs.inotify.max_queued_events", out)
        self.assertIn("b.py:3:6: PTL101", out)
        self.write("sub/b.py", AMP_FIXED)  # sub/ is watched: it came while events were lost
        self.assertIn("All checks passed!", self.read_until(lines, "Watching for file changes.", timeout=5))

    def test_the_watch_limit_is_named(self):
        import shutil as sh
        if not sh.which("unshare") or subprocess.run(["unshare", "-Ur", "true"], capture_output=True).returncode != 0:
            self.skipTest("needs a user namespace to lower the inotify watch limit")
        for i in range(20):
            self.write("d%02d/m.py" % i, CLEAN_SOURCE)
        # The limit is lowered to 5 inside a user namespace: the host's setting is not touched.
        proc = subprocess.Popen(
            ["unshare", "-Ur", "sh", "-c", "echo 5 > /proc/sys/user/max_inotify_watches && exec \"$0\" \"$@\"",
             PTLINT, "check", "--watch", "--no-cache", "--output-format", "concise", "."],
            cwd=self.dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        import queue
        import threading
        lines = queue.Queue()
        threading.Thread(target=lambda: [lines.put(l) for l in proc.stdout], daemon=True).start()
        self.addCleanup(self.stop, proc)
        out = self.read_until(lines, "Watching for file changes.")
        self.assertIn("16 folders are not watched", out)
        self.assertIn("fs.inotify.max_user_watches", out)
        # Those folders are polled instead: an edit there is seen, later.
        self.write("d19/m.py", AMP_SOURCE)
        self.assertIn("m.py:3:6: PTL101", self.read_until(lines, "Watching for file changes.", timeout=10))

    def test_removed_root_ends_the_watch(self):
        import time
        root = os.path.join(self.dir, "proj")
        self.write("proj/a.py", AMP_SOURCE)
        for cwd, arg in ((root, "."), (self.dir, "proj")):
            with self.subTest(cwd=cwd, arg=arg):
                self.write("proj/a.py", AMP_SOURCE)
                proc, lines = self.watch(arg, cwd=cwd)
                self.read_until(lines, "Watching for file changes.")
                shutil.rmtree(root)
                try:
                    code = proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.fail("the watcher kept running with its folder removed")
                out = self.read_until(lines, "was removed")
                self.assertEqual(code, 2)
                self.assertIn(root, out)
                self.assertNotIn("All checks passed!", out.split("Watching for file changes.")[-1])
                time.sleep(0.1)

    def test_refuses_incompatible_modes(self):
        code, _, err = self.check("--watch", "--diff", ".")
        self.assertEqual(code, 2)
        self.assertIn("--watch", err)


class DoctorWithoutWorker(Workdir):
    """`ptlint doctor` where no `ptlint-gpu` is installed says what to install."""

    def doctor(self, folder):
        binary = os.path.join(folder, "ptlint")
        shutil.copy2(os.path.realpath(PTLINT), binary)
        env = {k: v for k, v in os.environ.items() if k != "PTLINT_GPU"}
        env["PATH"] = "/usr/bin:/bin"
        proc = subprocess.run([binary, "doctor", "--json"], cwd=self.dir, env=env, capture_output=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        gpu = json.loads(proc.stdout)["gpu_check"]
        self.assertFalse(gpu["available"])
        return gpu["error"]

    def test_installed_binary_suggests_the_package(self):
        os.makedirs(os.path.join(self.dir, "usr/bin"))
        error = self.doctor(os.path.join(self.dir, "usr/bin"))
        self.assertIn("install the `ptlint-gpu` package", error)
        self.assertNotIn("PTLINT_WITH_TORCH", error)

    def test_source_build_names_the_cmake_option(self):
        self.write("build/CMakeCache.txt", "# a build folder\n")
        error = self.doctor(os.path.join(self.dir, "build"))
        self.assertIn("-DPTLINT_WITH_TORCH=ON", error)
        self.assertNotIn("package", error)


class DoctorPythonEnvironment(Workdir):
    """`ptlint doctor` reports the torch of the user's Python environment from its files: the
    project's .venv, $VIRTUAL_ENV, $CONDA_PREFIX, then the python3 on PATH."""
    TORCH_SOURCES = "/var/cache/torch-sources"

    def make_env(self, prefix, version_py, extra=()):
        site = os.path.join(self.dir, prefix, "lib", "python3.11", "site-packages")
        self.write(os.path.join(site, "torch", "__init__.py"), "")
        if version_py is not None:
            self.write(os.path.join(site, "torch", "version.py"), version_py)
        for name in extra:
            os.makedirs(os.path.join(site, name))
        self.write(os.path.join(prefix, "pyvenv.cfg"), "home = /usr/bin\n")
        return os.path.join(self.dir, prefix)

    def doctor(self, *args, cwd=None, **env_vars):
        env = {"PATH": "/nonexistent", "PTLINT_GPU": "", "HOME": self.dir}
        env.update(env_vars)
        proc = subprocess.run([PTLINT, "doctor", *args], cwd=cwd or self.dir, env=env, capture_output=True,
                              text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return json.loads(proc.stdout)["python"] if args == ("--json",) else proc.stdout

    CUDA_VERSION_PY = ("from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda']\n"
                       "__version__ = '2.6.0+cu124'\ndebug = False\ncuda: Optional[str] = '12.4'\n"
                       "git_version = '2236df1770800ffea5697b11b0bb0d910b2e59e1'\nhip: Optional[str] = None\n")

    def test_virtual_env_cuda_wheel(self):
        env = self.make_env("venv1", self.CUDA_VERSION_PY, ["nvidia_cudnn_cu12-9.1.0.70.dist-info"])
        torch = self.doctor("--json", VIRTUAL_ENV=env)["torch"]
        self.assertEqual(torch["version"], "2.6.0+cu124")
        self.assertEqual(torch["cuda"], "12.4")
        self.assertIsNone(torch["hip"])
        self.assertEqual(torch["cudnn"], "9.1.0.70")
        self.assertEqual(torch["found_by"], "VIRTUAL_ENV")
        text = self.doctor(VIRTUAL_ENV=env)
        self.assertIn("Python environment: torch 2.6.0+cu124 (CUDA 12.4 build, cuDNN 9.1.0.70)", text)

    def test_project_venv_comes_first(self):
        other = self.make_env("elsewhere", self.CUDA_VERSION_PY)
        self.make_env("proj/.venv", "__version__ = '2.4.1'\ncuda = None\n")
        os.makedirs(os.path.join(self.dir, "proj", "src"))
        torch = self.doctor("--json", cwd=os.path.join(self.dir, "proj", "src"), VIRTUAL_ENV=other)["torch"]
        self.assertEqual((torch["version"], torch["cuda"], torch["found_by"]), ("2.4.1", None, "project .venv"))

    def test_conda_cudnn_record(self):
        env = self.make_env("conda", self.CUDA_VERSION_PY)
        self.write("conda/conda-meta/cudnn-8.9.2.26-cuda12_0.json", "{}")
        torch = self.doctor("--json", CONDA_PREFIX=env)["torch"]
        self.assertEqual((torch["cudnn"], torch["found_by"]), ("8.9.2.26", "CONDA_PREFIX"))

    def test_version_from_dist_info_when_version_py_is_missing(self):
        env = self.make_env("bare", None, ["torch-2.5.1.dist-info"])
        self.assertEqual(self.doctor("--json", VIRTUAL_ENV=env)["torch"]["version"], "2.5.1")

    def test_real_version_files_of_three_releases(self):
        # torch/version.py as PyTorch 1.13, 2.6 and 2.14.1 ship it (Debian's builds: CPU only).
        wanted = {"bookworm": "1.13.0a0", "trixie": "2.6.0+debian", "sid": "2.14.1+debian"}
        for suite, version in wanted.items():
            path = os.path.join(self.TORCH_SOURCES, suite, "python", "torch", "version.py")
            if not os.path.exists(path):
                self.skipTest(f"{path} is not unpacked here")
            with open(path, encoding="utf-8") as f:
                env = self.make_env("rel-" + suite, f.read())
            torch = self.doctor("--json", VIRTUAL_ENV=env)["torch"]
            self.assertEqual((torch["version"], torch["cuda"], torch["hip"]), (version, None, None), suite)

    def test_python3_on_path_debian_packages(self):
        if not os.path.exists("/usr/lib/python3/dist-packages/torch/version.py"):
            self.skipTest("Debian's python3-torch is not installed")
        torch = self.doctor("--json", PATH="/usr/bin:/bin")["torch"]
        self.assertEqual(torch["location"], "/usr/lib/python3/dist-packages/torch")
        self.assertTrue(torch["found_by"].startswith("python3 on PATH"), torch)
        self.assertTrue(torch["version"].startswith("1.13"), torch)

    def test_nothing_found_says_where_it_looked(self):
        env = os.path.join(self.dir, "empty-env")
        os.makedirs(env)
        python = self.doctor("--json", VIRTUAL_ENV=env)
        self.assertIsNone(python["torch"])
        self.assertIn("VIRTUAL_ENV: " + env, python["searched"])
        self.assertIn("Python environment: no torch found", self.doctor(VIRTUAL_ENV=env))


if __name__ == "__main__":
    unittest.main()
