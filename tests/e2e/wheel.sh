#!/usr/bin/env bash
# The pip wheel, offline: scripts/build_wheel.sh builds it from the CMake build; it is checked
# (RECORD hashes, WHEEL tags, the binary's mode), installed into a fresh venv with
# `pip install --no-index --find-links dist ptlint`, and the installed `ptlint` is run. Its platform
# tag is manylinux_2_NN_<arch>, NN the highest GLIBC_2.NN symbol version (objdump -T) of the
# binary, and its findings link to the rule pages the wheel installed into the venv.
# Usage: wheel.sh <repo root> <build dir> <work dir> <fixtures dir>
set -euo pipefail
repo=$(cd "$1" && pwd); build=$(cd "$2" && pwd); work=$3; fixtures=$(cd "$4" && pwd)
rm -rf "$work/wheel"; mkdir -p "$work/wheel"; work=$(cd "$work/wheel" && pwd)
version=$(sed -n 's/^project(ptlint VERSION \([0-9][0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")

"$repo/scripts/build_wheel.sh" --build-dir "$build" --out "$work/dist" >"$work/build.log" 2>&1 ||
  { cat "$work/build.log"; echo "FAIL: scripts/build_wheel.sh failed"; exit 1; }
highest=$(objdump -T "$build/ptlint" | grep -o 'GLIBC_2\.[0-9]*' | sort -t. -k2,2n -u | tail -1)
platform="manylinux_2_${highest#GLIBC_2.}_$(uname -m)"
whl=("$work/dist"/ptlint-"$version"-py3-none-"$platform".whl)
[ -f "${whl[0]}" ] || { ls -la "$work/dist"; echo "FAIL: no ptlint-$version-py3-none-$platform.whl in dist/"; exit 1; }
echo "ok: $(basename "${whl[0]}")"

python3 - "${whl[0]}" "$version" "$platform" <<'PY' || exit 1
import base64, hashlib, sys, zipfile
path, version, platform = sys.argv[1:]
z = zipfile.ZipFile(path)
names = set(z.namelist())
di = f"ptlint-{version}.dist-info"
exe = f"ptlint-{version}.data/scripts/ptlint"
assert exe in names, names
assert (z.getinfo(exe).external_attr >> 16) & 0o111, "binary not executable"
wheel = z.read(f"{di}/WHEEL").decode()
assert "Root-Is-Purelib: false" in wheel and f"Tag: py3-none-{platform}\n" in wheel, wheel
pages = [n for n in names if n.startswith(f"ptlint-{version}.data/data/share/doc/ptlint/rules/")]
assert any(n.endswith("/PTL101.md") for n in pages) and any(n.endswith("/README.md") for n in pages), pages
meta = z.read(f"{di}/METADATA").decode()
assert f"Version: {version}\n" in meta and "Name: ptlint\n" in meta
rows = [r.split(",") for r in z.read(f"{di}/RECORD").decode().splitlines()]
listed = {r[0] for r in rows}
assert listed == names, listed ^ names
for name, digest, size in rows:
    if name.endswith("RECORD"):
        continue
    data = z.read(name)
    want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    assert digest == want and int(size) == len(data), name
print("ok: wheel layout, WHEEL tags and RECORD hashes")
PY

python3 -m venv "$work/venv"
# Offline: nothing but the local folder; a network index is never asked.
PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 "$work/venv/bin/pip" install -q --no-index \
  --find-links "$work/dist" ptlint >"$work/pip.log" 2>&1 || { cat "$work/pip.log"; echo "FAIL: pip install"; exit 1; }
[ -x "$work/venv/bin/ptlint" ] || { echo "FAIL: the venv has no bin/ptlint"; exit 1; }
got=$(env -i PATH=/usr/bin:/bin "$work/venv/bin/ptlint" --version)
[ "$got" = "ptlint $version" ] || { echo "FAIL: --version says \`$got\`"; exit 1; }
echo "ok: pip installed $got"

mkdir -p "$work/project"; cp "$fixtures/amp_train.py" "$work/project/train.py"
cd "$work/project"
set +e
out=$(PATH="$work/venv/bin:/usr/bin:/bin" ptlint check --no-cache --output-format concise train.py)
rc=$?
set -e
[ $rc -eq 1 ] || { echo "$out"; echo "FAIL: check exited $rc, expected 1"; exit 1; }
grep -q "train.py:.*PTL101" <<<"$out" || { echo "$out"; echo "FAIL: no PTL101 finding"; exit 1; }
echo "ok: the installed ptlint checks a file"
page="$work/venv/share/doc/ptlint/rules/PTL101.md"
[ -s "$page" ] || { echo "FAIL: the wheel did not install $page"; exit 1; }
url=$(PATH="$work/venv/bin:/usr/bin:/bin" ptlint check --no-cache --output-format json train.py |
      python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["url"])' || true)
[ "$url" = "file://$page" ] || { echo "FAIL: the finding links to '$url', not the installed page file://$page"; exit 1; }
echo "ok: findings link to the installed page"
"$work/venv/bin/pip" uninstall -y -q ptlint
[ ! -e "$work/venv/bin/ptlint" ] || { echo "FAIL: pip uninstall left bin/ptlint"; exit 1; }
echo "ok: pip uninstall removes it"
echo PASS
