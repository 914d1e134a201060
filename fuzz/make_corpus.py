#!/usr/bin/env python3
"""Regenerates the committed seed corpora in fuzz/corpus/<target>/ (small on purpose: < 2 MB in
all). Seeds: the rule fixtures, a few short Debian PyTorch sources, and generated cases."""
import glob
import hashlib
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SITE = "/usr/lib/python3/dist-packages"


def put(target, data, name=None):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    name = name or hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def python_seeds():
    seeds = []
    fixtures = os.path.join(ROOT, "tests", "fixtures")
    for path in sorted(glob.glob(os.path.join(fixtures, "*.py")) + glob.glob(os.path.join(fixtures, "*", "*.py")),
                       key=os.path.basename):
        with open(path, "rb") as f:
            seeds.append(f.read())
    for pattern in ("torch/cuda/amp/*.py", "torch/amp/grad_scaler.py", "torch/utils/data/_utils/worker.py",
                    "torchvision/transforms/_presets.py", "skorch/callbacks/scoring.py"):
        for path in sorted(glob.glob(os.path.join(SITE, pattern))):
            with open(path, "rb") as f:
                data = f.read()
            if len(data) < 40_000:
                seeds.append(data)
    gen = [
        "x = " + "[" * 50 + "]" * 50,
        "import torch\nx = " + "torch.cuda.amp.autocast(" * 20 + ")" * 20,
        "import torch\r\nwith torch.cuda.amp.autocast():\r\n    pass\r\n",
        "import torch\rwith torch.cuda.amp.autocast():\r    pass\r",
        "import torch\nx = 'é日本😀'; torch.cuda.amp.GradScaler()  # noqa: PTL2\n",
        "import torch\x00\ntorch.cuda.amp.autocast()\n",
        "def f(:\n  torch.cuda.amp.autocast(\n",
        "# ptlint: noqa\nimport torch\ntorch.cuda.amp.autocast()\n",
        "from torch.cuda.amp import autocast as ac, GradScaler\nwith ac(enabled=True):\n    s = GradScaler(2.0**16)\n",
        "import torch\nimport torch.nn.functional as F\ndef attn(q, k, v):\n    a = F.softmax(q @ k.transpose(-2, -1) / 8, dim=-1)\n    return a @ v\n",
        "import torch, numpy as np\nfrom torch.utils.data import DataLoader\nl = DataLoader(ds, num_workers=n)\n",
        "import torch\n@torch.compile\ndef f(x):\n    print(x)\n    return x.item()\n",
        "import torch\nm = torch.nn.parallel.DistributedDataParallel(m, find_unused_parameters=True)\n",
        "import torch\ntorch.load('x.pt')\ntorch.autograd.set_detect_anomaly(True)\n",
        "\ufeffimport torch\n",
        "if x:\n" + "".join(" " * i + "if y:\n" for i in range(1, 40)) + " " * 40 + "pass\n",
    ]
    return seeds + [g.encode() for g in gen]


def config_seeds():
    keys = {
        "select": '["PTL1", "PTL201"]', "extend-select": '["ALL"]', "ignore": '["PTL401"]',
        "exclude": '["build", "**/gen_*.py"]', "extend-exclude": '["third_party/[ab]*"]', "respect-gitignore": "false",
        "torch-version": '"2.4"', "unsafe-fixes": "true", "compile-decorators": '["mylib.jit"]',
    }
    seeds = ["\n".join(f"{k} = {v}" for k, v in keys.items()) + '\n[per-file-ignores]\n"tests/*.py" = ["PTL5"]\n']
    seeds += [f"{k} = {v}\n" for k, v in keys.items()]
    seeds += ['[tool.ptlint]\nselect = ["ALL"]\n[tool.ptlint.per-file-ignores]\n"a/**" = ["PTL1"]\n',
              '[project]\nname = "x"\n', 'torch-version = "banana"\n', 'select = "PTL1"\n', "unknown-key = 1\n",
              "select = [\n", 'torch-version = "99999999999999999999.1"\n', '[per-file-ignores]\n"[" = ["PTL1"]\n',
              "a = 1\na = 2\n", '\ufeffselect = ["PTL101"]\n', "x = \"\\uD800\"\n"]
    # The first byte picks the file name (ptlint.toml, .ptlint.toml, pyproject.toml).
    return [bytes([i % 3]) + s.encode() for i, s in enumerate(seeds)]


