#!/usr/bin/env bash
# The `parlint-build` pre-commit hook: builds parlint inside the hook's clone on first use (the binary is
# cached there for later runs), then lints the files pre-commit passes.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=$("$here/scripts/build-parlint.sh" "${PARLINT_BUILD_DIR:-$here/.parlint-build}")
exec "$bin" check --force-exclude "$@"
