#!/usr/bin/env python3
"""Latency of `ptlint --lsp` over a real stdio session: the time from a one-character
`didChange` to the `publishDiagnostics` of that version, for a generated 1,000-line file (dense
training code, 79 findings), for Debian's torch/nn/modules/module.py and for
torch/testing/_internal/common_methods_invocations.py (875 KB); plus the resident
memory each open document costs; and for that file with one compiled function in front, where
PTL501 must analyse the whole file. Not a test: it prints figures.

usage: bench/lsp/lsp_latency.py PTLINT [--iterations 200] [--module PATH] [--big PATH] [--json OUT]
Targets (2-core machine): median <= 5 ms (1,000 lines, module.py), <= 30 ms (875 KB), <= 20 ms (875 KB with one
compiled function).
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "lsp"))
from lspclient import LspClient  # noqa: E402

BIG = "/usr/lib/python3/dist-packages/torch/testing/_internal/common_methods_invocations.py"
# Ordinary library code of real size (2,000 lines): torch's nn.Module.
MODULE = "/usr/lib/python3/dist-packages/torch/nn/modules/module.py"
COMPILED_PROBE = "import torch\n\n@torch.compile\ndef _compiled_probe(x):\n    return x.sum().item()\n\n"

# One block of ordinary training code (25 lines, one PTL101 and one PTL301 finding).
BLOCK = '''
class Block{i}(nn.Module):
    """A residual block; é 中文 😀 in a docstring."""

    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        y = self.norm(x)
        y = torch.nn.functional.gelu(self.proj(y))
        return x + y


def train_step{i}(model, batch, optimizer, scaler):
    optimizer.zero_grad(set_to_none=True)
    with torch.cuda.amp.autocast():
        loss = model(batch).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    ddp = DistributedDataParallel(model, find_unused_parameters=True)
    return loss.detach()

'''


def thousand_lines():
    head = "import torch\nfrom torch import nn\nfrom torch.nn.parallel import DistributedDataParallel\n"
    text = head
    i = 0
    while text.count("\n") < 1000:
        text += BLOCK.format(i=i)
        i += 1
    return "\n".join(text.split("\n")[:1000]) + "\n"


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    """User + system CPU time of the process so far (load on the machine does not inflate it)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def measure(ptlint, name, text, iterations, copies):
    root = tempfile.mkdtemp(prefix="ptlint-bench-")
    client = LspClient([ptlint, "--lsp"], cwd=root)
    try:
        client.initialize("file://" + root)
        base_rss = rss_kib(client.proc.pid)
        uri = "file://%s/%s" % (root, name)
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
        started = time.monotonic()
        first = client.diagnostics_for(uri, 1, timeout=120)
        open_ms = (time.monotonic() - started) * 1000
        findings = len(first["params"]["diagnostics"])
        # One character typed and deleted again, alternately, inside a comment-free spot: the end
        # of the first line ("import torch" -> "import torchx").
        first_line_end = len(text.split("\n", 1)[0].encode("utf-16-le")) // 2
        latencies = []
        version = 1
        cpu_before = cpu_seconds(client.proc.pid)
        for i in range(iterations):
            version += 1
            if i % 2 == 0:
                change = {"range": {"start": {"line": 0, "character": first_line_end},
                                    "end": {"line": 0, "character": first_line_end}}, "text": "x"}
            else:
                change = {"range": {"start": {"line": 0, "character": first_line_end},
                                    "end": {"line": 0, "character": first_line_end + 1}}, "text": ""}
            sent = time.monotonic()
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]})
            stamp, _ = client.diagnostics_for_with_time(uri, version)
            latencies.append((stamp - sent) * 1000)
        cpu_per_edit = (cpu_seconds(client.proc.pid) - cpu_before) * 1000 / iterations
        # Memory: more copies of the same text, each its own document.
        before = rss_kib(client.proc.pid)
        for c in range(copies):
            copy_uri = "file://%s/copy%d_%s" % (root, c, name)
            client.notify("textDocument/didOpen", {"textDocument": {"uri": copy_uri, "languageId": "python", "version": 1, "text": text}})
            client.diagnostics_for(copy_uri, 1, timeout=120)
        time.sleep(0.2)
        after = rss_kib(client.proc.pid)
        client.call("shutdown")
        client.notify("exit")
        client.wait_exit(10)
    finally:
        client.kill()
    print("%s: %d lines, %d bytes, %d findings" % (name, text.count("\n"), len(text.encode()), findings))
    print("  first analysis (didOpen -> publish): %.1f ms" % open_ms)
    print("  didChange -> publishDiagnostics over %d edits: median %.2f ms, p95 %.2f ms, min %.2f ms, max %.2f ms" % (
        iterations, statistics.median(latencies), percentile(latencies, 95), min(latencies), max(latencies)))
    print("  server CPU time per edit (user+sys): %.1f ms; load average now %s" % (
        cpu_per_edit, open("/proc/loadavg").read().split()[0]))
    print("  memory per open document: %.0f KiB (RSS %d KiB -> %d KiB for %d more copies; server at start %d KiB)" % (
        (after - before) / copies, before, after, copies, base_rss))
    return {"median_ms": statistics.median(latencies), "p95_ms": percentile(latencies, 95),
            "cpu_ms_per_edit": cpu_per_edit, "open_ms": open_ms,
            "kib_per_document": (after - before) / copies, "findings": findings}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("ptlint")
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--big", default=BIG)
    parser.add_argument("--module", default=MODULE)
    parser.add_argument("--json", help="also write the figures to this file (for bench/run.sh)")
    args = parser.parse_args()
    ptlint = os.path.abspath(args.ptlint)
    small = measure(ptlint, "thousand.py", thousand_lines(), args.iterations, copies=20)
    results = [("1,000-line file", small, 5.0)]
    if os.path.exists(args.module):
        with open(args.module, encoding="utf-8") as f:
            module = measure(ptlint, os.path.basename(args.module), f.read(), args.iterations, copies=3)
        results.append(("nn/modules/module.py", module, 5.0))
    else:
        print("(%s not found: skipped)" % args.module)
    if os.path.exists(args.big):
        with open(args.big, encoding="utf-8") as f:
            big_text = f.read()
        big = measure(ptlint, os.path.basename(args.big), big_text, max(20, args.iterations // 2), copies=3)
        results.append(("common_methods_invocations.py", big, 30.0))
        # No rule can report in that file, so each edit stops after the re-parse and the rules'
        # checks of the tree. The same file with one compiled function in front makes PTL501
        # analyse all of it (semantic model, compiled regions): the cost when rules do apply.
        busy = measure(ptlint, "compiled_" + os.path.basename(args.big), COMPILED_PROBE + big_text,
                       max(20, args.iterations // 2), copies=1)
        results.append(("the same + one @torch.compile fn", busy, 20.0))
    else:
        print("(%s not found: skipped)" % args.big)
    print()
    for label, figures, target in results:
        print("%-32s median %6.2f ms  p95 %6.2f ms  target median <= %.0f ms: %s" % (
            label, figures["median_ms"], figures["p95_ms"], target,
            "met" if figures["median_ms"] <= target else "NOT met"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({label: dict(figures, target_ms=target) for label, figures, target in results}, f, indent=1)


if __name__ == "__main__":
    main()
