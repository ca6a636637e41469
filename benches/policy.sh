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

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000)
runs=${BENCH_RUNS:-7}
per_unit=${BENCH_TICKS_PER_UNIT:-10}
read -r -a cargo_flags <<<"${BENCH_CARGO_FLAGS:---locked}"
target=${CARGO_TARGET_DIR:-$PWD/target}
[ -x /usr/bin/time ] || { echo "benches/policy.sh: /usr/bin/time (GNU time) is needed; install the package 'time'" >&2; exit 1; }

echo "building the release binary and bench_synth" >&2
cargo build --release "${cargo_flags[@]}" --bin speccoder --example bench_synth >&2
bin=$target/release/speccoder
synth=$target/release/examples/bench_synth

if [ -n "${BENCH_DIR:-}" ]; then
    work=$BENCH_DIR
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The policy: 49 rules that match no unit, then the catch-all.
policy=$work/policy-50.toml
{
    echo "version = 1"
    for i in $(seq 1 49); do
        printf '\n[[rule]]\nname = "team-%02d"\nunits = ["team-%02d-*", "*-team-%02d"]\nsigners = ["team-%02d@example.com"]\nverdicts = ["verified"]\n' "$i" "$i" "$i" "$i"
    done
    printf '\n[[rule]]\nname = "default"\nunits = ["*"]\nsigners = ["bench@example.com"]\nverdicts = ["verified"]\nphases = ["green"]\nmin_mutation_score = 0.5\nmonitor = ["clean", "off"]\n'
} >"$policy"

declare -A walls cpus rsses
for n in "${sizes[@]}"; do
    dir=$work/ticks-$n
    if [ -n "${BENCH_REUSE:-}" ] && [ -f "$dir/made.txt" ]; then
        echo "ticks=$n: reusing $dir" >&2
    else
        rm -rf "$dir"
        echo "ticks=$n: generating" >&2
        made=$("$synth" --ticks "$n" --units $(((n + per_unit - 1) / per_unit)) --out "$dir")
        echo "$made" >"$dir/made.txt"
    fi
    for mode in plain policy; do
        extra=()
        [ "$mode" = policy ] && extra=(--policy "$policy")
        summary=$(cd "$dir/repo" && "$bin" attest verify --branch --all --allowed-signers "$dir/allowed_signers" "${extra[@]}" | tail -1)
        case $summary in
            "$n checked: $n evidenced, 0 stale, 0 unverifiable, 0 skipped"*) ;;
            *) echo "benches/policy.sh: $mode: expected $n evidenced ticks, got: $summary" >&2; exit 1 ;;
        esac
    done
done

for r in $(seq 1 "$runs"); do
    for n in "${sizes[@]}"; do
        dir=$work/ticks-$n
        for mode in plain policy; do
            extra=()
            [ "$mode" = policy ] && extra=(--policy "$policy")
            start=$(date +%s%N)
            (cd "$dir/repo" && /usr/bin/time -f '%U %S %M' -o "$dir/time.$mode" \
                "$bin" attest verify --branch --all --allowed-signers "$dir/allowed_signers" "${extra[@]}" >/dev/null)
            end=$(date +%s%N)
            read -r user sys peak < <(tail -1 "$dir/time.$mode")
            walls[$n-$mode]+="$(awk -v ns=$((end - start)) 'BEGIN { printf "%.4f", ns / 1e9 }') "
            cpus[$n-$mode]+="$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') "
            rsses[$n-$mode]+="$peak "
        done
    done
    echo "run $r of $runs done" >&2
done

echo
echo "speccoder attest verify --branch --all, without and with a policy of 50 rules (release; median of $runs runs taken in turns)"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%8s %8s %11s %12s %9s %9s\n' ticks policy "median (s)" "fastest (s)" "CPU (s)" "RSS (MB)"
for n in "${sizes[@]}"; do
    for mode in plain policy; do
        # shellcheck disable=SC2086 # space-separated numbers
        {
            w=$(median ${walls[$n-$mode]})
            f=$(printf '%s\n' ${walls[$n-$mode]} | sort -n | head -1)
            c=$(median ${cpus[$n-$mode]})
            m=$(printf '%s\n' ${rsses[$n-$mode]} | sort -n | tail -1)
        }
        printf '%8s %8s %11s %12s %9s %9s\n' "$n" "$mode" "$w" "$f" "$c" "$(awk -v k="$m" 'BEGIN { printf "%.1f", k / 1024 }')"
        eval "wall_$mode=$w fast_$mode=$f cpu_$mode=$c"
    done
    # shellcheck disable=SC2154 # set by the eval above
    for what in median fastest cpu; do
        case $what in
            median) a=$wall_plain b=$wall_policy ;;
            fastest) a=$fast_plain b=$fast_policy ;;
            cpu) a=$cpu_plain b=$cpu_policy ;;
        esac
        ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')
        met=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.05) ? "met" : "MISSED" }')
        echo "ticks=$n, $what: with the policy ${ratio}x without (target <= 1.05x): $met"
    done
done
