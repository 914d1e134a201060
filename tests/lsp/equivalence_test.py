#!/usr/bin/env python3
"""Equivalence: after random edit sequences sent as fast as possible (so that the server
coalesces them), the server's text and diagnostics equal a fresh `ptlint check` of the same
text. Edits mix multi-byte text (é, CJK, emoji), CRLF and several changes per notification.

usage: equivalence_test.py PTLINT [--seeds N]
"""

import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import LspClient, position_of  # noqa: E402

SEED_TEXT = (
    "import torch\n"
    "from torch.cuda.amp import GradScaler\n"
    "from torch.nn.parallel import DistributedDataParallel as DDP\n"
    "\n"
    "def train(model, é_rate):\n"
    "    scaler = GradScaler()  # 中文 comment 😀\n"
    "    with torch.cuda.amp.autocast():\n"
    "        loss = model(\"😀\")\n"
    "    m = DDP(model, find_unused_parameters=True)\n"
    "    return loss\n"
)

PIECES = ["é", "中文", "😀", "\n", "\r\n", "(", ")", ":", "    ", "x", "# noqa: PTL101", "\"",
          "torch.cuda.amp.autocast()", "torch.cuda.amp.GradScaler()", "with ", "import torch\n",
          "DDP(model, find_unused_parameters=True)", "", "", ""]


def code_point_boundary(text, index):
    # Never split "\r\n": a client cannot name a position between them.
    if 0 < index < len(text) and text[index - 1] == "\r" and text[index] == "\n":
        index -= 1
    return index


LINES = ["with torch.cuda.amp.autocast():  # é\n    pass\n", "s = torch.cuda.amp.GradScaler()  # 中文\n",
         "d = DDP(net, find_unused_parameters=True)\n", "x = \"😀\"  # noqa: PTL101\n", "\n", "# 😀 comment\n"]


def random_change(rng, text):
    if rng.random() < 0.5:
        # A whole statement at the start of a line: keeps the file mostly valid, so that rules
        # keep reporting (and offering fixes) through the sequence.
        starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
        a = rng.choice(starts)
        insert = rng.choice(LINES)
        if "\r\n" in text:
            insert = insert.replace("\n", "\r\n")
        change = {"range": {"start": position_of(text, a), "end": position_of(text, a)}, "text": insert}
        return change, text[:a] + insert + text[a:]
    a = code_point_boundary(text, rng.randint(0, len(text)))
    b = code_point_boundary(text, min(len(text), a + rng.choice([0, 0, 0, 1, 2, 5])))
    b = max(a, b)
    insert = rng.choice(PIECES)
    change = {"range": {"start": position_of(text, a), "end": position_of(text, b)}, "text": insert}
    return change, text[:a] + insert + text[b:]


def cli_diagnostics(ptlint, text, path, cwd):
    out = subprocess.run([ptlint, "check", "--output-format", "json", "--stdin-filename", path, "-"],
                         input=text.encode("utf-8"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
    if out.returncode not in (0, 1):
        raise AssertionError("ptlint check failed (%d): %s" % (out.returncode, out.stderr.decode()))
    lines = text.split("\n")

    def to_lsp(location):
        # CLI rows count '\n' lines, columns count code points, both 1-based.
        row, column = location["row"] - 1, location["column"] - 1
        index = sum(len(line) + 1 for line in lines[:row]) + column
        return position_of(text, index)

    result = []
    for d in json.loads(out.stdout):
        fix = d.get("fix")
        result.append({
            "code": d["code"], "message": d["message"],
            "range": {"start": to_lsp(d["location"]), "end": to_lsp(d["end_location"])},
            "fix": None if fix is None else {
                "applicability": fix["applicability"],
                "edits": [{"range": {"start": to_lsp(e["location"]), "end": to_lsp(e["end_location"])},
                           "newText": e["content"].replace("\n", "\r\n") if "\r\n" in text else e["content"]}
                          for e in fix["edits"]]},
        })
    return sorted(result, key=lambda d: json.dumps(d, sort_keys=True))


def server_diagnostics(published):
    result = []
    for d in published:
        fix = d["data"]["fix"]
        result.append({
            "code": d["code"], "message": d["message"], "range": d["range"],
            "fix": None if fix is None else {"applicability": fix["applicability"], "edits": fix["edits"]},
        })
    return sorted(result, key=lambda d: json.dumps(d, sort_keys=True))


def main():
    ptlint = os.path.abspath(sys.argv[1])
    seeds = int(sys.argv[sys.argv.index("--seeds") + 1]) if "--seeds" in sys.argv else 12
    root = tempfile.mkdtemp(prefix="ptlint-equiv-")
    client = LspClient([ptlint, "--lsp"], cwd=root, stderr_path=os.path.join(root, "stderr.log"))
    failures = 0
    try:
        client.initialize("file://" + root)
        for seed in range(seeds):
            rng = random.Random(seed)
            path = os.path.join(root, "doc%d.py" % seed)
            uri = "file://" + path
            text = SEED_TEXT.replace("\n", "\r\n") if seed % 3 == 2 else SEED_TEXT
            version = 1
            client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                                    "version": version, "text": text}})
            for _ in range(rng.randint(10, 40)):
                changes = []
                for _ in range(rng.choice([1, 1, 1, 2, 3])):
                    change, text = random_change(rng, text)
                    changes.append(change)
                version += 1
                client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                         "contentChanges": changes})
            published = client.diagnostics_for(uri, version)["params"]["diagnostics"]
            debug = client.call("ptlint/debugDocument", {"textDocument": {"uri": uri}})["result"]
            problems = []
            if debug["text"] != text:
                problems.append("server text differs from the client's")
            if not debug["treeMatchesFreshParse"]:
                problems.append("incremental tree differs from a fresh parse")
            expected = cli_diagnostics(ptlint, text, path, root)
            got = server_diagnostics(published)
            if got != expected:
                problems.append("diagnostics differ:\n  server: %s\n  check:  %s" % (json.dumps(got), json.dumps(expected)))
            if problems:
                failures += 1
                print("seed %d (version %d): FAIL\n  %s\n  text: %r" % (seed, version, "\n  ".join(problems), text))
            else:
                print("seed %d (version %d): ok, %d diagnostics" % (seed, version, len(got)))
            client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        client.call("shutdown")
        client.notify("exit")
        if client.wait_exit(10) != 0:
            failures += 1
            print("server did not exit with 0")
        for violation in client.violations:
            failures += 1
            print("protocol violation: " + violation)
    finally:
        client.kill()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
