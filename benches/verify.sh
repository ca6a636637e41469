#!/usr/bin/env bash
# How fast `speccoder attest verify --branch --all` is, against the per-line tool pipeline.
#
# For each size (ticks; default "1000 10000 100000"):
#   1. `examples/bench_synth.rs` builds a synthetic Spec Kit repository with that many signed ticks
#      (one task commit and one 5-line SSH-signed bundle per tick, made by the library as
#      `speccoder attest` makes them), packed with `git gc`;
#   2. the release `speccoder attest verify --branch --all --allowed-signers F` must find every
#      tick evidenced (checked before anything is timed; the run stops otherwise);
#   3. it is timed BENCH_RUNS times (default 3; the sizes take turns so that a change in the
#      machine's load does not fall on one size; median wall time, fastest wall time, median CPU
#      time and peak RSS from /usr/bin/time), and run once more each time for the peaks of
#      RssAnon (the process's own memory) and RssFile (mapped files: the packs and the binary,
#      pages the kernel reclaims without writeback) apart, sampled every 20 ms from
#      /proc/<pid>/status (a sampler beside a timed run would take CPU from it);
#   4. `examples/bench_tool_pipeline.rs` does the same signature checks the way the published tool
#      does them (`git notes show` per tick, `ssh-keygen -Y find-principals` and `-Y verify` per
#      line) on BENCH_TOOL_SAMPLE ticks (default 100; 0 = all) spread over the history, and its
#      per-tick cost is scaled to all ticks;
#   5. `examples/bench_signatures.rs` times, in-process on one thread, the signature checks of
#      every note (the verifier's own function): the floor a check of every tick stands on;
#   6. with BENCH_PUBLISHED, the published speccoder's `attest verify --branch --all` is timed on
#      the same repository in the same turns (median wall time), after its JSON report is checked
#      to hold every tick. It finds each of ours `unverifiable` for its policy digest alone (it
#      hashes its own version in: docs/task-verification-v0.md, "The published recipe"), having
#      read and checked every line as for its own.
# Then it prints per-tick costs, the speed-up and the growth from the smallest to the largest size,
# with the targets of issue 46 (CPU a tick at every size within 10% of the smallest's; CPU a tick
# at most 2x the signature checks'; RssAnon at 100,000 ticks at most 150 MB). It only reports:
# nothing here fails on a time.
#
# Usage: benches/verify.sh [SIZE...]       (or `just bench-verify`)
# Environment: BENCH_RUNS, BENCH_TICKS_PER_UNIT (default 10: a unit per 10 ticks), BENCH_MAX_UNITS
# (default 1000: 100,000 ticks in 1,000 units), BENCH_NO_PACK (set: loose objects, as a repository
# that `speccoder attest` made and nothing packed yet), BENCH_TOOL_SAMPLE, BENCH_DIR (work directory, kept; default a temporary
# one, removed), BENCH_REUSE (set: a repository left in BENCH_DIR by an earlier run, with its
# made.txt, is timed again instead of generated; generating and packing 100,000 ticks takes
# several minutes), BENCH_CARGO_FLAGS (default --locked), CARGO_TARGET_DIR (honoured as cargo
# does), SPECCODER_BIN (another build of speccoder to time, an earlier commit's for a before),
# BENCH_PUBLISHED (the published speccoder's binary, `cargo install speccoder --version 0.9.0`).
set -euo pipefail
cd "$(dirname "$0")/.."

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
runs=${BENCH_RUNS:-3}
sample=${BENCH_TOOL_SAMPLE:-100}
published=${BENCH_PUBLISHED:-}
per_unit=${BENCH_TICKS_PER_UNIT:-10}
max_units=${BENCH_MAX_UNITS:-1000}
pack_flag=()
[ -z "${BENCH_NO_PACK:-}" ] || pack_flag=(--no-pack)
read -r -a cargo_flags <<<"${BENCH_CARGO_FLAGS:---locked}"
target=${CARGO_TARGET_DIR:-$PWD/target}

# Peak memory comes from GNU time; install it where we may (Debian names the package `time`).
if [ ! -x /usr/bin/time ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing GNU time (apt-get install time)" >&2
        apt-get install -y -qq time >/dev/null || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
    else
        echo "benches/verify.sh: /usr/bin/time (GNU time) is needed for peak memory; install the package 'time'" >&2
        exit 1
    fi
fi
for tool in git ssh-keygen awk; do
    command -v "$tool" >/dev/null || { echo "benches/verify.sh: $tool is needed" >&2; exit 1; }
done

echo "building the release binary and the bench examples" >&2
cargo build --release "${cargo_flags[@]}" --bin speccoder --example bench_synth --example bench_tool_pipeline \
    --example bench_signatures >&2
bin=${SPECCODER_BIN:-$target/release/speccoder}
synth=$target/release/examples/bench_synth
tools=$target/release/examples/bench_tool_pipeline
signatures=$target/release/examples/bench_signatures

if [ -n "${BENCH_DIR:-}" ]; then
    work=$BENCH_DIR
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi

# The value of key=... in a line of key=value pairs.
field() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"; }
# The median of the numbers given.
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# The largest of the numbers given.
largest() { printf '%s\n' "$@" | sort -n | tail -1; }

declare -A wall fastest cpu per_tick rss anon file tool_tick tool_note gen walls cpus rsses anons files sig_tick
declare -A pub_walls pub_wall pub_cpus pub_cpu

# Runs the command given under GNU time (to $timed), its output and exit status dropped (every
# repository is checked before anything is timed); prints its wall seconds, read in this shell
# right before its start and right after its exit.
timed_run() {
    local start=$EPOCHREALTIME
    /usr/bin/time -f '%U %S %M' -o "$timed" "$@" >/dev/null 2>&1 || true
    awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f", b - a }'
}

# Runs the command given like timed_run, while a sampler beside it reads its /proc/<pid>/status;
# prints the peaks of RssAnon and RssFile in KiB. Its times are not the run's: the sampler takes
# CPU from it (a run of 70 ms on two cores took 10 ms longer).
sampled() {
    local tpid spid
    /usr/bin/time -f '%U %S %M' -o "$timed" "$@" >/dev/null 2>&1 &
    tpid=$!
    peaks_of "$tpid" &
    spid=$!
    wait "$tpid" || true
    wait "$spid"
}

# The peaks of RssAnon and RssFile (KiB) of the child of process $1 (GNU time), read every 20 ms
# until $1 exits; the pauses wait on a pipe that never speaks, not on a new process.
peaks_of() {
    local tpid=$1 pid="" peak_anon=0 peak_file=0 key value _ nap
    exec {nap}<> <(:)
    while kill -0 "$tpid" 2>/dev/null; do
        [ -n "$pid" ] || pid=$(pgrep -P "$tpid" | head -1 || true)
        if [ -n "$pid" ] && [ -r "/proc/$pid/status" ]; then
            while read -r key value _; do
                case $key in
                    RssAnon:) [ "$value" -le "$peak_anon" ] || peak_anon=$value ;;
                    RssFile:) [ "$value" -le "$peak_file" ] || peak_file=$value ;;
                esac
            done <"/proc/$pid/status" 2>/dev/null || true
        fi
        read -r -t 0.02 -u "$nap" _ || true
    done
    echo "$peak_anon $peak_file"
}
targets=()
# The command that verifies size $1.
verify_cmd() { verify=("$bin" attest verify --branch --all --allowed-signers "$work/ticks-$1/allowed_signers"); }

