#!/usr/bin/env bash
# Materialises the real-ML corpus (bench/ml_corpus.txt: owner/name and a pinned commit per line)
# into a folder bench/run.sh measures (default bench/ml-corpus/, gitignored), one subfolder per
# repository (owner+name; its .py, .pyi and .gitignore files, in a git work tree of its own),
# from git clones or bare mirrors already on this machine. It never downloads: clone the
# repositories yourself (any clone whose history holds the pinned commit will do), e.g.
#   git clone --filter=blob:none https://github.com/karpathy/nanoGPT mirrors/karpathy+nanoGPT
#
# usage: bench/ml_corpus.sh --from DIR [--from DIR ...] [--out DIR] [--list FILE]
#   --from DIR  where the clones are: DIR/owner+name, DIR/owner+name/repo, DIR/owner/name or
#               DIR/name (a work tree or a bare repository); may be repeated, first match wins
#   --out DIR   the corpus folder (default bench/ml-corpus); a repository already there at its
#               pinned commit is kept, anything else in its subfolder is replaced
#   --list FILE the pinned list (default bench/ml_corpus.txt)
# Exit status: 0 when every pinned repository is in the corpus, 3 when some were not found
# (the others are materialised and listed in DIR/MANIFEST; bench/run.sh says the corpus is
# partial), 2 on usage errors.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/bench/ml-corpus"
list="$root/bench/ml_corpus.txt"
sources=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --from) [[ $# -ge 2 ]] || { echo "ml_corpus: --from needs a folder" >&2; exit 2; }; sources+=("$2"); shift 2 ;;
    --out) [[ $# -ge 2 ]] || { echo "ml_corpus: --out needs a folder" >&2; exit 2; }; out="$2"; shift 2 ;;
    --list) [[ $# -ge 2 ]] || { echo "ml_corpus: --list needs a file" >&2; exit 2; }; list="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "ml_corpus: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [[ ${#sources[@]} -eq 0 ]]; then
  echo "ml_corpus: no --from folder of clones given; nothing is downloaded (see --help)" >&2
  exit 2
fi
[[ -f "$list" ]] || { echo "ml_corpus: no pinned list at $list" >&2; exit 2; }
command -v git >/dev/null || { echo "ml_corpus: git is missing" >&2; exit 2; }

# The git directory (or work tree) among the sources that holds $2 for repository $1, or nothing.
find_repo() {
  local repo="$1" commit="$2" owner="${1%%/*}" name="${1#*/}" src cand
  for src in "${sources[@]}"; do
    for cand in "$src/$owner+$name/repo" "$src/$owner+$name" "$src/$owner/$name" "$src/$name" \
                "$src/$name.git" "$src/$owner+$name.git"; do
      [[ -d "$cand" ]] || continue
      if git --git-dir="$cand" cat-file -e "$commit^{commit}" 2>/dev/null; then
        echo "--git-dir=$cand"; return 0
      fi
      if git -C "$cand" rev-parse --git-dir >/dev/null 2>&1 &&
         git -C "$cand" cat-file -e "$commit^{commit}" 2>/dev/null; then
        echo "--git-dir=$(git -C "$cand" rev-parse --absolute-git-dir)"; return 0
      fi
    done
  done
  return 1
}

mkdir -p "$out"
manifest="$out/MANIFEST"
: > "$manifest.tmp"
missing=()
while read -r repo commit _; do
  [[ -z "$repo" || "$repo" == \#* ]] && continue
  [[ "$commit" =~ ^[0-9a-f]{40}$ ]] || { echo "ml_corpus: $repo: not a full commit id: $commit" >&2; exit 2; }
  dest="$out/${repo/\//+}"
  if [[ -f "$dest/.ml-corpus-commit" && "$(cat "$dest/.ml-corpus-commit")" == "$commit" ]]; then
    echo "$repo $commit" >> "$manifest.tmp"; continue
  fi
  if ! gitdir="$(find_repo "$repo" "$commit")"; then
    echo "ml_corpus: $repo at $commit not found in: ${sources[*]}" >&2
    missing+=("$repo"); continue
  fi
  echo "ml_corpus: $repo $commit" >&2
  rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
  # Python sources only: notebooks are left out (Ruff's in-process build would read them as
  # Python, and mirrors may lack large blobs), so both tools see the same files.
  mapfile -t paths < <(git "$gitdir" ls-tree -r --name-only "$commit" | grep -E '\.pyi?$|(^|/)\.gitignore$' || true)
  if [[ ${#paths[@]} -gt 0 ]]; then
    # (a mirror without its large blobs complains about them though they are not asked for)
    git "$gitdir" archive --format=tar "$commit" -- "${paths[@]}" 2> >(grep -v -e '^error: invalid object' \
      -e "^error: cannot read" >&2) | tar -x -C "$dest.tmp"
  fi
  # Its own (empty) git work tree, as a clone is: its .gitignore files apply, and the ptlint
  # checkout's .gitignore, which ignores bench/ml-corpus/, does not.
  git init --quiet "$dest.tmp"
  echo "$commit" > "$dest.tmp/.ml-corpus-commit"
  rm -rf "$dest" && mv "$dest.tmp" "$dest"
  echo "$repo $commit" >> "$manifest.tmp"
done < "$list"
mv "$manifest.tmp" "$manifest"
files=$(find "$out" -name '*.py' -type f | wc -l)
echo "ml_corpus: $(wc -l < "$manifest") repositories, $files Python files in $out" >&2
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "ml_corpus: missing ${#missing[@]}: ${missing[*]} (clone them and run again)" >&2
  exit 3
fi
