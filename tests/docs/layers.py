#!/usr/bin/env python3
"""What ARCHITECTURE.md says of the code's layout, checked against the code.

    python3 tests/docs/layers.py <repo root>

- Includes follow the layer table below (a folder includes only the folders under it), and
  third-party headers stay in the folders that own them (Asio in server/, torch in gpu_check/).
- UTF-16 is counted only in server/ and, for positions in other files (related information),
  in analysis/module_summary.cpp; the files that carry that precomputed column are listed.
- A rule's fixtures sit in tests/fixtures/<area>/ for the rules/<area>/ that holds the rule.
- ARCHITECTURE.md stays a map (at most 10,000 characters), names every top-level folder, and every
  path it or CONTRIBUTING.md names in backticks exists.
"""
import glob
import os
import re
import sys

# Folder -> the project folders its sources may include ("ptlint" is the generated version.h).
LAYERS = {
    "analysis": {"analysis"},
    "quickfix": {"analysis", "quickfix"},
    "rules": {"analysis", "quickfix", "rules", "ptlint"},
    "workspace": {"analysis", "quickfix", "rules", "workspace", "ptlint"},
    "gpu_check": {"gpu_check", "analysis", "rules"},
    "server": {"analysis", "quickfix", "rules", "workspace", "server", "gpu_check", "ptlint"},
    "cli": {"analysis", "quickfix", "rules", "workspace", "cli", "gpu_check", "ptlint"},
}
# Single files allowed past their folder's row: the executable's entry point starts the server.
EXCEPTIONS = {("cli/main.cpp", "server")}
PROJECT_FOLDERS = set(LAYERS) | {"ptlint", "tests", "bench", "fuzz"}
# Third-party headers and the only folders that include them.
THIRD_PARTY = {
    "asio": {"server"},
    "torch/": {"gpu_check"},
    "ATen/": {"gpu_check"},
    "toml++/": {"workspace"},
    "git2": {"workspace"},
    "CLI/": {"cli"},
    "nlohmann/": {"workspace", "server", "cli", "gpu_check"},
}
# UTF-16: counted in server/ and analysis/module_summary.cpp; carried (never computed) by these.
UTF16_ALLOWED = {
    "analysis/module_summary.cpp", "analysis/module_summary.h",
    "rules/rule.h", "rules/compile/compile_path.cpp", "rules/autograd/eval_with_grad.cpp",
    "rules/data/dataloader_missing_worker_init_fn.cpp",
    "workspace/project_scan_cache.cpp", "workspace/cache.cpp",
    "quickfix/fix.h",  # says it knows none
}
ARCHITECTURE_LIMIT = 10_000


def sources(root):
    for folder in LAYERS:
        for path in sorted(glob.glob(os.path.join(root, folder, "**", "*.[ch]*"), recursive=True)):
            if path.endswith((".h", ".cpp", ".hpp", ".cc")):
                yield folder, os.path.relpath(path, root)


def main(root):
    failures = []
    checked = 0
    include = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', re.M)
    utf16 = re.compile(r"utf-?16", re.I)
    for folder, rel in sources(root):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        checked += 1
        for kind, target in include.findall(text):
            top = target.split("/", 1)[0]
            if kind == '"' and "/" in target and top in PROJECT_FOLDERS:
                if top not in LAYERS[folder] and (rel, top) not in EXCEPTIONS:
                    failures.append(f"{rel}: includes {target}, but {folder}/ may include only "
                                    f"{', '.join(sorted(LAYERS[folder]))}")
            for lib, owners in THIRD_PARTY.items():
                if target.startswith(lib) and folder not in owners:
                    failures.append(f"{rel}: includes <{target}>, which only {', '.join(sorted(owners))}/ may")
        if folder != "server" and rel not in UTF16_ALLOWED and utf16.search(text):
            failures.append(f"{rel}: mentions UTF-16, which only server/ converts to")

    arch_path = os.path.join(root, "ARCHITECTURE.md")
    with open(arch_path, encoding="utf-8") as f:
        arch = f.read()
    if len(arch) > ARCHITECTURE_LIMIT:
        failures.append(f"ARCHITECTURE.md: {len(arch)} characters, over {ARCHITECTURE_LIMIT}: move detail to the headers")
    for entry in sorted(os.listdir(root)):
        if os.path.isdir(os.path.join(root, entry)) and not entry.startswith((".", "build")):
            if f"`{entry}/" not in arch:
                failures.append(f"ARCHITECTURE.md: the folder {entry}/ is not on the map")
    for doc in ("ARCHITECTURE.md", "CONTRIBUTING.md"):
        path = os.path.join(root, doc)
        if not os.path.exists(path):
            failures.append(f"{doc}: missing")
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for name in re.findall(r"`([A-Za-z0-9_.*/-]+)`", text):
            if "/" not in name or name.startswith(("/", "-", ".")) or "://" in name:
                continue
            last = name.rstrip("/").rsplit("/", 1)[-1]
            if not (name.endswith("/") or "." in last or "*" in last):
                continue  # an LSP method (`workspace/diagnostic`), not a path
            if name.split("/", 1)[0] not in os.listdir(root):
                continue  # not a path of this repository (`torch/` ...)
            if not glob.glob(os.path.join(root, name.rstrip("/"))):
                failures.append(f"{doc}: names `{name}`, which does not exist")

    # A fixture sits in the area of its rule: tests/fixtures/<area>/ beside rules/<area>/.
    area_of = {"PTL000": "syntax", "PTL001": "noqa"}
    for path in glob.glob(os.path.join(root, "rules", "*", "*.cpp")):
        with open(path, encoding="utf-8", errors="replace") as f:
            for code in re.findall(r"^PTLINT_REGISTER_RULE\((PTL\d{3}),", f.read(), re.M):
                area_of[code] = os.path.basename(os.path.dirname(path))
    for path in sorted(glob.glob(os.path.join(root, "tests", "fixtures", "*", "PTL*"))):
        area = os.path.basename(os.path.dirname(path))
        code = os.path.basename(path)[:6]
        if area_of.get(code) != area:
            failures.append(f"{os.path.relpath(path, root)}: {code} is a rule of "
                            f"{area_of.get(code, 'no area')}/, not of {area}/")

    for failure in failures:
        print("FAIL:", failure)
    if failures:
        return 1
    print(f"PASS: {checked} sources follow the layer table; ARCHITECTURE.md is {len(arch)} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
