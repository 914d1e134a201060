#!/usr/bin/env bash
# Ecosystem snapshot: every rule run over Debian's PyTorch packages, one concise line per finding,
# so that each change to a rule shows its effect on real code as a diff.
#
#   tests/ecosystem/run.sh [--update] [--ptlint PATH] [--out FILE]
#
# Without --update: lints, writes the result to --out (default: a temporary file), prints the
# diff against the committed tests/ecosystem/snapshot.txt and exits 1 if they differ.
# With --update: rewrites tests/ecosystem/snapshot.txt (review the printed diff, then commit).
# Exits 77 (ctest's SKIP_RETURN_CODE) when a package is not installed:
#   apt-get install python3-torch python3-torchvision python3-torchaudio python3-skorch
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
snapshot="$here/snapshot.txt"
dist="${PTLINT_DIST_PACKAGES:-/usr/lib/python3/dist-packages}"
ptlint="${PTLINT:-$root/build/ptlint}"
update=0
out=""

while [[ $# -gt 0 ]]; do
  case "$1" in
    --update) update=1 ;;
    --ptlint) ptlint="$2"; shift ;;
    --out) out="$2"; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

# Debian package -> folder under dist-packages.
packages=(python3-torch:torch python3-torchvision:torchvision python3-torchaudio:torchaudio python3-skorch:skorch)

[[ "$ptlint" == /* ]] || ptlint="$PWD/$ptlint"
if [[ ! -x "$ptlint" ]]; then
  echo "run.sh: no ptlint executable at $ptlint (build it, or pass --ptlint PATH)" >&2
  exit 2
fi
for entry in "${packages[@]}"; do
  pkg="${entry%%:*}" dir="${entry#*:}"
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || [[ ! -d "$dist/$dir" ]]; then
    echo "run.sh: $pkg is not installed ($dist/$dir): skipping the ecosystem snapshot" >&2
    exit 77
  fi
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
[[ -n "$out" ]] || out="$tmp/snapshot.txt"

# The findings: paths relative to dist-packages, in a stable order. The torch version is pinned
# so that a change of the default does not masquerade as a change of the rules.
dirs=()
for entry in "${packages[@]}"; do dirs+=("${entry#*:}"); done
(cd "$dist" && "$ptlint" check --select ALL --torch-version 2.6 --output-format concise --no-cache \
                --exit-zero --quiet "${dirs[@]}") >"$tmp/findings.raw" 2>"$tmp/stderr" || {
  echo "run.sh: ptlint failed:" >&2
  cat "$tmp/stderr" >&2
  exit 2
}
LC_ALL=C sort -t: -k1,1 -k2,2n -k3,3n -k4 "$tmp/findings.raw" >"$tmp/findings"

{
  echo "# ptlint ecosystem snapshot: ptlint check --select ALL --torch-version 2.6 over"
  echo "# $dist. Regenerate with tests/ecosystem/run.sh --update; review every new line by eye."
  echo "#"
  for entry in "${packages[@]}"; do
    pkg="${entry%%:*}"
    echo "# package $pkg $(dpkg-query -W -f='${Version}' "$pkg")"
  done
  echo "#"
  # Findings per rule and package.
  awk -F: '{ split($1, p, "/"); code = $4; sub(/^ /, "", code); sub(/ .*/, "", code); n[code " " p[1]]++ }
           END { for (k in n) print "# count " k " " n[k] }' "$tmp/findings" | LC_ALL=C sort
  echo "# total $(wc -l <"$tmp/findings")"
  cat "$tmp/findings"
} >"$out"

if [[ $update -eq 1 ]]; then
  if [[ -f "$snapshot" ]]; then diff -u "$snapshot" "$out" || true; fi
  cp "$out" "$snapshot"
  echo "run.sh: wrote $snapshot ($(grep -vc '^#' "$snapshot" || true) findings)" >&2
  exit 0
fi
if [[ ! -f "$snapshot" ]]; then
  echo "run.sh: no committed snapshot at $snapshot (run with --update)" >&2
  exit 1
fi
if diff -u --label committed --label current "$snapshot" "$out"; then
  echo "run.sh: snapshot unchanged ($(grep -vc '^#' "$out" || true) findings)" >&2
  exit 0
fi
echo "run.sh: the findings differ from the committed snapshot (review; then run.sh --update)" >&2
exit 1
