#!/usr/bin/env python3
"""Watchdog: a long random LSP session in which every request must be answered within 5 s.

The session opens, edits (incremental edits with non-ASCII text, whole-text changes, lone
surrogate escapes), closes and reopens documents; asks for hovers, code actions, fix-alls, pull
diagnostics and workspace diagnostics; cancels requests; changes the configuration through
didChangeConfiguration and workspace/configuration answers with bad settings of every JSON type;
changes the workspace folders, and sends malformed frames. A request not answered within its 5 s fails the test, naming it. At
the end the server's text of every open document must equal the client's.

Usage: watchdog_test.py PTLINT [--seed N] [--steps N]   (PTLINT_WATCHDOG_STEPS overrides the default)
"""

import argparse
import json
import os
import queue
import random
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import LspClient, position_of  # noqa: E402

DEADLINE = 5.0  # seconds per request

SNIPPETS = [
    "import torch\n",
    "with torch.cuda.amp.autocast():\n    pass\n",
    "x = torch.load('m.pt')\n",
    "from torch.nn.parallel import DistributedDataParallel as DDP\nm = DDP(net, find_unused_parameters=True)\n",
    "def attention(q, k, v):\n    s = q @ k.transpose(-2, -1) * 0.125\n    return torch.softmax(s, dim=-1) @ v\n",
    "y = x.item()  # noqa: PTL501\n",
    "s = 'héllo wörld 😀 ∑'\n",
    "if True:\n\tz = 1\r\n",
    "class M(torch.nn.Module):\n    def forward(self, x):\n        return x\n",
    "(((\n",
    "",
]

BAD_VALUES = [None, 0, -1, 2.5, "", "banana", True, False, [], [1, "x"], {}, {"a": [1]}]
KEYS = ["select", "ignore", "unsafeFixes", "torchVersion", "gpuCheck"]
GOOD = {"select": ["PTL"], "ignore": ["PTL301"], "unsafeFixes": True, "torchVersion": "2.6", "gpuCheck": False}


class Watchdog(Exception):
    pass


def random_settings(rng):
    settings = {}
    for key in rng.sample(KEYS, rng.randint(0, len(KEYS))):
        settings[key] = rng.choice(BAD_VALUES + [GOOD[key]])
    return rng.choice([settings, {"ptlint": settings}, rng.choice(BAD_VALUES)])


