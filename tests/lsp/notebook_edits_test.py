"""Edits the server offers must change what they mean to change and nothing else, on notebooks
and Python files: fix-all and quick fixes never rewrite an IPython magic, fix-all covers every
cell, "Disable for this line" never lands inside a string or after a `\\` continuation, the
configuration's `fixable` / `unfixable` hold, and notebook sync refuses bad indices and stale
versions and clears removed cells. One case per run: notebook_edits_test.py PTLINT CASE."""
import ast
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import LspClient  # noqa: E402

FIX_ALL = {"only": ["source.fixAll"], "diagnostics": []}
ORIGIN = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}


def expect(condition, what):
    if not condition:
        raise AssertionError(what)


def offset(text, position):
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[:position["line"]]) + position["character"]


def apply_edits(text, edits):
    for e in sorted(edits, key=lambda e: offset(text, e["range"]["start"]), reverse=True):
        text = text[:offset(text, e["range"]["start"])] + e["newText"] + text[offset(text, e["range"]["end"]):]
    return text


def edits_by_uri(action):
    edit = action["edit"]
    if "documentChanges" in edit:
        return {c["textDocument"]["uri"]: c["edits"] for c in edit["documentChanges"]}
    return edit["changes"]


class Session:
    def __init__(self, ptlint, root, capabilities=None):
        self.root = root
        self.client = LspClient([ptlint, "--lsp"], cwd=root, stderr_path=os.path.join(root, "stderr.log"))
        self.client.initialize("file://" + root, capabilities or {"textDocument": {"codeAction": {
            "codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix", "source"]}}}}})

    def open_notebook(self, name, texts, version=1):
        nb = "file://%s/%s" % (self.root, name)
        cells = ["vscode-notebook-cell://%s/%s#c%d" % (self.root, name, k) for k in range(len(texts))]
        self.client.notify("notebookDocument/didOpen", {
            "notebookDocument": {"uri": nb, "notebookType": "jupyter-notebook", "version": version,
                                 "cells": [{"kind": 2, "document": c} for c in cells]},
            "cellTextDocuments": [{"uri": c, "languageId": "python", "version": 1, "text": t}
                                  for c, t in zip(cells, texts)]})
        return nb, cells

    def published(self, uri, predicate=lambda d: True, timeout=30):
        return self.client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                and m["params"]["uri"] == uri and predicate(m["params"]["diagnostics"]),
                                timeout)["params"]["diagnostics"]

    def actions(self, uri, range_=ORIGIN, context=None):
        reply = self.client.call("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": range_, "context": context or {"diagnostics": []}})
        expect("result" in reply, reply)
        return reply["result"] or []

    def close(self):
        self.client.call("shutdown")
        self.client.notify("exit")
        expect(self.client.wait_exit(10) == 0, "exit code")
        self.client.kill()


# Magic lines between fixable ones: a fix-all edit must go around them.
MAGIC_CELLS = [
    "import torch\n",
    "with torch.cuda.amp.autocast():\n    pass\n%matplotlib inline\nscaler = torch.cuda.amp.GradScaler()\n",
    "a = torch.cuda.amp.GradScaler()\n!pip install apex\nb = torch.cuda.amp.GradScaler()\n",
    "files = !ls\nc = torch.cuda.amp.GradScaler()\ntorch.cuda.amp.GradScaler?\nd = torch.cuda.amp.GradScaler()\n",
    "%%time\ne = torch.cuda.amp.GradScaler()\n",
    "if True:\n    pass\nif False:\n    %pdb\nf = torch.cuda.amp.GradScaler()\n",
]
MAGICS = ["%matplotlib inline", "!pip install apex", "files = !ls", "torch.cuda.amp.GradScaler?", "%%time", "    %pdb"]


