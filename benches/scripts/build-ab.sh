#!/usr/bin/env bash
# A/B of builds of the search at a statement budget (issue 5): the same whole-suite search
# (same goals, tests and generations, which the summary shows) run by each build in turn,
# round after round, so that the machine's changes of speed hit every build alike. The
# summary gives per build the medians of wall time, share outside the host and the search
# thread's CPU time, and the median over rounds of the wall-time ratio to the first build.
#
# A build is a directory holding `target/release/search-bench` and
# `target/release/ferrosuite-worker` (copies made after `cargo build --release -p
# ferrosuite-exec -p ferrosuite-benches` at each version):
#
#   benches/scripts/build-ab.sh /tmp/base /tmp/change                # Conversion, 2M statements, 8 rounds
#   ROUNDS=4 CLASS=org.apache.commons.lang3.math.Fraction benches/scripts/build-ab.sh /tmp/base /tmp/change
#
# Environment: CLASS (org.apache.commons.lang3.Conversion), STATEMENTS (2000000), ROUNDS (8),
# OUT (JSON lines, appended to, each with its `build` and `round`; default a temporary file).
# Needs python3 for the summary. Nothing else should run meanwhile.
set -euo pipefail
[ $# -ge 1 ] || {
    echo "usage: $0 BUILD_DIR..." >&2
    exit 2
}
CLASS=${CLASS:-org.apache.commons.lang3.Conversion}
STATEMENTS=${STATEMENTS:-2000000}
ROUNDS=${ROUNDS:-8}
J=/usr/share/java
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for b in "$@"; do
    [ -x "$b/target/release/search-bench" ] || {
        echo "$b: no target/release/search-bench" >&2
        exit 2
    }
done
for round in $(seq 1 "$ROUNDS"); do
    for b in "$@"; do
        name=$(basename "$b")
        "$b"/target/release/search-bench --cp "$J/commons-lang3.jar:$J/guava.jar" --class "$CLASS" \
            --algorithm whole-suite --statements "$STATEMENTS" --no-minimise 2> /dev/null |
            grep '^{' | sed "s/^{/{\"build\":\"$name\",\"round\":$round,/" >> "$tmp"
    done
done
[ -z "${OUT:-}" ] || cat "$tmp" >> "$OUT"
python3 - "$tmp" << 'EOF'
import json, statistics as st, sys
from collections import defaultdict
rows = [json.loads(l) for l in open(sys.argv[1])]
order = list(dict.fromkeys(r["build"] for r in rows))
by = defaultdict(dict)
for r in rows:
    by[r["build"]][r["round"]] = r
base = by[order[0]]
for b in order:
    runs = by[b]
    med = lambda f: st.median(f(r) for r in runs.values())
    ratio = st.median(runs[i]["seconds"] / base[i]["seconds"] for i in runs if i in base)
    same = {(r["goals_covered"], r["tests"], r["suite_statements"], r["generations"]) for r in runs.values()}
    print(f"{b:12s} runs {len(runs)}  wall {med(lambda r: r['seconds']):.2f} s  ratio to {order[0]} {ratio:.3f}"
          f"  outside the host {100 * med(lambda r: r['outside_host']):.1f} %"
          f"  search thread CPU {med(lambda r: r['search_thread_cpu_seconds']):.2f} s"
          f"  (goals, tests, statements, generations) {sorted(same)}")
EOF
