"""Diagnostics that depend on other files, over a real stdio session: a small project whose
model is compiled in another file (tests/projects/nanogpt: `train.py` compiles `GPT` from
`model.py`, whose `forward` reaches `layers.py`). Editing one open file re-publishes the others
that depend on it, unsaved buffers count instead of the files on disk, a closed buffer gives way
to the file on disk, and `workspace/diagnostic` reports files that are not open as the open
buffers make them. Files changed, created or deleted on disk (reported through the file watcher
the server registers, `workspace/didChangeWatchedFiles`) update the open documents, pushed and
pulled; a module that exists only as an unsaved buffer is found by the imports that name it.

usage: cross_file_test.py PTLINT
"""
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import LspClient  # noqa: E402

PROJECT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "projects", "nanogpt")


def expect(condition, what):
    if not condition:
        raise AssertionError(what)


class Session:
    def __init__(self, ptlint, root, capabilities):
        self.root = root
        self.client = LspClient([ptlint, "--lsp"], cwd=root, stderr_path=os.path.join(root, "stderr.log"))
        self.client.initialize("file://" + root, capabilities)
        self.latest = {}    # uri -> the last published params
        self.versions = {}  # uri -> the last version sent

    def uri(self, name):
        return "file://%s/%s" % (self.root, name)

    def disk(self, name):
        with open(os.path.join(self.root, name), encoding="utf-8") as f:
            return f.read()

    def open(self, name, text=None):
        uri = self.uri(name)
        self.versions[uri] = 1
        self.client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": self.disk(name) if text is None else text}})

    def change(self, name, text):
        uri = self.uri(name)
        self.versions[uri] += 1
        self.client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": self.versions[uri]},
                                                     "contentChanges": [{"text": text}]})

    def close(self, name):
        uri = self.uri(name)
        del self.versions[uri]
        self.client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def pump(self, seconds):
        self.client.drain(seconds)
        for _, message in self.client.backlog:
            if message.get("method") == "textDocument/publishDiagnostics":
                self.latest[message["params"]["uri"]] = message["params"]
        self.client.backlog.clear()
        expect(not self.client.violations, self.client.violations)

    def item_lines(self, name):
        """0-based lines of the PTL501 findings last published for `name` (None: nothing yet)."""
        params = self.latest.get(self.uri(name))
        if params is None:
            return None
        return sorted(d["range"]["start"]["line"] for d in params["diagnostics"] if d["code"] == "PTL501")

    def settle(self, expected, timeout=20):
        """Waits until every file's last publication shows `expected[name]` (PTL501 lines) for
        its newest version, then checks that nothing else arrives for twice the server's quiet
        period (a late re-analysis must agree)."""
        def ok():
            for name, lines in expected.items():
                params = self.latest.get(self.uri(name))
                if params is None or self.item_lines(name) != lines:
                    return False
                if self.uri(name) in self.versions and params.get("version") != self.versions[self.uri(name)]:
                    return False
            return True
        deadline = time.monotonic() + timeout
        while not ok():
            if time.monotonic() > deadline:
                raise AssertionError("diagnostics did not follow: expected %s, got %s" % (
                    expected, {n: (self.item_lines(n), (self.latest.get(self.uri(n)) or {}).get("version"))
                               for n in expected}))
            self.pump(0.1)
        self.pump(0.6)
        expect(ok(), "diagnostics changed again after settling: %s" % {n: self.item_lines(n) for n in expected})

    def finish(self):
        self.client.call("shutdown")
        self.client.notify("exit")
        expect(self.client.wait_exit(10) == 0, "exit code")


def line_of(text, needle):
    for i, line in enumerate(text.split("\n")):
        if needle in line:
            return i
    raise AssertionError("no line holds %r" % needle)


