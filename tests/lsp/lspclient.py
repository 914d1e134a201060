"""A small LSP client over pipes, for the transcript runner, the equivalence test and the
latency benchmark. Python 3 standard library only.

Every message the server writes is parsed on a reader thread; `wait()` returns the first
message (old or new) matching a predicate and keeps the others for later waits. The client
also checks two invariants on every message: stdout carries only well-formed frames, and the
diagnostics published for a document never go backwards in the order the client sent its texts
(a client may send a lower version number after a higher one: that text is then the newest).
"""

import json
import os
import queue
import subprocess
import threading
import time


class ProtocolViolation(Exception):
    pass


class LspClient:
    def __init__(self, argv, cwd=None, stderr_path=None):
        self._stderr = open(stderr_path or os.devnull, "wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr, cwd=cwd, bufsize=0)
        self._inbox = queue.Queue()
        self.backlog = []
        self.violations = []
        self._published = {}  # uri -> index in _sent[uri] of the last published text
        self._sent = {}       # uri -> versions of the texts sent (didOpen, then each didChange)
        self._sent_lock = threading.Lock()
        self._next_id = 1000
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    # --- Output --------------------------------------------------------------------------------

    def write_raw(self, data):
        if isinstance(data, str):
            data = data.encode("utf-8")
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def note_sent(self, uri, version):
        """Records a didChange of `uri` to `version` written with write_raw."""
        with self._sent_lock:
            if uri in self._sent:
                self._sent[uri].append(version)

    def send(self, message):
        method = message.get("method")
        if method in ("textDocument/didOpen", "textDocument/didChange"):
            try:
                doc = message["params"]["textDocument"]
                with self._sent_lock:
                    if method == "textDocument/didOpen":
                        self._sent[doc["uri"]] = [doc["version"]]
                        self._published.pop(doc["uri"], None)
                    elif doc["uri"] in self._sent:
                        self._sent[doc["uri"]].append(doc.get("version"))
            except (KeyError, TypeError):
                pass  # a malformed message on purpose: not tracked
        body = json.dumps(message, ensure_ascii=False).encode("utf-8")
        self.write_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method, params=None):
        self.send({"jsonrpc": "2.0", "method": method, "params": params if params is not None else {}})

    def request(self, method, params=None):
        self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": self._next_id, "method": method,
                   "params": params if params is not None else {}})
        return self._next_id

    def call(self, method, params=None, timeout=30):
        rid = self.request(method, params)
        return self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout)

    def close_stdin(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass

    # --- Input ---------------------------------------------------------------------------------

    def _read_loop(self):
        out = self.proc.stdout
        while True:
            headers = b""
            while not headers.endswith(b"\r\n\r\n"):
                byte = out.read(1)
                if not byte:
                    self._inbox.put(None)
                    return
                headers += byte
            length = None
            for line in headers.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            if length is None:
                self.violations.append("frame without Content-Length: %r" % headers)
                self._inbox.put(None)
                return
            body = b""
            while len(body) < length:
                chunk = out.read(length - len(body))
                if not chunk:
                    self.violations.append("truncated frame")
                    self._inbox.put(None)
                    return
                body += chunk
            try:
                message = json.loads(body.decode("utf-8"))
            except ValueError as e:
                self.violations.append("server sent invalid JSON: %s" % e)
                continue
            self._check(message)
            self._inbox.put((time.monotonic(), message))

    def _check(self, message):
        if message.get("method") == "textDocument/publishDiagnostics":
            params = message["params"]
            version = params.get("version")
            uri = params["uri"]
            with self._sent_lock:
                sent = self._sent.get(uri)
                if version is None or sent is None:
                    return  # unversioned (didClose, out of sync) or a document this client did not track
                last = self._published.get(uri, 0)
                # The first text sent with this version at or after the last published one (a
                # client may repeat a version number: the earliest match never accuses wrongly).
                later = [i for i in range(last, len(sent)) if sent[i] == version]
                if later:
                    self._published[uri] = later[0]
                elif version in sent:
                    self.violations.append("published diagnostics went backwards for %s: version %d after version %s"
                                           % (uri, version, sent[last]))

    def wait(self, predicate, timeout=30, with_time=False):
        """The first message matching `predicate`, from the backlog or newly read."""
        for i, (stamp, message) in enumerate(self.backlog):
            if predicate(message):
                del self.backlog[i]
                return (stamp, message) if with_time else message
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no matching message within %ss" % timeout)
            try:
                item = self._inbox.get(timeout=remaining)
            except queue.Empty:
                raise TimeoutError("no matching message within %ss" % timeout)
            if item is None:
                self._inbox.put(None)  # stay at end of input
                raise EOFError("the server closed its output")
            stamp, message = item
            if predicate(message):
                return (stamp, message) if with_time else message
            self.backlog.append(item)

    def drain(self, duration):
        """Reads for `duration` seconds, keeping everything in the backlog."""
        try:
            self.wait(lambda m: False, timeout=duration)
        except (TimeoutError, EOFError):
            pass

    def wait_exit(self, timeout=10):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._stderr.close()

    # --- Helpers -------------------------------------------------------------------------------

    def initialize(self, root_uri=None, capabilities=None, options=None, folders=None):
        params = {"processId": os.getpid(), "rootUri": root_uri, "capabilities": capabilities or {}}
        if options is not None:
            params["initializationOptions"] = options
        if folders is not None:
            params["workspaceFolders"] = folders
        response = self.call("initialize", params)
        self.notify("initialized", {})
        return response

    def diagnostics_for(self, uri, version, timeout=30):
        return self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["uri"] == uri and m["params"].get("version") == version, timeout)

    def diagnostics_for_with_time(self, uri, version, timeout=30):
        """(arrival time, message): the time the reader thread parsed the frame."""
        return self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                         and m["params"]["uri"] == uri and m["params"].get("version") == version, timeout,
                         with_time=True)


def utf16_len(text):
    return len(text.encode("utf-16-le")) // 2


def position_of(text, index, encoding="utf-16"):
    """LSP position of code point `index` in `text` (lines end at \\n, \\r\\n or \\r)."""
    line, line_start, i = 0, 0, 0
    while i < index:
        c = text[i]
        if c == "\r" and i + 1 < len(text) and text[i + 1] == "\n" and i + 1 < index:
            i += 2
            line += 1
            line_start = i
            continue
        if c in "\r\n":
            line += 1
            line_start = i + 1
        i += 1
    segment = text[line_start:index]
    if encoding == "utf-8":
        return {"line": line, "character": len(segment.encode("utf-8"))}
    return {"line": line, "character": utf16_len(segment)}
