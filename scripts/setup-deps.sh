#!/usr/bin/env bash
# Installs the Debian 12 packages parlint needs to build and test (DESIGN §7), and nothing that is
# already there. As root it runs apt-get; otherwise it prints the exact command and exits 2.
#   --build  only what building the parlint binary needs (the parlint-build pre-commit hook, the action)
#   --check  never install, even as root: print the command and exit 2 when something is missing
set -euo pipefail

build_only=0
check_only=0
for arg in "$@"; do
  case $arg in
    --build) build_only=1 ;;
    --check) check_only=1 ;;
    *) echo "setup-deps.sh: unknown argument '$arg' (use --build, --check)" >&2; exit 2 ;;
  esac
done

# Building the binary: the compiler, CMake + Ninja, the libraries, Python for the build's layering check.
packages=(g++ cmake ninja-build pkg-config libyaml-cpp-dev libre2-dev libjemalloc-dev nlohmann-json3-dev
          libcli11-dev libfmt-dev python3)
if ((!build_only)); then
  packages+=(libgtest-dev libgmock-dev libbenchmark-dev git clang-format
             pre-commit python3-yaml neovim  # real programs the integration tests drive
             python3-venv zsh lintian curl  # packages: the wheel's venv, zsh completion, the .deb, the action's download
             clang libclang-rt-14-dev  # sanitizer and libFuzzer build (make test-sanitize, make fuzz-smoke)
             strace  # the no-exec, no-network test watches system calls
             shellcheck yamllint time valgrind)  # what `make bench` compares against and measures with
fi
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
if ((check_only)) || [[ $(id -u) -ne 0 ]]; then
  sudo=
  [[ $(id -u) -ne 0 ]] && sudo="sudo "
  echo "parlint: missing packages. Install them with:" >&2
  echo "  ${sudo}apt-get install -y ${missing[*]}" >&2
  exit 2
fi
echo "parlint: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
