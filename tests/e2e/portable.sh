#!/usr/bin/env bash
# The `ptlint` executable is self-contained: glibc is its only dynamic dependency.
#   1. `readelf -d`: every NEEDED library is glibc's (libc, libm, libpthread, libdl, librt, ld.so);
#      `ldd` agrees; no RUNPATH/RPATH.
#   2. The highest GLIBC_2.NN version `objdump -T` lists among the binary's undefined symbols is
#      at most 2.35 (Ubuntu 22.04), and the wheel's platform tag (scripts/wheel_platform_tag.py)
#      is manylinux_2_NN.
#   3. As root: the binary runs in an empty root holding nothing but itself, the dynamic loader
#      and the glibc libraries it names, and lints the examples there (findings, exit 1).
#      Without root (chroot(2) needs it) this step says so and is skipped.
# Usage: portable.sh <repo root> <ptlint executable>
set -euo pipefail
repo=$(cd "$1" && pwd); bin=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
for tool in readelf objdump ldd; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed (binutils, libc-bin)"; exit 1; }
done

allowed='^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|ld-linux-x86-64\.so\.2|ld-linux-aarch64\.so\.1)$'
needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*Shared library: \[\(.*\)\]/\1/p')
[ -n "$needed" ] || { readelf -d "$bin"; echo "FAIL: no NEEDED entries read (not a dynamic executable?)"; exit 1; }
bad=$(grep -Ev "$allowed" <<<"$needed" || true)
[ -z "$bad" ] || { echo "FAIL: ptlint needs shared libraries other than glibc's:"; echo "$bad"; exit 1; }
! readelf -d "$bin" | grep -Eq '\((RUNPATH|RPATH)\)' || { echo "FAIL: ptlint carries a RUNPATH/RPATH"; exit 1; }
echo "ok: NEEDED $(tr '\n' ' ' <<<"$needed")"
resolved=$(ldd "$bin" | awk '{print $1}' | grep -v '^linux-vdso' | xargs -n1 basename)
bad=$(grep -Ev "$allowed" <<<"$resolved" || true)
[ -z "$bad" ] || { ldd "$bin"; echo "FAIL: ldd resolves libraries other than glibc's"; exit 1; }
echo "ok: ldd lists glibc only"

highest=$(objdump -T "$bin" | grep -o 'GLIBC_2\.[0-9]*' | sort -t. -k2,2n -u | tail -1)
# At most glibc 2.35 (Ubuntu 22.04): a newer symbol is named, with what references it.
if [ "${highest#GLIBC_2.}" -gt 35 ]; then
  objdump -T "$bin" | grep -E 'GLIBC_2\.(3[6-9]|[4-9][0-9])'
  echo "FAIL: ptlint needs $highest; it must run on glibc 2.35 (see cli/glibc_compat.cpp)"; exit 1
fi
want="manylinux_2_${highest#GLIBC_2.}_$(uname -m)"
got=$("$repo/scripts/wheel_platform_tag.py" "$bin")
[ "$got" = "$want" ] || { echo "FAIL: wheel_platform_tag.py says $got; objdump's highest is $highest, so $want"; exit 1; }
echo "ok: platform tag $got (highest symbol version $highest)"

if [ "$(id -u)" != 0 ] || ! command -v chroot >/dev/null; then
  echo "skipped: the glibc-only root needs root and chroot(8) (run as root to check it)"
  echo PASS
  exit 0
fi
root=$(mktemp -d "${TMPDIR:-/tmp}/ptlint-glibc-root.XXXXXX")
trap 'rm -rf "$root"' EXIT
# The loader and each library at the path the binary asks for (through any symlink).
interp=$(readelf -l "$bin" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
for lib in $interp $(ldd "$bin" | awk '$2 == "=>" {print $3}'); do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
cp "$bin" "$root/ptlint"
cp -r "$repo/examples" "$root/examples"
echo "root: $(cd "$root" && find . -type f -not -path './examples/*' | sort | tr '\n' ' ')"
[ -z "$(find "$root" -name 'libstdc++*' -o -name 'libgcc_s*' -o -name 'libtree-sitter*' -o -name 'libfmt*')" ] ||
  { echo "FAIL: the root holds a library of the build"; exit 1; }
got=$(chroot "$root" /ptlint --version) || { echo "FAIL: ptlint --version does not run in the glibc-only root"; exit 1; }
echo "ok: $got runs in the glibc-only root"
set +e
out=$(cd / && chroot "$root" /ptlint check --no-cache --output-format concise /examples 2>&1)
rc=$?
set -e
[ $rc -eq 1 ] || { echo "$out"; echo "FAIL: check of the examples exited $rc in the glibc-only root (expected 1: findings)"; exit 1; }
grep -Eq '^/?examples/.*: PTL[0-9]' <<<"$out" || { echo "$out"; echo "FAIL: no finding reported"; exit 1; }
echo "ok: $(grep -c ': PTL[0-9]' <<<"$out") findings on the examples in the glibc-only root"
echo PASS
