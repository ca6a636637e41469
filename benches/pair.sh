# Sourced by the benches that time two commands against each other on the synthetic repositories
# of benches/verify.sh (benches/policy.sh, benches/export.sh): the set-up, the repositories, the
# timing in turns and the report, written once. The sourcing script sets `name` (its file name,
# for messages) and `modes` (the two commands' names, the baseline first), then calls
# `pair_setup "$@"`, `pair_repo N` for each size, `pair_time N MODE COMMAND...` in its runs, and
# `pair_report TITLE LIMIT WHAT` at the end.

# Sizes, runs, the release binary and bench_synth, and the work directory.
pair_setup() {
    sizes=("$@")
    [ ${#sizes[@]} -gt 0 ] || sizes=(10000)
    runs=${BENCH_RUNS:-7}
    per_unit=${BENCH_TICKS_PER_UNIT:-10}
    read -r -a cargo_flags <<<"${BENCH_CARGO_FLAGS:---locked}"
    target=${CARGO_TARGET_DIR:-$PWD/target}
    [ -x /usr/bin/time ] || { echo "$name: /usr/bin/time (GNU time) is needed; install the package 'time'" >&2; exit 1; }
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
    declare -gA walls cpus rsses
}

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The repository of $1 ticks in $work/ticks-$1: generated, or (BENCH_REUSE) the one left there.
pair_repo() {
    local n=$1 dir=$work/ticks-$1 made
    if [ -n "${BENCH_REUSE:-}" ] && [ -f "$dir/made.txt" ]; then
        echo "ticks=$n: reusing $dir" >&2
    else
        rm -rf "$dir"
        echo "ticks=$n: generating" >&2
        made=$("$synth" --ticks "$n" --units $(((n + per_unit - 1) / per_unit)) --out "$dir")
        echo "$made" >"$dir/made.txt"
    fi
}

# Fails unless the text report `$2` of mode $1 on $3 ticks has every tick evidenced.
pair_expect_evidenced() {
    case $2 in
        "$3 checked: $3 evidenced, 0 stale, 0 unverifiable, 0 skipped"*) ;;
        *) echo "$name: $1: expected $3 evidenced ticks, got: $2" >&2; exit 1 ;;
    esac
}

# Times COMMAND... (run in the repository of $1 ticks) as mode $2: wall, CPU (user + system) and
# peak RSS, added to that size's and mode's samples.
pair_time() {
    local n=$1 mode=$2 dir=$work/ticks-$1 start end user sys peak
    shift 2
    start=$(date +%s%N)
    (cd "$dir/repo" && /usr/bin/time -f '%U %S %M' -o "$dir/time.$mode" "$@" >/dev/null)
    end=$(date +%s%N)
    read -r user sys peak < <(tail -1 "$dir/time.$mode")
    walls[$n-$mode]+="$(awk -v ns=$((end - start)) 'BEGIN { printf "%.4f", ns / 1e9 }') "
    cpus[$n-$mode]+="$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') "
    rsses[$n-$mode]+="$peak "
}

# Prints each size's medians for both modes and the second's ratio to the first, against LIMIT
# ($2, e.g. 1.10) and named WHAT ($3, e.g. "export against verify"), under TITLE ($1).
pair_report() {
    local title=$1 limit=$2 what=$3 n mode w f c m a b ratio met kind
    local -A wall fast cpu
    echo
    echo "$title (release; median of $runs runs taken in turns)"
    echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    printf '%8s %8s %11s %12s %9s %9s\n' ticks mode "median (s)" "fastest (s)" "CPU (s)" "RSS (MB)"
    for n in "${sizes[@]}"; do
        for mode in "${modes[@]}"; do
            # shellcheck disable=SC2086 # space-separated numbers
            {
                w=$(median ${walls[$n-$mode]})
                f=$(printf '%s\n' ${walls[$n-$mode]} | sort -n | head -1)
                c=$(median ${cpus[$n-$mode]})
                m=$(printf '%s\n' ${rsses[$n-$mode]} | sort -n | tail -1)
            }
            printf '%8s %8s %11s %12s %9s %9s\n' "$n" "$mode" "$w" "$f" "$c" "$(awk -v k="$m" 'BEGIN { printf "%.1f", k / 1024 }')"
            wall[$mode]=$w fast[$mode]=$f cpu[$mode]=$c
        done
        for kind in median fastest cpu; do
            case $kind in
                median) a=${wall[${modes[0]}]} b=${wall[${modes[1]}]} ;;
                fastest) a=${fast[${modes[0]}]} b=${fast[${modes[1]}]} ;;
                cpu) a=${cpu[${modes[0]}]} b=${cpu[${modes[1]}]} ;;
            esac
            ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')
            met=$(awk -v r="$ratio" -v l="$limit" 'BEGIN { print (r <= l) ? "met" : "MISSED" }')
            echo "ticks=$n, $kind: $what ${ratio}x (target <= ${limit}x): $met"
        done
    done
}
