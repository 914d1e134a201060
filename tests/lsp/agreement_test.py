"""The front ends agree: on every fixture file (tests/fixtures, each in a folder of its own with a
ptlint.toml holding its `# ptlint-test:` options) and every fixture project (tests/projects),
`ptlint check`, the server driven over stdio and `--add-noqa` give the same answer:

- findings: the CLI's JSON, the server's published diagnostics, its pulled diagnostics of the
  files before they are opened, and `workspace/diagnostic` (code, byte range, message);
- fixes offered: the CLI's `fix`, the diagnostic's `data.fix` and the quickfix code actions (safe
  and unsafe ones: the editor offers an unsafe fix as a labelled quick fix, as Ruff's server does);
- the text after fix-all equals the file after `ptlint check --fix --no-unsafe-fixes` (fix-all
  applies unsafe fixes only when the editor's `unsafeFixes` setting asks, which this test does
  not set);
- `--add-noqa` comments exactly the findings `check` reports: afterwards `check` (with PTL001,
  unused-noqa) reports nothing but syntax errors and the findings on lines that cannot take a
  comment.

`size_limit`: a file over the size limit is refused by the CLI with a message and given one note
(no findings) by the server, opened, pulled or in the workspace pass.

usage: agreement_test.py PTLINT fixtures|projects|size_limit
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import LspClient  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures")
PROJECTS = os.path.join(HERE, "..", "projects")
FAILURES = []


def fail(what):
    FAILURES.append(what)
    print("FAIL " + what, flush=True)


# --- Positions ---------------------------------------------------------------------------------

def line_starts(data):
    """Byte offsets of the line starts of `data` (lines end at \\r\\n, \\n or a lone \\r)."""
    starts, i = [0], 0
    while i < len(data):
        if data[i:i + 2] == b"\r\n":
            i += 2
            starts.append(i)
            continue
        if data[i:i + 1] in (b"\n", b"\r"):
            starts.append(i + 1)
        i += 1
    return starts


def offset_cli(data, starts, row, column):
    """Byte offset of the CLI's 1-based row and code-point column."""
    begin = starts[row - 1]
    end = starts[row] if row < len(starts) else len(data)
    line = data[begin:end].decode("utf-8")
    return begin + len(line[:column - 1].encode("utf-8"))


def offset_lsp(starts, position):
    """Byte offset of an LSP position in the utf-8 encoding."""
    return starts[position["line"]] + position["character"]


# --- The CLI -----------------------------------------------------------------------------------

def run(ptlint, args, cwd):
    return subprocess.run([ptlint] + args, cwd=cwd, capture_output=True, timeout=600)


def cli_findings(ptlint, root, extra=()):
    """{relative path: [finding]} of `check` over `root`, with byte offsets."""
    proc = run(ptlint, ["check", "--no-cache", "--output-format", "json", *extra, "."], root)
    if proc.returncode not in (0, 1):
        fail("check %s: exit %d: %s" % (root, proc.returncode, proc.stderr.decode(errors="replace")))
    out = {}
    for d in json.loads(proc.stdout or b"[]"):
        rel = os.path.relpath(d["filename"], root)
        data = open(os.path.join(root, rel), "rb").read()
        starts = line_starts(data)
        at = lambda loc: offset_cli(data, starts, loc["row"], loc["column"])  # noqa: E731
        fix = None
        if d["fix"]:
            fix = (d["fix"]["applicability"],
                   tuple(sorted((at(e["location"]), at(e["end_location"]), e["content"]) for e in d["fix"]["edits"])))
        out.setdefault(rel, []).append({"code": d["code"], "start": at(d["location"]), "end": at(d["end_location"]),
                                        "message": d["message"], "fix": fix})
    return out


def key(finding):
    return (finding["start"], finding["end"], finding["code"], finding["message"])


# --- The server --------------------------------------------------------------------------------

