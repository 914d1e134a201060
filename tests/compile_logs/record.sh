#!/usr/bin/env bash
# Records the committed torch.compile logs: each script in src/ run under PyTorch 2.6 (Debian
# trixie) and 2.14 (Debian sid) on the CPU, with TORCH_LOGS=graph_breaks,recompiles (the text log
# on stderr, PyTorch's standard prefix) and TORCH_TRACE (the structured trace tlparse reads). One
# run of helper_break.py also writes its text log without the prefix (TORCH_LOGS_FORMAT="%(message)s").
# Inside the chroot this folder is /work, so the paths in the logs are /work/src/<script>.py.
#
#   tests/compile_logs/record.sh [trixie|sid ...]            (SCRIPTS="a b": only src/a.py, src/b.py)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tool=${TORCH_CHROOT_TOOL:-/work/shared/tools/torch_chroot.sh}
cd "$here"
suites=("$@"); [ ${#suites[@]} -gt 0 ] || suites=(trixie sid)
names=${SCRIPTS:-$(cd src && ls *.py | sed 's/\.py$//')}
for suite in "${suites[@]}"; do
  case $suite in trixie) ver=2.6 ;; sid) ver=2.14 ;; *) echo "unknown suite $suite" >&2; exit 2 ;; esac
  [ -n "${SCRIPTS:-}" ] || rm -rf "logs/$ver"
  mkdir -p "logs/$ver"
  # One chroot session per release: every script runs inside it.
  flock /tmp/torch_chroot.lock "$tool" "$suite" env partial="${SCRIPTS:-}" bash -c '
    ver=$1; shift
    for name in "$@"; do
      script=src/$name.py
      rm -rf "logs/$ver/$name.trace"
      env TORCH_LOGS=graph_breaks,recompiles TORCH_TRACE="/work/logs/$ver/$name.trace" \
        PORT=$((29500 + RANDOM % 400)) python3 "$script" > /dev/null 2> "logs/$ver/$name.log" \
        || echo "$name: exit $?" >&2
    done
    if [ -z "${partial:-}" ]; then
      env TORCH_LOGS=graph_breaks,recompiles TORCH_LOGS_FORMAT="%(message)s" python3 src/helper_break.py \
        > /dev/null 2> "logs/$ver/helper_break.noprefix.log" || true
      python3 -c "import torch; print(torch.__version__)" > "logs/$ver/VERSION"
    fi
  ' _ "$ver" $names
done