# 1. Every repository first, each checked before anything is timed.
for n in "${sizes[@]}"; do
    dir=$work/ticks-$n
    if [ -n "${BENCH_REUSE:-}" ] && [ -f "$dir/made.txt" ]; then
        made=$(cat "$dir/made.txt")
        echo "ticks=$n: reusing $dir" >&2
    else
        rm -rf "$dir"
        echo "ticks=$n: generating" >&2
        units=$(((n + per_unit - 1) / per_unit))
        [ "$units" -le "$max_units" ] || units=$max_units
        made=$("$synth" --ticks "$n" --units "$units" "${pack_flag[@]}" --out "$dir")
        echo "$made" >"$dir/made.txt"
    fi
    echo "  $made" >&2
    gen[$n]=$(field total_seconds "$made")
    verify_cmd "$n"
    # Correctness first: every tick must be evidenced, or no time is worth reporting.
    if ! (cd "$dir/repo" && "${verify[@]}" >"$dir/report.txt"); then
        echo "benches/verify.sh: verify did not pass on the synthetic repository; see $dir/report.txt" >&2
        tail -5 "$dir/report.txt" >&2
        exit 1
    fi
    summary=$(tail -1 "$dir/report.txt")
    case $summary in
        "$n checked: $n evidenced, 0 stale, 0 unverifiable, 0 skipped"*) ;;
        *) echo "benches/verify.sh: expected $n evidenced ticks, got: $summary" >&2; exit 1 ;;
    esac
    echo "  verify: $summary" >&2
    if [ -n "$published" ]; then
        # Its exit code is 26 (every tick unverifiable for the policy digest): the ticks it read count.
        (cd "$dir/repo" && "$published" attest verify --branch --all --allowed-signers "$dir/allowed_signers" \
            --json >"$dir/published.json" 2>/dev/null) || true
        read_ticks=$(grep -o '"tick":{"feature"' "$dir/published.json" | grep -c . || true)
        [ "$read_ticks" -eq "$n" ] || {
            echo "benches/verify.sh: the published verifier reported $read_ticks of $n ticks; see $dir/published.json" >&2
            exit 1
        }
        echo "  published: $(grep -o '"message":"[^"]*"' "$dir/published.json" | head -1)" >&2
    fi
done

# 2. The timed runs, the sizes taking turns, so that a change in the machine's load spreads over
#    all of them instead of falling on one.
for r in $(seq 1 "$runs"); do
    for n in "${sizes[@]}"; do
        dir=$work/ticks-$n
        verify_cmd "$n"
        w=$(cd "$dir/repo" && timed=$dir/time.$r timed_run "${verify[@]}")
        read -r user sys peak < <(tail -1 "$dir/time.$r")
        read -r peak_anon peak_file < <(cd "$dir/repo" && timed=$dir/time.$r.sampled sampled "${verify[@]}")
        c=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
        walls[$n]+="$w " cpus[$n]+="$c " rsses[$n]+="$peak " anons[$n]+="$peak_anon " files[$n]+="$peak_file "
        echo "ticks=$n run $r: $w s wall, $c s CPU, peak RSS $peak KiB (RssAnon $peak_anon, RssFile $peak_file)" >&2
        if [ -n "$published" ]; then
            w=$(cd "$dir/repo" && timed=$dir/published-time.$r timed_run "$published" attest verify --branch --all \
                --allowed-signers "$dir/allowed_signers")
            c=$(tail -1 "$dir/published-time.$r" | awk '{ printf "%.2f", $1 + $2 }')
            pub_walls[$n]+="$w " pub_cpus[$n]+="$c "
            echo "ticks=$n run $r: published verifier $w s wall, $c s CPU" >&2
        fi
    done
done
for n in "${sizes[@]}"; do
    # shellcheck disable=SC2086 # the lists are space-separated numbers
    {
        wall[$n]=$(median ${walls[$n]})
        fastest[$n]=$(printf '%s\n' ${walls[$n]} | sort -n | head -1)
        cpu[$n]=$(median ${cpus[$n]})
        rss[$n]=$(largest ${rsses[$n]})
        anon[$n]=$(largest ${anons[$n]})
        file[$n]=$(largest ${files[$n]})
    }
    per_tick[$n]=$(awk -v s="${wall[$n]}" -v n="$n" 'BEGIN { printf "%.4f", s * 1000 / n }')
    if [ -n "$published" ]; then
        # shellcheck disable=SC2086 # the lists are space-separated numbers
        pub_wall[$n]=$(median ${pub_walls[$n]}) pub_cpu[$n]=$(median ${pub_cpus[$n]})
    fi
done

# 3. The tool pipeline on each repository.
for n in "${sizes[@]}"; do
    dir=$work/ticks-$n
    echo "ticks=$n: tool pipeline on $([ "$sample" = 0 ] && echo all || echo "$sample") ticks" >&2
    if [ "$sample" = 0 ]; then
        tool=$("$tools" --repo "$dir/repo" --allowed-signers "$dir/allowed_signers")
    else
        tool=$("$tools" --repo "$dir/repo" --allowed-signers "$dir/allowed_signers" --sample "$sample")
    fi
    echo "  $tool" >&2
    tool_tick[$n]=$(field per_tick_ms "$tool")
    if [ "$(field scaled "$tool")" = true ]; then
        tool_note[$n]="sampled $(field sampled "$tool"), scaled to $n: $(field scaled_seconds "$tool") s"
    else
        tool_note[$n]="all ticks: $(field seconds "$tool") s"
    fi
done

# 4. The signature checks alone, in-process, on one thread.
for n in "${sizes[@]}"; do
    dir=$work/ticks-$n
    sig=$("$signatures" --repo "$dir/repo" --allowed-signers "$dir/allowed_signers")
    echo "ticks=$n: signature checks alone: $sig" >&2
    sig_tick[$n]=$(field per_tick_ms "$sig")
done

echo
echo "speccoder attest verify --branch --all (release; median of $runs runs taken in turns, warm page cache; $per_unit ticks a unit)"
echo "against the per-line tool pipeline (git notes show per tick; ssh-keygen -Y find-principals and -Y verify per line)"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $(git --version); $(ssh -V 2>&1 | cut -d, -f1)"
echo
printf '%8s %9s %11s %11s %10s %13s %13s %10s %13s %13s %15s %9s  %s\n' \
    ticks "gen (s)" "verify (s)" "fastest (s)" "CPU (s)" "per tick (ms)" "CPU/tick (ms)" "RSS (MB)" \
    "RssAnon (MB)" "RssFile (MB)" "tool/tick (ms)" speed-up "tool pipeline"
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
small=${sizes[0]}
cpu_tick() { awk -v c="${cpu[$1]}" -v n="$1" 'BEGIN { printf "%.4f", c * 1000 / n }'; }
for n in "${sizes[@]}"; do
    ratio=$(awk -v t="${tool_tick[$n]}" -v o="${per_tick[$n]}" 'BEGIN { printf "%.0f", t / o }')
    printf '%8s %9s %11s %11s %10s %13s %13s %10s %13s %13s %15s %8sx  %s\n' "$n" "${gen[$n]}" "${wall[$n]}" \
        "${fastest[$n]}" "${cpu[$n]}" "${per_tick[$n]}" "$(cpu_tick "$n")" "$(mib "${rss[$n]}")" \
        "$(mib "${anon[$n]}")" "$(mib "${file[$n]}")" "${tool_tick[$n]}" "$ratio" "${tool_note[$n]}"
    targets+=("speed-up at $n ticks: ${ratio}x the tool pipeline")
    if [ -n "$published" ]; then
        ratio=$(awk -v p="${pub_wall[$n]}" -v o="${wall[$n]}" 'BEGIN { printf "%.0f", p / o }')
        targets+=("speed-up at $n ticks: ${ratio}x the published verifier ($($published --version | head -1): median ${pub_wall[$n]} s wall, ${pub_cpu[$n]} s CPU; ours ${wall[$n]} s, ${cpu[$n]} s)")
    fi
    floor=$(awk -v c="$(cpu_tick "$n")" -v s="${sig_tick[$n]}" 'BEGIN { printf "%.2f", c / s }')
    met=$(awk -v f="$floor" 'BEGIN { print (f <= 2) ? "met" : "MISSED" }')
    targets+=("CPU a tick at $n ticks: ${floor}x the signature checks' ${sig_tick[$n]} ms (target <= 2x): $met")
    if [ "$n" != "$small" ]; then
        flat=$(awk -v a="$(cpu_tick "$small")" -v b="$(cpu_tick "$n")" 'BEGIN { printf "%.3f", b / a }')
        met=$(awk -v f="$flat" 'BEGIN { print (f <= 1.10) ? "met" : "MISSED" }')
        targets+=("CPU a tick at $n ticks: ${flat}x the CPU a tick at $small (target <= 1.10x): $met")
    fi
    if [ "$n" = 100000 ]; then
        met=$(awk -v k="${anon[$n]}" 'BEGIN { print (k / 1024 <= 150) ? "met" : "MISSED" }')
        targets+=("RssAnon peak at 100000 ticks: $(mib "${anon[$n]}") MB (target <= 150 MB): $met")
    fi
done
echo
printf '%s\n' "${targets[@]}"
if [ ${#sizes[@]} -ge 2 ]; then
    large=${sizes[-1]}
    factor=$(awk -v a="$small" -v b="$large" 'BEGIN { printf "%g", b / a }')
    for what in wall fastest cpu; do
        case $what in
            wall) a=${wall[$small]} b=${wall[$large]} label="median wall time" ;;
            fastest) a=${fastest[$small]} b=${fastest[$large]} label="fastest wall time" ;;
            cpu) a=${cpu[$small]} b=${cpu[$large]} label="CPU time" ;;
        esac
        growth=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b / a }')
        echo "growth ($label): $large ticks cost ${growth}x $small ticks (${factor}x the ticks)"
    done
fi
