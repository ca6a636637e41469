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
#      load falls on both; median and fastest wall time, median CPU time (user + system), peak
#      RSS. Each export writes a new directory, and all of them are removed at the end, never
#      between runs: on ext4, files created just after many others were removed cost more system
#      time, the removal's and not the export's (benches/README.md has the figures).
#   4. in the same turns, a plain program (python3) writes the checked pack's files, read into
#      memory first, into a new directory beside the exports, and only its writes are timed: the
#      CPU time the file system takes for the files an export must write, the least an export can
#      add to the check.
# It prints both and the ratio, with the target (export costs at most 10% more), and that least
# cost against the check's. CPU time is the figure to read on a shared machine. It only reports:
# nothing here fails on a time.
#
# Usage: benches/export.sh [SIZE...]
# Environment: BENCH_RUNS, BENCH_TICKS_PER_UNIT (default 10), BENCH_DIR (work directory, kept;
# default a temporary one, removed), BENCH_REUSE (set: reuse a repository an earlier run left in
# BENCH_DIR, also one benches/verify.sh or benches/policy.sh left there), BENCH_CARGO_FLAGS
# (default --locked), CARGO_TARGET_DIR (honoured as cargo does).
set -euo pipefail
cd "$(dirname "$0")/.."

name=benches/export.sh
modes=(verify export)
# shellcheck source=benches/pair.sh
. benches/pair.sh
pair_setup "$@"

key=$work/vsa-key
[ -f "$key" ] || ssh-keygen -q -t ed25519 -N '' -C bench-vsa -f "$key"

# The command of `mode` on size $1, into `cmd`; an export writes into $2.
command_of() {
    local mode=$1 n=$2 out=${3:-}
    cmd=("$bin" attest "$mode" --branch --all --allowed-signers "$work/ticks-$n/allowed_signers")
    [ "$mode" = export ] && cmd+=(--vsa-key "$key" --out "$out")
    return 0
}

# Writes the files of the pack $1 into the new directory $2 as a plain program would, the bytes
# read into memory first; prints the CPU seconds (user + system) of the writes alone.
write_files() {
    python3 - "$1" "$2" <<'EOF'
import os, resource, sys
src, dst = sys.argv[1], sys.argv[2]
files = [(name, open(os.path.join(src, name), "rb").read()) for name in sorted(os.listdir(src))]
os.mkdir(dst)
before = resource.getrusage(resource.RUSAGE_SELF)
for name, data in files:
    fd = os.open(os.path.join(dst, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    rest = memoryview(data)
    while rest:
        rest = rest[os.write(fd, rest):]
    os.close(fd)
after = resource.getrusage(resource.RUSAGE_SELF)
spent = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
print(f"{spent:.3f}")
EOF
}
declare -A floors

for n in "${sizes[@]}"; do
    dir=$work/ticks-$n
    pair_repo "$n"
    command_of verify "$n"
    pair_expect_evidenced verify "$(cd "$dir/repo" && "${cmd[@]}" | tail -1)" "$n"
    rm -rf "$dir"/pack-*
    command_of export "$n" "$dir/pack-check"
    (cd "$dir/repo" && "${cmd[@]}" >/dev/null)
    notes=$(find "$dir/pack-check" -name '*.intoto.jsonl' | wc -l)
    [ "$notes" = "$n" ] || { echo "$name: export wrote $notes notes files, not $n" >&2; exit 1; }
done

for r in $(seq 1 "$runs"); do
    for n in "${sizes[@]}"; do
        for mode in "${modes[@]}"; do
            command_of "$mode" "$n" "$work/ticks-$n/pack-$r"
            pair_time "$n" "$mode" "${cmd[@]}"
        done
        floors[$n]+="$(write_files "$work/ticks-$n/pack-check" "$work/ticks-$n/pack-files-$r") "
    done
    echo "run $r of $runs done" >&2
done
pair_report "speccoder attest verify and attest export --vsa-key (ed25519), --branch --all" 1.10 "export against verify"
for n in "${sizes[@]}"; do
    # shellcheck disable=SC2086 # space-separated numbers
    floor=$(median ${floors[$n]})
    # shellcheck disable=SC2086
    check=$(median ${cpus[$n-verify]})
    files=$(find "$work/ticks-$n/pack-check" -type f | wc -l)
    echo "ticks=$n: the pack's $files files written by a plain program: median ${floor} s CPU," \
        "$(awk -v f="$floor" -v c="$check" 'BEGIN { printf "%.1f", 100 * f / c }')% of the check's: the least an export adds"
done
for n in "${sizes[@]}"; do
    rm -rf "$work/ticks-$n"/pack-*
done
