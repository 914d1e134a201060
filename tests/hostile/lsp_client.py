"""A minimal LSP client over a subprocess's stdio, for the hostile tests."""
import json
import subprocess
import threading
import queue

from hostile_common import Failure, limit_memory


class LspClient:
    def __init__(self, cmd, preexec_fn=limit_memory, env=None):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     preexec_fn=preexec_fn, env=env)
        self.next_id = 1
        self.messages = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                k, _, v = line.decode().partition(":")
                headers[k.strip().lower()] = v.strip()
            body = out.read(int(headers["content-length"]))
            self.messages.put(json.loads(body))

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message):
        body = json.dumps(message).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params, wait=True):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return self.response(rid) if wait else rid

    def response(self, rid, timeout=60):
        while True:
            try:
                m = self.messages.get(timeout=timeout)
            except queue.Empty:
                raise Failure(f"no response to request {rid} within {timeout}s")
            if m is None:
                raise Failure(f"the server closed its output before answering {rid}")
            if m.get("id") == rid and "method" not in m:
                return m

    def next_message(self, timeout=30):
        try:
            m = self.messages.get(timeout=timeout)
        except queue.Empty:
            raise Failure(f"no message within {timeout}s")
        if m is None:
            raise Failure("the server closed its output")
        return m

    def initialize(self, root=None, encodings=("utf-16",)):
        params = {"processId": None, "capabilities": {"general": {"positionEncodings": list(encodings)},
                                                       "textDocument": {"diagnostic": {}}}}
        if root:
            params["rootUri"] = "file://" + root
        r = self.request("initialize", params)
        self.notify("initialized", {})
        return r

    def open(self, uri, text, version=1):
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": version,
                                                              "text": text}})

    def shutdown(self, timeout=60):
        self.request("shutdown", None)
        self.notify("exit", None)
        self.proc.stdin.close()
        return self.proc.wait(timeout=timeout)

    def close(self, timeout=60):
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        return self.proc.wait(timeout=timeout)
