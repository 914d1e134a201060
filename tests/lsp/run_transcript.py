#!/usr/bin/env python3
"""Runs one LSP transcript against the real `ptlint` binary over pipes (clangd's lit tests are
the model). A transcript is a `.jsonl` file, one directive per line (`#` lines are comments):

  {"file": "pkg/ptlint.toml", "text": "..."}       write a file under $ROOT (a fresh temp dir)
  {"send": {...}}                                  send a message
  {"raw": "Content-Length: 3\\r\\n\\r\\n{x"}          write bytes as they are
  {"expect": {...}, "timeout": 10}                 wait for a message matching the pattern
  {"expect": {...}, "capture": {"rid": ["result", "resultId"]}}   ... and name a value `$rid`
  {"files": {"pattern": "many/f{i}.py", "count": 100, "text": "...", "repeat": 1}}
  {"expect_none": {...}, "for": 0.5}               no matching message arrives within the time
  {"respond": {...}, "result": ...}                wait for a server request, answer it
  {"sleep": 0.2}
  {"discard": true, "after": 0.3}                 read for a while, then forget unmatched messages
  {"close_stdin": true}
  {"exit_code": 0, "timeout": 5}                   the server exits with this code in time

Patterns match a message when every key of the pattern matches (extra keys are fine); lists
match element by element and must have the same length; "<any>" matches any value, "<contains:TEXT>" a string containing TEXT, and
"<absent>" requires the key to be missing. `$ROOT` and `$ROOT_URI` in strings are replaced.
Messages that no `expect` consumed are fine; but every response and published version is
checked for protocol violations (versions going backwards, bad frames).
"""

import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import LspClient  # noqa: E402


def substitute(value, env):
    if isinstance(value, str):
        for key, replacement in env.items():
            value = value.replace(key, replacement)
        return value
    if isinstance(value, list):
        return [substitute(v, env) for v in value]
    if isinstance(value, dict):
        return {substitute(k, env): substitute(v, env) for k, v in value.items()}
    return value


def matches(pattern, value):
    if pattern == "<any>":
        return True
    if isinstance(pattern, str) and pattern.startswith("<contains:") and pattern.endswith(">"):
        return isinstance(value, str) and pattern[len("<contains:"):-1] in value
    if isinstance(pattern, dict):
        if not isinstance(value, dict):
            return False
        for key, sub in pattern.items():
            if sub == "<absent>":
                if key in value:
                    return False
            elif key not in value or not matches(sub, value[key]):
                return False
        return True
    if isinstance(pattern, list):
        return isinstance(value, list) and len(pattern) == len(value) and all(
            matches(p, v) for p, v in zip(pattern, value))
    if isinstance(pattern, bool) or isinstance(value, bool):
        return pattern is value
    return pattern == value


def run(binary, transcript):
    root = tempfile.mkdtemp(prefix="ptlint-lsp-")
    env = {"$ROOT_URI": "file://" + root, "$ROOT": root}  # longest names first: plain replace
    stderr_path = os.path.join(root, ".server-stderr")
    binary = os.path.abspath(binary)
    client = LspClient([binary, "--lsp"], cwd=root, stderr_path=stderr_path)
    failures = []
    try:
        with open(transcript, encoding="utf-8") as f:
            lines = [(n, line) for n, line in enumerate(f, 1) if line.strip() and not line.lstrip().startswith("#")]
        for number, line in lines:
            try:
                step = substitute(json.loads(line), env)
            except ValueError as e:
                raise SystemExit("%s:%d: bad directive: %s" % (transcript, number, e))
            where = "%s:%d" % (os.path.basename(transcript), number)
            try:
                if "file" in step:
                    path = os.path.join(root, step["file"])
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    with open(path, "w", encoding="utf-8", newline="") as out:
                        out.write(step["text"])
                elif "files" in step:
                    spec = step["files"]
                    for i in range(spec["count"]):
                        path = os.path.join(root, spec["pattern"].replace("{i}", str(i)))
                        os.makedirs(os.path.dirname(path), exist_ok=True)
                        with open(path, "w", encoding="utf-8", newline="") as out:
                            out.write(spec["text"] * spec.get("repeat", 1))
                elif "send" in step:
                    client.send(step["send"])
                elif "raw" in step:
                    client.write_raw(step["raw"])
                elif "expect" in step:
                    pattern = step["expect"]
                    got = client.wait(lambda m: matches(pattern, m), step.get("timeout", 20))
                    for name, path in step.get("capture", {}).items():
                        value = got
                        for key in path:
                            value = value[key]
                        env["$" + name] = value if isinstance(value, str) else json.dumps(value)
                elif "expect_none" in step:
                    pattern = step["expect_none"]
                    try:
                        got = client.wait(lambda m: matches(pattern, m), step.get("for", 0.5))
                        failures.append("%s: unexpected message %s" % (where, json.dumps(got)))
                    except TimeoutError:
                        pass
                elif "respond" in step:
                    pattern = step["respond"]
                    got = client.wait(lambda m: "method" in m and "id" in m and matches(pattern, m), step.get("timeout", 20))
                    client.send({"jsonrpc": "2.0", "id": got["id"], "result": step.get("result")})
                elif "discard" in step:
                    client.drain(step.get("after", 0.3))
                    client.backlog.clear()
                elif "sleep" in step:
                    time.sleep(step["sleep"])
                elif "close_stdin" in step:
                    client.close_stdin()
                elif "exit_code" in step:
                    started = time.monotonic()
                    code = client.wait_exit(step.get("timeout", 5))
                    if code != step["exit_code"]:
                        failures.append("%s: exit code %s, expected %s" % (where, code, step["exit_code"]))
                    print("%s: exited with %d after %.2fs" % (where, code, time.monotonic() - started))
                else:
                    raise SystemExit("%s: unknown directive %s" % (where, line.strip()))
            except (TimeoutError, EOFError) as e:
                failures.append("%s: %s waiting for %s" % (where, e, line.strip()))
                unmatched = [json.dumps(m, ensure_ascii=False)[:400] for _, m in client.backlog]
                failures.append("  messages received and not matched:\n    " + "\n    ".join(unmatched[-15:]))
                break
        failures.extend(client.violations)
    finally:
        client.kill()
    if failures:
        print("FAILED %s" % transcript)
        for failure in failures:
            print("  " + failure)
        with open(stderr_path, encoding="utf-8", errors="replace") as f:
            err = f.read()
        if err:
            print("server stderr:\n" + err[-3000:])
        return 1
    print("ok %s" % transcript)
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit("usage: run_transcript.py PTLINT TRANSCRIPT...")
    sys.exit(max(run(sys.argv[1], t) for t in sys.argv[2:]))
