#!/usr/bin/env bash
# `ptlint check --output-format sarif` validates against the SARIF 2.1.0 JSON schema.
#   sarif_schema.sh <ptlint> <work dir> <fixtures>
# The schema is the one @microsoft/jest-sarif ships (lib/schemas/sarif-2.1.0-rtm.5.json, the
# 2.1.0 final), fetched with `npm pack` at a pinned version and checked against its pinned npm
# integrity (sha512), as the build does for the grammar; the validator (ajv) is installed with
# `npm ci` from the committed lockfile. A missing node/npm is a failure, never a skip.
set -euo pipefail
ptlint=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); work=$2; fixtures=$(cd "$3" && pwd)
src=$(cd "$(dirname "$0")/sarif" && pwd)
SCHEMA_PACKAGE="@microsoft/jest-sarif@1.0.0-beta.0"
SCHEMA_TGZ="microsoft-jest-sarif-1.0.0-beta.0.tgz"
# sha512-A1fOhPd6Ic5iDk4F9YPw1qNB4XF+7+IviR7xl8r2F6QzQkx5cpY9LsGk2rExiFIEcBbjpVnSmwWGBukASkiQ9A== in hex
SCHEMA_SHA512="0357ce84f77a21ce620e4e05f583f0d6a341e1717eefe22f891ef197caf617a433424c7972963d2ec1a4dab1318852047016e3a559d29b058606e9004a4890f4"
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed (scripts/setup.sh installs it)"; exit 1; }
done
dir="$work/sarif"
mkdir -p "$dir"
cp "$src/package.json" "$src/package-lock.json" "$src/validate.js" "$dir/"
stamp=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
if [ ! -d "$dir/node_modules" ] || [ "$(cat "$work/sarif.lock-stamp" 2>/dev/null)" != "$stamp" ]; then
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$stamp" > "$work/sarif.lock-stamp"
fi
if [ ! -f "$dir/$SCHEMA_TGZ" ]; then
  (cd "$dir" && npm pack "$SCHEMA_PACKAGE" --silent >/dev/null)
fi
if [ "$(sha512sum "$dir/$SCHEMA_TGZ" | cut -d' ' -f1)" != "$SCHEMA_SHA512" ]; then
  rm -f "$dir/$SCHEMA_TGZ"
  echo "FAIL: $SCHEMA_TGZ does not match its pinned integrity"; exit 1
fi
tar -xzf "$dir/$SCHEMA_TGZ" -C "$dir" package/lib/schemas/sarif-2.1.0-rtm.5.json
schema="$dir/package/lib/schemas/sarif-2.1.0-rtm.5.json"

# Logs with the findings of every rule fixture (default rules, then ALL with unsafe fixes), one
# without findings, and one naming a missing file
# (in a temporary folder: under the build tree, the default `exclude` of `build` would apply).
tree=$(mktemp -d "${TMPDIR:-/tmp}/ptlint-sarif-XXXXXX")
trap 'rm -rf "$tree"' EXIT
cp -r "$fixtures"/. "$tree/"
printf 'import torch\n\nx = torch.zeros(3)\n' > "$tree/clean_only.py"
cd "$tree"
set +e
"$ptlint" check --no-cache --output-format sarif . > "$dir/all.sarif"; rc_all=$?
"$ptlint" check --no-cache --output-format sarif --unsafe-fixes --select ALL . > "$dir/all_rules.sarif"; rc_rules=$?
"$ptlint" check --no-cache --output-format sarif clean_only.py > "$dir/clean.sarif"; rc_clean=$?
"$ptlint" check --no-cache --output-format sarif missing.py > "$dir/missing.sarif"; rc_missing=$?
set -e
[ "$rc_all" = 1 ] && [ "$rc_rules" = 1 ] && [ "$rc_clean" = 0 ] && [ "$rc_missing" = 2 ] \
  || { echo "FAIL: exit codes $rc_all $rc_rules $rc_clean $rc_missing (want 1 1 0 2)"; exit 1; }
results=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["runs"][0]["results"]))' "$dir/all.sarif")
[ "$results" -gt 0 ] || { echo "FAIL: no results in all.sarif"; exit 1; }
cd "$dir"
node validate.js "$schema" all.sarif all_rules.sarif clean.sarif missing.sarif
# The validator is not a rubber stamp: a result with a level SARIF does not define is rejected.
python3 -c 'import json,sys; log=json.load(open(sys.argv[1])); log["runs"][0]["results"][0]["level"]="fatal"; json.dump(log, open(sys.argv[2], "w"))' \
  all.sarif broken.sarif
if node validate.js "$schema" broken.sarif > broken.out; then
  echo "FAIL: a log with level \"fatal\" validated"; exit 1
fi
grep -q 'level' broken.out || { cat broken.out; echo "FAIL: the violation is not the level"; exit 1; }
echo "ok: a broken log is rejected"
