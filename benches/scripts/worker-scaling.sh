#!/usr/bin/env bash
# Speed-up of the execution host from 1 to 2 workers, measured robustly on a noisy machine:
# ROUNDS rounds, each running a 1-worker and a 2-worker host (in alternating order) for
# SECONDS of batches after WARMUP seconds; prints every run, then the median tests/s of each,
# their ratio, and the cores each configuration kept busy (CPU time of master and workers
# over the host's life / its wall time), which bounds the ratio on this machine:
# on C cores a configuration that keeps k cores busy with 1 worker can speed up by C / k.
#
#   benches/scripts/worker-scaling.sh            # ROUNDS=7 RUN_SECONDS=10 WARMUP=2 TESTS=2000
#
# Needs `fixtures/build.sh` output in fixtures/classes and the release build of the benches.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-7}
RUN_SECONDS=${RUN_SECONDS:-10}
WARMUP=${WARMUP:-2}
TESTS=${TESTS:-2000}
cargo build --release -q -p ferrosuite-exec -p ferrosuite-benches
[ -d fixtures/classes/java8 ] || fixtures/build.sh > /dev/null
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((r = 0; r < ROUNDS; r++)); do
    order="1 2"; [ $((r % 2)) = 1 ] && order="2 1"
    for w in $order; do
        line=$(EXEC_OVERHEAD_PROFILE=$w EXEC_OVERHEAD_SECONDS=$RUN_SECONDS EXEC_OVERHEAD_WARMUP=$WARMUP \
            target/release/exec-overhead fixtures/classes/java8 "$TESTS")
        echo "round $r, $w worker(s): $line"
        echo "$w $line" >> "$out"
    done
done
python3 - "$out" <<'PY'
import re, statistics, sys
runs = {1: [], 2: []}
for line in open(sys.argv[1]):
    w = int(line.split()[0])
    tps = float(re.search(r"([0-9.]+) tests/s", line).group(1))
    cores = float(re.search(r"([0-9.]+) cores", line).group(1))
    runs[w].append((tps, cores))
med = {w: (statistics.median(t for t, _ in r), statistics.median(c for _, c in r)) for w, r in runs.items()}
print(f"median tests/s: 1 worker {med[1][0]:.0f} ({med[1][1]:.2f} cores busy), 2 workers {med[2][0]:.0f} ({med[2][1]:.2f} cores busy)")
ratios = sorted(b[0] / a[0] for a, b in zip(runs[1], runs[2]))
print(f"speed-up 1 -> 2 workers: {med[2][0] / med[1][0]:.2f}x (per round: {', '.join(f'{x:.2f}' for x in ratios)})")
per_core = [med[w][0] / med[w][1] for w in (1, 2)]
print(f"tests per CPU-second: 1 worker {per_core[0]:.0f}, 2 workers {per_core[1]:.0f} (ratio {per_core[1] / per_core[0]:.2f})")
PY
