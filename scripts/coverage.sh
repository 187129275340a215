#!/usr/bin/env bash
# JaCoCo coverage of emitted tests, independent of ferrosuite's probes (coverage figures come from JaCoCo on the emitted, compiled, executed tests):
# compile the test classes under OUT/src/test/java with javac, run them with JUnit (console
# launcher for JUnit 5, JUnitCore for JUnit 4) under JaCoCo's agent, and report JaCoCo's line
# and branch counters of each class under test, plus how many tests ran, failed and were skipped.
#
# Usage: scripts/coverage.sh CLASSPATH OUT CLASS... [-- options]
#   CLASSPATH  the classes under test and their libraries (':'-separated), as given to generate
#   OUT        the --out directory of `ferrosuite generate`
#   CLASS      binary names of the classes under test (their tests are <Class>Test)
# Environment: JUNIT=5|4 (default 5), RELEASE (javac --release, default 8), MOCKITO_CP (the
#   Mockito jars for tests that mock, default Debian's), RUNS (how many times
#   the tests are run, default 1: with more, a test whose verdict changes is reported flaky),
#   WORK (scratch directory), FORMAT=text|json (default text).
# Prints one line per class:
#   text: CLASS lines C/T (P %) branches C/T (P %) tests N failed F flaky K
#   json: {"class":..., "lines_covered":..., "lines":..., "branches_covered":..., "branches":...,
#          "tests":..., "failed":..., "flaky":..., "compiled":true|false}
# Exit status: 0 when every class's tests compiled and passed in every run, 1 otherwise.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { sed -n '2,20p' "$0" >&2; exit 2; }
cp=$1; out=$2; shift 2
classes=("$@")
JUNIT=${JUNIT:-5}
RELEASE=${RELEASE:-8}
RUNS=${RUNS:-1}
FORMAT=${FORMAT:-text}
. "$root/scripts/workdir.sh"
workdir coverage
mkdir -p "$work"
J=/usr/share/java
if [ ! -f "$work/tools/jacocoagent.jar" ] || [ ! -f "$work/tools/ferrosuite/tools/JacocoDump.class" ]; then
  "$root/scripts/java-tools.sh" "$work/tools" > /dev/null
fi
[ -f "$work/tools/jacocoagent.jar" ] || { echo "JaCoCo is missing: apt-get install libjacoco-java libasm-java" >&2; exit 1; }
JACOCO_CP=$J/org.jacoco.core.jar:$J/asm.jar:$J/asm-commons.jar:$J/asm-tree.jar
if [ "$JUNIT" = 4 ]; then
  junit_cp=$J/junit4.jar:$J/hamcrest-core.jar
else
  junit_cp=$J/junit-jupiter-api.jar:$J/apiguardian-api.jar:$J/opentest4j.jar:$J/junit-platform-commons.jar
fi
# Mockito for tests that mock (Debian's by default; MOCKITO_CP for another).
mockito_cp=${MOCKITO_CP:-$J/mockito-core.jar:$J/byte-buddy.jar:$J/byte-buddy-agent.jar:$J/objenesis.jar}
# The runtime of tests that reproduce the controlled environment, written beside them.
if [ -f "$out/src/test/java/ferrosuite-runtime.jar" ]; then
  mockito_cp=$mockito_cp:$out/src/test/java/ferrosuite-runtime.jar
