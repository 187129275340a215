#!/usr/bin/env bash
# Semantics check of the instrumentation on real libraries.
#
# For each Debian jar: instrument it with all probes; run the reflective driver
# (fixtures/tools/.../SemanticsDriver.java, class lists in fixtures/semantics/<jar>.txt) twice on
# the original jar (once under JaCoCo's agent) and once on the instrumented classes (dumping the
# probe data), the instrumented run between the two original ones; compare the outputs line by
# line (lines that differ between the two original runs are nondeterministic and excluded); then
# compare the probe data's branch counts with JaCoCo's.
#
# Usage: scripts/semantics.sh [jar-name...]   (default: the five subject jars)
# Exit status 1 if any deterministic line differs or ferrosuite missed a branch JaCoCo covered.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jars=("$@")
[ ${#jars[@]} -gt 0 ] || jars=(commons-lang3 guava joda-time commons-math3 commons-collections4)
. "$root/scripts/workdir.sh"
workdir semantics
mkdir -p "$work"
cargo build -q --release -p ferrosuite --manifest-path "$root/Cargo.toml"
cargo build -q --release -p ferrosuite-bytecode --example jacoco_compare --manifest-path "$root/Cargo.toml"
fs=$root/target/release/ferrosuite
compare=$root/target/release/examples/jacoco_compare
"$root"/scripts/java-tools.sh "$work/tools"
JACOCO_CP=/usr/share/java/org.jacoco.core.jar:/usr/share/java/asm.jar:/usr/share/java/asm-commons.jar:/usr/share/java/asm-tree.jar
# Without -XX:-OmitStackTraceInFastThrow, HotSpot replaces implicit exceptions thrown often by
# compiled code with preallocated ones without message: JIT timing would show up as differences.
# -XX:ActiveProcessorCount=2: the same JVM ergonomics (garbage collector, compiler threads)
# whatever the machine; on one core, joda-time's ConverterSet.select (a cache indexed by
# identity hash codes) took other branches in the instrumented run than under JaCoCo.
J=(java -XX:-OmitStackTraceInFastThrow -XX:ActiveProcessorCount=2 -Xss4m -Duser.timezone=UTC -Duser.language=en -Duser.country=US)
status=0
for j in "${jars[@]}"; do
  jar=/usr/share/java/$j.jar
  inst=$work/$j-inst
  rm -rf "$inst"
  "$fs" instrument -c "$jar" -o "$inst" > "$work/$j-instrument.txt"
  mapfile -t args < "$root/fixtures/semantics/$j.txt"
  "${J[@]}" -javaagent:"$work/tools/jacocoagent.jar"=destfile="$work/$j.exec" -cp "$work/tools:$jar" \
    ferrosuite.tools.SemanticsDriver "${args[@]}" > "$work/$j-orig1.txt"
  # The instrumented run goes between the two original runs: a value read from the clock (such as
  # joda-time's minute of day) that is equal in both original runs is then equal in the
  # instrumented run too, even when a minute boundary passes during the check.
  "${J[@]}" -Dferrosuite.probes.out="$work/$j.probes" -cp "$work/tools:$inst" \
    ferrosuite.tools.SemanticsDriver "${args[@]}" > "$work/$j-inst.txt"
  "${J[@]}" -cp "$work/tools:$jar" ferrosuite.tools.SemanticsDriver "${args[@]}" > "$work/$j-orig2.txt"
  # Three-way line comparison: lines equal in both original runs must be equal in the instrumented run.
  result=$(awk -v f2="$work/$j-orig2.txt" -v f3="$work/$j-inst.txt" '
    { o1 = $0; if ((getline o2 < f2) <= 0) o2 = "<missing>"; if ((getline i < f3) <= 0) i = "<missing>";
      n++; if (o1 != o2) nd++; else if (o1 != i) { diff++; if (diff <= 5) print "DIFF " n ": " substr(o1, 1, 160) " | " substr(i, 1, 160) > "/dev/stderr" } }
    END { while ((getline i < f3) > 0) extra++; printf "%d %d %d %d", n, nd, diff, extra }' "$work/$j-orig1.txt")
  read -r lines nondet diffs extra <<< "$result"
  calls=$(tail -1 "$work/$j-orig1.txt")
  echo "$j: driver output lines $lines ($calls); nondeterministic (differ between two original runs) $nondet; differ with instrumentation $diffs; extra lines $extra"
  if [ "$diffs" != 0 ] || [ "$extra" != 0 ]; then status=1; fi
  java -cp "$work/tools:$JACOCO_CP" ferrosuite.tools.JacocoDump "$work/$j.exec" "$jar" > "$work/$j.jacoco"
  if ! "$compare" "$inst/ferrosuite-probes.json" "$work/$j.probes" "$work/$j.jacoco" | sed "s/^/  /"; then status=1; fi
done
exit $status
