#!/bin/sh
# Runs the vscode-jsonrpc session test. Exit 77 (skipped) when node is missing or its
# dependencies cannot be installed (no npm registry and no cache); any other failure fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
NODE=${NODE:-node}
NPM=${NPM:-npm}
if ! command -v "$NODE" >/dev/null 2>&1; then
  echo "skipped: node not found"; exit 77
fi
if [ ! -f "$here/node_modules/vscode-jsonrpc/package.json" ]; then
  (cd "$here" && "$NPM" ci --no-audit --no-fund) || { echo "skipped: npm ci failed (offline?)"; exit 77; }
fi
exec "$NODE" "$here/session.test.js"
