#!/usr/bin/env bash
# Builds a Python wheel that carries the `ptlint` executable, the way Ruff's wheels do: no Python
# code, the binary in ptlint-X.Y.Z.data/scripts/ (pip puts it in the environment's bin/),
# `Root-Is-Purelib: false`. The version is CMake's project version (CMakeLists.txt).
#
#   scripts/build_wheel.sh [--build-dir build] [--out dist]
#   pip install --no-index --find-links dist ptlint
#
# Platform tag, as auditwheel computes it: the binary needs only glibc (libc, libm, libpthread,
# libdl, librt, ld.so), so the tag is `manylinux_2_NN_<arch>`, NN the highest `GLIBC_2.NN` symbol
# version it references (`readelf -V`); pip installs it on any Linux whose glibc is at least that.
# A binary that needs any other shared library (a build without PTLINT_STATIC_RUNTIME, or
# without libtree-sitter.a) gets `linux_<arch>`, which only runs where those libraries are, and a
# warning. Python's standard library writes the zip.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build out=dist
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--build-dir DIR] [--out DIR]" >&2; exit 2 ;;
  esac
done
if [ ! -f "$build/build.ninja" ] && [ ! -f "$build/Makefile" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTLINT_BUILD_TESTS=OFF -DPTLINT_WITH_TORCH=OFF
fi
cmake --build "$build" --target ptlint ptlint_rule_docs
version=$(sed -n 's/^project(ptlint VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$version" ] || { echo "error: no project(ptlint VERSION ...) in CMakeLists.txt" >&2; exit 2; }
reported=$("$build/ptlint" --version)
[ "$reported" = "ptlint $version" ] || {
  echo "error: $build/ptlint says \`$reported\`, CMakeLists.txt says $version (reconfigure the build)" >&2; exit 2; }
mkdir -p "$out"
stripped=$(mktemp "${TMPDIR:-/tmp}/ptlint-wheel.XXXXXX")
trap 'rm -f "$stripped"' EXIT
strip -o "$stripped" "$build/ptlint" 2>/dev/null || cp "$build/ptlint" "$stripped"
platform_tag=$(scripts/wheel_platform_tag.py "$stripped")
docs="$build/rule-docs"
python3 - "$version" "$stripped" "$out" "$platform_tag" "$docs" <<'PY'
import base64, hashlib, os, sys, zipfile

version, binary, out, platform_tag, docs = sys.argv[1:]
tag = f"py3-none-{platform_tag}"
name = f"ptlint-{version}"
dist_info, data = f"{name}.dist-info", f"{name}.data"
with open("README.md", encoding="utf-8") as f:
    readme = f.read()
metadata = f"""Metadata-Version: 2.1
Name: ptlint
Version: {version}
Summary: A fast linter and language server for PyTorch code
License: Apache-2.0
Requires-Python: >=3.7
Classifier: License :: OSI Approved :: Apache Software License
Classifier: Operating System :: POSIX :: Linux
Classifier: Programming Language :: Python :: 3
Classifier: Topic :: Software Development :: Quality Assurance
License-File: LICENSE
Description-Content-Type: text/markdown

This wheel installs the `ptlint` executable (no Python code), a self-contained binary that
needs only the C library (glibc), and the rule pages its findings link to
(`share/doc/ptlint/rules/` in the environment).

{readme}"""
# One `Tag:` line per platform tag of a compressed set (`manylinux_2_17_x86_64.manylinux2014_x86_64`).
tag_lines = "".join(f"Tag: py3-none-{p}\n" for p in platform_tag.split("."))
wheel = f"""Wheel-Version: 1.0
Generator: ptlint scripts/build_wheel.sh
Root-Is-Purelib: false
{tag_lines}"""
with open(binary, "rb") as f:
    exe = f.read()
with open("LICENSE", "rb") if os.path.exists("LICENSE") else open(os.devnull, "rb") as f:
    license_text = f.read()
files = [(f"{data}/scripts/ptlint", exe, 0o755)]
# The rule pages, where the installed binary looks for them (<prefix>/share/doc/ptlint/rules/,
# beside <prefix>/bin/ptlint): pip installs `.data/data/` under the environment's prefix.
for page in sorted(os.listdir(docs)):
    with open(os.path.join(docs, page), "rb") as f:
        files.append((f"{data}/data/share/doc/ptlint/rules/{page}", f.read(), 0o644))
files += [(f"{dist_info}/METADATA", metadata.encode(), 0o644),
          (f"{dist_info}/WHEEL", wheel.encode(), 0o644)]
if license_text:
    files.append((f"{dist_info}/licenses/LICENSE", license_text, 0o644))
if os.path.exists("packaging/copyright"):  # third-party notices (the compiled-in grammar)
    with open("packaging/copyright", "rb") as f:
        files.append((f"{dist_info}/licenses/copyright", f.read(), 0o644))
record = []
for path, content, _ in files:
    digest = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
    record.append(f"{path},sha256={digest},{len(content)}")
record.append(f"{dist_info}/RECORD,,")
files.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode(), 0o644))
target = os.path.join(out, f"{name}-{tag}.whl")
with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
    for path, content, mode in files:
        info = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))  # reproducible
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, content)
print(target)
PY
