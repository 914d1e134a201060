"""The language server under hostile input: JSON nested 100,000 deep, a `Content-Length` of
1 GiB, a request flood, non-`file:` and `..`-laden URIs, pulls of special files. Each gets a
clean error or refusal, the server keeps serving, and it never crashes."""
import os
import time

from hostile_common import Failure, check, main
from lsp_client import LspClient

CODE = "import torch\nwith torch.cuda.amp.autocast():\n    pass\n"


def alive(client):
    r = client.request("textDocument/hover", {"textDocument": {"uri": "file:///nowhere.py"},
                                              "position": {"line": 0, "character": 0}})
    check("result" in r or "error" in r, "no answer after hostile input")


def test_deep_json(ptlint, tmp):
    client = LspClient([ptlint, "--lsp"])
    client.initialize(root=tmp)
    depth = 100000
    client.send_raw(b"Content-Length: %d\r\n\r\n" % (2 * depth) + b"[" * depth + b"]" * depth)
    body = b'{"jsonrpc":"2.0","id":9001,"method":"textDocument/hover","params":' + b"[" * depth + b"]" * depth + b"}"
    client.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    body = b'{"jsonrpc":"2.0","id":9002,"method":"textDocument/hover","params":' + b'{"a":' * depth + b"1" + b"}" * depth + b"}"
    client.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    errors = 0
    while errors < 3:  # one refusal each (the id is unknown: the message is refused unparsed)
        m = client.next_message(timeout=60)
        check("result" not in m, f"a 100,000-deep message was served: {str(m)[:200]}")
        errors += "error" in m
    alive(client)
    check(client.shutdown() == 0, "exit code after shutdown")


def test_huge_content_length(ptlint, tmp):
    client = LspClient([ptlint, "--lsp"])
    client.initialize(root=tmp)
    client.send_raw(b"Content-Length: 1073741824\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,")
    m = client.next_message(timeout=30)
    check("error" in m, f"a 1 GiB frame was not refused at once: {str(m)[:200]}")
    code = client.close()
    check(code >= 0, f"killed by signal {-code}")
    # The server now skips the declared gigabyte; an overflowing length needs a session of its own.
    client = LspClient([ptlint, "--lsp"])
    client.initialize(root=tmp)
    client.send_raw(b"Content-Length: 99999999999999999999999999\r\n\r\n{}")
    m = client.next_message(timeout=30)
    check("error" in m, "an overflowing Content-Length was not refused")
    alive(client)
    check(client.shutdown() == 0, "exit code after shutdown")


def test_request_flood(ptlint, tmp):
    client = LspClient([ptlint, "--lsp"])
    client.initialize(root=tmp)
    uri = "file://" + os.path.join(tmp, "flood.py")
    client.open(uri, CODE * 50)
    n = 1000
    start = time.monotonic()
    ids = []
    for i in range(n):
        method = ("textDocument/hover", "textDocument/diagnostic", "textDocument/codeAction")[i % 3]
        params = {"textDocument": {"uri": uri}}
        if i % 3 == 0:
            params["position"] = {"line": i % 150, "character": 8}
        if i % 3 == 2:
            params["range"] = {"start": {"line": 0, "character": 0}, "end": {"line": 150, "character": 0}}
            params["context"] = {"diagnostics": []}
        ids.append(client.request(method, params, wait=False))
        if i % 7 == 0:
            client.notify("$/cancelRequest", {"id": ids[-1]})
    seen = {}
    while len(seen) < n:
        m = client.next_message(timeout=120)
        if "id" in m and "method" not in m:
            check(m["id"] not in seen, f"request {m['id']} answered twice")
            seen[m["id"]] = m
    check(set(seen) == set(ids), "some flooded requests went unanswered")
    print(f"     {n} pipelined requests answered once each in {time.monotonic() - start:.1f}s")
    check(client.shutdown() == 0, "exit code after shutdown")


def test_strange_uris(ptlint, tmp):
    client = LspClient([ptlint, "--lsp"])
    client.initialize(root=tmp)
    uris = ["untitled:Untitled-1", "https://example.com/train.py", "file:///../../etc/passwd.py",
            "file://" + tmp + "/../../../../etc/x.py", "file:///tmp/%2e%2e/%2e%2e/etc/y.py", "file:relative.py",
            "file://host/share/z.py", "file:///%00.py", "vscode-notebook-cell:/a.ipynb#W0sZmlsZQ%3D%3D", "", "::::"]
    for i, uri in enumerate(uris):
        client.open(uri, CODE)
        r = client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        check("result" in r or "error" in r, f"{uri}: no clean answer")
        if "result" in r:
            codes = [d.get("code") for d in r["result"].get("items", [])]
            check("PTL101" in codes, f"{uri}: the in-memory text was not linted ({codes})")
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    # Pulls for documents that are not open: special files must be refused, not read forever.
    fifo = os.path.join(tmp, "pipe.py")
    os.mkfifo(fifo)
    for uri in ("file:///dev/zero", "file:///dev/urandom", "file://" + fifo, "file:///proc/self/mem", "file:///",
                "file://" + tmp):
        start = time.monotonic()
        r = client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}}, wait=True)
        check(time.monotonic() - start < 10, f"{uri}: took {time.monotonic() - start:.0f}s")
        if "/proc/" not in uri:  # /proc files are regular, of size 0: an empty result is fine
            check("error" in r, f"{uri}: expected a refusal, got {str(r)[:200]}")
    alive(client)
    check(client.shutdown() == 0, "exit code after shutdown")


if __name__ == "__main__":
    main({"deep_json": test_deep_json, "huge_content_length": test_huge_content_length,
          "request_flood": test_request_flood, "strange_uris": test_strange_uris})