def case_fix_all_keeps_magics(session):
    # One cell with findings around a magic: the fix-all edit goes around it.
    for k in range(1, len(MAGIC_CELLS)):
        nb, cells = session.open_notebook("one%d.ipynb" % k, ["import torch\n", MAGIC_CELLS[k]])
        session.published(cells[1], lambda d: len(d) >= 1)
        actions = [a for a in session.actions(cells[1], context=FIX_ALL) if a["kind"].startswith("source.fixAll")]
        expect(len(actions) == 1, (k, actions))
        after = apply_edits(MAGIC_CELLS[k], edits_by_uri(actions[0])[cells[1]])
        magic = [m for m in MAGICS if m in MAGIC_CELLS[k].split("\n")][0]
        expect(after.split("\n").count(magic) == 1 and "GradScaler(\"cuda\")" in after, (k, after))
        expect(after.replace('torch.amp.GradScaler("cuda")', "torch.cuda.amp.GradScaler()").replace(
            'torch.amp.autocast("cuda")', "torch.cuda.amp.autocast()") == MAGIC_CELLS[k], (k, after))
    # All of them in one notebook.
    nb, cells = session.open_notebook("magic.ipynb", MAGIC_CELLS)
    session.published(cells[1], lambda d: len(d) == 2)
    texts = list(MAGIC_CELLS)
    for k in range(1, len(cells)):
        actions = [a for a in session.actions(cells[k], context=FIX_ALL) if a["kind"].startswith("source.fixAll")]
        expect(len(actions) == 1, (k, actions))
        changes = edits_by_uri(actions[0])
        expect(set(changes) <= set(cells), changes)
        after = [apply_edits(t, changes.get(c, [])) for c, t in zip(cells, texts)]
        for magic in MAGICS:
            expect(sum(t.split("\n").count(magic) for t in after) == 1, (magic, after))
        # The `pass` lines stay where they were, and the `%pdb` under `if False:`.
        expect("if False:\n    %pdb\n" in after[5] and "if True:\n    pass\n" in after[5], after[5])
        expect(not any("cuda.amp" in line for t in after for line in t.split("\n") if line not in MAGICS), after)
        # A quick fix offered on a line next to a magic does not touch it either.
        for line, text in enumerate(MAGIC_CELLS[k].split("\n")):
            if "GradScaler()" not in text:
                continue
            position = {"line": line, "character": text.index("GradScaler")}
            for action in session.actions(cells[k], {"start": position, "end": position}):
                for uri, edits in edits_by_uri(action).items():
                    changed = apply_edits(MAGIC_CELLS[cells.index(uri)], edits)
                    for magic in MAGICS:
                        expect(MAGIC_CELLS[cells.index(uri)].count(magic) == changed.count(magic), (action, changed))


def case_fix_all_spans_cells(session):
    nb, cells = session.open_notebook("cells.ipynb", [
        "import torch\n", "x = torch.cuda.amp.autocast()\n", "y = torch.cuda.amp.autocast()\n"])
    session.published(cells[2], lambda d: len(d) == 1)
    actions = [a for a in session.actions(cells[1], context=FIX_ALL) if a["kind"].startswith("source.fixAll")]
    expect(len(actions) == 1, actions)
    changes = edits_by_uri(actions[0])
    expect(set(changes) == {cells[1], cells[2]}, changes)
    expect(apply_edits("y = torch.cuda.amp.autocast()\n", changes[cells[2]]) == 'y = torch.amp.autocast("cuda")\n', changes)


def case_notebook_fix_all(session):
    # VS Code's `notebook.codeActionsOnSave` asks a cell for `notebook.source.fixAll`: the answer
    # has that kind and fixes every cell; a plain `source.fixAll` request keeps its own kind.
    nb, cells = session.open_notebook("save.ipynb", [
        "import torch\n", "x = torch.cuda.amp.autocast()\n", "y = torch.cuda.amp.autocast()\n"])
    session.published(cells[2], lambda d: len(d) == 1)
    actions = session.actions(cells[0], context={"diagnostics": [], "only": ["notebook.source.fixAll"]})
    expect([a["kind"] for a in actions] == ["notebook.source.fixAll.ptlint"], actions)
    changes = edits_by_uri(actions[0])
    expect(set(changes) == {cells[1], cells[2]}, changes)
    expect(apply_edits("x = torch.cuda.amp.autocast()\n", changes[cells[1]]) == 'x = torch.amp.autocast("cuda")\n', changes)
    plain = session.actions(cells[0], context=FIX_ALL)
    expect([a["kind"] for a in plain] == ["source.fixAll.ptlint"], plain)
    # A plain Python file is no notebook: nothing for the notebook kind.
    uri = "file://%s/plain.py" % session.root
    session.client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": "import torch\nx = torch.cuda.amp.autocast()\n"}})
    session.published(uri, lambda d: len(d) == 1)
    none = session.actions(uri, context={"diagnostics": [], "only": ["notebook.source.fixAll"]})
    expect(none == [], none)