def push_session(ptlint, root):
    s = Session(ptlint, root, {"textDocument": {"publishDiagnostics": {"relatedInformation": True}}})
    try:
        model, layers, train = s.disk("model.py"), s.disk("layers.py"), s.disk("train.py")
        model_item = line_of(model, "targets.float().mean().item()")
        layers_item = line_of(layers, "q.abs().max().item()")
        for name in ("train.py", "model.py", "layers.py"):
            s.open(name)
        everything = {"model.py": [model_item], "layers.py": [layers_item], "train.py": []}
        s.settle(everything)
        # The finding names the compile site, in train.py.
        finding = [d for d in s.latest[s.uri("model.py")]["diagnostics"] if d["code"] == "PTL501"][0]
        related = finding.get("relatedInformation", [])
        expect(any(r["location"]["uri"] == s.uri("train.py") and
                   r["location"]["range"]["start"]["line"] == line_of(train, "torch.compile(model)")
                   for r in related), finding)

        # model.py: the `.item()` in forward goes and comes back.
        s.change("model.py", model.replace("targets.float().mean().item()", "targets.float().mean()"))
        s.settle(dict(everything, **{"model.py": []}))
        s.change("model.py", model)
        s.settle(everything)

        # train.py stops compiling (unsaved): nothing is compiled any more, in either file.
        no_compile = train.replace("model = torch.compile(model)", "model = model")
        s.change("train.py", no_compile)
        nothing = {"model.py": [], "layers.py": [], "train.py": []}
        s.settle(nothing)
        # ... and compiles again.
        s.change("train.py", train)
        s.settle(everything)

        # Editing model.py changes what layers.py reports: the blocks leave the model.
        s.change("model.py", model.replace("nn.ModuleList([Block(config) for _ in range(config.n_layer)])",
                                           "nn.ModuleList([])"))
        s.settle(dict(everything, **{"layers.py": []}))
        s.change("model.py", model)
        s.settle(everything)

        # An unsaved train.py that compiles nothing, then closed: the file on disk counts again.
        s.change("train.py", no_compile)
        s.settle(nothing)
        s.close("train.py")
        s.settle({"model.py": [model_item], "layers.py": [layers_item]})
        # Re-opened with the unsaved text.
        s.open("train.py", no_compile)
        s.settle(nothing)
        s.finish()
    finally:
        s.client.kill()


def pull_session(ptlint, root):
    """Files that are not open follow through workspace diagnostics."""
    s = Session(ptlint, root, {"textDocument": {"diagnostic": {}},
                               "workspace": {"diagnostics": {"refreshSupport": True}}})
    try:
        train = s.disk("train.py")
        model_item = line_of(s.disk("model.py"), "targets.float().mean().item()")

        def model_lines(previous=None):
            params = {"previousResultIds": previous or []}
            report = s.client.call("workspace/diagnostic", params, timeout=60)["result"]
            item = [i for i in report["items"] if i["uri"] == s.uri("model.py")][0]
            lines = None if item["kind"] == "unchanged" else sorted(
                d["range"]["start"]["line"] for d in item["items"] if d["code"] == "PTL501")
            return lines, item.get("resultId")

        s.open("train.py")
        lines, first_id = model_lines()
        expect(lines == [model_item], lines)
        s.change("train.py", train.replace("model = torch.compile(model)", "model = model"))
        # The client's previous result id for model.py no longer holds: its facts changed.
        lines, _ = model_lines([{"uri": s.uri("model.py"), "value": first_id}])
        expect(lines == [], lines)
        s.change("train.py", train)
        lines, _ = model_lines()
        expect(lines == [model_item], lines)
        s.finish()
    finally:
        s.client.kill()


WATCHING = {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}}


def write(root, name, text):
    with open(os.path.join(root, name), "w", encoding="utf-8") as f:
        f.write(text)


def watched(s, *changes):
    """Tells the server what its file watcher saw: (name, 1 created | 2 changed | 3 deleted)."""
    s.client.notify("workspace/didChangeWatchedFiles",
                    {"changes": [{"uri": s.uri(name), "type": kind} for name, kind in changes]})


