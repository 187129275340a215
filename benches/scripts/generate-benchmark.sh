#!/usr/bin/env bash
# The generated-tests benchmark: `ferrosuite generate` on public classes of Debian's commons-lang3 and
# guava, several seeds each, then the emitted tests compiled and run RUNS times with JUnit under
# JaCoCo (scripts/coverage.sh): JaCoCo line and branch coverage, tests, and whether every test
# class compiled, passed and had no flaky test. `generate-stats` prints the medians over seeds.
#
# Resumable: each (class, seed) appends a JSON line to $OUT and is skipped when already there.
#
#   benches/scripts/generate-benchmark.sh                       # 60 s, 5 seeds, 20 + 10 classes
#   BUDGET=10 SEEDS=1 CLASSES="org.apache.commons.lang3.CharUtils" benches/scripts/generate-benchmark.sh
#
# Environment: BUDGET (seconds per class, 60), SEEDS (5), RUNS (JUnit runs for the flakiness
# check, 5), ALGORITHM (ferrosuite's default), CLASSES, OUT (default
# benches/results/generate-${BUDGET}s.jsonl), WORK (scratch).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
BUDGET=${BUDGET:-60}
SEEDS=${SEEDS:-5}
RUNS=${RUNS:-5}
OUT=${OUT:-benches/results/generate-${BUDGET}s.jsonl}
. "$root/scripts/workdir.sh"
workdir genbench
J=/usr/share/java
CP="$J/commons-lang3.jar:$J/guava.jar"
L=org.apache.commons.lang3
G=com.google.common
DEFAULT_CLASSES="
$L.ArrayUtils $L.BitField $L.BooleanUtils $L.CharRange $L.CharSetUtils $L.CharUtils $L.ClassUtils
$L.Conversion $L.LocaleUtils $L.ObjectUtils $L.Range $L.RegExUtils $L.StringUtils $L.Validate
$L.math.Fraction $L.math.NumberUtils $L.mutable.MutableInt $L.text.WordUtils
$L.time.DurationFormatUtils $L.time.StopWatch
$G.base.Ascii $G.base.Joiner $G.base.Preconditions $G.base.Splitter $G.base.Strings
$G.math.IntMath $G.math.LongMath $G.net.HostAndPort $G.primitives.Ints $G.primitives.UnsignedInts"
CLASSES=${CLASSES:-$DEFAULT_CLASSES}
alg=()
[ -n "${ALGORITHM:-}" ] && alg=(--algorithm "$ALGORITHM")
cargo build -q --release -p ferrosuite -p ferrosuite-benches
fs=target/release/ferrosuite
mkdir -p "$(dirname "$OUT")" "$work"
touch "$OUT"
for class in $CLASSES; do
  for ((s = 0; s < SEEDS; s++)); do
    # (The line's keys are sorted: "class" and "seed" are not adjacent.)
    if grep -F "\"class\":\"$class\"," "$OUT" | grep -qF "\"seed\":$s,"; then continue; fi
    out=$work/$class-$s
    rm -rf "$out"
    echo "== $class seed $s (${BUDGET} s)" >&2
    "$fs" generate -c "$CP" --class "$class" --budget "${BUDGET}s" --seed "$s" "${alg[@]}" \
      --out "$out" > "$work/generate.txt" 2>&1 || true
    report=$out/ferrosuite-report.json
    cov=$(RUNS=$RUNS FORMAT=json WORK=$work/cov scripts/coverage.sh "$CP" "$out" "$class" 2>/dev/null || true)
    [ -n "$cov" ] || cov='{}'
    # One line: the class, the seed, JaCoCo's figures and ferrosuite's own report entry.
    target/release/generate-stats merge "$class" "$s" "$BUDGET" "$report" "$cov" >> "$OUT"
  done
done
target/release/generate-stats "$OUT"
