#!/usr/bin/env bash
# PIT mutation scores of emitted tests, an oracle independent of ferrosuite (used by the
# benchmarks, never by the search): compile the test classes under OUT/src/test/java with
# javac, run PIT's command line on each class under test with its <Class>Test (JUnit 5 or 4,
# through pitest-junit5-plugin) and report PIT's counts per class and mutator group.
#
# Usage: scripts/mutation.sh CLASSPATH OUT CLASS...
#   CLASSPATH  the classes under test and their libraries (':'-separated), as given to generate
#   OUT        the --out directory of `ferrosuite generate`
#   CLASS      binary names of the classes under test (their tests are <Class>Test)
# Environment: MUTATORS (comma-separated PIT groups, each run separately; default
#   "DEFAULTS,OLD_DEFAULTS"; OLD_DEFAULTS is PIT's default set before 1.9, which the tool
#   competitions used, run with PIT 1.9.0 since later releases dropped its RETURN_VALS),
#   TESTS (the test classes to run, space-separated binary names, sources under
#   OUT/src/test/java; default <Class>Test), KEEP (a directory where each PIT report's
#   mutations.xml is kept as <class>-<group>.xml, for per-mutant comparisons),
#   RELEASE (javac --release, default 8), MOCKITO_CP (default
#   Debian's Mockito), THREADS (PIT's threads, default 1), WORK (scratch directory),
#   FORMAT=text|json (default text), DONE (a file of earlier json rows: a class and group
#   with a row there is neither run nor printed again, so a stopped run resumes). PIT and the JUnit Platform come from Maven Central
#   (scripts/pit/pom.xml and scripts/pit/old/pom.xml, through `mvn dependency:build-classpath`).
# Prints one line per class and mutator group:
#   text: CLASS MUTATORS killed K/T (P %) survived S no_coverage N timed_out O tests N
#   json: {"class":..., "mutators":..., "killed":..., "mutants":..., "survived":...,
#          "no_coverage":..., "timed_out":..., "score":..., "compiled":true|false}
# "killed" counts what PIT calls detected (KILLED, TIMED_OUT, MEMORY_ERROR, RUN_ERROR), as its
# mutation score does. The class path's jars and directories are all mutable code (PIT's
# --mutableCodePaths; it would take jars for libraries), the --targetClasses pick what is
# mutated. Failing tests are skipped by PIT (--skipFailingTests), not fatal.
# Exit status: 0 when every class's tests compiled and PIT ran, 1 otherwise.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { sed -n '2,24p' "$0" >&2; exit 2; }
cp=$1; out=$2; shift 2
classes=("$@")
MUTATORS=${MUTATORS:-DEFAULTS,OLD_DEFAULTS}
RELEASE=${RELEASE:-8}
THREADS=${THREADS:-1}
FORMAT=${FORMAT:-text}
. "$root/scripts/workdir.sh"
workdir mutation
mkdir -p "$work"
J=/usr/share/java
# PIT, its JUnit 5 plugin and the JUnit Platform, resolved (and downloaded once) by Maven:
# the current release for DEFAULTS, 1.9.0 for OLD_DEFAULTS (scripts/pit/old/pom.xml).
resolve() { # POM NAME -> $work/NAME.classpath
  if ! mvn -q -B -f "$1" dependency:build-classpath -Dmdep.outputFile="$work/$2.classpath" \
      > "$work/mvn-$2.txt" 2>&1; then
    cat "$work/mvn-$2.txt" >&2
    echo "cannot resolve PIT through Maven ($1): is Maven Central reachable?" >&2
    exit 1
  fi
}
resolve "$root/scripts/pit/pom.xml" pit
resolve "$root/scripts/pit/old/pom.xml" pit-old
# What the tests run with in PIT's minions: JUnit (the Platform PIT's plugin drives, Jupiter
# and Vintage for JUnit 4 classes), the plugin itself, Mockito and the environment runtime.
junit_of() { tr ':' '\n' < "$work/$1.classpath" \
  | grep -E '/(junit|opentest4j|apiguardian|hamcrest|pitest-junit5-plugin)[^/]*\.jar$' | paste -sd: -; }
