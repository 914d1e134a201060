#!/usr/bin/env bash
# Builds the Debian package with CPack and installs it with dpkg into a throwaway root whose
# package database is a copy of this machine's: dpkg itself checks that every declared
# dependency is satisfiable here, without touching the real system. Then runs the installed
# binary.
# Usage: deb.sh <build dir> <expected version>
set -euo pipefail
# First lines are taken with `sed -n 1p`, which reads its whole input: `head -1` may close the
# pipe before dpkg-deb has written everything, and under pipefail its SIGPIPE fails the script.
build=$(cd "$1" && pwd); version=$2
for tool in cpack dpkg dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed (scripts/setup.sh installs dpkg-dev)"; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/ptlint-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT

(cd "$work" && cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) \
  || { cat "$work/cpack.log"; echo "FAIL: cpack -G DEB"; exit 1; }
arch=$(dpkg --print-architecture)
deb="$work/out/ptlint_${version}_${arch}.deb"
[ -f "$deb" ] || { ls -l "$work/out"; echo "FAIL: expected $(basename "$deb")"; exit 1; }
echo "ok: $(basename "$deb") ($(stat -c %s "$deb") bytes)"

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
# Self-contained: glibc is the only dependency dpkg-shlibdeps finds.
grep -q "libc6" <<<"$depends" || { echo "FAIL: Depends does not declare libc6"; exit 1; }
for lib in libstdc++6 libgcc-s1 libgit2 libtree-sitter libfmt libtomlplusplus; do
  ! grep -q "$lib" <<<"$depends" || { echo "FAIL: Depends declares $lib (the binary should not need it)"; exit 1; }
done
[ "$(dpkg-deb -f "$deb" Package)" = ptlint ] || { echo "FAIL: package name"; exit 1; }
[ "$(dpkg-deb -f "$deb" Description | sed -n 1p)" = "Linter and language server for PyTorch code" ] ||
  { echo "FAIL: summary line: $(dpkg-deb -f "$deb" Description | sed -n 1p)"; exit 1; }
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || { echo "FAIL: package version"; exit 1; }

root="$work/root"
admin="$root/var/lib/dpkg"
mkdir -p "$admin/info" "$admin/updates" "$admin/triggers" "$root/var/log" "$root/usr/bin"
cp /var/lib/dpkg/status "$admin/status"
touch "$admin/available"
dpkg --root="$root" --admindir="$admin" --log=/dev/null --force-not-root --force-script-chrootless \
     --no-triggers -i "$deb" >"$work/dpkg.log" 2>&1 \
  || { cat "$work/dpkg.log"; echo "FAIL: dpkg -i (dependencies not satisfiable on this system?)"; exit 1; }
grep -q '^Package: ptlint$' "$admin/status" || { echo "FAIL: ptlint not recorded as installed"; exit 1; }

out=$("$root/usr/bin/ptlint" --version)
[ "$out" = "ptlint $version" ] || { echo "FAIL: '$out', expected 'ptlint $version'"; exit 1; }
echo "ok: $out from the installed package"
[ -s "$root/usr/share/doc/ptlint/rules/PTL101.md" ] || { echo "FAIL: rule docs missing from the package"; exit 1; }
printf 'import torch\nscaler = torch.cuda.amp.GradScaler()\n' >"$work/train.py"
url=$(cd "$work" && "$root/usr/bin/ptlint" check --no-cache --output-format json train.py |
      python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["url"])' || true)
[ "$url" = "file://$root/usr/share/doc/ptlint/rules/PTL101.md" ] || { echo "FAIL: the finding links to '$url'"; exit 1; }
echo "ok: findings link to the packaged rule pages"
grep -q '^License: Apache-2.0' "$root/usr/share/doc/ptlint/copyright" 2>/dev/null ||
  { echo "FAIL: /usr/share/doc/ptlint/copyright missing or without the licence"; exit 1; }
[ -f "$root/usr/share/nvim/site/pack/ptlint/start/ptlint/lua/ptlint/init.lua" ] || { echo "FAIL: Neovim module missing"; exit 1; }
gpu_deb="$work/out/ptlint-gpu_${version}_${arch}.deb"
if [ -f "$gpu_deb" ]; then
  echo "ok: also $(basename "$gpu_deb") (Depends: $(dpkg-deb -f "$gpu_deb" Depends))"
  summary=$(dpkg-deb -f "$gpu_deb" Description | sed -n 1p)
  grep -q "libtorch" <<<"$summary" || { echo "FAIL: ptlint-gpu summary is \`$summary\`"; exit 1; }
  dpkg --root="$root" --admindir="$admin" --log=/dev/null --force-not-root --force-script-chrootless \
       --no-triggers -i "$gpu_deb" >"$work/dpkg.log" 2>&1 \
    || { cat "$work/dpkg.log"; echo "FAIL: dpkg -i $(basename "$gpu_deb")"; exit 1; }
  found=$(env -u PTLINT_GPU PATH=/usr/bin:/bin "$root/usr/bin/ptlint" doctor --json \
          | python3 -c 'import json, sys; print(json.load(sys.stdin)["gpu_check"]["path"])')
  [ "$found" = "$root/usr/bin/ptlint-gpu" ] || { echo "FAIL: packaged ptlint uses '$found'"; exit 1; }
  echo "ok: packaged ptlint finds the packaged ptlint-gpu"
fi
echo PASS
