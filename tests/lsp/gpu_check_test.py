"""LSP `gpuCheck`: the PTL601 quickfix title carries ptlint-gpu's verdict once the background
validation is done. Needs ptlint-gpu (libtorch); exits 77 (skipped) without it."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from lspclient import LspClient  # noqa: E402

SOURCE = """import math
import torch
import torch.nn.functional as F


def attention(q, k, v):
    scores = q @ k.transpose(2, 3) / math.sqrt(q.size(-1))
    return F.softmax(scores, dim=-1) @ v
"""


def main():
    ptlint = sys.argv[1]
    worker = os.path.join(os.path.dirname(ptlint), "ptlint-gpu")
    if not os.path.exists(worker):
        print("ptlint-gpu is not built: skipped")
        return 77
    client = LspClient([ptlint, "--lsp"])
    client.initialize(options={"gpuCheck": True, "unsafeFixes": True})
    uri = "file:///tmp/ptlint_gpu_check_test/attn.py"
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": SOURCE}})
    diags = client.diagnostics_for(uri, 1)["params"]["diagnostics"]
    attn = [d for d in diags if d["code"] == "PTL601"]
    assert attn, diags

    def titles():
        reply = client.call("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": attn[0]["range"],
            "context": {"diagnostics": attn, "only": ["quickfix"]}})
        return [a["title"] for a in reply["result"] if a["title"].startswith("PTL601") and "noqa" not in a["title"]
                and "Disable" not in a["title"]]

    first = titles()
    assert len(first) == 1 and "validating on the device" in first[0], first
    deadline = time.time() + 240
    while time.time() < deadline:
        current = titles()
        if current and "validating" not in current[0]:
            break
        time.sleep(1)
    assert len(current) == 1, current
    assert "validated on cpu float32: equivalent" in current[0], current
    client.call("shutdown")
    client.notify("exit")
    assert client.wait_exit() == 0
    assert not client.violations, client.violations
    print("PASS:", current[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
