#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for SECONDS each (default 300), one after another with a single
# libFuzzer worker, and prints the executions per target. A separate command, not part of CI.
#
# Usage: scripts/fuzz-all.sh [SECONDS] [TARGET...]
#   Needs cargo-fuzz (`cargo install cargo-fuzz`). On a stable toolchain RUSTC_BOOTSTRAP=1 is set, as
#   cargo-fuzz passes nightly `-Z` flags (sanitizer, coverage) to rustc. Inputs that add coverage go to
#   fuzz/corpus/<target>/ (seeded from fuzz/seeds/<target>/, with fuzz/dicts/<target>.dict as libFuzzer
#   dictionary where there is one), crashes to fuzz/artifacts/<target>/, and each
#   run's libFuzzer output to fuzz/artifacts/<target>/fuzz.log (all ignored by git). Exit status 1 if any
#   target crashed. CARGO_TARGET_DIR is honoured (default fuzz/target).
set -euo pipefail

seconds=${1:-300}
shift || true
case $seconds in
    '' | *[!0-9]*) echo "usage: $0 [SECONDS] [TARGET...]" >&2; exit 2 ;;
esac

cd "$(dirname "$0")/../fuzz"
if ! cargo fuzz --version > /dev/null 2>&1; then
    echo "cargo-fuzz is not installed: cargo install cargo-fuzz" >&2
    exit 2
fi
export RUSTC_BOOTSTRAP=${RUSTC_BOOTSTRAP:-1}
target_dir=()
if [ -n "${CARGO_TARGET_DIR:-}" ]; then
    target_dir=(--target-dir "$CARGO_TARGET_DIR")
fi

if [ $# -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo fuzz list)
fi

cargo fuzz build "${target_dir[@]}"

status=0
results=()
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t"
    seeds=()
    [ -d "seeds/$t" ] && seeds=("seeds/$t")
    extra=()
    [ -f "dicts/$t.dict" ] && extra=(-dict="dicts/$t.dict")
    log="artifacts/$t/fuzz.log"
    echo "fuzzing $t for ${seconds}s (log: fuzz/$log)" >&2
    start=$(date +%s)
    if cargo fuzz run "${target_dir[@]}" "$t" "corpus/$t" "${seeds[@]}" -- \
        -max_total_time="$seconds" -print_final_stats=1 "${extra[@]}" > "$log" 2>&1; then
        result=ok
    else
        result="CRASH (see fuzz/$log and fuzz/artifacts/$t/)"
        status=1
    fi
    elapsed=$(($(date +%s) - start))
    # libFuzzer's own count of fuzzing seconds (the wall clock above includes the build).
    fuzzed=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
    [ -n "$fuzzed" ] && elapsed=$fuzzed
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    if [ -z "$execs" ]; then
        # A crash ends the run before the final stats: take the last status line's count.
        execs=$(grep -oE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#')
    fi
    results+=("$(printf '%-14s %12s %8s  %s' "$t" "${execs:-?}" "${elapsed}s" "$result")")
done

printf '%-14s %12s %8s  %s\n' target executions time result
printf '%s\n' "${results[@]}"
exit "$status"
