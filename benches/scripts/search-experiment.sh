#!/usr/bin/env bash
# The search comparison experiment of issue 5 (DESIGN 4.4): every algorithm on public classes
# of Debian's commons-lang3, guava and commons-collections4, several seeds each, under a
# wall-time budget; then `search-stats` prints median coverage per class and algorithm, the
# whole-suite vs single-target comparison (Vargha–Delaney Â12, Mann–Whitney p) and throughput.
#
# Resumable: each run appends its JSON line to $OUT, and runs already in $OUT are skipped, so
# an interrupted experiment continues where it stopped (and several sessions can share one).
#
#   benches/scripts/search-experiment.sh                  # the full design: 60 s, 10 seeds, all
#   BUDGET=10 SEEDS=5 ALGORITHMS="whole-suite single-target" benches/scripts/search-experiment.sh
#
# Environment: BUDGET (seconds per run, 60), SEEDS (10), FIRST_SEED (0), ALGORITHMS (all five),
# CLASSES (binary names; default the list below), OUT (default
# benches/results/search-${BUDGET}s.jsonl), WORKERS (1), LANES (1). Runs one search at a time:
# the figures are only meaningful on an otherwise idle machine. With LANES=N (at most the
# number of cores), N searches run at once, lane k pinned to core k with `taskset` (search,
# worker JVM and its threads on that one core) and taking every N-th run: every run, whatever
# its algorithm, then has exactly one core for its budget. Each JSON line records the commit
# (`git describe --always --dirty`) and the lanes it ran with.
set -euo pipefail
cd "$(dirname "$0")/../.."

BUDGET=${BUDGET:-60}
SEEDS=${SEEDS:-10}
FIRST_SEED=${FIRST_SEED:-0}
WORKERS=${WORKERS:-1}
ALGORITHMS=${ALGORITHMS:-"whole-suite mosa dynamosa random single-target"}
OUT=${OUT:-benches/results/search-${BUDGET}s.jsonl}
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
mkdir -p "$(dirname "$OUT")"
touch "$OUT"

LANES=${LANES:-1}
COMMIT=$(git describe --always --dirty 2>/dev/null || echo unknown)
total=0
for class in $CLASSES; do for a in $ALGORITHMS; do for ((s = FIRST_SEED; s < FIRST_SEED + SEEDS; s++)); do
    total=$((total + 1))
done; done; done

# Lane $1 of $LANES: the runs whose index modulo LANES is $1.
lane() {
    local k=$1 i=0 pin=()
    [ "$LANES" -gt 1 ] && pin=(taskset -c "$k")
    for class in $CLASSES; do
        internal=${class//./\/}
        for a in $ALGORITHMS; do
            for ((s = FIRST_SEED; s < FIRST_SEED + SEEDS; s++)); do
                i=$((i + 1))
                [ $(((i - 1) % LANES)) = "$k" ] || continue
                if grep -q "\"algorithm\":\"$a\",.*\"class\":\"$internal\",.*\"seed\":$s," "$OUT"; then
                    continue
                fi
                echo "[$i/$total, lane $k] $class $a seed $s (${BUDGET} s)" >&2
                line=$("${pin[@]}" "$BENCH" --cp "$CP" --class "$class" --algorithm "$a" --seeds 1 \
                    --first-seed "$s" --seconds "$BUDGET" --workers "$WORKERS" 2>/dev/null |
                    grep '^{' || true)
                if [ -n "$line" ]; then
                    # One write per line: lanes append to the same file.
                    printf '%s\n' "${line%\}},\"commit\":\"$COMMIT\",\"lanes\":$LANES}" >> "$OUT"
                else
                    echo "  no result for $class $a seed $s (skipped or failed; see search-bench)" >&2
                fi
            done
        done
    done
}
for ((k = 0; k < LANES; k++)); do
    lane "$k" &
done
wait
target/release/search-stats "$OUT"
