#!/usr/bin/env bash
# Runs test.lua in headless Neovim (0.7.2 compatible) under `timeout`; passes only when nvim
# exits 0 AND the script printed PASS (a Lua error before the pcall would otherwise hang or exit
# quietly). Usage: run.sh <nvim> <test.lua>; environment as test.lua documents.
set -uo pipefail
nvim=$1; script=$2
command -v "$nvim" >/dev/null || { echo "FAIL: $nvim is not installed (scripts/setup.sh installs neovim)"; exit 1; }
out=$(timeout -k 5 90 "$nvim" --headless -u NONE -i NONE -n -c "luafile $script" 2>&1)
rc=$?
echo "$out"
[ $rc -eq 124 ] && { echo "FAIL: nvim timed out"; exit 1; }
[ $rc -eq 0 ] || { echo "FAIL: nvim exited with $rc"; exit 1; }
grep -qx PASS <<<"$out" || { echo "FAIL: the test did not report PASS"; exit 1; }
