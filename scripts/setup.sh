#!/usr/bin/env bash
# Installs what building and testing ptlint needs on Debian 12, as root. Idempotent and quick on
# a second run: packages already present are not fetched again.
#   scripts/setup.sh             everything: build, tests, packaging, the libtorch module
#   scripts/setup.sh --minimal   only what building the `ptlint` executable needs
set -euo pipefail

# What building `ptlint` needs (header-only libraries, tree-sitter's static library, the grammar
# download with npm).
minimal=(
  build-essential cmake ninja-build pkg-config ccache
  nlohmann-json3-dev libasio-dev libcli11-dev libtomlplusplus-dev libfmt-dev
  libtree-sitter-dev libxxhash-dev libjemalloc-dev
  nodejs npm
)
# Build and test dependencies (one per line; keep sorted within groups).
packages=(
  "${minimal[@]}"
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # packaging: CPack DEB declares dependencies with dpkg-shlibdeps; pre-commit needs git
  dpkg-dev git
  # gpu_check/ (CPU libtorch)
  libtorch-dev
  # tests: real clients, tracing, fuzzing, real PyTorch code to lint
  neovim pre-commit strace hyperfine clang-14 libclang-rt-14-dev python3
  python3-torch python3-torchvision python3-torchaudio python3-skorch
)

[[ ${1:-} == --minimal ]] && packages=("${minimal[@]}")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node/npm may come from outside Debian's packages on some images: accept what is on PATH.
if command -v node >/dev/null && command -v npm >/dev/null; then
  filtered=()
  for p in "${missing[@]}"; do [[ $p == nodejs || $p == npm ]] || filtered+=("$p"); done
  missing=("${filtered[@]+"${filtered[@]}"}")
fi

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi
