#!/usr/bin/env python3
"""Reliability of the language server, each case against the real binary over stdio:

  bad_settings      every setting of every wrong JSON type (and `torchVersion: "banana"`), through
                    initializationOptions, workspace/didChangeConfiguration and a
                    workspace/configuration answer: each is named in a window/showMessage, and the
                    server keeps answering and linting.
  heavy_requests    a fix-all on a big document does not hold up a hover on a small one.
  version_order     a didChange with a lower version than the last published one is applied and
                    published (the newest applied text's diagnostics win, not the highest number).
  lone_surrogate    a didChange whose JSON holds a lone surrogate escape is applied (as U+FFFD), so
                    the following incremental edit lands on the right text.
  lost_change       a didChange that cannot be read marks its document out of sync: later
                    incremental edits are not applied to the wrong text, diagnostics are cleared
                    and a message says so; a whole-text change brings it back.
  gpu_check_starts  with gpuCheck, ptlint-gpu (a fake one, through $PTLINT_GPU) is started once for
                    a document with six different attention patterns, not once per pattern.
  stalled_client    a client that stops reading while it keeps editing a document with 600
                    findings: only the newest diagnostics wait to be written (not one publication
                    per change), and once it reads again every request is answered and the last
                    text's diagnostics arrive.

Usage: reliability_test.py PTLINT CASE
"""

import json
import os
import queue
import stat
import subprocess
import sys
import threading
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import LspClient  # noqa: E402

PROMPT = 5  # seconds: every request must be answered within this

FINDING = "import torch\nwith torch.cuda.amp.autocast():\n    pass\n"
CLEAN = "import torch\nx = 1\n"


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


CLIENTS = []  # killed at the end, whatever happened


def start(ptlint, tmp, name, **init):
    client = LspClient([ptlint, "--lsp"], cwd=tmp, stderr_path=os.path.join(tmp, name + ".stderr"))
    CLIENTS.append(client)
    response = answered(client, f"{name} {json.dumps(init)[:200]}", "initialize",
                        dict({"processId": os.getpid(), "rootUri": "file://" + tmp, "capabilities": {}}, **init))
    check("result" in response, f"{name}: initialize was not answered with a result: {response}")
    client.notify("initialized", {})
    return client


def answered(client, what, method, params):
    """The response to a request, which must come within PROMPT seconds."""
    try:
        return client.call(method, params, timeout=PROMPT)
    except TimeoutError:
        raise Failure(f"{what}: {method} was not answered within {PROMPT} s (the server hangs)")


def still_serving(client, tmp, what):
    uri = "file://" + os.path.join(tmp, "probe_%d.py" % time.monotonic_ns())
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                            "text": FINDING}})
    try:
        message = client.diagnostics_for(uri, 1, timeout=PROMPT)
    except TimeoutError:
        raise Failure(f"{what}: no diagnostics within {PROMPT} s after the settings")
    codes = [d["code"] for d in message["params"]["diagnostics"]]
    check("PTL101" in codes, f"{what}: the server stopped linting: {codes}")
    r = answered(client, what, "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 12}})
    check("result" in r, f"{what}: hover failed: {r}")


def shown(client, needle, what):
    try:
        return client.wait(lambda m: m.get("method") == "window/showMessage" and needle in m["params"]["message"],
                           timeout=PROMPT)["params"]["message"]
    except TimeoutError:
        raise Failure(f"{what}: no window/showMessage naming {needle}")


def finish(client, what):
    r = answered(client, what, "shutdown", None)
    check("result" in r, f"{what}: shutdown failed: {r}")
    client.notify("exit")
    code = client.wait_exit(timeout=PROMPT)
    check(code == 0, f"{what}: exit code {code}")
    check(not client.violations, f"{what}: protocol violations: {client.violations}")
    client.kill()


# Wrong values of every JSON type for each setting (null is "unset": accepted silently).
WRONG = {
    "torchVersion": ["banana", 2.6, ["2.6"], {"major": 2}, False],
    "select": [42, 1.5, "PTL1", True, {"a": 1}, ["PTL1", 3]],
    "ignore": [7, "PTL101", False, {"PTL101": True}, [None]],
    "unsafeFixes": [1, "yes", [True], {"on": True}],
    "gpuCheck": [0, "true", [], {}],
}


def test_bad_settings(ptlint, tmp):
    # 1. initializationOptions: the reported deadlock, then each wrong type.
    for key, values in WRONG.items():
        for value in values:
            what = f"initializationOptions {key}={json.dumps(value)}"
            client = start(ptlint, tmp, "init", initializationOptions={key: value})
            shown(client, f"`{key}`", what)
            still_serving(client, tmp, what)
            finish(client, what)
    for options in ([1, 2], "banana", 42, {"settings": 5}, {"torchVersion": None, "select": None}):
        what = f"initializationOptions {json.dumps(options)}"
        client = start(ptlint, tmp, "init", initializationOptions=options)
        if options != {"torchVersion": None, "select": None}:
            shown(client, "must be an object", what)
        still_serving(client, tmp, what)
        finish(client, what)

    # 2. workspace/didChangeConfiguration (no workspace/configuration support: its payload counts).
    client = start(ptlint, tmp, "change")
    for key, values in WRONG.items():
        for value in values + [None]:
            what = f"didChangeConfiguration {key}={json.dumps(value)}"
            client.notify("workspace/didChangeConfiguration", {"settings": {"ptlint": {key: value}}})
            if value is not None:
                shown(client, f"`{key}`", what)
            still_serving(client, tmp, what)
    for settings in (None, 3, "x", [1], {"ptlint": None}):
        what = f"didChangeConfiguration settings={json.dumps(settings)}"
        client.notify("workspace/didChangeConfiguration", {"settings": settings})
        still_serving(client, tmp, what)
    finish(client, "didChangeConfiguration")

    # 3. A workspace/configuration answer.
    client = start(ptlint, tmp, "pull", capabilities={"workspace": {"configuration": True}})
    first = client.wait(lambda m: m.get("method") == "workspace/configuration", timeout=PROMPT)
    client.send({"jsonrpc": "2.0", "id": first["id"], "result": [{"torchVersion": "banana"}]})
    shown(client, "`torchVersion`", "workspace/configuration torchVersion=banana")
    still_serving(client, tmp, "workspace/configuration torchVersion=banana")
    for key, values in WRONG.items():
        for value in values:
            what = f"workspace/configuration {key}={json.dumps(value)}"
            client.notify("workspace/didChangeConfiguration", {"settings": None})
            ask = client.wait(lambda m: m.get("method") == "workspace/configuration", timeout=PROMPT)
            client.send({"jsonrpc": "2.0", "id": ask["id"], "result": [{key: value}]})
            shown(client, f"`{key}`", what)
            still_serving(client, tmp, what)
    for answer in (None, 5, "x", [None], [7], {"ptlint": {}}):
        what = f"workspace/configuration answer {json.dumps(answer)}"
        client.notify("workspace/didChangeConfiguration", {"settings": None})
        ask = client.wait(lambda m: m.get("method") == "workspace/configuration", timeout=PROMPT)
        client.send({"jsonrpc": "2.0", "id": ask["id"], "result": answer})
        still_serving(client, tmp, what)
    finish(client, "workspace/configuration")


def test_heavy_requests(ptlint, tmp):
    client = start(ptlint, tmp, "heavy")
    big_uri = "file://" + os.path.join(tmp, "big.py")
    small_uri = "file://" + os.path.join(tmp, "small.py")
    big = "import torch\n" + "with torch.cuda.amp.autocast():\n    pass\n" * int(os.environ.get("PTLINT_TEST_BIG_REPEAT", "12000"))
    client.notify("textDocument/didOpen", {"textDocument": {"uri": big_uri, "languageId": "python", "version": 1, "text": big}})
    client.diagnostics_for(big_uri, 1, timeout=300)
    small = FINDING + "x = 1  # noqa: PTL101\n"  # hover shows a rule only on a noqa code
    client.notify("textDocument/didOpen", {"textDocument": {"uri": small_uri, "languageId": "python", "version": 1, "text": small}})
    client.diagnostics_for(small_uri, 1, timeout=60)
    # Both documents are analysed: the fix-all now only computes fixes, the hover only looks up.
    fix_id = client.request("textDocument/codeAction", {
        "textDocument": {"uri": big_uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
        "context": {"diagnostics": [], "only": ["source.fixAll"]}})
    hover_id = client.request("textDocument/hover", {"textDocument": {"uri": small_uri}, "position": {"line": 3, "character": 17}})
    order = []
    for _ in range(2):
        m = client.wait(lambda m: m.get("id") in (fix_id, hover_id) and "method" not in m, timeout=300)
        order.append("fixAll" if m["id"] == fix_id else "hover")
        if m["id"] == fix_id:
            check(m.get("result") and m["result"][0]["kind"] == "source.fixAll.ptlint", f"no fix-all action: {str(m)[:300]}")
        else:
            check(m.get("result") and "PTL101" in m["result"]["contents"]["value"], f"bad hover: {str(m)[:300]}")
    check(order == ["hover", "fixAll"], f"the hover on the small document waited for the fix-all: answered {order}")
    finish(client, "heavy_requests")


def test_version_order(ptlint, tmp):
    client = start(ptlint, tmp, "versions")
    uri = "file://" + os.path.join(tmp, "v.py")
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": CLEAN}})
    client.diagnostics_for(uri, 1, timeout=PROMPT)
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 20}, "contentChanges": [{"text": FINDING}]})
    codes = [d["code"] for d in client.diagnostics_for(uri, 20, timeout=PROMPT)["params"]["diagnostics"]]
    check(codes == ["PTL101"], f"version 20: {codes}")
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 10}, "contentChanges": [{"text": CLEAN}]})
    try:
        message = client.diagnostics_for(uri, 10, timeout=PROMPT)
    except TimeoutError:
        raise Failure("the clean text of version 10, applied after version 20, was never published: "
                      "the editor keeps version 20's finding")
    check(message["params"]["diagnostics"] == [], f"version 10: {message['params']['diagnostics']}")
    r = answered(client, "version_order", "ptlint/debugDocument", {"textDocument": {"uri": uri}})
    check(r["result"]["text"] == CLEAN, f"the server's text is not the newest applied one: {r['result']['text']!r}")
    # And the order is kept from there on: 11 after 10 is published, nothing older reappears.
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 11}, "contentChanges": [{"text": FINDING}]})
    codes = [d["code"] for d in client.diagnostics_for(uri, 11, timeout=PROMPT)["params"]["diagnostics"]]
    check(codes == ["PTL101"], f"version 11: {codes}")
    client.drain(0.5)
    later = [m for _, m in client.backlog if m.get("method") == "textDocument/publishDiagnostics"
             and m["params"]["uri"] == uri]
    check(not later, f"an older result was published after version 11: {later}")
    finish(client, "version_order")