mockito_cp=${MOCKITO_CP:-$J/mockito-core.jar:$J/byte-buddy.jar:$J/byte-buddy-agent.jar:$J/objenesis.jar}
if [ -f "$out/src/test/java/ferrosuite-runtime.jar" ]; then
  mockito_cp=$mockito_cp:$out/src/test/java/ferrosuite-runtime.jar
fi
status=0
IFS=',' read -r -a groups <<< "$MUTATORS"
for class in "${classes[@]}"; do
  # A class and group already in DONE are skipped; a class with none left is not compiled.
  todo_groups=()
  for group in "${groups[@]}"; do
    if [ -n "${DONE:-}" ] && [ -f "$DONE" ] \
        && grep -qF "\"class\":\"$class\",\"mutators\":\"$group\"," "$DONE"; then
      continue
    fi
    todo_groups+=("$group")
  done
  [ ${#todo_groups[@]} -gt 0 ] || continue
  tests=${TESTS:-${class}Test}
  read -r -a test_list <<< "$tests"
  test_srcs=()
  for t in "${test_list[@]}"; do test_srcs+=("$out/src/test/java/${t//./\/}.java"); done
  tag=${class//[^A-Za-z0-9]/_}
  bin=$work/$tag/classes
  rm -rf "$work/$tag"; mkdir -p "$bin"
  compiled=true
  for f in "${test_srcs[@]}"; do [ -f "$f" ] || compiled=false; done
  if ! $compiled || ! javac --release "$RELEASE" -nowarn -encoding UTF-8 -d "$bin" \
      -cp "$cp:$(junit_of pit):$mockito_cp" "${test_srcs[@]}" > "$work/$tag/javac.txt" 2>&1; then
    compiled=false
  fi
  for group in "${todo_groups[@]}"; do
    killed=0; total=0; survived=0; nocov=0; timed=0
    if $compiled; then
      report=$work/$tag/pit-$group
      pit=pit
      [ "$group" = OLD_DEFAULTS ] && pit=pit-old
      minion_cp=$(echo "$bin:$cp:$(junit_of $pit):$mockito_cp" | tr ':' ',')
      if ! java -cp "$(cat "$work/$pit.classpath")" org.pitest.mutationtest.commandline.MutationCoverageReport \
          --reportDir "$report" --targetClasses "$class,$class\$*" --targetTests "$(echo "$tests" | tr ' ' ',')" \
          --sourceDirs "$out/src/test/java" --classPath "$minion_cp" \
          --mutableCodePaths "$(echo "$cp" | tr ':' ',')" \
          --includeLaunchClasspath=false --mutators "$group" --outputFormats XML \
          --timestampedReports=false --skipFailingTests=true --threads "$THREADS" \
          --verbose=false > "$work/$tag/pit-$group.txt" 2>&1; then
        status=1
      fi
      xml=$report/mutations.xml
      if [ -n "${KEEP:-}" ] && [ -f "$xml" ]; then
        mkdir -p "$KEEP"; cp "$xml" "$KEEP/$tag-$group.xml"
      fi
      if [ -f "$xml" ]; then
        # One <mutation ...> element per mutant; PIT writes detected='true|false' and status.
        read -r killed total survived nocov timed < <(grep -o "<mutation [^>]*>" "$xml" | awk '
          { t++ }
          /detected=.true./ { k++ }
          /status=.SURVIVED./ { s++ }
          /status=.NO_COVERAGE./ { n++ }
          /status=.TIMED_OUT./ { o++ }
          END { print k+0, t+0, s+0, n+0, o+0 }')
      else
        status=1
      fi
    else
      status=1
    fi
    score=$(awk -v k="$killed" -v t="$total" 'BEGIN { if (t == 0) print "0.000"; else printf "%.3f", k / t }')
    if [ "$FORMAT" = json ]; then
      printf '{"class":"%s","mutators":"%s","killed":%d,"mutants":%d,"survived":%d,"no_coverage":%d,"timed_out":%d,"score":%s,"compiled":%s}\n' \
        "$class" "$group" "$killed" "$total" "$survived" "$nocov" "$timed" "$score" "$compiled"
    else
      pct=$(awk -v s="$score" 'BEGIN { printf "%.1f", 100 * s }')
      echo "$class $group killed $killed/$total ($pct %) survived $survived no_coverage $nocov timed_out $timed$($compiled || echo ' (did not compile)')"
    fi
  done
done
exit $status
