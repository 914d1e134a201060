#!/usr/bin/env bash
# The prefilter oracle over a corpus: `ptlint check --select ALL` and the default selection, each
# with every prefilter on and with PTLINT_NO_PREFILTER=1, over Debian's torch, torchvision,
# torchaudio and skorch (or the folders given); fails when the JSON outputs differ (a prefilter
# hid a finding, or a rule's check() relied on one). The unit test PrefilterOracle does the same
# over the fixtures and the fixture projects; this one is too slow for ctest (every file parsed).
# Usage: scripts/prefilter_oracle.sh [PTLINT] [FOLDER...]
set -euo pipefail
PTLINT=$(realpath "${1:-build/ptlint}")
shift || true
FOLDERS=("$@")
if [[ ${#FOLDERS[@]} -eq 0 ]]; then
  for p in torch torchvision torchaudio skorch; do
    [[ -d /usr/lib/python3/dist-packages/$p ]] && FOLDERS+=("/usr/lib/python3/dist-packages/$p")
  done
fi
[[ ${#FOLDERS[@]} -gt 0 ]] || { echo "prefilter_oracle: no folder to check" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ptlint-oracle-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
status=0
for folder in "${FOLDERS[@]}"; do
  for select in default ALL; do
    args=(check --no-cache --exit-zero --output-format json)
    [[ $select == ALL ]] && args+=(--select ALL)
    name="$(basename "$folder")-$select"
    "$PTLINT" "${args[@]}" "$folder" >"$WORK/$name.on.json" 2>/dev/null
    PTLINT_NO_PREFILTER=1 "$PTLINT" "${args[@]}" "$folder" >"$WORK/$name.off.json" 2>/dev/null
    if cmp -s "$WORK/$name.on.json" "$WORK/$name.off.json"; then
      echo "prefilter_oracle: $folder ($select): same findings with prefilters on and off"
    else
      echo "prefilter_oracle: $folder ($select): the findings differ with prefilters off:" >&2
      diff <(python3 -m json.tool "$WORK/$name.on.json") <(python3 -m json.tool "$WORK/$name.off.json") | head -40 >&2 || true
      status=1
    fi
  done
done
exit $status