def raw_change(client, uri, version, range_json, text_json):
    body = ('{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": "%s", '
            '"version": %d}, "contentChanges": [{"range": %s, "text": %s}]}}' % (uri, version, range_json, text_json))
    data = body.encode("utf-8")
    client.write_raw(b"Content-Length: %d\r\n\r\n" % len(data) + data)


def span(line, start_char, end_char):
    return json.dumps({"start": {"line": line, "character": start_char}, "end": {"line": line, "character": end_char}})


def test_lone_surrogate(ptlint, tmp):
    client = start(ptlint, tmp, "surrogate")
    uri = "file://" + os.path.join(tmp, "s.py")
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                            "text": "x = ''\ny = 1\n"}})
    client.diagnostics_for(uri, 1, timeout=PROMPT)
    # Insert a lone high surrogate between the quotes, then a lone low one, then a real pair.
    raw_change(client, uri, 2, span(0, 5, 5), '"\\ud800"')
    raw_change(client, uri, 3, span(0, 6, 6), '"\\udc00"')
    raw_change(client, uri, 4, span(0, 7, 7), '"\\ud83d\\ude00"')
    # The next incremental edit counts UTF-16 units: the text before it must be the editor's.
    raw_change(client, uri, 5, span(1, 4, 5), '"2"')
    errors = [m for _, m in client.backlog if "error" in m and "method" not in m]
    r = answered(client, "lone_surrogate", "ptlint/debugDocument", {"textDocument": {"uri": uri}})
    errors += [m for _, m in client.backlog if "error" in m and "method" not in m]
    check(not errors, f"a change with a lone surrogate was refused: {errors}")
    expected = "x = '\ufffd\ufffd\U0001F600'\ny = 2\n"
    check(r["result"]["text"] == expected, f"out of sync: {r['result']['text']!r} != {expected!r}")
    check(r["result"]["version"] == 5, f"version {r['result']['version']}")
    client.diagnostics_for(uri, 5, timeout=PROMPT)
    finish(client, "lone_surrogate")


