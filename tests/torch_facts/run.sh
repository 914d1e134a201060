#!/bin/sh
# Checks a handful of the release table's facts under real PyTorch 1.13 (bookworm), 2.6
# (trixie) and 2.14 (sid) when the chroots exist; exits 77 (skipped) when none does.
tool="${TORCH_CHROOT_TOOL:-/work/shared/tools/torch_chroot.sh}"
here="$(cd "$(dirname "$0")" && pwd)"
if [ ! -x "$tool" ]; then
  echo "skipped: no PyTorch chroot tool at $tool"
  exit 77
fi
ran=0
status=0
for chroot in bookworm trixie sid; do
  # The tool binds the current folder at /work inside the chroot and runs there.
  out="$(cd "$here" && flock /tmp/torch_chroot.lock "$tool" "$chroot" python3 facts.py 2>&1)"
  rc=$?
  if echo "$out" | grep -q "^\(ok\|WRONG\)"; then
    ran=1
    echo "== $chroot"
    echo "$out" | grep "^\(ok\|WRONG\)"
    [ $rc -eq 0 ] || status=1
  else
    echo "== $chroot: not available (skipped)"
  fi
done
[ $ran -eq 1 ] || { echo "skipped: no chroot could run PyTorch"; exit 77; }
exit $status
