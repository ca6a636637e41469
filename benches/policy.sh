#!/usr/bin/env bash
# What a verifier policy of 50 rules costs `speccoder attest verify --branch --all`.
#
# For each size (ticks; default "10000"):
#   1. `examples/bench_synth.rs` builds the synthetic repository benches/verify.sh builds (one task
#      commit and one SSH-signed bundle per tick, a unit per BENCH_TICKS_PER_UNIT ticks, packed);
#   2. a policy of 50 rules is written beside it: 49 rules whose unit globs match no unit (so every
#      unit is held against all 50 globs, the most matching a policy of 50 rules costs) and a last
#      catch-all that asks each tick for its signer, its verdict, its green run, its mutation score
#      and its gaming monitor, all read from the signed evidence;
#   3. without and with the policy, every tick must be evidenced (checked before anything is timed);
#   4. both are timed BENCH_RUNS times (default 7), taking turns so that a change in the machine's
#      load falls on both; median and fastest wall time, median CPU time, peak RSS.
# It prints both and the ratio, with the target (the policy costs at most 5% more). It only
# reports: nothing here fails on a time.
#
# Usage: benches/policy.sh [SIZE...]
# Environment: BENCH_RUNS, BENCH_TICKS_PER_UNIT (default 10), BENCH_DIR (work directory, kept;
# default a temporary one, removed), BENCH_REUSE (set: reuse a repository an earlier run left in
# BENCH_DIR, also one benches/verify.sh left there), BENCH_CARGO_FLAGS (default --locked),
# CARGO_TARGET_DIR (honoured as cargo does).
set -euo pipefail
cd "$(dirname "$0")/.."

name=benches/policy.sh
modes=(plain policy)
# shellcheck source=benches/pair.sh
. benches/pair.sh
pair_setup "$@"

# The policy: 49 rules that match no unit, then the catch-all.
policy=$work/policy-50.toml
{
    echo "version = 1"
    for i in $(seq 1 49); do
        printf '\n[[rule]]\nname = "team-%02d"\nunits = ["team-%02d-*", "*-team-%02d"]\nsigners = ["team-%02d@example.com"]\nverdicts = ["verified"]\n' "$i" "$i" "$i" "$i"
    done
    printf '\n[[rule]]\nname = "default"\nunits = ["*"]\nsigners = ["bench@example.com"]\nverdicts = ["verified"]\nphases = ["green"]\nmin_mutation_score = 0.5\nmonitor = ["clean", "off"]\n'
} >"$policy"

# The command of `mode` on size $1, into `cmd`.
command_of() {
    local mode=$1 n=$2
    cmd=("$bin" attest verify --branch --all --allowed-signers "$work/ticks-$n/allowed_signers")
    [ "$mode" = policy ] && cmd+=(--policy "$policy")
    return 0
}

for n in "${sizes[@]}"; do
    pair_repo "$n"
    for mode in "${modes[@]}"; do
        command_of "$mode" "$n"
        pair_expect_evidenced "$mode" "$(cd "$work/ticks-$n/repo" && "${cmd[@]}" | tail -1)" "$n"
    done
done

for r in $(seq 1 "$runs"); do
    for n in "${sizes[@]}"; do
        for mode in "${modes[@]}"; do
            command_of "$mode" "$n"
            pair_time "$n" "$mode" "${cmd[@]}"
        done
    done
    echo "run $r of $runs done" >&2
done

pair_report "speccoder attest verify --branch --all, without and with a policy of 50 rules" 1.05 "with the policy against without"
