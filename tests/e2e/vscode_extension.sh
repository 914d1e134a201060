#!/usr/bin/env bash
# Builds, packages and session-tests editors/vscode in a copy under the build tree, so the source
# folder stays clean and build folders do not share node_modules.
#   vscode_extension.sh setup   <editor src> <work dir>   copy, `npm ci` (committed lockfile), tsc
#   vscode_extension.sh package <editor src> <work dir> [<ptlint>]   `vsce package` offline -> ptlint.vsix,
#       and with <ptlint>, the platform-specific ptlint-linux-x64.vsix that bundles it
#   vscode_extension.sh session <editor src> <work dir> <ptlint> <fixtures>   node --test
# A missing node/npm is a failure, never a skip.
set -euo pipefail
stage=$1; src=$(cd "$2" && pwd); work=$3
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed (scripts/setup.sh installs it)"; exit 1; }
done
ext="$work/vscode"
stampfile="$work/vscode.lock-stamp"   # test bookkeeping stays outside the packaged folder
unpacked="$work/vscode-unpacked"

case "$stage" in
setup)
  mkdir -p "$ext"
  # Refresh the sources; keep node_modules when the lockfile is unchanged (npm ci is the slow part).
  find "$ext" -mindepth 1 -maxdepth 1 ! -name node_modules -exec rm -rf {} +
  (cd "$src" && tar --exclude=./node_modules --exclude=./out --exclude=./bundled --exclude='*.vsix' -cf - .) | (cd "$ext" && tar -xf -)
  stamp=$(sha256sum "$ext/package-lock.json" | cut -d' ' -f1)
  if [ ! -d "$ext/node_modules" ] || [ "$(cat "$stampfile" 2>/dev/null)" != "$stamp" ]; then
    rm -f "$stampfile"
    (cd "$ext" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$stamp" > "$stampfile"
  fi
  (cd "$ext" && npx --no-install tsc -p .)
  echo "ok: npm ci + tsc (strict)"
  ;;
package)
  cd "$ext"
  rm -rf ptlint.vsix bundled
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
  # The package ships every runtime dependency, transitively (resolved the way node does,
  # through nested and parent node_modules), and its shared module loads from there.
  rm -rf "$unpacked" && python3 -m zipfile -e ptlint.vsix "$unpacked"
  (cd "$unpacked/extension" && node -e '
    const fs = require("fs"), path = require("path");
    const root = process.cwd(), seen = new Set();
    function locate(dep, from) {
      for (let dir = from; ; dir = path.dirname(dir)) {
        const candidate = path.join(dir, "node_modules", dep);
        if (fs.existsSync(path.join(candidate, "package.json"))) return candidate;
        if (dir === root) throw new Error(`${dep} (needed by ${from}) is not in the package`);
      }
    }
    function walk(dir) {
      if (seen.has(dir)) return;
      seen.add(dir);
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
      for (const dep of Object.keys(pkg.dependencies || {})) walk(locate(dep, dir));
    }
    walk(root);
    require("./out/src/serverConfig.js");
    console.log(`ok: ${seen.size - 1} runtime packages shipped`);')
  echo "ok: $(ls -l ptlint.vsix | awk '{print $5}') bytes, ptlint.vsix"
  # package.json declares the settings a Ruff user looks for, and how untrusted workspaces run.
  python3 - "$unpacked/extension/package.json" <<'PY'
import json, sys
manifest = json.load(open(sys.argv[1]))
declared = manifest["contributes"]["configuration"]["properties"]
for key in ("ptlint.enable", "ptlint.path", "ptlint.lint.extendSelect", "ptlint.configuration", "ptlint.logLevel",
            "ptlint.codeAction.disableRuleComment.enable", "ptlint.codeAction.fixViolation.enable"):
    assert key in declared, f"FAIL: {key} is not declared in package.json"
untrusted = manifest["capabilities"]["untrustedWorkspaces"]
assert untrusted["supported"] == "limited" and "ptlint.path" in untrusted["restrictedConfigurations"], untrusted
print("ok: package.json declares the settings and capabilities.untrustedWorkspaces")
PY
  if [ $# -ge 4 ]; then
    # The platform-specific package: the ptlint binary inside, found before PATH.
    bin=$(cd "$(dirname "$4")" && pwd)/$(basename "$4")
    mkdir -p bundled && cp "$bin" bundled/ptlint && chmod 755 bundled/ptlint
    # The rule pages the bundled binary links to (bundled/rule-docs, beside it).
    cp -r "$(dirname "$bin")/rule-docs" bundled/rule-docs
    rm -f ptlint-linux-x64.vsix
    npx --no-install vsce package --allow-missing-repository --skip-license --target linux-x64 \
      --out ptlint-linux-x64.vsix
    rm -rf bundled
    python3 - ptlint-linux-x64.vsix "$bin" <<'PY'
import sys, zipfile
vsix, binary = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(vsix) as z:
    names = z.namelist()
    assert "extension/bundled/ptlint" in names, "FAIL: extension/bundled/ptlint missing from " + vsix
    assert "extension/bundled/rule-docs/PTL101.md" in names, "FAIL: the rule pages are not bundled in " + vsix
    assert z.read("extension/bundled/ptlint") == open(binary, "rb").read(), "FAIL: the bundled ptlint differs"
    mode = z.getinfo("extension/bundled/ptlint").external_attr >> 16
    assert mode & 0o111, f"FAIL: the bundled ptlint is not executable in the package (mode {mode:o})"
    manifest = z.read("extension.vsixmanifest").decode()
    assert 'TargetPlatform="linux-x64"' in manifest, "FAIL: the package is not marked linux-x64"
print(f"ok: {vsix} bundles ptlint ({len(names)} files)")
PY
  fi
  ;;
session)
  bin=$(cd "$(dirname "$4")" && pwd)/$(basename "$4")
  cd "$ext"
  PTLINT_BIN="$bin" PTLINT_E2E_FIXTURES="$(cd "$5" && pwd)" node --test --test-reporter=spec out/test/
  ;;
*)
  echo "usage: $0 setup|package|session ..."; exit 2 ;;
esac
