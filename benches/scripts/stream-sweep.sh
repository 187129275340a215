#!/usr/bin/env bash
# How the streaming of tests to the host moves the wall time and the share of wall time
# "outside the host": `--stream-chunk` (new tests per chunk handed to the host,
# default 10) or `--stream-ahead` (chunks out at a time, built but not taken in, default 3);
# also `--population` (suites per generation of the whole-suite GA, default 80: more
# offspring per generation between two of its barriers, where the host has nothing to run);
# also `--score-ahead` (what the whole-suite GA does while it waits for results: off,
# while-waiting, always; the same search).
# Statement budgets, so every run does the same work and the same search (streaming changes
# when tests run, not which; a population changes the search, hence the coverage column): the
# wall time is the throughput. The values run in turn, round
# after round, each round starting one value further on, so a change of the machine's speed
# during the sweep hits every value alike; the summary gives per class and value the medians
# and the median of the per-round ratio of wall times to the first value. Nothing else should
# run meanwhile (both cores are the search's and the worker's).
#
#   benches/scripts/stream-sweep.sh                        # --stream-chunk 10 6 16 24; Conversion and Fraction, 2M statements, 6 rounds
#   FLAG=--stream-ahead VALUES="3 6 12" ROUNDS=10 benches/scripts/stream-sweep.sh
#   FLAG=--population ROUNDS=4 benches/scripts/stream-sweep.sh
#   FLAG=--score-ahead ROUNDS=8 benches/scripts/stream-sweep.sh
#
# Environment: FLAG (--stream-chunk), VALUES ("10 6 16 24" for chunks, "3 6 12" for ahead,
# "80 160 320 1280" for the population, "while-waiting off" for scoring ahead; the first is
# the reference of the ratios), STATEMENTS (2000000), ROUNDS (6), CLASSES, OUT
# (default benches/results/stream-sweep.jsonl; appended to as each run ends, each line with
# its `round`, `flag` and `value`). Needs python3 for the summary.
set -euo pipefail
cd "$(dirname "$0")/../.."
FLAG=${FLAG:---stream-chunk}
case "$FLAG" in
--stream-chunk) VALUES=${VALUES:-"10 6 16 24"} ;;
--stream-ahead) VALUES=${VALUES:-"3 6 12"} ;;
--population) VALUES=${VALUES:-"80 160 320 1280"} ;;
--score-ahead) VALUES=${VALUES:-"while-waiting off"} ;;
*)
    echo "FLAG: --stream-chunk, --stream-ahead, --population or --score-ahead, not $FLAG" >&2
    exit 2
    ;;
esac
STATEMENTS=${STATEMENTS:-2000000}
ROUNDS=${ROUNDS:-6}
OUT=${OUT:-benches/results/stream-sweep.jsonl}
J=/usr/share/java
L=org.apache.commons.lang3
CLASSES=${CLASSES:-"$L.Conversion $L.math.Fraction"}
cargo build -q --release -p ferrosuite-exec -p ferrosuite-benches
mkdir -p "$(dirname "$OUT")"
tmp=$(mktemp)
log=$(mktemp)
trap 'rm -f "$tmp" "$log"' EXIT
read -r -a values <<< "$VALUES"
for round in $(seq 1 "$ROUNDS"); do
    for c in $CLASSES; do
        for ((k = 0; k < ${#values[@]}; k++)); do
            v=${values[$(((k + round - 1) % ${#values[@]}))]}
            # The value as JSON: a number, or a string.
            jv=$v
            [[ $v =~ ^[0-9]+$ ]] || jv="\"$v\""
            target/release/search-bench --cp "$J/commons-lang3.jar:$J/guava.jar" --class "$c" \
                --algorithm whole-suite --statements "$STATEMENTS" --no-minimise \
                "$FLAG" "$v" > "$log" 2>&1 || true
            line=$(grep '^{' "$log" |
                sed "s/^{/{\"round\":$round,\"flag\":\"$FLAG\",\"value\":$jv,/") || {
                echo "$c, $FLAG $v, round $round: no result; its output ends:" >&2
                tail -n 5 "$log" >&2
                exit 1
            }
            echo "$line" >> "$tmp"
            echo "$line" >> "$OUT"
        done
    done
done
python3 - "$tmp" "$FLAG" "${values[@]}" << 'PY'
import json, math, statistics as st, sys
from collections import defaultdict
rows = [json.loads(l) for l in open(sys.argv[1])]
flag, values = sys.argv[2], [int(v) if v.isdigit() else v for v in sys.argv[3:]]
by = defaultdict(dict)
for r in rows:
    by[(r["class"].split("/")[-1], r["value"])][r["round"]] = r
def median(xs):
    xs = [x for x in xs if x is not None]
    return st.median(xs) if xs else math.nan
print(f"class          {flag:>14s}  runs  wall (s)  ratio to {str(values[0]):>5s}  outside the host  workers busy  statements/s  branch coverage")
for (cls, v) in sorted(by, key=lambda x: (x[0], values.index(x[1]))):
    runs = by[(cls, v)]
    base = by.get((cls, values[0]), {})
    med = lambda key: median(r.get(key) for r in runs.values())
    ratio = median(runs[i]["seconds"] / base[i]["seconds"] for i in runs if i in base)
    print(f"{cls:14s} {str(v):>14s} {len(runs):5d}  {med('seconds'):8.2f}  {ratio:11.3f}"
          f"  {100 * med('outside_host'):15.1f} %  {100 * med('workers_busy'):10.1f} %"
          f"  {med('statements_per_second'):12.0f}  {100 * med('branch_coverage'):13.1f} %")
PY
