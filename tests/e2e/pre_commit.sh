#!/usr/bin/env bash
# The real pre-commit (from apt) runs this repository's .pre-commit-hooks.yaml via `try-repo`
# in a throwaway git repository, with NO ptlint on PATH: the hooks are `language: python`, so
# pre-commit itself pip-installs the ptlint wheel (built here by scripts/build_wheel.sh and
# offered offline through PIP_FIND_LINKS / PIP_NO_INDEX, as a package index would):
#   - hook `ptlint` fails on a file with findings and names the finding;
#   - hook `ptlint-fix` rewrites the file to the fixed text (and fails, as the file changed);
#   - hook `ptlint` then passes, and a clean `.pyi`/excluded file set behaves;
#   - notebooks are checked (`types_or: [python, pyi, jupyter]`) and fixed;
#   - the `language: system` variants run the `ptlint` on PATH (the built binary) and fail
#     loudly when there is none.
# Usage: pre_commit.sh <repo root> <ptlint executable> <fixtures dir>
set -euo pipefail
repo=$(cd "$1" && pwd); bin=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); fixtures=$(cd "$3" && pwd)

command -v pre-commit >/dev/null || { echo "FAIL: pre-commit is not installed (scripts/setup.sh installs it)"; exit 1; }
command -v git >/dev/null || { echo "FAIL: git is not installed"; exit 1; }
[ -x "$bin" ] || { echo "FAIL: $bin is not an executable"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ptlint-pre-commit.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/project"
"$repo/scripts/build_wheel.sh" --build-dir "$(dirname "$bin")" --out "$work/dist" >"$work/wheel.log" 2>&1 ||
  { cat "$work/wheel.log"; echo "FAIL: scripts/build_wheel.sh failed"; exit 1; }
# Offline: the local wheel, and the build tools Debian ships as wheels (setuptools for `pip install .`).
export PIP_NO_INDEX=1 PIP_FIND_LINKS="$work/dist /usr/share/python-wheels" PIP_DISABLE_PIP_VERSION_CHECK=1
# No ptlint on PATH: only the system folders, checked.
export PATH=/usr/local/bin:/usr/bin:/bin
if command -v ptlint >/dev/null; then echo "FAIL: ptlint is on PATH ($(command -v ptlint)); the test needs it absent"; exit 1; fi
export PRE_COMMIT_HOME="$work/cache" HOME="$work"
# try-repo snapshots uncommitted hook changes with a commit: it needs an identity.
export GIT_AUTHOR_NAME=ptlint-test GIT_AUTHOR_EMAIL=test@localhost \
       GIT_COMMITTER_NAME=ptlint-test GIT_COMMITTER_EMAIL=test@localhost
git config --global init.defaultBranch main
git config --global --add safe.directory '*'

cd "$work/project"
git init -q .
cp "$fixtures/amp_train.py" train.py
printf 'import torch\n\nx: torch.Tensor\n' > stubs.pyi
git add train.py stubs.pyi

try_repo() { pre-commit try-repo "$repo" "$1" --all-files --verbose >"$work/out.txt" 2>&1; }

if try_repo ptlint; then
  cat "$work/out.txt"; echo "FAIL: hook ptlint passed on a file with findings"; exit 1
fi
grep -q 'PTL101' "$work/out.txt" || { cat "$work/out.txt"; echo "FAIL: the hook output does not name PTL101"; exit 1; }
cmp -s train.py "$fixtures/amp_train.py" || { echo "FAIL: hook ptlint modified the file"; exit 1; }
echo "ok: ptlint fails on findings"

if try_repo ptlint-fix; then
  cat "$work/out.txt"; echo "FAIL: hook ptlint-fix passed although it rewrote a file"; exit 1
fi
cmp -s train.py "$fixtures/amp_train.py.fixed" || {
  cat "$work/out.txt"; diff -u "$fixtures/amp_train.py.fixed" train.py || true
  echo "FAIL: ptlint-fix did not rewrite the file to the fixed text"; exit 1
}
echo "ok: ptlint-fix rewrites the file"

git add train.py
try_repo ptlint || { cat "$work/out.txt"; echo "FAIL: hook ptlint fails on the fixed file"; exit 1; }
try_repo ptlint-fix || { cat "$work/out.txt"; echo "FAIL: hook ptlint-fix fails on the fixed file"; exit 1; }
echo "ok: both hooks pass once fixed"

# `--force-exclude`: a file excluded by the project configuration is skipped even though
# pre-commit names it explicitly.
cp "$fixtures/amp_train.py" legacy.py
printf '[tool.ptlint]\nextend-exclude = ["legacy.py"]\n' > pyproject.toml
git add legacy.py pyproject.toml
try_repo ptlint || { cat "$work/out.txt"; echo "FAIL: an excluded file was linted (--force-exclude)"; exit 1; }
echo "ok: excluded files stay excluded"

# Notebooks: a finding in a code cell fails the hook; ptlint-fix rewrites the cell.
python3 - <<'PY'
import json
cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
        "source": ["import torch\n", "scaler = torch.cuda.amp.GradScaler()\n"]}
