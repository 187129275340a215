#!/usr/bin/env bash
# The search comparison experiment: every algorithm on public classes
# of Debian's commons-lang3, guava and commons-collections4, several seeds each, under a
# wall-time budget; then `search-stats` prints median coverage per class and algorithm, the
# whole-suite vs single-target comparison (Vargha–Delaney Â12, Mann–Whitney p) and throughput.
#
# Resumable: each run appends its JSON line to $OUT, and runs already in $OUT are skipped, so
# an interrupted experiment continues where it stopped (and several sessions can share one).
#
#   benches/scripts/search-experiment.sh                  # the full design: 60 s, 10 seeds, all
#   BUDGET=10 SEEDS=5 ALGORITHMS="whole-suite single-target" benches/scripts/search-experiment.sh
#   # the whole-suite paper's own comparison: 1,000,000 statements executed, branch coverage,
#   # minimised suites (sizes compared where the coverage is the same):
#   STATEMENTS=1000000 CRITERIA=branch MINIMISE=1 ALGORITHMS="whole-suite single-target" \
#       benches/scripts/search-experiment.sh
#
# Environment: BUDGET (seconds per run, 60), STATEMENTS (a budget of statements executed
# instead of seconds: the search then does the same work on any machine, and the run is
# reproducible), CRITERIA (as `search-bench --criteria`; default branch, line, method,
# exception), SEEDS (10), FIRST_SEED (0), ALGORITHMS (every algorithm of `search-bench --list-algorithms`),
# CLASSES (binary names; default the list below), OUT (default
# benches/results/search-${BUDGET}s.jsonl, or search-${STATEMENTS}-statements.jsonl, each with
# -CRITERIA and -minimised added when set), WORKERS (1), LANES (1), CORES, MINIMISE (0). Runs one search at
# a time: the figures are only meaningful on an otherwise idle machine. With LANES=N (at most
# the number of cores), N searches run at once, lane k pinned to core k with `taskset` (search,
# worker JVM and its threads on that one core); CORES="1" (or "0 1") names the cores instead,
# one lane each. Every run, whatever its algorithm, then has exactly one core for its budget.
# Lanes take the next run nobody has done or claimed, so invocations may overlap: e.g.
# `CORES=1` while core 0 builds, and later `CORES=0` beside it. Each JSON line records the
# commit (`git describe --always --dirty`), the lanes of its invocation and whether it was
# pinned.
set -euo pipefail
cd "$(dirname "$0")/../.."

