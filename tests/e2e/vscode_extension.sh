#!/usr/bin/env bash
# Builds, packages and session-tests editors/vscode in a copy under the build tree, so the source
# folder stays clean and build folders do not share node_modules.
#   vscode_extension.sh setup   <editor src> <work dir>   copy, `npm ci` (committed lockfile), tsc
#   vscode_extension.sh package <editor src> <work dir>   `vsce package` offline -> ptlint.vsix
#   vscode_extension.sh session <editor src> <work dir> <ptlint> <fixtures>   node --test
# A missing node/npm is a failure, never a skip.
set -euo pipefail
stage=$1; src=$(cd "$2" && pwd); work=$3
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed (scripts/setup.sh installs it)"; exit 1; }
done
ext="$work/vscode"

case "$stage" in
setup)
  mkdir -p "$ext"
  # Refresh the sources; keep node_modules when the lockfile is unchanged (npm ci is the slow part).
  find "$ext" -mindepth 1 -maxdepth 1 ! -name node_modules ! -name .lock-stamp -exec rm -rf {} +
  (cd "$src" && tar --exclude=./node_modules --exclude=./out --exclude='*.vsix' -cf - .) | (cd "$ext" && tar -xf -)
  stamp=$(sha256sum "$ext/package-lock.json" | cut -d' ' -f1)
  if [ ! -d "$ext/node_modules" ] || [ "$(cat "$ext/.lock-stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -f "$ext/.lock-stamp"
    (cd "$ext" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$stamp" > "$ext/.lock-stamp"
  fi
  (cd "$ext" && npx --no-install tsc -p .)
  echo "ok: npm ci + tsc (strict)"
  ;;
package)
  cd "$ext"
  rm -f ptlint.vsix
  npx --no-install vsce package --allow-missing-repository --skip-license --out ptlint.vsix
  # The package must hold the compiled extension and its runtime dependency, not the tests.
  listing=$(python3 -m zipfile -l ptlint.vsix)
  for want in extension/package.json extension/out/src/extension.js extension/out/src/serverConfig.js \
              extension/node_modules/vscode-languageclient/node.js; do
    grep -q "$want" <<<"$listing" || { echo "FAIL: $want missing from ptlint.vsix"; exit 1; }
  done
  if grep -q -e 'extension/out/test/' -e 'extension/src/' -e 'node_modules/typescript/' <<<"$listing"; then
    echo "FAIL: ptlint.vsix ships tests, sources or dev dependencies"; exit 1
  fi
  # The packaged code loads with only what the package ships (the `vscode` module aside).
  rm -rf unpacked && python3 -m zipfile -e ptlint.vsix unpacked
  (cd unpacked/extension && node -e 'require("vscode-languageclient/node"); require("./out/src/serverConfig.js")')
  echo "ok: $(ls -l ptlint.vsix | awk '{print $5}') bytes, ptlint.vsix"
  ;;
session)
  bin=$(cd "$(dirname "$4")" && pwd)/$(basename "$4")
  cd "$ext"
  PTLINT_BIN="$bin" PTLINT_E2E_FIXTURES="$(cd "$5" && pwd)" node --test --test-reporter=spec out/test/
  ;;
*)
  echo "usage: $0 setup|package|session ..."; exit 2 ;;
esac
