#!/usr/bin/env bash
# The wheel on another Debian release: a minimal chroot (debootstrap --variant=minbase, plus
# python3-venv) that has none of the build's libraries (no tree-sitter, fmt, toml++, libgit2), a
# fresh venv there, the wheel installed offline (pip checks its manylinux tag against the chroot's
# glibc), and the installed ptlint run on the examples: findings, exit 1, links to the rule pages
# the wheel installed.
#
#   scripts/chroot_check.sh [--suite trixie] [--wheel dist/ptlint-*.whl]
#
# Needs root and debootstrap (and the network to Debian's archive, once: the chroot is kept in
# ${PTLINT_CHROOTS:-/var/cache/ptlint-chroots}/<suite>-minbase). Without them it says so and exits
# 0 (skipped). A first run takes a few minutes (debootstrap); later runs, seconds. Not part of
# ctest; CI can run it after scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
suite=trixie wheel=
while [ $# -gt 0 ]; do
  case "$1" in
    --suite) suite=$2; shift 2 ;;
    --wheel) wheel=$2; shift 2 ;;
    *) echo "usage: $0 [--suite SUITE] [--wheel WHEEL]" >&2; exit 2 ;;
  esac
done
if [ "$(id -u)" != 0 ]; then echo "skipped: chroot_check.sh needs root (chroot, debootstrap)"; exit 0; fi
if ! command -v debootstrap >/dev/null; then echo "skipped: debootstrap is not installed (apt install debootstrap)"; exit 0; fi

if [ -z "$wheel" ]; then
  scripts/build_wheel.sh --out build/dist >/dev/null
  wheel=$(ls -t build/dist/ptlint-*.whl | sed -n 1p)
fi
[ -f "$wheel" ] || { echo "FAIL: no wheel at '$wheel'"; exit 1; }
echo "wheel: $(basename "$wheel")"

root=${PTLINT_CHROOTS:-/var/cache/ptlint-chroots}/$suite-minbase
cleanup() {
  umount "$root/dev" 2>/dev/null || true
  umount "$root/proc" 2>/dev/null || true
  rm -rf "$root/tmp/ptlint-check"
}
trap cleanup EXIT
if [ ! -x "$root/usr/bin/python3" ] || ! chroot "$root" python3 -c 'import ensurepip' 2>/dev/null; then
  echo "creating $root (debootstrap --variant=minbase $suite; a few minutes)"
  rm -rf "$root"; mkdir -p "$root"
  debootstrap --variant=minbase --include=python3,python3-venv "$suite" "$root" http://deb.debian.org/debian \
    >"$root.log" 2>&1 || { tail -20 "$root.log"; echo "FAIL: debootstrap $suite"; exit 1; }
fi
for lib in libtree-sitter libfmt libtomlplusplus libgit2; do
  if find "$root/usr/lib" "$root/lib" -name "$lib*" 2>/dev/null | grep -q .; then
    echo "FAIL: the chroot has $lib: it must not hold the build's libraries"; exit 1
  fi
done
echo "chroot: $suite, glibc $(chroot "$root" ldd --version | sed -n '1s/.* //p'), none of the build's libraries"

mkdir -p "$root/proc" "$root/tmp/ptlint-check/wheels"
mkdir -p "$root/dev"
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
mountpoint -q "$root/dev" || mount --bind /dev "$root/dev"
cp "$wheel" "$root/tmp/ptlint-check/wheels/"
cp -r examples "$root/tmp/ptlint-check/examples"
chroot "$root" env -i PATH=/usr/bin:/bin HOME=/tmp bash -euc '
  cd /tmp/ptlint-check
  python3 -m venv venv
  PIP_DISABLE_PIP_VERSION_CHECK=1 venv/bin/pip install -q --no-index --find-links wheels ptlint
  venv/bin/ptlint --version
  set +e
  venv/bin/ptlint check --no-cache --output-format concise examples/ >out.txt 2>err.txt
  echo $? >rc.txt
  venv/bin/ptlint check --no-cache --output-format json examples/ >out.json 2>/dev/null
  true'
work="$root/tmp/ptlint-check"
rc=$(cat "$work/rc.txt")
[ "$rc" = 1 ] || { cat "$work/out.txt" "$work/err.txt"; echo "FAIL: ptlint check exited $rc in the chroot (expected 1)"; exit 1; }
grep -q ': PTL[0-9]' "$work/out.txt" || { cat "$work/out.txt"; echo "FAIL: no findings"; exit 1; }
echo "ok: $(grep -c ': PTL[0-9]' "$work/out.txt") findings on the examples in the $suite chroot"
python3 - "$work/out.json" "$root" <<'PY'
import json, sys, urllib.parse
rows, root = json.load(open(sys.argv[1])), sys.argv[2]
for r in rows:
    path = urllib.parse.unquote(urllib.parse.urlparse(r["url"]).path)
    assert path.startswith("/tmp/ptlint-check/venv/share/doc/ptlint/rules/"), r["url"]
    assert f"({r['code']})" in open(root + path).readline(), r["url"]
print(f"ok: the {len(rows)} findings link to the rule pages installed in the venv")
PY
echo PASS