fi
junit_cp=$junit_cp:$mockito_cp
status=0
for class in "${classes[@]}"; do
  internal=${class//./\/}
  test_src=$out/src/test/java/${internal}Test.java
  test_class=${class}Test
  tag=${class//[^A-Za-z0-9]/_}
  bin=$work/$tag/classes
  rm -rf "$work/$tag"; mkdir -p "$bin"
  compiled=true; missing=false
  if [ ! -f "$test_src" ]; then
    compiled=false; missing=true
  elif ! javac --release "$RELEASE" -nowarn -encoding UTF-8 -d "$bin" -cp "$cp:$junit_cp" "$test_src" \
      > "$work/$tag/javac.txt" 2>&1; then
    compiled=false
  fi
  tests=0; failed=0; flaky=0
  declare -A verdicts=()
  if $compiled; then
    for ((r = 1; r <= RUNS; r++)); do
      exec_file=$work/$tag/jacoco-$r.exec
      agent="-javaagent:$work/tools/jacocoagent.jar=destfile=$exec_file,includes=${class}*"
      if [ "$JUNIT" = 4 ]; then
        java "$agent" -cp "$bin:$cp:$junit_cp" org.junit.runner.JUnitCore "$test_class" \
          > "$work/$tag/run-$r.txt" 2>&1 || true
        n=$(grep -oE '^(OK \(([0-9]+) tests?\)|Tests run: [0-9]+)' "$work/$tag/run-$r.txt" | grep -oE '[0-9]+' | head -1 || true)
        f=$(grep -oE 'Failures: [0-9]+' "$work/$tag/run-$r.txt" | grep -oE '[0-9]+' || echo 0)
        names=$(grep -oE '^[0-9]+\) [A-Za-z0-9_$]+' "$work/$tag/run-$r.txt" | sed 's/^[0-9]*) //' || true)
      else
        rm -rf "$work/$tag/reports-$r"
        java "$agent" -jar "$J/junit-platform-console-standalone.jar" --disable-banner --details=none \
          --disable-ansi-colors --reports-dir "$work/$tag/reports-$r" -cp "$bin:$cp:$mockito_cp" \
          --select-class "$test_class" > "$work/$tag/run-$r.txt" 2>&1 || true
        xml=$work/$tag/reports-$r/TEST-junit-jupiter.xml
        n=$(grep -oE 'tests="[0-9]+"' "$xml" 2>/dev/null | head -1 | grep -oE '[0-9]+' || echo 0)
        f=$(grep -oE '(failures|errors)="[0-9]+"' "$xml" 2>/dev/null | head -2 | grep -oE '[0-9]+' | awk '{s+=$1} END {print s+0}' || echo 0)
        names=$(awk 'BEGIN{RS="<testcase "} NR>1 && /<(failure|error)/ {match($0,/name="[^"(]*/); print substr($0,RSTART+6,RLENGTH-6)}' "$xml" 2>/dev/null || true)
      fi
      tests=${n:-0}; failed=$(( failed > ${f:-0} ? failed : ${f:-0} ))
      for t in $names; do verdicts[$t]=$(( ${verdicts[$t]:-0} + 1 )); done
    done
    for t in "${!verdicts[@]}"; do
      [ "${verdicts[$t]}" -lt "$RUNS" ] && flaky=$((flaky + 1))
    done
    # JaCoCo's counters for the class under test (and its nested classes), from the first run.
    java -cp "$work/tools:$JACOCO_CP" ferrosuite.tools.JacocoDump "$work/$tag/jacoco-1.exec" \
      $(echo "$cp" | tr ':' ' ') > "$work/$tag/jacoco.txt"
    read -r lc lm bc bm < <(awk -v c="$internal" '$1=="C" && ($2==c || index($2, c"$")==1) {lc+=$3; lm+=$4; bc+=$5; bm+=$6} END {print lc+0, lm+0, bc+0, bm+0}' "$work/$tag/jacoco.txt")
  else
    lc=0; lm=0; bc=0; bm=0
  fi
  unset verdicts
  lines=$((lc + lm)); branches=$((bc + bm))
  pct() { if [ "$2" -eq 0 ]; then echo 100.0; else awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", 100*a/b}'; fi; }
  if [ "$FORMAT" = json ]; then
    printf '{"class":"%s","lines_covered":%d,"lines":%d,"branches_covered":%d,"branches":%d,"tests":%d,"failed":%d,"flaky":%d,"compiled":%s}\n' \
      "$class" "$lc" "$lines" "$bc" "$branches" "$tests" "$failed" "$flaky" "$compiled"
  else
    echo "$class lines $lc/$lines ($(pct "$lc" "$lines") %) branches $bc/$branches ($(pct "$bc" "$branches") %) tests $tests failed $failed flaky $flaky$($missing && echo ' (no test class)' || ($compiled || echo ' (did not compile)'))"
  fi
  if ! $compiled || [ "$failed" -gt 0 ]; then status=1; fi
done
exit $status
