"""A notebook session against the real server (LSP 3.17 notebook documents): open a notebook,
read diagnostics per cell URI, ask for a code action and a hover inside a cell, edit a cell,
add a cell that uses an import from another, remove the import's cell, close."""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import LspClient  # noqa: E402


def expect(condition, what):
    if not condition:
        raise AssertionError(what)


def pull_session(ptlint, root):
    """A client that pulls diagnostics: `textDocument/diagnostic` on a cell's URI answers for it."""
    client = LspClient([ptlint, "--lsp"], cwd=root, stderr_path=os.path.join(root, "stderr-pull.log"))
    try:
        nb = "file://" + root + "/pull.ipynb"
        cells = [nb.replace("file://", "vscode-notebook-cell://") + "#c%d" % n for n in (1, 2)]
        client.initialize("file://" + root, {"textDocument": {"diagnostic": {}}})
        client.notify("notebookDocument/didOpen", {
            "notebookDocument": {"uri": nb, "notebookType": "jupyter-notebook", "version": 1,
                                 "cells": [{"kind": 2, "document": c} for c in cells]},
            "cellTextDocuments": [
                {"uri": cells[0], "languageId": "python", "version": 1, "text": "import torch\n"},
                {"uri": cells[1], "languageId": "python", "version": 1, "text": "x = 1\nwith torch.cuda.amp.autocast():\n    pass\n"}]})
        first = client.call("textDocument/diagnostic", {"textDocument": {"uri": cells[0]}})["result"]
        expect(first["kind"] == "full" and first["items"] == [], first)
        second = client.call("textDocument/diagnostic", {"textDocument": {"uri": cells[1]}})["result"]
        expect([(d["code"], d["range"]["start"]["line"]) for d in second["items"]] == [("PTL101", 1)], second)
        client.call("shutdown")
        client.notify("exit")
        expect(client.wait_exit(10) == 0, "exit code")
    finally:
        client.kill()


