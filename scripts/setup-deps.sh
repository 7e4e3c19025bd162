#!/usr/bin/env bash
# Installs the Debian 12 packages parlint needs to build and test (DESIGN §7), and nothing that is
# already there. As root it runs apt-get; otherwise it prints the exact command and exits 2.
set -euo pipefail

packages=(g++ cmake ninja-build pkg-config libyaml-cpp-dev libre2-dev libjemalloc-dev libgtest-dev libgmock-dev
          nlohmann-json3-dev libcli11-dev libfmt-dev libbenchmark-dev python3 git clang-format
          pre-commit python3-yaml neovim  # real programs the integration tests drive
          python3-venv zsh lintian  # packages: the wheel's venv, zsh completion, the .deb
          clang libclang-rt-14-dev  # sanitizer and libFuzzer build (make test-sanitize, make fuzz-smoke)
          strace  # the no-exec, no-network test watches system calls
          shellcheck yamllint time valgrind)  # what `make bench` compares against and measures with
# Extra packages to require (used by the test of this script's non-root path).
read -r -a extra <<< "${PARLINT_EXTRA_PACKAGES:-}"
packages+=("${extra[@]}")
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# Node.js and npm fetch the pinned tree-sitter tarballs. A Node.js from elsewhere (NodeSource bundles
# npm) is fine; only install Debian's when the commands are missing.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if ((${#missing[@]} == 0)); then
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "parlint: missing packages. Install them with:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 2
fi
echo "parlint: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