def test_lost_change(ptlint, tmp):
    client = start(ptlint, tmp, "lost")
    uri = "file://" + os.path.join(tmp, "lost.py")
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": FINDING}})
    check(client.diagnostics_for(uri, 1, timeout=PROMPT)["params"]["diagnostics"], "no finding at first")
    # A didChange that is not JSON at all (a truncated string): its edit is lost.
    raw_change(client, uri, 2, span(0, 0, 0), '"# lost\\n')
    shown(client, "lost a change", "lost_change")
    client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
                and m["params"]["diagnostics"] == [], timeout=PROMPT)
    # The next incremental edit was written against the editor's text, not the server's: refused.
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [
        {"range": json.loads(span(2, 4, 8)), "text": "x = 1"}]})
    r = answered(client, "lost_change", "ptlint/debugDocument", {"textDocument": {"uri": uri}})
    check(r["result"]["text"] == FINDING, f"an edit was applied to the wrong text: {r['result']['text']!r}")
    hover = answered(client, "lost_change", "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 12}})
    check(hover.get("result") is None, f"hover on an out-of-sync document: {hover}")
    # The whole text brings it back.
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 4}, "contentChanges": [{"text": FINDING}]})
    codes = [d["code"] for d in client.diagnostics_for(uri, 4, timeout=PROMPT)["params"]["diagnostics"]]
    check(codes == ["PTL101"], f"after the whole text: {codes}")
    finish(client, "lost_change")


FAKE_GPU = r'''#!/usr/bin/env python3
import json, os, sys
with open(os.environ["FAKE_GPU_LOG"], "a") as log:
    log.write("start\n")
request = json.loads(sys.stdin.read())
results = [{"device": "cpu", "dtype": "float32", "shape": request["shape"], "max_abs_error": 1e-7,
            "tolerance": 1e-5, "equivalent": True, "speedup": 2.0} for _ in request["patterns"]]
print(json.dumps({"protocol": request["protocol"], "results": results}))
'''


def test_gpu_check_starts(ptlint, tmp):
    fake = os.path.join(tmp, "ptlint-gpu")
    with open(fake, "w") as f:
        f.write("#!" + sys.executable + "\n" + FAKE_GPU.split("\n", 1)[1])
    os.chmod(fake, os.stat(fake).st_mode | stat.S_IXUSR)
    log = os.path.join(tmp, "starts.log")
    open(log, "w").close()
    os.environ["PTLINT_GPU"] = fake
    os.environ["FAKE_GPU_LOG"] = log
    source = "import torch\nimport torch.nn.functional as F\n\n"
    for i in range(6):  # six different patterns (the scale differs)
        source += f"\ndef attention{i}(q, k, v):\n    scores = q @ k.transpose(2, 3) * {0.1 * (i + 1):.1f}\n" \
                  f"    return F.softmax(scores, dim=-1) @ v\n\n"
    client = start(ptlint, tmp, "gpu", initializationOptions={"gpuCheck": True, "unsafeFixes": True})
    uri = "file://" + os.path.join(tmp, "attn.py")
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": source}})
    diags = [d for d in client.diagnostics_for(uri, 1, timeout=PROMPT)["params"]["diagnostics"] if d["code"] == "PTL601"]
    check(len(diags) == 6, f"expected six PTL601 findings, got {len(diags)}")
    check(open(log).read() == "", "ptlint-gpu was started before any code action asked for it")
    deadline = time.monotonic() + 60
    titles = []
    while time.monotonic() < deadline:
        titles = []
        for d in diags:  # a code action on each finding, as an editor asks when the cursor moves
            r = answered(client, "gpu_check_starts", "textDocument/codeAction", {
                "textDocument": {"uri": uri}, "range": d["range"], "context": {"diagnostics": [d], "only": ["quickfix"]}})
            titles += [a["title"] for a in r["result"] if a["title"].startswith("PTL601: Replace")]
        if titles and all("validated on cpu float32: equivalent" in t for t in titles):
            break
        time.sleep(0.2)
    check(len(titles) == 6 and all("equivalent" in t for t in titles), f"titles: {titles}")
    starts = open(log).read().count("start")
    check(starts == 1, f"ptlint-gpu was started {starts} times for six patterns (once is enough)")
    finish(client, "gpu_check_starts")


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def read_frames(stream, out):
    """Every message `stream` carries, into the queue `out` (None at its end)."""
    while True:
        header = b""
        while not header.endswith(b"\r\n\r\n"):
            byte = stream.read(1)
            if not byte:
                out.put(None)
                return
            header += byte
        length = int([l for l in header.split(b"\r\n") if l.lower().startswith(b"content-length:")][0].split(b":")[1])
        body = b""
        while len(body) < length:
            chunk = stream.read(length - len(body))
            if not chunk:
                out.put(None)
                return
            body += chunk
        out.put(json.loads(body))


def test_stalled_client(ptlint, tmp):
    with open(os.path.join(tmp, "stalled.stderr"), "wb") as stderr:
        proc = subprocess.Popen([ptlint, "--lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, cwd=tmp)
    try:
        def send(message):
            body = json.dumps(message).encode()
            proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            proc.stdin.flush()

        uri = "file://" + os.path.join(tmp, "a.py")
        text = "import torch\n" + "".join(f"with torch.cuda.amp.autocast():  # {i}\n    pass\n" for i in range(600))
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"processId": None, "rootUri": "file://" + tmp, "capabilities": {}}})
        send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
              "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}})
        # Nobody reads the server's output from here on. Each text is analysed (about 0.1 s) and
        # its diagnostics (about 400 KB, more than a pipe holds) published before the next comes.
        requests, last = [1], 40
        rss_before = rss_kb(proc.pid)
        for version in range(2, last + 1):
            send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                  "params": {"textDocument": {"uri": uri, "version": version},
                             "contentChanges": [{"text": text + f"# {version}\n"}]}})
            if version % 10 == 0:
                requests.append(100 + version)
                send({"jsonrpc": "2.0", "id": 100 + version, "method": "textDocument/hover",
                      "params": {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 12}}})
            time.sleep(0.5)
        rss_growth = (rss_kb(proc.pid) - rss_before) // 1024
        # The client reads again: every request is answered, the last text's diagnostics come.
        messages = queue.Queue()
        threading.Thread(target=read_frames, args=(proc.stdout, messages), daemon=True).start()
        answered_ids, published = [], []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                message = messages.get(timeout=1)
            except queue.Empty:
                if published and published[-1] == last and sorted(answered_ids) == requests:
                    break
                continue
            if message is None:
                break
            if "id" in message and "method" not in message:
                answered_ids.append(message["id"])
            if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                published.append(message["params"]["version"])
        check(sorted(answered_ids) == requests, f"requests answered: {sorted(answered_ids)}, sent: {requests}")
        check(published and published[-1] == last, f"the last publication is not version {last}: {published[-5:]}")
        check(published == sorted(published), f"publications went backwards: {published}")
        check(len(published) <= 4, f"{len(published)} publications were queued for one document, superseded ones "
                                   f"were not dropped (the server grew by {rss_growth} MB meanwhile)")
        send({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
        send({"jsonrpc": "2.0", "method": "exit", "params": {}})
        check(proc.wait(timeout=PROMPT) == 0, "exit code")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def main():
    ptlint, case = os.path.abspath(sys.argv[1]), sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="ptlint_reliability_") as tmp:
        tmp = os.path.realpath(tmp)
        try:
            globals()["test_" + case](ptlint, tmp)
        except (Failure, TimeoutError, EOFError) as e:
            print("FAIL", case + ":", e)
            for client in CLIENTS:
                client.kill()
            for name in sorted(os.listdir(tmp)):
                if name.endswith(".stderr") and os.path.getsize(os.path.join(tmp, name)):
                    with open(os.path.join(tmp, name), errors="replace") as f:
                        print(f"{name} ends with:\n" + f.read()[-4000:])
            return 1
        finally:
            for client in CLIENTS:
                client.kill()
    print("PASS", case)
    return 0


if __name__ == "__main__":
    sys.exit(main())
