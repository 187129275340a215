#!/usr/bin/env bash
# The main job on the bundled example, as far as ferrosuite goes today: compile the example
# classes, analyse the paper's Stack (branches, goals, DynaMOSA hierarchy) and Cling's Person -> Car
# pair (coupled branches), instrument the classes offline, run the example program on the
# instrumented classes, and show what the probes found (coverage per class, and every branch of the
# Stack with its hits and branch distances).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-$(mktemp -d /tmp/ferrosuite-demo.XXXXXX)}
echo "== building ferrosuite"
cargo build -q --release -p ferrosuite --manifest-path "$root/Cargo.toml"
fs=$root/target/release/ferrosuite
echo "== compiling the example classes (fixtures/java) into $work/classes"
"$root/fixtures/build.sh" "$work/classes" > /dev/null
echo "== ferrosuite analyze -c $work/classes/java8 examples.Stack --dot $work/graphs"
"$fs" analyze -c "$work/classes/java8" examples.Stack --dot "$work/graphs"
echo "== ferrosuite analyze -c $work/classes/java8 --caller cling.Person --callee cling.Car"
"$fs" analyze -c "$work/classes/java8" --caller cling.Person --callee cling.Car
echo "== ferrosuite instrument -c $work/classes/java8 -o $work/instrumented"
"$fs" instrument -c "$work/classes/java8" -o "$work/instrumented"
echo "== java -cp $work/instrumented examples.Main"
java -Dferrosuite.probes.out="$work/run.probes" -cp "$work/instrumented" examples.Main
echo "== ferrosuite probe-report --detail examples.Stack"
"$fs" probe-report --map "$work/instrumented/ferrosuite-probes.json" --data "$work/run.probes" --detail examples.Stack
echo "== ferrosuite run -c $work/classes/java8 -t fixtures/tests/stack.json --observe (tests on an embedded JVM)"
"$fs" run -c "$work/classes/java8" -t "$root/fixtures/tests/stack.json" --observe
