#!/usr/bin/env bash
# The main job on the bundled example, as far as ferrosuite goes today: compile the example
# classes, instrument them offline, run the example program on the instrumented classes, and show
# what the probes found (coverage per class, and every branch of the paper's Stack with its hits
# and branch distances).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-$(mktemp -d /tmp/ferrosuite-demo.XXXXXX)}
echo "== building ferrosuite"
cargo build -q --release -p ferrosuite --manifest-path "$root/Cargo.toml"
fs=$root/target/release/ferrosuite
echo "== compiling the example classes (fixtures/java) into $work/classes"
"$root/fixtures/build.sh" "$work/classes" > /dev/null
echo "== ferrosuite instrument -c $work/classes/java8 -o $work/instrumented"
"$fs" instrument -c "$work/classes/java8" -o "$work/instrumented"
echo "== java -cp $work/instrumented examples.Main"
java -Dferrosuite.probes.out="$work/run.probes" -cp "$work/instrumented" examples.Main
echo "== ferrosuite probe-report --detail examples.Stack"
"$fs" probe-report --map "$work/instrumented/ferrosuite-probes.json" --data "$work/run.probes" --detail examples.Stack