class Session:
    def __init__(self, ptlint, root, rng, pull_config):
        self.rng = rng
        self.root = root
        self.client = LspClient([ptlint, "--lsp"], cwd=root, stderr_path=os.path.join(root, "stderr.txt"))
        self.outstanding = {}  # id -> (method, deadline)
        self.docs = {}         # uri -> [version, text]
        self.pull_config = pull_config
        self.answered = 0
        # A hung server also stops reading, and a write to a full pipe blocks: a timer thread
        # enforces the deadlines, naming the late request and killing the server.
        self.lock = threading.Lock()
        self.failure = None
        self.done = False
        self.timer = threading.Thread(target=self.watch, daemon=True)
        self.timer.start()

    def watch(self):
        while not self.done:
            time.sleep(0.1)
            with self.lock:
                now = time.monotonic()
                late = [(rid, method) for rid, (method, deadline) in self.outstanding.items() if now > deadline]
                if late and self.failure is None:
                    self.failure = "not answered within %.0f s: %s" % (
                        DEADLINE, ", ".join("%s (id %s)" % (m, r) for r, m in late))
            if late:
                self.client.proc.kill()
                return

    # --- Requests with deadlines -------------------------------------------------------------

    def request(self, method, params):
        with self.lock:
            rid = self.client._next_id + 1
            self.outstanding[rid] = (method, time.monotonic() + DEADLINE)
        sent = self.client.request(method, params)
        assert sent == rid
        return rid

    def pump(self, wait=0.0):
        """Handles every message available (waiting up to `wait` s for the first one)."""
        end = time.monotonic() + wait
        while True:
            timeout = max(0.0, end - time.monotonic())
            try:
                item = self.client._inbox.get(timeout=timeout) if timeout > 0 else self.client._inbox.get_nowait()
            except queue.Empty:
                break
            if item is None:
                self.client._inbox.put(None)
                raise Watchdog(self.failure or "the server closed its output; outstanding: %s" % self.describe_outstanding())
            _, message = item
            self.handle(message)
            end = time.monotonic()  # got one: take the rest without waiting
        if self.failure:
            raise Watchdog(self.failure)

    def describe_outstanding(self):
        return ", ".join("%s (id %s)" % (m, r) for r, (m, _) in self.outstanding.items()) or "none"

    def handle(self, message):
        if "method" in message:
            if "id" in message:  # a server request: answer it
                method = message["method"]
                if method == "workspace/configuration":
                    items = message["params"]["items"]
                    result = self.rng.choice([[random_settings(self.rng) for _ in items], None, 5, [None] * len(items)])
                else:
                    result = None
                self.client.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
            return
        rid = message.get("id")
        with self.lock:
            if rid in self.outstanding:
                del self.outstanding[rid]
                self.answered += 1

    # --- Actions ------------------------------------------------------------------------------

    def uri(self, i):
        if i >= 5:  # an unsaved buffer: no path, settings of the first folder
            return "untitled:Untitled-%d" % i
        return "file://" + os.path.join(self.root, "pkg", "m%d.py" % i)

    def open(self):
        uri = self.uri(self.rng.randint(0, 6))
        if uri in self.docs:
            return
        text = "".join(self.rng.choice(SNIPPETS) for _ in range(self.rng.randint(0, 12)))
        self.docs[uri] = [1, text]
        self.client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})

    def pick(self):
        return self.rng.choice(sorted(self.docs)) if self.docs else None

    def random_range(self, text):
        a, b = sorted(self.rng.randint(0, len(text)) for _ in range(2))
        return a, b, {"start": position_of(text, a), "end": position_of(text, b)}

    def change(self):
        uri = self.pick()
        if not uri:
            return
        doc = self.docs[uri]
        doc[0] += self.rng.choice([1, 1, 1, 2, -5])  # versions may even go down: the newest applied text wins
        changes = []
        for _ in range(self.rng.randint(1, 3)):
            if self.rng.random() < 0.1:
                doc[1] = "".join(self.rng.choice(SNIPPETS) for _ in range(self.rng.randint(0, 8)))
                changes.append({"text": doc[1]})
            else:
                a, b, rng_ = self.random_range(doc[1])
                # Keep "\r\n" pairs whole, so that positions mean the same on both sides.
                if (0 < a < len(doc[1]) and doc[1][a - 1] == "\r" and doc[1][a] == "\n") or \
                   (0 < b < len(doc[1]) and doc[1][b - 1] == "\r" and doc[1][b] == "\n"):
                    continue
                insert = self.rng.choice(SNIPPETS)[: self.rng.randint(0, 20)]
                doc[1] = doc[1][:a] + insert + doc[1][b:]
                changes.append({"range": rng_, "text": insert})
        if changes:
            self.client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": doc[0]}, "contentChanges": changes})

    def surrogate_change(self):
        uri = self.pick()
        if not uri:
            return
        doc = self.docs[uri]
        doc[0] += 1
        a, b, rng_ = self.random_range(doc[1])
        if "\r" in doc[1][max(0, a - 1):b + 1]:
            return
        doc[1] = doc[1][:a] + "\ufffd" + doc[1][b:]  # what the server reads a lone surrogate as
        body = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didChange",
                           "params": {"textDocument": {"uri": uri, "version": doc[0]},
                                      "contentChanges": [{"range": rng_, "text": "@@"}]}})
        body = body.replace('"@@"', '"\\ud800"')
        self.client.note_sent(uri, doc[0])
        self.client.write_raw(b"Content-Length: %d\r\n\r\n" % len(body.encode()) + body.encode())

    def close(self):
        uri = self.pick()
        if uri:
            del self.docs[uri]
            self.client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def hover(self):
        uri = self.pick() or self.uri(9)
        text = self.docs.get(uri, [0, ""])[1]
        self.request("textDocument/hover", {"textDocument": {"uri": uri},
                                            "position": position_of(text, self.rng.randint(0, len(text)))})

    def code_action(self):
        uri = self.pick()
        if not uri:
            return
        _, _, rng_ = self.random_range(self.docs[uri][1])
        only = self.rng.choice([None, ["quickfix"], ["source.fixAll"], ["source.fixAll.ptlint"], ["refactor"]])
        context = {"diagnostics": []}
        if only:
            context["only"] = only
        self.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": rng_, "context": context})

    def fix_all_command(self):
        uri = self.pick()
        if uri:
            self.request("workspace/executeCommand", {"command": "ptlint.applyFixAll", "arguments": [{"uri": uri}]})

    def pull(self):
        uri = self.pick() or self.uri(8)
        self.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})

    def workspace_pull(self):
        self.request("workspace/diagnostic", {"previousResultIds": [], "workDoneToken": "wd%d" % self.rng.randint(0, 99)})

    def cancel(self):
        with self.lock:
            ids = sorted(self.outstanding)
        if ids:
            self.client.notify("$/cancelRequest", {"id": self.rng.choice(ids)})

    def configure(self):
        self.client.notify("workspace/didChangeConfiguration", {"settings": random_settings(self.rng)})

    def folders(self):
        folder = {"uri": "file://" + os.path.join(self.root, self.rng.choice(["pkg", "other", "pkg/sub"])), "name": "f"}
        event = {"added": [folder], "removed": []} if self.rng.random() < 0.5 else {"added": [], "removed": [folder]}
        self.client.notify("workspace/didChangeWorkspaceFolders", {"event": event})

    def malformed(self):
        choice = self.rng.randint(0, 5)
        if choice == 0:
            self.client.write_raw(b"Content-Length: 5\r\n\r\n{oops")
        elif choice == 1:
            self.client.write_raw(b"Content-Length: 2\r\n\r\n[]")
        elif choice == 2:
            self.client.write_raw(b"X-Nothing: 1\r\n\r\n")
        elif choice == 3:
            self.request("no/such/method", {})
        elif choice == 4:
            self.request("textDocument/hover", {"textDocument": 5})
        else:
            self.client.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": None}})

    # --- The run ------------------------------------------------------------------------------

    def run(self, steps):
        try:
            self.session(steps)
        except OSError as e:  # the timer killed a hung server while a write was blocked
            raise Watchdog(self.failure or "writing to the server failed: %s" % e)
        finally:
            self.done = True

    def session(self, steps):
        caps = {"general": {"positionEncodings": ["utf-16"]}, "workspace": {"configuration": self.pull_config,
                                                                             "workspaceEdit": {"documentChanges": True}}}
        self.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + self.root, "capabilities": caps,
                                    "initializationOptions": random_settings(self.rng)})
        while self.outstanding:
            self.pump(0.05)
        self.client.notify("initialized", {})
        actions = [(self.open, 6), (self.change, 30), (self.surrogate_change, 2), (self.close, 3), (self.hover, 12),
                   (self.code_action, 10), (self.fix_all_command, 3), (self.pull, 5), (self.workspace_pull, 1),
                   (self.cancel, 4), (self.configure, 3), (self.folders, 2), (self.malformed, 3)]
        population = [a for a, w in actions for _ in range(w)]
        for _ in range(steps):
            self.rng.choice(population)()
            self.pump(0.002)
        while self.outstanding:
            self.pump(0.05)
        # The server's text of every open document is the client's.
        for uri, (version, text) in sorted(self.docs.items()):
            reply = self.client.call("ptlint/debugDocument", {"textDocument": {"uri": uri}}, timeout=DEADLINE)
            if reply.get("result", {}).get("text") != text:
                raise Watchdog("out of sync: %s: server %r, client %r" % (uri, reply.get("result"), text))
        self.request("shutdown", None)
        while self.outstanding:
            self.pump(0.05)
        self.client.notify("exit")
        code = self.client.wait_exit(timeout=DEADLINE * 2)
        if code != 0:
            raise Watchdog("exit code %d" % code)
        if self.client.violations:
            raise Watchdog("protocol violations: %s" % self.client.violations[:5])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("ptlint")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--steps", type=int, default=int(os.environ.get("PTLINT_WATCHDOG_STEPS", "1500")))
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randint(0, 1 << 30)
    ptlint = os.path.abspath(args.ptlint)
    for pull_config in (False, True):
        rng = random.Random(seed * 2 + pull_config)
        with tempfile.TemporaryDirectory(prefix="ptlint_watchdog_") as root:
            root = os.path.realpath(root)
            os.makedirs(os.path.join(root, "pkg"))
            with open(os.path.join(root, "pkg", "on_disk.py"), "w") as f:
                f.write("import torch\nwith torch.cuda.amp.autocast():\n    pass\n")
            session = Session(ptlint, root, rng, pull_config)
            try:
                session.run(args.steps)
            except (Watchdog, TimeoutError, EOFError) as e:
                print("FAIL watchdog (seed %d, workspace/configuration %s, %d requests answered): %s"
                      % (seed, pull_config, session.answered, e))
                session.client.kill()
                with open(os.path.join(root, "stderr.txt"), errors="replace") as f:
                    print("the server's stderr ends with:\n" + f.read()[-6000:])
                return 1
            finally:
                session.client.kill()
            print("session (workspace/configuration %s): %d requests answered in time" % (pull_config, session.answered))
    print("PASS watchdog (seed %d, %d steps per session)" % (seed, args.steps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