class Server:
    def __init__(self, ptlint, root):
        self.root = root
        self.client = LspClient([ptlint, "--lsp"], cwd=root)
        self.client.initialize("file://" + root, {"general": {"positionEncodings": ["utf-8"]},
                                                  "workspace": {"workspaceFolders": True}},
                               folders=[{"uri": "file://" + root, "name": "root"}])
        self.latest = {}

    def uri(self, rel):
        return "file://" + os.path.join(self.root, rel)

    def findings(self, rel, diagnostics):
        data = open(os.path.join(self.root, rel), "rb").read()
        starts = line_starts(data)
        out = []
        for d in diagnostics:
            fix = None
            if d.get("data", {}).get("fix"):
                f = d["data"]["fix"]
                fix = (f["applicability"], tuple(sorted((offset_lsp(starts, e["range"]["start"]),
                                                         offset_lsp(starts, e["range"]["end"]), e["newText"])
                                                        for e in f["edits"])))
            out.append({"code": d.get("code", ""), "start": offset_lsp(starts, d["range"]["start"]),
                        "end": offset_lsp(starts, d["range"]["end"]), "message": d["message"], "fix": fix})
        return out

    def pull(self, rel):
        reply = self.client.call("textDocument/diagnostic", {"textDocument": {"uri": self.uri(rel)}}, timeout=120)
        if "result" not in reply:
            fail("pull %s: %s" % (rel, reply))
            return []
        return self.findings(rel, reply["result"]["items"])

    def workspace(self):
        reply = self.client.call("workspace/diagnostic", {"previousResultIds": []}, timeout=300)
        out = {}
        for item in reply.get("result", {}).get("items", []):
            rel = os.path.relpath(item["uri"][len("file://"):], self.root)
            out[rel] = self.findings(rel, item["items"])
        return out

    def open(self, rel):
        text = open(os.path.join(self.root, rel), "rb").read().decode("utf-8")
        self.client.notify("textDocument/didOpen", {"textDocument": {"uri": self.uri(rel), "languageId": "python",
                                                                     "version": 1, "text": text}})

    def settle(self, rels, quiet=1.5, patience=120):
        """The last diagnostics published for each of `rels`, once publications stop."""
        pending = set(self.uri(r) for r in rels)
        waited = 0
        while True:
            waited += quiet
            self.client.drain(quiet)
            fresh = False
            for _, m in self.client.backlog:
                if m.get("method") == "textDocument/publishDiagnostics":
                    self.latest[m["params"]["uri"]] = m["params"]["diagnostics"]
                    pending.discard(m["params"]["uri"])
                    fresh = True
            self.client.backlog.clear()
            if not fresh and not pending:
                return
            if not fresh and pending and waited >= patience:
                fail("no diagnostics published for %s" % sorted(pending))
                return

    def quickfixes(self, rel, diagnostics):
        """Per published diagnostic: the titles of its fix actions (not 'Disable for this line')."""
        end = {"line": 10 ** 6, "character": 0}
        reply = self.client.call("textDocument/codeAction", {
            "textDocument": {"uri": self.uri(rel)}, "range": {"start": {"line": 0, "character": 0}, "end": end},
            "context": {"diagnostics": diagnostics, "only": ["quickfix"]}}, timeout=120)
        fixed = []
        for action in reply.get("result") or []:
            if action["title"].endswith("Disable for this line"):
                continue
            for d in action.get("diagnostics", []):
                fixed.append((d["range"]["start"]["line"], d["range"]["start"]["character"], d.get("code")))
        return sorted(fixed)

    def fix_all(self, rel):
        reply = self.client.call("textDocument/codeAction", {
            "textDocument": {"uri": self.uri(rel)},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": [], "only": ["source.fixAll"]}}, timeout=300)
        data = open(os.path.join(self.root, rel), "rb").read()
        starts = line_starts(data)
        for action in reply.get("result") or []:
            edit = action["edit"]
            edits = edit["changes"][self.uri(rel)] if "changes" in edit else edit["documentChanges"][0]["edits"]
            spans = sorted(((offset_lsp(starts, e["range"]["start"]), offset_lsp(starts, e["range"]["end"]),
                             e["newText"]) for e in edits), reverse=True)
            for begin, end, new in spans:
                data = data[:begin] + new.encode("utf-8") + data[end:]
        return data

    def close(self):
        self.client.call("shutdown", None)
        self.client.notify("exit")
        self.client.wait_exit()


# --- The comparison ----------------------------------------------------------------------------

def same(what, rel, cli, other):
    a, b = sorted(cli, key=key), sorted(other, key=key)
    if [(key(f), f["fix"]) for f in a] != [(key(f), f["fix"]) for f in b]:
        only_cli = [(key(f), f["fix"]) for f in a if (key(f), f["fix"]) not in [(key(g), g["fix"]) for g in b]]
        only_other = [(key(f), f["fix"]) for f in b if (key(f), f["fix"]) not in [(key(g), g["fix"]) for g in a]]
        fail("%s %s: the CLI alone: %s; %s alone: %s" % (what, rel, only_cli, what, only_other))


def sources(root):
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        out += [os.path.relpath(os.path.join(folder, f), root) for f in sorted(files) if f.endswith((".py", ".pyi"))]
    return out


def agree(ptlint, root):
    rels = sources(root)
    cli = cli_findings(ptlint, root)

    # --fix on a copy; --add-noqa on another.
    fixed_root, noqa_root = root + ".fixed", root + ".noqa"
    for copy in (fixed_root, noqa_root):
        shutil.copytree(root, copy)
    run(ptlint, ["check", "--no-cache", "--fix", "--no-unsafe-fixes", "."], fixed_root)
    proc = run(ptlint, ["check", "--no-cache", "--add-noqa", "."], noqa_root)
    skipped = sum(int(n) for n in re.findall(rb": (\d+) findings? on lines that cannot take a comment", proc.stderr))
    after = cli_findings(ptlint, noqa_root, ["--extend-select", "PTL001"])
    unused = [(rel, f["code"], f["message"]) for rel, fs in after.items() for f in fs if f["code"] == "PTL001"]
    if unused:
        fail("--add-noqa wrote comments `check` reports as unused: %s" % unused)
    # Syntax errors are not suppressed by comments (as in Ruff): `--add-noqa` leaves them.
    left = sum(1 for fs in after.values() for f in fs if f["code"] not in ("PTL001", "PTL000"))
    if left != skipped:
        fail("--add-noqa left %d findings, %d of them on lines that cannot take a comment: %s" % (left, skipped, after))

    server = Server(ptlint, root)
    try:
        # Files not open: pulled from disk, and the workspace pass.
        for rel in rels:
            same("pulled (not open)", rel, cli.get(rel, []), server.pull(rel))
        workspace = server.workspace()
        for rel in rels:
            same("workspace/diagnostic", rel, cli.get(rel, []), workspace.get(rel, []))
        for rel in rels:
            server.open(rel)
        server.settle(rels)
        for rel in rels:
            published = server.latest.get(server.uri(rel), [])
            same("published", rel, cli.get(rel, []), server.findings(rel, published))
            same("pulled (open)", rel, cli.get(rel, []), server.pull(rel))
            # Fixes offered: a fix action for exactly the findings whose fix applies.
            data = open(os.path.join(root, rel), "rb").read()
            starts = line_starts(data)
            offered = []
            for f in cli.get(rel, []):
                if f["fix"] and f["fix"][0] in ("safe", "unsafe"):
                    line = max(i for i, s in enumerate(starts) if s <= f["start"])
                    offered.append((line, f["start"] - starts[line], f["code"]))
            if published and server.quickfixes(rel, published) != sorted(offered):
                fail("quick fixes %s: the server offers %s, the CLI %s" % (
                    rel, server.quickfixes(rel, published), sorted(offered)))
            # Fix-all: the text `check --fix` writes.
            expected = open(os.path.join(fixed_root, rel), "rb").read()
            got = server.fix_all(rel)
            if got != expected:
                fail("fix-all %s differs from check --fix:\n%s\n---\n%s" % (
                    rel, got.decode(errors="replace"), expected.decode(errors="replace")))
    finally:
        server.close()


def fixture_config(path):
    """A fixture's `# ptlint-test:` options as a ptlint.toml."""
    stem = os.path.basename(path)[:-3]
    select = [stem.split("_")[0]]
    lines = []
    for line in open(path, encoding="utf-8"):
        if "# ptlint-test:" not in line:
            continue
        for opt in line.split("# ptlint-test:")[1].split():
            if opt.startswith("select="):
                select = opt[7:].split(",")
            elif opt.startswith("torch-version="):
                lines.append('torch-version = "%s"' % opt[14:])
            elif opt == "unsafe-fixes":
                lines.append("unsafe-fixes = true")
            elif opt.startswith("compile-decorators="):
                lines.append("compile-decorators = %s" % json.dumps(opt[19:].split(",")))
    return "select = %s\n" % json.dumps(select) + "".join(l + "\n" for l in lines)


def case_fixtures(ptlint, tmp):
    root = os.path.join(tmp, "fixtures")
    os.mkdir(root)
    for name in sorted(os.listdir(FIXTURES)):
        if not name.endswith(".py"):
            continue
        folder = os.path.join(root, name[:-3])
        os.mkdir(folder)
        shutil.copy(os.path.join(FIXTURES, name), folder)
        with open(os.path.join(folder, "ptlint.toml"), "w") as f:
            f.write(fixture_config(os.path.join(FIXTURES, name)))
    agree(ptlint, root)


def case_projects(ptlint, tmp):
    for name in sorted(os.listdir(PROJECTS)):
        root = os.path.join(tmp, name)
        shutil.copytree(os.path.join(PROJECTS, name), root)
        agree(ptlint, root)


def case_size_limit(ptlint, tmp):
    root = os.path.join(tmp, "big")
    os.mkdir(root)
    line = "x = torch.cuda.amp.autocast()  # " + "y" * 60 + "\n"
    text = "import torch\n" + line * (18 * 1024 * 1024 // len(line))
    with open(os.path.join(root, "big.py"), "w") as f:
        f.write(text)
    proc = run(ptlint, ["check", "--no-cache", "."], root)
    if proc.returncode != 2 or b"big.py: skipped: too large" not in proc.stderr:
        fail("check of an 18 MB file: exit %d, %s" % (proc.returncode, proc.stderr[:300]))
    server = Server(ptlint, root)
    try:
        def is_note(diagnostics):
            return len(diagnostics) == 1 and diagnostics[0]["message"].startswith("skipped: too large") and \
                "code" not in diagnostics[0]
        pulled = server.client.call("textDocument/diagnostic", {"textDocument": {"uri": server.uri("big.py")}},
                                    timeout=120)
        if not is_note(pulled.get("result", {}).get("items", [])):
            fail("pull of an 18 MB file not open: %s" % str(pulled)[:300])
        workspace = server.client.call("workspace/diagnostic", {"previousResultIds": []}, timeout=300)
        items = workspace.get("result", {}).get("items", [])
        if len(items) != 1 or not is_note(items[0]["items"]):
            fail("workspace/diagnostic of an 18 MB file: %s" % str(workspace)[:300])
        server.open("big.py")
        server.settle(["big.py"])
        if not is_note(server.latest.get(server.uri("big.py"), [])):
            fail("an open 18 MB file: %s" % str(server.latest.get(server.uri("big.py")))[:300])
        if server.fix_all("big.py") != text.encode():
            fail("fix-all changed an 18 MB file the CLI does not check")
    finally:
        server.close()


def main():
    ptlint, case = os.path.abspath(sys.argv[1]), sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="ptlint-agree-")
    try:
        globals()["case_" + case](ptlint, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if FAILURES:
        print("%d disagreement(s)" % len(FAILURES))
        sys.exit(1)
    print("OK " + case)


if __name__ == "__main__":
    main()
