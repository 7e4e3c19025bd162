#!/usr/bin/env bash
# Runs every libFuzzer target of a PARLINT_FUZZ build for SECONDS each (FUZZ_PARALLEL at a time, default
# two), starting from
# seed corpora made of the fixtures, and prints executions and coverage per target. Exits non-zero when
# a target finds a crash, a leak, undefined behaviour, a timeout or runaway memory (the reproducer is
# left in BUILD/fuzz-artifacts/).
#   scripts/fuzz.sh BUILD SECONDS [TARGET...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$1
seconds=$2
shift 2
targets=("$@")
((${#targets[@]})) || targets=(yaml python shell args config suppressions lsp)
corpus=$build/fuzz-corpus
artifacts=$build/fuzz-artifacts
mkdir -p "$artifacts"

seed() {  # seed TARGET FILE...
  mkdir -p "$corpus/$1"
  local t=$1
  shift
  for f in "$@"; do cp -n "$f" "$corpus/$t/seed-$(sha1sum "$f" | cut -c1-16)" 2>/dev/null || true; done
}
mapfile -t yaml < <(find "$root/fixtures" -name '*.yaml' -o -name '*.yml')
mapfile -t python < <(find "$root/fixtures" -name '*.py')
mapfile -t shell < <(find "$root/fixtures" -name '*.sh' -o -name '*.sbatch' -o -name '*.slurm')
seed yaml "${yaml[@]}" "$root"/tests/fuzz/regressions/yaml/*
seed python "${python[@]}" "$root"/tests/fuzz/regressions/python/*
seed shell "${shell[@]}" "$root"/tests/fuzz/regressions/shell/*
seed args "${shell[@]}"
seed suppressions "${yaml[@]}" "${shell[@]}"
seed config "$root"/tests/fuzz/seeds/config/*
# The shapes in which alternatives multiply (tests/scaling_shapes.py), small: inputs whose cost once grew
# exponentially, for the fuzzer to mutate.
python3 "$root/tests/scaling_shapes.py" --seeds "$corpus" 12
mkdir -p "$corpus/lsp"
python3 "$root/tests/fuzz/lsp_seeds.py" "$corpus/lsp" "${yaml[0]}" "${shell[0]}"

run() {
  local t=$1
  local log=$build/fuzz-$t.log
  if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/tests/fuzz/fuzz_$t" "$corpus/$t" -max_total_time="$seconds" -max_len=65536 -timeout=20 \
      -rss_limit_mb=2560 -print_final_stats=1 -artifact_prefix="$artifacts/$t-" >"$log" 2>&1; then
    local execs cov
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo '?')
    printf '  %-13s %4ss  %10s execs  %6s coverage edges  clean\n' "$t" "$seconds" "$execs" "$cov"
  else
    printf '  %-13s FAILED: see %s\n' "$t" "$log"
    grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -5 | sed 's/^/    /'
    return 1
  fi
}

parallel=${FUZZ_PARALLEL:-2}
echo "fuzzing ${#targets[@]} targets for ${seconds}s each ($(nproc) cores, $parallel at a time)"
status=0
for ((i = 0; i < ${#targets[@]}; i += parallel)); do
  pids=()
  outs=()
  for t in "${targets[@]:i:parallel}"; do
    out=$(mktemp)
    outs+=("$out")
    run "$t" >"$out" &
    pids+=($!)
  done
  for j in "${!pids[@]}"; do
    wait "${pids[$j]}" || status=1
    cat "${outs[$j]}"
    rm -f "${outs[$j]}"
  done
done
exit $status
