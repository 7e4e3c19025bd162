#!/usr/bin/env bash
# Step 1 of the parlint action: find or build parlint and export PARLINT_BIN for step 2.
# PARLINT_VERSION_INPUT: '' = the parlint on PATH, else build; 'source' = always build this checkout.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
want=${PARLINT_VERSION_INPUT:-}

case "$want" in
  "" | source) ;;
  *) echo "::error title=parlint action::unknown version input '$want' (use '' or 'source')"; exit 2 ;;
esac
bin=""
if [[ -z $want ]] && command -v parlint >/dev/null 2>&1; then
  bin=$(command -v parlint)
else
  # The tool cache survives between jobs on self-hosted runners; a hosted runner builds once per job.
  cache=${PARLINT_BUILD_DIR:-${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/parlint-build}
  echo "::group::Build parlint from source"
  bin=$("$here/scripts/build-parlint.sh" "$cache")
  echo "::endgroup::"
fi
"$bin" --version
echo "PARLINT_BIN=$bin" >>"${GITHUB_ENV:-/dev/null}"
