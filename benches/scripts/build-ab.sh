#!/usr/bin/env bash
# A/B of builds of the search at a statement budget: the same whole-suite search
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
# A build may carry search-bench flags after commas (`DIR,--score-ahead,off`): the same
# binaries with other settings are then a build of their own, labelled `NAME,FLAG,VALUE`.
#
#   benches/scripts/build-ab.sh /tmp/base /tmp/change                # Conversion, 2M statements, 8 rounds
#   ROUNDS=4 CLASS=org.apache.commons.lang3.math.Fraction benches/scripts/build-ab.sh /tmp/base /tmp/change
#   SECONDS_BUDGET=60 ROUNDS=3 benches/scripts/build-ab.sh /tmp/base /tmp/change /tmp/change,--score-ahead,off
#
# Environment: CLASS (org.apache.commons.lang3.Conversion), ALGORITHM (whole-suite),
# STATEMENTS (2000000), SECONDS_BUDGET
# (a time budget in seconds instead of the statement budget: the searches then differ, and the
# summary's ratio is of statements per second, not of wall time), ROUNDS (8), OUT (JSON lines,
# appended to as each run ends, each with its `build` and `round`; none by default). Needs
# python3 for the summary. Nothing else should run meanwhile.
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
for spec in "$@"; do
    b=${spec%%,*}
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
    [ "$spec" = "$b" ] || name="$name,${spec#*,}"
    [[ $name =~ ^[A-Za-z0-9._,=-]+$ ]] || {
        echo "$spec: flags: letters, digits, '.', '_', '=' and '-' only" >&2
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
if [ -n "${SECONDS_BUDGET:-}" ]; then
    budget=(--seconds "$SECONDS_BUDGET")
else
    budget=(--statements "$STATEMENTS")
fi
for round in $(seq 1 "$ROUNDS"); do
    for ((k = 0; k < ${#builds[@]}; k++)); do
        j=$(((k + round - 1) % ${#builds[@]}))
        spec=${builds[$j]}
        b=${spec%%,*}
        name=${names[$j]}
        flags=()
        [ "$spec" = "$b" ] || IFS=, read -r -a flags <<< "${spec#*,}"
        "$b"/target/release/search-bench --cp "$J/commons-lang3.jar:$J/guava.jar" --class "$CLASS" \
            --algorithm "${ALGORITHM:-whole-suite}" "${budget[@]}" --no-minimise "${flags[@]}" > "$log" 2>&1 || true
        line=$(grep '^{' "$log" | sed "s/^{/{\"build\":\"$name\",\"round\":$round,/") || {
            echo "$name, round $round: no result; its output ends:" >&2
            tail -n 5 "$log" >&2
            exit 1
        }
        echo "$line" >> "$tmp"
        [ -z "${OUT:-}" ] || echo "$line" >> "$OUT"
    done
done
python3 - "$tmp" "${SECONDS_BUDGET:-}" "${names[@]}" << 'PY'
import json, math, statistics as st, sys
from collections import defaultdict
rows = [json.loads(l) for l in open(sys.argv[1])]
timed, order = sys.argv[2] != "", sys.argv[3:]
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
    if timed:
        # The same wall time: the ratio is of throughput, the search thread's CPU per statement.
        ratio = median(runs[i]["statements_per_second"] / base[i]["statements_per_second"]
                       for i in runs if i in base)
        per = median(r["search_thread_cpu_seconds"] / r["statements_executed"] * 1e6
                     for r in runs.values() if r.get("search_thread_cpu_seconds") is not None)
        shares = ", ".join(f"{100 * runs[i]['outside_host']:.1f}" for i in sorted(runs))
        print(f"{b:28s} runs {len(runs)}  statements/s {med('statements_per_second'):.0f}"
              f"  ratio to {order[0]} {ratio:.3f}  outside the host {100 * med('outside_host'):.1f} %"
              f" ({shares})  search thread CPU per statement {per:.2f} µs"
              f"  branch coverage {100 * med('branch_coverage'):.1f} %")
        continue
    ratio = median(runs[i]["seconds"] / base[i]["seconds"] for i in runs if i in base)
    same = {(r["goals_covered"], r["tests"], r["suite_statements"], r["generations"]) for r in runs.values()}
    print(f"{b:24s} runs {len(runs)}  wall {med('seconds'):.2f} s  ratio to {order[0]} {ratio:.3f}"
          f"  outside the host {100 * med('outside_host'):.1f} %"
          f"  search thread CPU {med('search_thread_cpu_seconds'):.2f} s"
          f"  (goals, tests, statements, generations) {sorted(same)}")
PY