def case_disable_for_line(session):
    cases = {
        "triple_double": 'ctx = torch.cuda.amp.autocast(enabled="""\n""")\n',
        "triple_single": "ctx = torch.cuda.amp.autocast(enabled='''\n''')\n",
        "raw_triple": 'ctx = torch.cuda.amp.autocast(enabled=r"""\\\n""")\n',
        "bytes_triple": "ctx = torch.cuda.amp.autocast(enabled=b'''\n''')\n",
        "fstring": 'msg = f"""{torch.cuda.amp.autocast()}\n"""\n',
        "fstring_nested": "msg = f'''{f\"{torch.cuda.amp.autocast()!r:>{10}}\"} {{\n'''\n",
        "backslash": "ctx = torch.cuda.amp.autocast() if True \\\n    else None\n",
        "backslash_in_brackets": "ctx = (torch.cuda.amp.autocast() if True \\\n    else None)\n",
    }
    plain = "ctx = torch.cuda.amp.autocast()\n"
    for name, body in list(cases.items()) + [("plain", plain)]:
        text = "import torch\n" + body
        uri = "file://%s/%s.py" % (session.root, name)
        ast.parse(text)  # each case is valid Python
        session.client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": text}})
        diagnostic = session.published(uri, lambda d: any(x["code"] == "PTL101" for x in d))
        diagnostic = [d for d in diagnostic if d["code"] == "PTL101"][0]
        actions = [a for a in session.actions(uri, diagnostic["range"], {"diagnostics": [diagnostic]})
                   if a["title"].endswith("Disable for this line")]
        if name == "plain":
            expect(len(actions) == 1, actions)
        for action in actions:
            after = apply_edits(text, edits_by_uri(action)[uri])
            # The program is the same: the comment is a comment.
            try:
                same = ast.dump(ast.parse(after)) == ast.dump(ast.parse(text))
            except SyntaxError:
                same = False
            expect(same and "# noqa: PTL101" in after, (name, after))


def case_unfixable(session):
    with open(os.path.join(session.root, "pyproject.toml"), "w") as f:
        f.write('[tool.ptlint]\nunfixable = ["PTL101"]\n')
    uri = "file://%s/a.py" % session.root
    text = "import torch\nctx = torch.cuda.amp.autocast()\n"
    session.client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
    diagnostic = session.published(uri, lambda d: len(d) == 1)[0]
    actions = session.actions(uri, diagnostic["range"], {"diagnostics": [diagnostic]})
    expect([a["title"] for a in actions] == ["PTL101: Disable for this line"], actions)
    expect(session.actions(uri, context=FIX_ALL) == [], "fix-all applied an unfixable code")


def case_notebook_sync(session):
    nb, cells = session.open_notebook("sync.ipynb", [
        "import torch\n", "a = torch.cuda.amp.autocast()\n", "b = torch.cuda.amp.autocast()\n"], version=1)
    session.published(cells[2], lambda d: len(d) == 1)

    def change(version, cells_change):
        session.client.notify("notebookDocument/didChange", {"notebookDocument": {"uri": nb, "version": version},
                                                             "change": {"cells": cells_change}})

    # Indices past the end (2**32 would wrap to 0 as an int) are refused: no cell goes away.
    for array in ({"start": 2 ** 32, "deleteCount": 1}, {"start": 0, "deleteCount": 2 ** 32 + 1},
                  {"start": -1, "deleteCount": 1}, {"start": 2 ** 64 - 1, "deleteCount": 1}):
        change(2, {"structure": {"array": array}})
    # A later change proves the cells are all there: cell 0's import still serves cells 1 and 2.
    change(3, {"textContent": [{"document": {"uri": cells[2], "version": 2}, "changes": [{"text": "b = torch.cuda.amp.autocast()\nc = 1\n"}]}]})
    session.published(cells[2], lambda d: len(d) == 1)
    fix_all = [a for a in session.actions(cells[1], context=FIX_ALL) if a["kind"].startswith("source.fixAll")]
    expect(fix_all and set(edits_by_uri(fix_all[0])) == {cells[1], cells[2]}, fix_all)

    # A stale notebook version is not applied (cell 1 keeps its finding).
    change(9, {"textContent": [{"document": {"uri": cells[0], "version": 3}, "changes": [{"text": "import torch  # v9\n"}]}]})
    session.client.drain(0.5)
    change(4, {"textContent": [{"document": {"uri": cells[1], "version": 4}, "changes": [{"text": "a = 1\n"}]}]})
    session.client.drain(1.0)
    session.client.backlog.clear()
    change(10, {"textContent": [{"document": {"uri": cells[0], "version": 5}, "changes": [{"text": "import torch  # v10\n"}]}]})
    expect(len(session.published(cells[1])) == 1, "a stale change was applied")

    # A cell removed from the array without didClose is cleared.
    change(11, {"structure": {"array": {"start": 2, "deleteCount": 1}}})
    session.published(cells[2], lambda d: d == [])


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    ptlint, case = os.path.abspath(sys.argv[1]), sys.argv[2]
    root = tempfile.mkdtemp(prefix="ptlint-nb-edits-")
    session = Session(ptlint, root)
    try:
        CASES[case](session)
        session.close()
        print("ok", case)
        return 0
    except Exception as e:  # noqa: BLE001
        print("FAIL", case, repr(e)[:4000])
        return 1
    finally:
        session.client.kill()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
