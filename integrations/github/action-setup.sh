#!/usr/bin/env bash
# Step 1 of the parlint action: find, download or build parlint and export PARLINT_BIN for step 2.
# PARLINT_VERSION_INPUT: '' = the parlint on PATH; else, when the action is used at its release tag
# (uses: parlint/parlint@vX.Y.Z, X.Y.Z being the version in its own CMakeLists.txt), that release's
# tarball, checked against the release's SHA256SUMS; else build this checkout.
# 'source' = always build this checkout.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
want=${PARLINT_VERSION_INPUT:-}

case "$want" in
  "" | source) ;;
  *) echo "::error title=parlint action::unknown version input '$want' (use '' or 'source')"; exit 2 ;;
esac

# Prints the path of the release binary of this action's own version. Only when the action was checked
# out at exactly that tag: a branch or a later commit has other source than the release's binary.
# The ref and repository come from action.yml (github.action_ref and github.action_repository; the
# runner leaves GITHUB_ACTION_REF empty in composite steps, actions/runner#2473), or else from the folder
# the runner checked the action out to (_actions/OWNER/REPO/REF). Returns 1 when there is nothing to
# download (the caller builds instead) and 3 when a download does not match the release's SHA256SUMS.
download_release() {
  local version tag ref repo base tarball dir
  version=$(sed -n 's/^project(parlint VERSION \([0-9][0-9.]*\).*/\1/p' "$here/CMakeLists.txt")
  tag=v$version
  ref=${PARLINT_ACTION_REF:-$(basename "$here")}
  [[ -n $version && $ref == "$tag" ]] || return 1
  command -v curl >/dev/null 2>&1 || return 1
  repo=${PARLINT_ACTION_REPOSITORY:-$(basename "$(dirname "$(dirname "$here")")")/$(basename "$(dirname "$here")")}
  base=${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/download/$tag
  tarball=parlint-$version-linux-x86_64.tar.gz
  dir=${RUNNER_TEMP:-/tmp}/parlint-$tag
  rm -rf "$dir" && mkdir -p "$dir" || return 1
  if ! curl -fsSL --retry 3 -o "$dir/$tarball" "$base/$tarball" ||
     ! curl -fsSL --retry 3 -o "$dir/SHA256SUMS" "$base/SHA256SUMS"; then
    echo "::notice title=parlint action::no release download for $tag; building from source" >&2
    return 1
  fi
  if ! (cd "$dir" && grep "  $tarball\$" SHA256SUMS | sha256sum --check --strict --status); then
    echo "::error title=parlint action::$tarball does not match the SHA256SUMS of release $tag" >&2
    return 3
  fi
  tar -xzf "$dir/$tarball" -C "$dir" || return 3
  echo "$dir/parlint-$version-linux-x86_64/bin/parlint"
}

bin=""
if [[ -z $want ]] && command -v parlint >/dev/null 2>&1; then
  bin=$(command -v parlint)
fi
if [[ -z $bin && -z $want ]]; then
  rc=0
  bin=$(download_release) || rc=$?
  ((rc == 3)) && exit 3  # refused, never built around
fi
if [[ -z $bin ]]; then
  # The tool cache survives between jobs on self-hosted runners; a hosted runner builds once per job.
  cache=${PARLINT_BUILD_DIR:-${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/parlint-build}
  echo "::group::Build parlint from source"
  bin=$("$here/scripts/build-parlint.sh" "$cache")
  echo "::endgroup::"
fi
"$bin" --version
echo "PARLINT_BIN=$bin" >>"${GITHUB_ENV:-/dev/null}"
