"""Every output format escapes what its consumer interprets, tested with hostile file names
(newlines, `::error` workflow commands, `%`, `:` and `,`, spaces, `#`, non-UTF-8 bytes): GitHub
workflow commands (one command per finding, each property and message escaped as GitHub's
toolkit does), SARIF `file://` URIs percent-encoded (RFC 3986), JSON that parses and names the
file, and line-oriented formats in which a file name never starts a line of its own."""
import json
import os
import urllib.parse

from hostile_common import AMP, check, main, run_ptlint

NAMES = [b"b\n::error file=x.py::INJECTED\n.py", b"100%25 %0A done.py", b"a:b,c d #1?.py", b"caf\xe9 latin1.py",
         b"cr\rline.py", b"esc\x1b[31mred.py"]


def unescape_data(text):
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def unescape_property(text):
    return unescape_data(text.replace("%3A", ":").replace("%2C", ","))


def test_hostile_names(ptlint, tmp):
    root = os.path.join(tmp, "names").encode()
    os.makedirs(root)
    for name in NAMES:
        with open(os.path.join(root, name), "w") as f:
            f.write(AMP)
    paths = {os.path.join(root, n) for n in NAMES}

    proc = run_ptlint(ptlint, ["check", "--no-cache", "--output-format", "github", os.fsdecode(root)], cwd=tmp)
    lines = proc.stdout.split(b"\n")
    commands = [l for l in lines if l.startswith(b"::")]
    check(len(commands) == len(NAMES), f"{len(commands)} workflow commands for {len(NAMES)} findings: {lines}")
    check(not [l for l in lines if b"INJECTED" in l and not l.startswith(b"::warning ")], "an injected command line")
    check(not [l for l in proc.stdout.split(b"\r") [1:] if l.startswith(b"::")], "a CR starts a command")
    seen = set()
    for line in commands:
        text = line.decode("utf-8", "surrogateescape")
        head, _, message = text[2:].partition("::")
        command, _, props = head.partition(" ")
        check(command == "warning", f"command {command!r}")
        fields = dict(p.split("=", 1) for p in props.split(","))
        check(set(fields) == {"title", "file", "line", "col", "endLine", "endColumn"}, f"properties {sorted(fields)}")
        seen.add(unescape_property(fields["file"]).encode("utf-8", "surrogateescape"))
        check("PTL101" in unescape_data(message), f"message {message!r}")
    check(seen == paths, f"file properties do not name the files: {sorted(seen ^ paths)}")

    proc = run_ptlint(ptlint, ["check", "--no-cache", "--output-format", "sarif", os.fsdecode(root)], cwd=tmp)
    sarif = json.loads(proc.stdout)
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]]
    for uri in uris:
        check(uri.startswith("file:///"), f"not a file URI: {uri!r}")
        bad = [c for c in uri[len("file://"):] if not (c.isascii() and (c.isalnum() or c in "-._~/%"))]
        check(not bad, f"characters that must be percent-encoded in {uri!r}: {bad}")
    decoded = {urllib.parse.unquote_to_bytes(u[len("file://"):]) for u in uris}
    check(decoded == paths, f"SARIF URIs do not name the files: {sorted(decoded ^ paths)}")

    for fmt in ("json", "json-lines"):
        proc = run_ptlint(ptlint, ["check", "--no-cache", "--output-format", fmt, os.fsdecode(root)], cwd=tmp)
        text = proc.stdout.decode("utf-8")  # valid UTF-8 even for a latin-1 file name
        rows = json.loads(text) if fmt == "json" else [json.loads(l) for l in text.splitlines()]
        check(len(rows) == len(NAMES), f"{fmt}: {len(rows)} rows")
        names = {r["filename"].encode() for r in rows}
        utf8 = {p for p in paths if b"\xe9" not in p}
        check(utf8 <= names, f"{fmt}: file names not kept: {sorted(utf8 - names)}")

    for fmt in ("concise", "full"):
        proc = run_ptlint(ptlint, ["check", "--no-cache", "--output-format", fmt, os.fsdecode(root)], cwd=tmp)
        starts = [l for l in proc.stdout.split(b"\n") if l.startswith(b"::error") or l.startswith(b".py")]
        check(not starts, f"{fmt}: a file name started a line: {starts}")
        check(b"\x1b" not in proc.stdout and b"\r" not in proc.stdout, f"{fmt}: control characters printed raw")


if __name__ == "__main__":
    main({"hostile_names": test_hostile_names})
