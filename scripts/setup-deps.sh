#!/usr/bin/env bash
# Installs the Debian 12 packages a make target needs (DESIGN §7), and nothing that is already there:
#   setup-deps.sh [build]  what building parlint needs (make run, make install, make package, the
#                          parlint-build pre-commit hook); --build is the same
#   setup-deps.sh test     that, plus the programs and libraries the test suite drives (make test)
#   setup-deps.sh bench    that, plus what `make bench` compares against and measures with
#   --check                never install, even as root: print the command and exit 2 when something is missing
# As root it runs apt-get; otherwise it prints the exact command and exits 2.
set -euo pipefail

build=(g++ cmake ninja-build pkg-config libyaml-cpp-dev libre2-dev libjemalloc-dev nlohmann-json3-dev
       libcli11-dev libfmt-dev python3
       libtomlplusplus-dev  # toml++ 3.3, header-only: [tool.parlint] in pyproject.toml
       lld)  # the static link places the functions a run executes together (cmake/link_order.txt)
test=(libgtest-dev libgmock-dev libbenchmark-dev git clang-format
      pre-commit python3-yaml neovim  # real programs the integration tests drive
      python3-jsonschema  # validates --format gitlab against GitLab's Code Quality schema
      python3-venv zsh lintian curl  # packages: the wheel's venv, zsh completion, the .deb, the action's download
      clang libclang-rt-14-dev  # sanitizer and libFuzzer build (make test-sanitize, make fuzz-smoke)
      strace  # the no-exec, no-network test watches system calls
      time)  # GNU time: the scaling test's peak memory of each run (a child of Python inherits its size)
bench=(libbenchmark-dev shellcheck yamllint time valgrind)  # compared against and measured with

group=build
check_only=0
for arg in "$@"; do
  case $arg in
    build | --build) group=build ;;
    test | bench) group=$arg ;;
    --check) check_only=1 ;;
    *) echo "setup-deps.sh: unknown argument '$arg' (use build, test, bench, --check)" >&2; exit 2 ;;
  esac
done
packages=("${build[@]}")
case $group in
  test) packages+=("${test[@]}") ;;
  bench) packages+=("${bench[@]}") ;;
esac
# Extra packages to require (used by the test of this script's non-root path).
read -r -a extra <<< "${PARLINT_EXTRA_PACKAGES:-}"
packages+=("${extra[@]}")
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# Node.js and npm fetch the pinned tree-sitter tarballs (and the test suite's npm tools). A Node.js from
# elsewhere (NodeSource bundles npm) is fine; only install Debian's when the commands are missing.
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