def jsonrpc_seeds():
    def msg(i, method, params, notify=False):
        m = {"jsonrpc": "2.0", "method": method, "params": params}
        if not notify:
            m["id"] = i
        return json.dumps(m).encode()
    uri = "file:///tmp/ptlint-fuzz-nonexistent/a.py"
    session = [
        msg(1, "initialize", {"processId": None, "capabilities": {"general": {"positionEncodings": ["utf-8"]}}}),
        msg(0, "initialized", {}, True),
        msg(0, "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                         "text": "import torch\ntorch.cuda.amp.autocast()\n"}}, True),
        msg(2, "textDocument/codeAction", {"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0},
                                           "end": {"line": 5, "character": 0}}, "context": {"diagnostics": []}}),
        msg(3, "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 3}}),
        msg(0, "$/cancelRequest", {"id": 3}, True),
        msg(4, "textDocument/diagnostic", {"textDocument": {"uri": uri}}),
        msg(0, "workspace/didChangeWatchedFiles", {"changes": [{"uri": uri, "type": 2},
                                                               {"uri": uri.replace("a.py", "b.py"), "type": 1},
                                                               {"uri": uri.replace("/a.py", ""), "type": 3}]}, True),
        msg(5, "shutdown", None),
        msg(0, "exit", None, True),
    ]
    # A notebook session: magics, cell edits, structure changes with indices past the end,
    # negative or as strings, a stale version, fix-all and quick fixes on cells.
    nb = "file:///tmp/ptlint-fuzz-nonexistent/n.ipynb"
    cells = ["vscode-notebook-cell:///tmp/ptlint-fuzz-nonexistent/n.ipynb#c%d" % k for k in range(4)]
    texts = ["import torch\n%matplotlib inline\n", "with torch.cuda.amp.autocast():\n    pass\n!pip install x\n",
             "x = foo(\n", "files = !ls\ntorch.cuda.amp.GradScaler?\ns = torch.cuda.amp.GradScaler()\n"]
    cell_range = {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}}
    notebook = session[:2] + [
        msg(0, "notebookDocument/didOpen", {
            "notebookDocument": {"uri": nb, "notebookType": "jupyter-notebook", "version": 1,
                                 "cells": [{"kind": 2, "document": c} for c in cells[:3]]},
            "cellTextDocuments": [{"uri": c, "languageId": "python", "version": 1, "text": t}
                                  for c, t in zip(cells, texts)]}, True),
        msg(0, "notebookDocument/didChange", {"notebookDocument": {"uri": nb, "version": 2}, "change": {"cells": {
            "structure": {"array": {"start": 3, "deleteCount": 0, "cells": [{"kind": 2, "document": cells[3]}]},
                          "didOpen": [{"uri": cells[3], "languageId": "python", "version": 1, "text": texts[3]}]}}}}, True),
        msg(6, "textDocument/codeAction", {"textDocument": {"uri": cells[1]}, "range": cell_range,
                                           "context": {"diagnostics": [], "only": ["source.fixAll"]}}),
        msg(7, "textDocument/codeAction", {"textDocument": {"uri": cells[3]}, "range": cell_range, "context": {"diagnostics": []}}),
        msg(0, "notebookDocument/didChange", {"notebookDocument": {"uri": nb, "version": 3}, "change": {"cells": {
            "structure": {"array": {"start": 4294967296, "deleteCount": 1}}}}}, True),
        msg(0, "notebookDocument/didChange", {"notebookDocument": {"uri": nb, "version": 3}, "change": {"cells": {
            "structure": {"array": {"start": -1, "deleteCount": 18446744073709551615}}}}}, True),
        msg(0, "notebookDocument/didChange", {"notebookDocument": {"uri": nb, "version": 3}, "change": {"cells": {
            "structure": {"array": {"start": "0", "deleteCount": 1.5}}}}}, True),
        msg(0, "notebookDocument/didChange", {"notebookDocument": {"uri": nb, "version": 9}, "change": {"cells": {
            "textContent": [{"document": {"uri": cells[2], "version": 9},
                             "changes": [{"range": {"start": {"line": 0, "character": 8}, "end": {"line": 0, "character": 8}},
                                          "text": ")"}]}]}}}, True),
        msg(0, "notebookDocument/didChange", {"notebookDocument": {"uri": nb, "version": 4}, "change": {"cells": {
            "textContent": [{"document": {"uri": cells[2], "version": 4}, "changes": [{"text": "y = 1 + \\\n"}]}]}}}, True),
        msg(0, "notebookDocument/didChange", {"notebookDocument": {"uri": nb, "version": 10}, "change": {"cells": {
            "structure": {"array": {"start": 1, "deleteCount": 2}, "didClose": [{"uri": cells[1]}]}}}}, True),
        msg(8, "textDocument/codeAction", {"textDocument": {"uri": cells[3]}, "range": cell_range,
                                           "context": {"diagnostics": [], "only": ["source.fixAll"]}}),
        msg(0, "notebookDocument/didClose", {"notebookDocument": {"uri": nb}, "cellTextDocuments": [{"uri": cells[0]}]}, True),
    ] + session[-2:]
    seeds = [b"\xff".join(session), b"\xff".join(session[:3]), b"\xff".join(notebook), b"\xff".join(notebook[:5]),
             b"{}", b"[]", b"\xff".join([b"{", b"null", b'{"id":1}'])]
    seeds.append(b"Content-Length: 10\r\n\r\n{\"a\":1}\r\nContent-Length: x\r\n\r\n")
    return seeds


# The file watcher's events in a session: mode 8 (utf-8, the server may register its watcher),
# seed 3, then operations; 12 is a didChangeWatchedFiles (count, then path and type for each).
LSP_WATCH_SESSIONS = [
    [8, 3, 12, 2, 0, 2, 1, 1, 7, 12, 1, 2, 3, 7, 12, 0, 5, 2, 12, 2, 6, 1, 9, 3, 7],
    [12, 1, 12, 0, 2, 1, 0, 0, 3, 12, 1, 8, 4, 6, 0, 0, 0, 12, 2, 4, 0, 3, 4, 7, 7],
]

KBITS = ["ACCESS", "MODIFY", "ATTRIB", "CLOSE_WRITE", "CLOSE_NOWRITE", "OPEN", "MOVED_FROM", "MOVED_TO", "CREATE",
         "DELETE", "DELETE_SELF", "MOVE_SELF", "UNMOUNT", "Q_OVERFLOW", "IGNORED"]
WATCH_NAMES = ["", "a.py", "b.pyi", "n.ipynb", "pyproject.toml", "ptlint.toml", ".ptlint.toml", ".gitignore",
               "train.log", "pkg", ".git", "__pycache__", ".venv", "node_modules", "a.py.swp", "4913", "x.py~",
               "setup.cfg", ".ptlint_cache", "sub.py"]


def watch_event(of, name, masks, ms):
    """One event of fuzz_watch_events.cpp: five bytes."""
    which = WATCH_NAMES.index(name) * 3 + ["Unknown", "Folder", "Root"].index(of)
    isdir = "ISDIR" in masks
    masks = [m for m in masks if m != "ISDIR"]
    offset = KBITS.index(masks[0]) if masks else 0
    bits = 0
    for m in masks:
        bits |= 1 << ((KBITS.index(m) - offset) % len(KBITS))
    scale = next(k for k in range(1, 16) if ms % k == 0 and ms // k < 256)
    return bytes([which, bits, offset, (scale << 1) | isdir, ms // scale])


def watch_seeds():
    e = watch_event
    busy_log = b"".join(e("Folder", "train.log", ["MODIFY"], 100) for _ in range(30))
    seeds = [
        b"".join(e("Folder", "a.py", ["MODIFY"], 100) for _ in range(30)),  # a module rewritten every 100 ms
        busy_log + e("Folder", "a.py", ["CLOSE_WRITE"], 100) + busy_log,   # a busy log around an edit
        e("Unknown", "", ["Q_OVERFLOW"], 0) + e("Folder", "pkg", ["CREATE", "ISDIR"], 5)
        + e("Folder", "n.ipynb", ["CLOSE_WRITE"], 2000),
        e("Root", "", ["DELETE_SELF"], 0) + e("Root", "", ["IGNORED"], 0) + e("Unknown", "a.py", ["DELETE"], 3),
        e("Folder", "pkg", ["MOVED_FROM", "ISDIR"], 0) + e("Folder", "pkg", ["MOVED_TO", "ISDIR"], 0)
        + e("Folder", ".venv", ["CREATE", "ISDIR"], 1) + e("Folder", "a.py", ["ATTRIB"], 140) + e("Root", "", ["ATTRIB"], 149),
    ]
    rng = random.Random(30)
    return seeds + [bytes(rng.randrange(256) for _ in range(400))]


def main():
    for target in ("analysis", "fix"):
        for s in python_seeds():
            put(target, s)
    for s in config_seeds():
        put("config", s)
    for s in jsonrpc_seeds():
        put("jsonrpc", s)
    rng = random.Random(8)
    for n in (0, 8, 64, 256, 1024, 4096):
        put("lsp_session", bytes(rng.randrange(256) for _ in range(n)))
    for session in LSP_WATCH_SESSIONS:
        put("lsp_session", bytes(session))
    for s in watch_seeds():
        put("watch_events", s)


if __name__ == "__main__":
    main()
