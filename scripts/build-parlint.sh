#!/usr/bin/env bash
# Builds the parlint binary from this source tree (Release, no tests) into BUILD_DIR, once: a later call
# finds the working binary and only prints its path. Used by the `parlint-build` pre-commit hook and by
# the GitHub Action when no parlint is installed. Prints the binary's path on stdout; build output goes
# to BUILD_DIR/build.log and its tail to stderr on failure.
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$src/.parlint-build}
bin=$build/parlint

if [[ -x $bin ]] && "$bin" --version >/dev/null 2>&1; then
  echo "$bin"
  exit 0
fi

mkdir -p "$build"
# One build at a time, even when several hook processes start together.
exec 9>"$build/.lock"
flock 9
if [[ -x $bin ]] && "$bin" --version >/dev/null 2>&1; then
  echo "$bin"
  exit 0
fi

# Only the packages the binary needs, and only checked: a hook or an action step never installs
# anything and never calls sudo; it prints the apt-get line and stops.
if ! "$src/scripts/setup-deps.sh" --build --check; then
  echo "parlint: install the packages above, then run again (or install a parlint package: README, Install)" >&2
  exit 2
fi
echo "parlint: building from $src (first use; several minutes on two cores)" >&2
log=$build/build.log
tmp=$build/cmake
# ccache, when installed, serves the files compiled one by one (tree-sitter, {fmt}, the generators and
# generated tables) to the build of another revision in a new hook clone; the base folder makes their
# paths relative. The unity units name their files by absolute path, so they compile again.
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=$src
fi
if ! { cmake -S "$src" -B "$tmp" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPARLINT_BUILD_TESTS=OFF \
         -DPARLINT_WERROR=OFF "${launcher[@]}" &&
       cmake --build "$tmp" --target parlint -j "$(nproc 2>/dev/null || echo 2)"; } >"$log" 2>&1; then
  echo "parlint: the build failed; the end of $log:" >&2
  tail -n 30 "$log" >&2
  exit 3
fi
# Install atomically: a half-copied binary must never be taken for a finished one.
cp "$tmp/parlint" "$bin.tmp.$$"
mv -f "$bin.tmp.$$" "$bin"
echo "$bin"
