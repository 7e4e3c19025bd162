#!/usr/bin/env bash
# Step 2 of the parlint action: lint with annotations (and a job summary), optionally write SARIF.
# Inputs come from the environment; word splitting of paths and args happens here, without globbing
# and without ever evaluating them as shell code.
set -uo pipefail
set -f
bin=${PARLINT_BIN:-parlint}
read -r -d '' -a paths <<<"${PARLINT_PATHS:-.}"
read -r -d '' -a args <<<"${PARLINT_ARGS:-}"
fail_on=${PARLINT_FAIL_ON:-warning}
out=${GITHUB_OUTPUT:-/dev/null}

"$bin" check --format github --fail-on "$fail_on" "${args[@]}" -- "${paths[@]}"
rc=$?
if [[ -n ${PARLINT_SARIF:-} ]]; then
  mkdir -p "$(dirname "$PARLINT_SARIF")"
  # The second pass writes the same findings as SARIF; its exit code says nothing new.
  GITHUB_STEP_SUMMARY="" "$bin" check --format sarif --fail-on never --output "$PARLINT_SARIF" "${args[@]}" -- \
    "${paths[@]}" 2>/dev/null
  echo "sarif-file=$PARLINT_SARIF" >>"$out"
fi
echo "exit-code=$rc" >>"$out"
exit "$rc"