def main():
    ptlint = os.path.abspath(sys.argv[1])
    root = tempfile.mkdtemp(prefix="ptlint-nb-lsp-")
    client = LspClient([ptlint, "--lsp"], cwd=root, stderr_path=os.path.join(root, "stderr.log"))
    try:
        nb = "file://" + root + "/train.ipynb"
        cell = lambda n: nb.replace("file://", "vscode-notebook-cell://") + "#W%dsZmlsZQ%%3D%%3D" % n

        def published(uri, count, timeout=30):
            return client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                               and m["params"]["uri"] == uri and len(m["params"]["diagnostics"]) == count, timeout)

        init = client.initialize("file://" + root, {"textDocument": {"codeAction": {"codeActionLiteralSupport": {
            "codeActionKind": {"valueSet": ["quickfix"]}}}}})
        sync = init["result"]["capabilities"]["notebookDocumentSync"]
        expect(sync["notebookSelector"][0]["notebook"]["notebookType"] == "jupyter-notebook", sync)
        expect(sync["notebookSelector"][0]["cells"] == [{"language": "python"}], sync)

        texts = {
            1: "# Training\n",
            2: "import torch\nfrom torch.cuda import amp",
            3: "%matplotlib inline\nwith torch.cuda.amp.autocast():\n    pass",
        }
        client.notify("notebookDocument/didOpen", {
            "notebookDocument": {"uri": nb, "notebookType": "jupyter-notebook", "version": 1, "cells": [
                {"kind": 1, "document": cell(1)}, {"kind": 2, "document": cell(2)}, {"kind": 2, "document": cell(3)}]},
            "cellTextDocuments": [
                {"uri": cell(1), "languageId": "markdown", "version": 1, "text": texts[1]},
                {"uri": cell(2), "languageId": "python", "version": 1, "text": texts[2]},
                {"uri": cell(3), "languageId": "python", "version": 1, "text": texts[3]}]})
        d3 = published(cell(3), 1)["params"]["diagnostics"][0]
        expect(d3["code"] == "PTL101" and d3["range"]["start"] == {"line": 1, "character": 5}, d3)
        d2 = published(cell(2), 1)["params"]["diagnostics"][0]
        expect(d2["range"]["start"]["line"] == 1, d2)

        # A code action inside cell 3: the edit names the cell's URI and its own lines.
        reply = client.call("textDocument/codeAction", {
            "textDocument": {"uri": cell(3)}, "range": d3["range"], "context": {"diagnostics": [d3]}})
        actions = [a for a in reply["result"] if a.get("kind") == "quickfix"]
        expect(actions, reply)
        edits = actions[0]["edit"]["changes"]
        expect(list(edits) == [cell(3)], edits)
        expect(all(e["range"]["start"]["line"] == 1 for e in edits[cell(3)]), edits)
        # Hover inside the finding yields to other servers (null); on a noqa code it shows the rule.
        hover = client.call("textDocument/hover", {"textDocument": {"uri": cell(3)}, "position": {"line": 1, "character": 10}})
        expect(hover["result"] is None, hover)

        # Edit cell 3: the finding goes away.
        client.notify("notebookDocument/didChange", {
            "notebookDocument": {"uri": nb, "version": 2},
            "change": {"cells": {"textContent": [{
                "document": {"uri": cell(3), "version": 2},
                "changes": [{"range": {"start": {"line": 1, "character": 5}, "end": {"line": 1, "character": 30}},
                             "text": 'torch.amp.autocast("cuda")'}]}]}}})
        published(cell(3), 0)

        # Add cell 4, which uses the import of cell 2.
        client.notify("notebookDocument/didChange", {
            "notebookDocument": {"uri": nb, "version": 3},
            "change": {"cells": {"structure": {
                "array": {"start": 3, "deleteCount": 0, "cells": [{"kind": 2, "document": cell(4)}]},
                "didOpen": [{"uri": cell(4), "languageId": "python", "version": 1,
                             "text": "!nvidia-smi\nscaler = torch.cuda.amp.GradScaler()\n"}]}}}})
        d4 = published(cell(4), 1)["params"]["diagnostics"][0]
        expect(d4["range"]["start"] == {"line": 1, "character": 9}, d4)

        # Move cell 4 to the top (one array change replacing cells 2..4): each cell keeps its own
        # lines (a module-level import binds the name for the whole module, as in a .py file).
        client.drain(0.3)
        client.backlog.clear()
        client.notify("notebookDocument/didChange", {
            "notebookDocument": {"uri": nb, "version": 4},
            "change": {"cells": {"structure": {
                "array": {"start": 1, "deleteCount": 3, "cells": [
                    {"kind": 2, "document": cell(4)}, {"kind": 2, "document": cell(2)}, {"kind": 2, "document": cell(3)}]}}}}})
        moved = published(cell(4), 1)["params"]["diagnostics"][0]
        expect(moved["range"]["start"] == {"line": 1, "character": 9}, moved)
        again = published(cell(2), 1)["params"]["diagnostics"][0]
        expect(again["range"]["start"]["line"] == 1, again)
        reply = client.call("textDocument/codeAction", {
            "textDocument": {"uri": cell(4)}, "range": moved["range"], "context": {"diagnostics": [moved]}})
        expect([a for a in reply["result"] if list(a["edit"]["changes"]) == [cell(4)]], reply)

        # Remove cell 2 (the imports): `torch` no longer names the module in cell 4.
        client.notify("notebookDocument/didChange", {
            "notebookDocument": {"uri": nb, "version": 5},
            "change": {"cells": {"structure": {
                "array": {"start": 2, "deleteCount": 1},
                "didClose": [{"uri": cell(2)}]}}}})
        published(cell(4), 0)
        published(cell(2), 0)  # the removed cell's findings are cleared

        client.notify("notebookDocument/didClose", {"notebookDocument": {"uri": nb},
                                                    "cellTextDocuments": [{"uri": cell(1)}, {"uri": cell(3)}, {"uri": cell(4)}]})
        for n in (3, 4):
            published(cell(n), 0)
        expect(not client.violations, client.violations)
        client.call("shutdown")
        client.notify("exit")
        expect(client.wait_exit(10) == 0, "exit code")
        pull_session(ptlint, root)
        print("ok")
        return 0
    finally:
        client.kill()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
