#!/usr/bin/env bash
# A/B of builds of the search at a statement budget (issue 5): the same whole-suite search
# (same goals, tests and generations, which the summary shows) run by each build in turn,
# round after round, so that the machine's changes of speed hit every build alike (each round
# starts one build further on in the list). The summary gives per build the medians of wall
# time, share outside the host and the search thread's CPU time, and the median over rounds
# of the wall-time ratio to the first build.
#
# A build is a directory holding `target/release/search-bench` and
# `target/release/ferrosuite-worker` (copies made after `cargo build --release -p
# ferrosuite-exec -p ferrosuite-benches` at each version); its name is its label:
#
#   benches/scripts/build-ab.sh /tmp/base /tmp/change                # Conversion, 2M statements, 8 rounds
#   ROUNDS=4 CLASS=org.apache.commons.lang3.math.Fraction benches/scripts/build-ab.sh /tmp/base /tmp/change
#
# Environment: CLASS (org.apache.commons.lang3.Conversion), STATEMENTS (2000000), ROUNDS (8),
# OUT (JSON lines, appended to as each run ends, each with its `build` and `round`; none by
# default). Needs python3 for the summary. Nothing else should run meanwhile.
set -euo pipefail
[ $# -ge 1 ] || {
    echo "usage: $0 BUILD_DIR..." >&2
    exit 2
}
CLASS=${CLASS:-org.apache.commons.lang3.Conversion}
STATEMENTS=${STATEMENTS:-2000000}
ROUNDS=${ROUNDS:-8}
J=/usr/share/java
# Each build runs its own worker (search-bench finds it beside itself).
unset FERROSUITE_WORKER
tmp=$(mktemp)
log=$(mktemp)
trap 'rm -f "$tmp" "$log"' EXIT
names=()
for b in "$@"; do
    for f in search-bench ferrosuite-worker; do
        [ -x "$b/target/release/$f" ] || {
            echo "$b: no target/release/$f" >&2
            exit 2
        }
    done
    name=$(basename "$b")
    [[ $name =~ ^[A-Za-z0-9._-]+$ ]] || {
        echo "$b: a build's directory name is its label: letters, digits, '.', '_' and '-' only" >&2
        exit 2
    }
    for n in "${names[@]}"; do
        [ "$n" != "$name" ] || {
            echo "$b: two builds named $name" >&2
            exit 2
        }
    done
    names+=("$name")
done
builds=("$@")
for round in $(seq 1 "$ROUNDS"); do
    for ((k = 0; k < ${#builds[@]}; k++)); do
        b=${builds[$(((k + round - 1) % ${#builds[@]}))]}
        name=$(basename "$b")
        "$b"/target/release/search-bench --cp "$J/commons-lang3.jar:$J/guava.jar" --class "$CLASS" \
            --algorithm whole-suite --statements "$STATEMENTS" --no-minimise > "$log" 2>&1 || true
        line=$(grep '^{' "$log" | sed "s/^{/{\"build\":\"$name\",\"round\":$round,/") || {
            echo "$name, round $round: no result; its output ends:" >&2
            tail -n 5 "$log" >&2
            exit 1
        }
        echo "$line" >> "$tmp"
        [ -z "${OUT:-}" ] || echo "$line" >> "$OUT"
    done
done
python3 - "$tmp" "${names[@]}" << 'PY'
import json, math, statistics as st, sys
from collections import defaultdict
rows = [json.loads(l) for l in open(sys.argv[1])]
order = sys.argv[2:]
by = defaultdict(dict)
for r in rows:
    by[r["build"]][r["round"]] = r
base = by[order[0]]
def median(xs):
    xs = [x for x in xs if x is not None]
    return st.median(xs) if xs else math.nan
for b in order:
    runs = by[b]
    med = lambda key: median(r.get(key) for r in runs.values())
    ratio = median(runs[i]["seconds"] / base[i]["seconds"] for i in runs if i in base)
    same = {(r["goals_covered"], r["tests"], r["suite_statements"], r["generations"]) for r in runs.values()}
    print(f"{b:12s} runs {len(runs)}  wall {med('seconds'):.2f} s  ratio to {order[0]} {ratio:.3f}"
          f"  outside the host {100 * med('outside_host'):.1f} %"
          f"  search thread CPU {med('search_thread_cpu_seconds'):.2f} s"
          f"  (goals, tests, statements, generations) {sorted(same)}")
PY