def disk_session(ptlint, root):
    """train.py is not open: it changes, goes and comes back on disk; model.py follows (push)."""
    s = Session(ptlint, root, dict(WATCHING, textDocument={"publishDiagnostics": {}}))
    try:
        registration = s.client.wait(lambda m: m.get("method") == "client/registerCapability", 10)
        globs = [w["globPattern"] for r in registration["params"]["registrations"]
                 for w in r["registerOptions"]["watchers"]]
        for glob in ("**/*.py", "**/*.pyi", "**/*.ipynb", "**/pyproject.toml"):
            expect(glob in globs, "no watcher for %s: %s" % (glob, globs))
        train = s.disk("train.py")
        model_item = line_of(s.disk("model.py"), "targets.float().mean().item()")
        s.open("model.py")
        s.settle({"model.py": [model_item]})
        write(root, "train.py", train.replace("model = torch.compile(model)", "model = model"))
        watched(s, ("train.py", 2))
        s.settle({"model.py": []})
        write(root, "train.py", train)
        watched(s, ("train.py", 2))
        s.settle({"model.py": [model_item]})
        os.rename(os.path.join(root, "train.py"), os.path.join(root, "train.py.bak"))
        watched(s, ("train.py", 3))
        s.settle({"model.py": []})
        os.rename(os.path.join(root, "train.py.bak"), os.path.join(root, "train.py"))
        watched(s, ("train.py", 1))
        s.settle({"model.py": [model_item]})
        # A change the editor's buffer hides: an open train.py wins over the disk.
        s.open("train.py")
        s.settle({"model.py": [model_item]})
        write(root, "train.py", train.replace("model = torch.compile(model)", "model = model"))
        watched(s, ("train.py", 2))
        s.pump(1.0)
        s.settle({"model.py": [model_item]})
        s.finish()
    finally:
        s.client.kill()


HELPER = "def helper(x):\n    return x.item()\n"
COMPILES_UTILS = "import torch\nfrom utils import helper\nf = torch.compile(helper)\n"


def created_module_session(ptlint, root):
    """A module the compile site imports comes into being: on disk (through a re-export), and as
    an unsaved buffer the editor opened."""
    write(root, "pyproject.toml", "")
    write(root, "model.py", HELPER)
    write(root, "train.py", COMPILES_UTILS)
    s = Session(ptlint, root, dict(WATCHING, textDocument={"publishDiagnostics": {}}))
    try:
        s.open("model.py")
        s.settle({"model.py": []})  # `utils` does not resolve: nothing is known to be compiled
        write(root, "utils.py", "from model import helper\n")
        watched(s, ("utils.py", 1))
        s.settle({"model.py": [1]})
        os.remove(os.path.join(root, "utils.py"))
        watched(s, ("utils.py", 3))
        s.settle({"model.py": []})
        # Now an unsaved utils.py holding the function itself.
        s.open("utils.py", HELPER)
        s.settle({"utils.py": [1], "model.py": []})
        s.change("utils.py", HELPER + "# more\n")
        s.settle({"utils.py": [1], "model.py": []})
        s.finish()
    finally:
        s.client.kill()


def disk_pull_session(ptlint, root):
    """Pulled diagnostics of an open model.py follow train.py changing on disk: the result id
    changes, the client is asked to refresh."""
    s = Session(ptlint, root, {"textDocument": {"diagnostic": {}},
                               "workspace": {"diagnostics": {"refreshSupport": True},
                                             "didChangeWatchedFiles": {"dynamicRegistration": True}}})
    try:
        train = s.disk("train.py")
        model_item = line_of(s.disk("model.py"), "targets.float().mean().item()")
        s.open("model.py")

        def pull(previous=None):
            params = {"textDocument": {"uri": s.uri("model.py")}}
            if previous:
                params["previousResultId"] = previous
            report = s.client.call("textDocument/diagnostic", params, timeout=30)["result"]
            lines = None if report["kind"] == "unchanged" else sorted(
                d["range"]["start"]["line"] for d in report["items"] if d["code"] == "PTL501")
            return lines, report.get("resultId")

        lines, first_id = pull()
        expect(lines == [model_item], lines)
        expect(pull(first_id)[0] is None, "the same result is reported unchanged")
        write(root, "train.py", train.replace("model = torch.compile(model)", "model = model"))
        watched(s, ("train.py", 2))
        s.client.wait(lambda m: m.get("method") == "workspace/diagnostic/refresh", 10)
        lines, second_id = pull(first_id)
        expect(lines == [], "model.py still reports %s after train.py stopped compiling on disk" % lines)
        expect(second_id != first_id, "the result id did not change")
        s.finish()
    finally:
        s.client.kill()


def main():
    ptlint = os.path.abspath(sys.argv[1])
    base = tempfile.mkdtemp(prefix="ptlint-crossfile-")
    try:
        os.makedirs(os.path.join(base, "created"))
        created_module_session(ptlint, os.path.join(base, "created"))
        print("created module session: ok")
        for name, session in (("push", push_session), ("pull", pull_session), ("disk", disk_session),
                              ("disk_pull", disk_pull_session)):
            root = os.path.join(base, name)
            shutil.copytree(PROJECT, root)
            session(ptlint, root)
            print("%s session: ok" % name)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
