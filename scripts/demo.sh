#!/usr/bin/env bash
# The main job on the bundled example: generate JUnit 5 tests for the whole-suite paper's Stack
# (search, assertions, stability check, validation with javac and JUnit), show them, and run them
# with JUnit's console launcher. First it installs (as root, or through sudo) or checks what it
# needs: scripts/deps.sh. Then a tour of the parts underneath: the analysis of the Stack
# (branches, goals, DynaMOSA hierarchy) and of Cling's Person -> Car pair, offline instrumentation
# and what the probes found, and saved tests run on an embedded JVM.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
command -v cargo > /dev/null || {
    echo "demo: cargo is required (install Rust: https://rustup.rs)" >&2
    exit 1
}
echo "== checking what the demo needs (a JDK, JUnit 5, the Debian jars): scripts/deps.sh"
"$root/scripts/deps.sh"
work=${WORK:-$(mktemp -d /tmp/ferrosuite-demo.XXXXXX)}
echo "== building ferrosuite"
cargo build -q --release -p ferrosuite --manifest-path "$root/Cargo.toml"
fs=$root/target/release/ferrosuite
echo "== compiling the example classes (fixtures/java) into $work/classes"
"$root/fixtures/build.sh" "$work/classes" > /dev/null
echo "== ferrosuite generate -c $work/classes/java8 --class examples.Stack --max-statements 50000 --seed 1 --out $work/tests"
"$fs" generate -c "$work/classes/java8" --class examples.Stack --max-statements 50000 --seed 1 --out "$work/tests"
test_file=$work/tests/src/test/java/examples/StackTest.java
echo "== $test_file"
cat "$test_file"
echo "== javac + JUnit 5 console launcher on the generated tests"
J=/usr/share/java
mkdir -p "$work/test-classes"
javac --release 8 -nowarn -d "$work/test-classes" \
  -cp "$work/classes/java8:$J/junit-jupiter-api.jar:$J/apiguardian-api.jar:$J/opentest4j.jar:$J/junit-platform-commons.jar" \
  "$test_file"
java -jar "$J/junit-platform-console-standalone.jar" --disable-banner --details=tree \
  -cp "$work/test-classes:$work/classes/java8" --select-class examples.StackTest
echo
echo "== the parts underneath"
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