nb = {"cells": [cell], "metadata": {"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}},
      "nbformat": 4, "nbformat_minor": 5}
with open("train.ipynb", "w") as f:
    json.dump(nb, f, indent=1)
PY
git add train.ipynb
if try_repo ptlint; then cat "$work/out.txt"; echo "FAIL: hook ptlint passed on a notebook with findings"; exit 1; fi
grep -q 'train.ipynb:cell 1:.*PTL101' "$work/out.txt" || { cat "$work/out.txt"; echo "FAIL: the notebook's finding is not reported"; exit 1; }
if try_repo ptlint-fix; then cat "$work/out.txt"; echo "FAIL: hook ptlint-fix passed although it rewrote a notebook"; exit 1; fi
grep -q 'torch.amp.GradScaler' train.ipynb || { cat train.ipynb; echo "FAIL: ptlint-fix did not fix the notebook"; exit 1; }
git add train.ipynb
try_repo ptlint || { cat "$work/out.txt"; echo "FAIL: hook ptlint fails on the fixed notebook"; exit 1; }
echo "ok: notebooks are checked and fixed"

# `language: system`: no ptlint on PATH is a failure that says so; with the built binary on PATH
# the hooks run it (pre-commit installs nothing).
cp "$fixtures/amp_train.py" system.py
git add system.py
if try_repo ptlint-system; then cat "$work/out.txt"; echo "FAIL: ptlint-system passed without a ptlint on PATH"; exit 1; fi
grep -qi 'ptlint' "$work/out.txt" && grep -Eqi 'not found|Executable' "$work/out.txt" ||
  { cat "$work/out.txt"; echo "FAIL: ptlint-system does not say that ptlint is missing"; exit 1; }
mkdir -p "$work/bin" && ln -s "$bin" "$work/bin/ptlint"
export PATH="$work/bin:$PATH"
if try_repo ptlint-system; then cat "$work/out.txt"; echo "FAIL: ptlint-system passed on a file with findings"; exit 1; fi
grep -q 'system.py:.*PTL101' "$work/out.txt" || { cat "$work/out.txt"; echo "FAIL: ptlint-system does not report"; exit 1; }
if try_repo ptlint-fix-system; then cat "$work/out.txt"; echo "FAIL: ptlint-fix-system passed although it rewrote a file"; exit 1; fi
cmp -s system.py "$fixtures/amp_train.py.fixed" || { echo "FAIL: ptlint-fix-system did not fix system.py"; exit 1; }
git add system.py
try_repo ptlint-system || { cat "$work/out.txt"; echo "FAIL: ptlint-system fails on the fixed file"; exit 1; }
echo "ok: the language: system hooks run the ptlint on PATH"
echo PASS