BUDGET=${BUDGET:-60}
SEEDS=${SEEDS:-10}
FIRST_SEED=${FIRST_SEED:-0}
WORKERS=${WORKERS:-1}
# ALGORITHMS defaults to every algorithm search-bench knows (--list-algorithms), once built.
budget=(--seconds "$BUDGET")
label="${BUDGET} s"
# Runs with other criteria or minimised suites are another experiment: another file (a run in
# the file counts as done whatever its settings).
setting=${CRITERIA:+-${CRITERIA//,/-}}
[ "${MINIMISE:-0}" = 1 ] && setting=$setting-minimised
default_out=benches/results/search-${BUDGET}s$setting.jsonl
if [ -n "${STATEMENTS:-}" ]; then
    budget=(--statements "$STATEMENTS")
    label="$STATEMENTS statements"
    default_out=benches/results/search-${STATEMENTS}-statements$setting.jsonl
fi
criteria=()
[ -n "${CRITERIA:-}" ] && criteria=(--criteria "$CRITERIA")
OUT=${OUT:-$default_out}
J=/usr/share/java
CP="$J/commons-lang3.jar:$J/guava.jar:$J/commons-collections4.jar"
L=org.apache.commons.lang3
DEFAULT_CLASSES="
$L.ArrayUtils $L.BitField $L.BooleanUtils $L.CharRange $L.CharSetUtils $L.CharUtils
$L.ClassUtils $L.Conversion $L.LocaleUtils $L.ObjectUtils $L.Range $L.RegExUtils
$L.StringUtils $L.Validate $L.builder.EqualsBuilder $L.math.Fraction $L.math.NumberUtils
$L.mutable.MutableInt $L.text.StrTokenizer $L.text.WordUtils $L.time.DurationFormatUtils
$L.time.StopWatch
com.google.common.base.Strings com.google.common.math.IntMath com.google.common.primitives.Ints
org.apache.commons.collections4.ArrayStack org.apache.commons.collections4.bag.HashBag"
CLASSES=${CLASSES:-$DEFAULT_CLASSES}

for jar in commons-lang3 guava commons-collections4; do
    [ -f "$J/$jar.jar" ] || { echo "missing $J/$jar.jar (apt-get install lib$jar-java)" >&2; exit 1; }
done
cargo build --release -q -p ferrosuite-exec -p ferrosuite-benches
BENCH=target/release/search-bench
ALGORITHMS=${ALGORITHMS:-$($BENCH --list-algorithms)}
mkdir -p "$(dirname "$OUT")"
touch "$OUT"

LANES=${LANES:-1}
# MINIMISE=1 minimises each run's suite (its size goes into the line); the default skips it:
# the comparison is about coverage, which minimisation keeps, and skipping it saves up to a
# quarter of the budget per run.
minimise=(--no-minimise)
[ "${MINIMISE:-0}" = 1 ] && minimise=()
# CORES: the cores the lanes are pinned to, one lane per core (default with LANES > 1: cores
# 0..LANES-1; with LANES=1 and no CORES the single lane is not pinned).
if [ -n "${CORES:-}" ]; then
    read -r -a cores <<< "$CORES"
    LANES=${#cores[@]}
elif [ "$LANES" -gt 1 ]; then
    cores=($(seq 0 $((LANES - 1))))
else
    cores=("")
fi
COMMIT=$(git describe --always --dirty 2>/dev/null || echo unknown)
total=0
for class in $CLASSES; do for a in $ALGORITHMS; do for ((s = FIRST_SEED; s < FIRST_SEED + SEEDS; s++)); do
    total=$((total + 1))
done; done; done

# Lanes take the next run that is neither in $OUT nor claimed: a claim is a directory under
# $CLAIMS holding the pid of the lane that runs it, so several invocations (say one lane on
# core 1 while core 0 is busy, later a second one on core 0) share the work without running
# a run twice. Claims of lanes that died are released at start.
CLAIMS="$OUT.claims"
mkdir -p "$CLAIMS"
for c in "$CLAIMS"/*; do
    [ -e "$c" ] || continue
    pid=$(cat "$c/pid" 2>/dev/null || true)
    if [ -z "$pid" ]; then
        # A claim being made has no pid for a moment; one that never got it is stale.
        [ -n "$(find "$c" -maxdepth 0 -mmin +5)" ] && rm -rf "$c"
    elif ! kill -0 "$pid" 2>/dev/null; then
        rm -rf "$c"
    fi
done

# Lane $1, pinned to core $2 (none when empty).
lane() {
    local k=$1 core=$2 i=0 pin=() pinned=false
    [ -n "$core" ] && pin=(taskset -c "$core") && pinned=true
    for class in $CLASSES; do
        internal=${class//./\/}
        for a in $ALGORITHMS; do
            for ((s = FIRST_SEED; s < FIRST_SEED + SEEDS; s++)); do
                i=$((i + 1))
                if grep -q "\"algorithm\":\"$a\",.*\"class\":\"$internal\",.*\"seed\":$s," "$OUT"; then
                    continue
                fi
                claim="$CLAIMS/${internal//\//.}-$a-$s"
                mkdir "$claim" 2>/dev/null || continue
                echo "$BASHPID" > "$claim/pid.tmp" && mv "$claim/pid.tmp" "$claim/pid"
                # Another lane may have finished it between the check above and the claim.
                if grep -q "\"algorithm\":\"$a\",.*\"class\":\"$internal\",.*\"seed\":$s," "$OUT"; then
                    rm -rf "$claim"
                    continue
                fi
                echo "[$i/$total, lane $k${core:+ on core $core}] $class $a seed $s ($label)" >&2
                line=$("${pin[@]}" "$BENCH" --cp "$CP" --class "$class" --algorithm "$a" --seeds 1 \
                    --first-seed "$s" "${budget[@]}" "${criteria[@]}" --workers "$WORKERS" "${minimise[@]}" 2>/dev/null |
                    grep '^{' || true)
                if [ -n "$line" ]; then
                    # One write per line: lanes append to the same file.
                    printf '%s\n' "${line%\}},\"commit\":\"$COMMIT\",\"lanes\":$LANES,\"pinned\":$pinned}" >> "$OUT"
                else
                    echo "  no result for $class $a seed $s (skipped or failed; see search-bench)" >&2
                fi
                rm -rf "$claim"
            done
        done
    done
}
for ((k = 0; k < LANES; k++)); do
    lane "$k" "${cores[$k]}" &
done
wait
target/release/search-stats "$OUT"
