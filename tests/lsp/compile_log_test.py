"""The `compileLog` setting over a real stdio session: a recorded torch.compile log
(tests/compile_logs/) given relative to the workspace folder puts its graph break on the open
script's line with the static findings, and a new log written over it is read again.

usage: compile_log_test.py PTLINT
"""
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import LspClient  # noqa: E402

LOGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compile_logs")


def expect(condition, what):
    if not condition:
        raise AssertionError(what)


def codes_on(params):
    return sorted((d["code"], d["range"]["start"]["line"]) for d in params["diagnostics"])


def main(ptlint):
    version = "2.14" if os.path.isdir(os.path.join(LOGS, "logs", "2.14")) else "2.6"
    root = tempfile.mkdtemp(prefix="ptlint-lsp-compile-log-")
    try:
        shutil.copytree(os.path.join(LOGS, "src"), os.path.join(root, "src"))
        os.makedirs(os.path.join(root, "logs"))
        shutil.copy(os.path.join(LOGS, "logs", version, "print_break.log"), os.path.join(root, "logs", "run.log"))
        client = LspClient([ptlint, "--lsp"], cwd=root, stderr_path=os.path.join(root, "stderr.log"))
        client.initialize("file://" + root, {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}},
                          options={"compileLog": "logs/*.log"})
        # The client is asked to watch the log.
        registration = client.wait(lambda m: m.get("method") == "client/registerCapability" and any(
            r["id"].startswith("ptlint-compile-log") for r in m["params"]["registrations"]))
        globs = [w["globPattern"] for r in registration["params"]["registrations"]
                 for w in r["registerOptions"]["watchers"]]
        expect("**/*.log" in globs, globs)
        uri = "file://%s/src/print_break.py" % root
        with open(os.path.join(root, "src", "print_break.py")) as f:
            text = f.read()
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": text}})
        params = client.diagnostics_for(uri, 1)["params"]
        found = codes_on(params)
        expect(any(code == "PTL901" for code, _ in found), "no PTL901 from the log: %s" % found)
        expect(any(code == "PTL502" for code, _ in found), "the static PTL502 is missing: %s" % found)
        runtime = [d for d in params["diagnostics"] if d["code"] == "PTL901"][0]
        expect("run.log" in runtime["message"], runtime["message"])
        # Another run's log replaces it; the watcher's notification re-publishes the open document.
        shutil.copy(os.path.join(LOGS, "logs", version, "item_int.log"), os.path.join(root, "logs", "run.log"))
        client.notify("workspace/didChangeWatchedFiles", {"changes": [
            {"uri": "file://%s/logs/run.log" % root, "type": 2}]})
        params = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                             and m["params"]["uri"] == uri
                             and not any(d["code"] == "PTL901" for d in m["params"]["diagnostics"]))["params"]
        expect(any(d["code"] == "PTL502" for d in params["diagnostics"]), codes_on(params))
        # Without a notification (a client that cannot watch), the next analysis reads it again.
        shutil.copy(os.path.join(LOGS, "logs", version, "print_break.log"), os.path.join(root, "logs", "run.log"))
        time.sleep(1.2)
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                 "contentChanges": [{"text": text + "\n"}]})
        params = client.diagnostics_for(uri, 2)["params"]
        expect(any(d["code"] == "PTL901" for d in params["diagnostics"]),
               "the new log's finding is missing: %s" % codes_on(params))
        client.call("shutdown")
        client.notify("exit")
        expect(client.wait_exit(10) == 0, "exit code")
        expect(not client.violations, client.violations)
        print("compile_log_test: ok")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1])
