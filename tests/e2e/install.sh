#!/usr/bin/env bash
# `cmake --install` into a throwaway prefix: the binary runs from there, the rule docs and the
# Neovim module are where docs/install.md says.
# Usage: install.sh <build dir> <expected version>
set -euo pipefail
build=$1; version=$2
prefix=$(mktemp -d "${TMPDIR:-/tmp}/ptlint-install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >"$prefix.log" 2>&1 || { cat "$prefix.log"; rm -f "$prefix.log"; echo "FAIL: cmake --install"; exit 1; }
rm -f "$prefix.log"

out=$("$prefix/bin/ptlint" --version)
[ "$out" = "ptlint $version" ] || { echo "FAIL: installed ptlint --version printed '$out', expected 'ptlint $version'"; exit 1; }
echo "ok: $out"

docs="$prefix/share/doc/ptlint/rules"
[ -f "$docs/README.md" ] || { echo "FAIL: no rule index at $docs/README.md"; exit 1; }
for code in PTL000 PTL101; do
  [ -s "$docs/$code.md" ] || { echo "FAIL: no rule page $docs/$code.md"; ls "$docs"; exit 1; }
  grep -q "$code" "$docs/README.md" || { echo "FAIL: $code missing from the rule index"; exit 1; }
  cmp -s "$docs/$code.md" <("$prefix/bin/ptlint" rule "$code") || { echo "FAIL: $code.md differs from \`ptlint rule $code\`"; exit 1; }
done
echo "ok: $(ls "$docs" | wc -l) rule pages"
# Findings link to the installed pages.
printf 'import torch\nscaler = torch.cuda.amp.GradScaler()\n' >"$prefix/train.py"
url=$(cd "$prefix" && "$prefix/bin/ptlint" check --no-cache --output-format json train.py |
      python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["url"])' || true)
[ "$url" = "file://$docs/PTL101.md" ] || { echo "FAIL: the finding links to '$url', not file://$docs/PTL101.md"; exit 1; }
echo "ok: findings link to the installed pages"

nvim_module="$prefix/share/nvim/site/pack/ptlint/start/ptlint/lua/ptlint/init.lua"
[ -f "$nvim_module" ] || { echo "FAIL: Neovim module not installed at $nvim_module"; exit 1; }
# When gpu_check was built, ptlint-gpu is installed beside ptlint, where ptlint looks for it.
if [ -x "$build/ptlint-gpu" ]; then
  [ -x "$prefix/bin/ptlint-gpu" ] || { echo "FAIL: ptlint-gpu was built but not installed"; exit 1; }
  found=$(env -u PTLINT_GPU PATH=/usr/bin:/bin "$prefix/bin/ptlint" doctor --json \
          | python3 -c 'import json, sys; print(json.load(sys.stdin)["gpu_check"]["path"])')
  [ "$found" = "$prefix/bin/ptlint-gpu" ] || { echo "FAIL: installed ptlint uses '$found', not $prefix/bin/ptlint-gpu"; exit 1; }
  echo "ok: installed ptlint finds $found"
fi
echo PASS
