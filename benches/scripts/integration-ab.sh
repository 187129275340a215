#!/usr/bin/env bash
# Class-integration benchmark (issue 34): caller/callee pairs of Debian's commons-lang3,
# commons-math3, joda-time, guava and commons-collections4 jars, chosen by
# `ferrosuite analyze --pairs` (per jar, the first PER_JAR pairs of the ranking whose caller and
# callee are top-level classes, i.e. no '$' in either name); per pair and seed the coupled-branch
# coverage (CBC) of three suites at the same budget: `ferrosuite integration` (Cling), and the
# unit suites of the caller and of the callee measured with `generate --pair R:E`.
#
#   benches/scripts/integration-ab.sh OUT [SEED...]      (default seeds 1 2 3 4 5)
#   PER_JAR=6 BUDGET=60s JOBS=2 BIN=target/release/ferrosuite benches/scripts/integration-ab.sh /tmp/it 1
#
# Writes OUT/pairs.tsv (the chosen pairs with their coupled branches), OUT/<seed>/<k>-<kind>/
# (each run's output and report; kind: integration, unit-caller, unit-callee),
# OUT/results.jsonl (one line per run: pair, seed, kind, covered, total, status) and
# OUT/summary.md (integration-ab-summary.py). Resumable: a run with a report is skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
[ $# -ge 1 ] || { sed -n '2,16p' "$0" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
shift
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1 2 3 4 5)
PER_JAR=${PER_JAR:-6}
BUDGET=${BUDGET:-60s}
JOBS=${JOBS:-2}
J=/usr/share/java
JARS=${JARS:-"commons-lang3 commons-math3 joda-time guava commons-collections4"}
bin=${BIN:-}
if [ -z "$bin" ]; then
    cargo build -q --release -p ferrosuite -p ferrosuite-exec
    bin=$root/target/release/ferrosuite
fi
if [ ! -f "$out/pairs.tsv" ]; then
    for jar in $JARS; do
        "$bin" analyze -c "$J/$jar.jar" --pairs 400 --format json |
            python3 -c '
import json, sys
jar, n = sys.argv[1], int(sys.argv[2])
top = [p for p in json.load(sys.stdin)["top"]
       if p["coupled_branches"] > 0 and "$" not in p["caller"] + p["callee"]][:n]
for p in top:
    print(jar, p["caller"], p["callee"], p["coupled_branches"], sep="\t")
' "$jar" "$PER_JAR" || true
    done > "$out/pairs.tsv.tmp"
    mv "$out/pairs.tsv.tmp" "$out/pairs.tsv"
fi
# One run: kind, k, jar, caller, callee, seed.
run() {
    local kind=$1 k=$2 jar=$3 r=$4 e=$5 seed=$6
    local dir=$out/$seed/$k-$kind
    [ -f "$dir/ferrosuite-report.json" ] && return 0
    rm -rf "$dir"; mkdir -p "$dir"
    local cp=$J/$jar.jar
    case $kind in
        integration) "$bin" integration -c "$cp" --caller "$r" --callee "$e" --budget "$BUDGET" \
                         --seed "$seed" -o "$dir" > "$dir/stdout.txt" 2> "$dir/stderr.txt" || true ;;
        unit-caller) "$bin" generate -c "$cp" --class "$r" --pair "$r:$e" --budget "$BUDGET" \
                         --seed "$seed" -o "$dir" > "$dir/stdout.txt" 2> "$dir/stderr.txt" || true ;;
        unit-callee) "$bin" generate -c "$cp" --class "$e" --pair "$r:$e" --budget "$BUDGET" \
                         --seed "$seed" -o "$dir" > "$dir/stdout.txt" 2> "$dir/stderr.txt" || true ;;
    esac
    # A run that wrote no report (a crash) still leaves one, so that it is not retried.
    [ -f "$dir/ferrosuite-report.json" ] || echo '{"classes": []}' > "$dir/ferrosuite-report.json"
}
export -f run
export out bin BUDGET J
for seed in "${seeds[@]}"; do
    k=0
    while IFS=$'\t' read -r jar r e _; do
        for kind in integration unit-caller unit-callee; do
            echo "$kind $k $jar $r $e $seed"
        done
        k=$((k + 1))
    done < "$out/pairs.tsv"
done | xargs -P "$JOBS" -L 1 bash -c 'run "$@"' _
python3 "$root/benches/scripts/integration-ab-summary.py" "$out" > "$out/summary.md"
cat "$out/summary.md"
