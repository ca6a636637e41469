#!/usr/bin/env bash
# What `speccoder attest export` costs over `speccoder attest verify` of the same range.
#
# For each size (ticks; default "10000"):
#   1. `examples/bench_synth.rs` builds the synthetic repository benches/verify.sh builds (one task
#      commit and one SSH-signed bundle per tick, a unit per BENCH_TICKS_PER_UNIT ticks, packed);
#   2. `attest verify --branch --all` must find every tick evidenced, and `attest export --branch
#      --all --vsa-key <a new ed25519 key>` must write a pack with one notes file per tick (both
#      checked before anything is timed);
#   3. both are timed BENCH_RUNS times (default 7), taking turns so that a change in the machine's
#      load falls on both (each export into a new directory, removed after); median and fastest
#      wall time, median CPU time (user + system), peak RSS.
# It prints both and the ratio, with the target (export costs at most 10% more). CPU time is the
# figure to read on a shared machine. It only reports: nothing here fails on a time.
#
# Usage: benches/export.sh [SIZE...]
# Environment: BENCH_RUNS, BENCH_TICKS_PER_UNIT (default 10), BENCH_DIR (work directory, kept;
# default a temporary one, removed), BENCH_REUSE (set: reuse a repository an earlier run left in
# BENCH_DIR, also one benches/verify.sh or benches/policy.sh left there), BENCH_CARGO_FLAGS
# (default --locked), CARGO_TARGET_DIR (honoured as cargo does).
set -euo pipefail
cd "$(dirname "$0")/.."

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000)
runs=${BENCH_RUNS:-7}
per_unit=${BENCH_TICKS_PER_UNIT:-10}
read -r -a cargo_flags <<<"${BENCH_CARGO_FLAGS:---locked}"
target=${CARGO_TARGET_DIR:-$PWD/target}
[ -x /usr/bin/time ] || { echo "benches/export.sh: /usr/bin/time (GNU time) is needed; install the package 'time'" >&2; exit 1; }

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

key=$work/vsa-key
[ -f "$key" ] || ssh-keygen -q -t ed25519 -N '' -C bench-vsa -f "$key"

# The command of `mode` on size $1, into `cmd`; an export writes into $2.
command_of() {
    local mode=$1 n=$2 out=${3:-}
    cmd=("$bin" attest "$mode" --branch --all --allowed-signers "$work/ticks-$n/allowed_signers")
    [ "$mode" = export ] && cmd+=(--vsa-key "$key" --out "$out")
    return 0
}

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
    command_of verify "$n"
    summary=$(cd "$dir/repo" && "${cmd[@]}" | tail -1)
    case $summary in
        "$n checked: $n evidenced, 0 stale, 0 unverifiable, 0 skipped"*) ;;
        *) echo "benches/export.sh: verify: expected $n evidenced ticks, got: $summary" >&2; exit 1 ;;
    esac
    rm -rf "$dir/pack"
    command_of export "$n" "$dir/pack"
    (cd "$dir/repo" && "${cmd[@]}" >/dev/null)
    notes=$(find "$dir/pack" -name '*.intoto.jsonl' | wc -l)
    [ "$notes" = "$n" ] || { echo "benches/export.sh: export wrote $notes notes files, not $n" >&2; exit 1; }
    rm -rf "$dir/pack"
done

for r in $(seq 1 "$runs"); do
    for n in "${sizes[@]}"; do
        dir=$work/ticks-$n
        for mode in verify export; do
            command_of "$mode" "$n" "$dir/pack"
            start=$(date +%s%N)
            (cd "$dir/repo" && /usr/bin/time -f '%U %S %M' -o "$dir/time.$mode" "${cmd[@]}" >/dev/null)
            end=$(date +%s%N)
            rm -rf "$dir/pack"
            read -r user sys peak < <(tail -1 "$dir/time.$mode")
            walls[$n-$mode]+="$(awk -v ns=$((end - start)) 'BEGIN { printf "%.4f", ns / 1e9 }') "
            cpus[$n-$mode]+="$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') "
            rsses[$n-$mode]+="$peak "
        done
    done
    echo "run $r of $runs done" >&2
done

echo
echo "speccoder attest verify and attest export --vsa-key (ed25519), --branch --all (release; median of $runs runs taken in turns)"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%8s %8s %11s %12s %9s %9s\n' ticks command "median (s)" "fastest (s)" "CPU (s)" "RSS (MB)"
for n in "${sizes[@]}"; do
    for mode in verify export; do
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
            median) a=$wall_verify b=$wall_export ;;
            fastest) a=$fast_verify b=$fast_export ;;
            cpu) a=$cpu_verify b=$cpu_export ;;
        esac
        ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')
        met=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.10) ? "met" : "MISSED" }')
        echo "ticks=$n, $what: export ${ratio}x verify (target <= 1.10x): $met"
    done
done
