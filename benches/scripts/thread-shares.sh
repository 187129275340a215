#!/usr/bin/env bash
# Where each thread of a search's two processes spends the wall time: on a core,
# waiting for one (runnable, in the run queue), or blocked (waiting for another thread or the
# pipe). Read from the kernel's per-thread scheduler statistics (/proc/PID/task/TID/schedstat:
# time on a CPU, time runnable but waiting, in ns) of the master (search-bench: the search's
# thread, the host's stream thread, the worker pipes' reader threads) and of its worker
# processes (the embedded JVM: `ferrosuite-exec` runs the tests), over a window in the middle of
# a whole-suite run under a time budget, so that start-up and the end are left out; shares are
# of the window as measured (/proc/uptime). Threads busy less than 2 % of the window are not
# listed. Linux only (needs /proc and schedstat).
#
#   benches/scripts/thread-shares.sh                                   # Conversion, 20 s run, 8 s window
#   SECONDS_RUN=30 WINDOW=10 CLASS=org.apache.commons.lang3.math.Fraction benches/scripts/thread-shares.sh
#
# Environment: CLASS (org.apache.commons.lang3.Conversion), SECONDS_RUN (20), WINDOW (8, from
# 40 % of the run; must end before the run does), ALGORITHM (whole-suite), EXTRA (more
# search-bench flags).
set -euo pipefail
cd "$(dirname "$0")/../.."
CLASS=${CLASS:-org.apache.commons.lang3.Conversion}
SECONDS_RUN=${SECONDS_RUN:-20}
WINDOW=${WINDOW:-8}
ALGORITHM=${ALGORITHM:-whole-suite}
J=/usr/share/java
start=$((SECONDS_RUN * 2 / 5))
[ $((start + WINDOW)) -lt "$SECONDS_RUN" ] || {
    echo "WINDOW ($WINDOW s from ${start} s) must end before the run (${SECONDS_RUN} s)" >&2
    exit 2
}
cargo build -q --release -p ferrosuite-exec -p ferrosuite-benches
out=$(mktemp)
trap 'rm -f "$out" "$out".1 "$out".2' EXIT
# shellcheck disable=SC2086
target/release/search-bench --cp "$J/commons-lang3.jar:$J/guava.jar" --class "$CLASS" \
    --algorithm "$ALGORITHM" --seconds "$SECONDS_RUN" --no-minimise ${EXTRA:-} > "$out" 2>&1 &
master=$!
sleep "$start"
snapshot() {
    kill -0 "$master" 2> /dev/null || {
        echo "the search ended before the window did; its output:" >&2
        cat "$out" >&2
        exit 1
    }
    # First line: the clock (seconds since boot); then per thread: tid, time on a CPU (ns),
    # time waiting for one (ns), time slices, and the thread's name (spaces made '_').
    cut -d ' ' -f 1 /proc/uptime
    for p in "$master" $(pgrep -P "$master" || true); do
        for t in /proc/"$p"/task/*; do
            # (A thread that ended meanwhile is left out.)
            stat=$(cat "$t"/schedstat 2> /dev/null) &&
                name=$(tr ' ' '_' 2> /dev/null < "$t"/comm) &&
                printf '%s %s %s\n' "${t##*/}" "$stat" "$name" || true
        done
    done
}
snapshot > "$out".1
sleep "$WINDOW"
snapshot > "$out".2
wait "$master" || {
    echo "the search failed; its output:" >&2
    cat "$out" >&2
    exit 1
}
grep -v '^{' "$out" | tail -n 1
awk '
    FNR == 1 { if (NR == 1) { t0 = $1 } else { window = $1 - t0 }; next }
    NR == FNR { cpu[$1] = $2; queue[$1] = $3; next }
    ($1 in cpu) {
        on = ($2 - cpu[$1]) / 1e7 / window; wait = ($3 - queue[$1]) / 1e7 / window
        if (on >= 2) printf "%-8s %-18s on a core %5.1f %%  runnable, waiting %5.1f %%  blocked %5.1f %%\n", $1, $5, on, wait, 100 - on - wait
    }' "$out".1 "$out".2
