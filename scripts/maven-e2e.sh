#!/usr/bin/env bash
# End to end on Maven projects, as a developer would: copies of the fixture projects
# fixtures/maven/junit5 (two modules, JUnit 5, Mockito, --release 11, a hand-written test of
# its own) and fixtures/maven/junit4 (JUnit 4, --release 8); `ferrosuite generate --project`
# writes tests into each module's src/test/java; then `mvn verify` compiles and runs them
# with Surefire and JaCoCo's agent. Fails unless Maven's build passes, the project's own test
# file is untouched (ferrosuite's tests go next to it under another name), every class reaches
# its minimum JaCoCo branch coverage (from the project's own build), and a second run resumes:
# every class skipped, no file changed. Maven downloads what the projects need on first use
# (~/.m2 is reused between runs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/workdir.sh"
workdir maven-e2e
command -v mvn > /dev/null || { echo "maven-e2e: mvn is missing (scripts/deps.sh installs it)" >&2; exit 1; }
cargo build -q --release -p ferrosuite --manifest-path "$root/Cargo.toml"
fs=$root/target/release/ferrosuite
status=0
fail() { echo "FAIL $*" >&2; status=1; }
# project, then "class minimum-branch-%" pairs (JaCoCo's CSV names classes without package).
# Checkout's branches past `total == 0` need items in the Cart of the other module, and the
# test cluster does not call the methods of the CUT's parameter types (only their
# constructors and factories): 6 of 11 at this budget (see BENCHMARKS.md).
declare -A checks=(
  [junit5]="Cart:80 Checkout:50"
  [junit4]="Account:95"
)
for p in junit5 junit4; do
  dir=$work/$p
  rm -rf "$dir"
  cp -r "$root/fixtures/maven/$p" "$dir"
  own=$dir/core/src/test/java/shop/CartTest.java
  own_before=$( [ -f "$own" ] && sha256sum < "$own" || true)
  "$fs" generate --project "$dir" --max-statements 40000 --seed 1 --jobs 2 \
    > "$work/$p-generate.txt" 2> "$work/$p-generate.err" || { cat "$work/$p-generate.err" >&2; fail "$p: generate"; continue; }
  cat "$work/$p-generate.txt"
  written=$(find "$dir" -path '*/src/test/java/*' -name '*.java' -newer "$dir/pom.xml" | sort)
  echo "$p: written: $(echo "$written" | sed "s|$dir/||" | tr '\n' ' ')"
  if [ "$p" = junit5 ]; then
    own_after=$( [ -f "$own" ] && sha256sum < "$own" || true)
    [ -n "$own_after" ] && [ "$own_before" = "$own_after" ] || fail "$p: the project's CartTest.java changed or went"
    [ -f "$dir/core/src/test/java/shop/CartFerrosuiteTest.java" ] || fail "$p: no CartFerrosuiteTest.java next to the project's CartTest.java"
    [ -f "$dir/app/src/test/java/shop/app/CheckoutTest.java" ] || fail "$p: no CheckoutTest.java in the second module"
    grep -q "org.junit.jupiter.api.Test" "$dir/app/src/test/java/shop/app/CheckoutTest.java" || fail "$p: not JUnit 5"
  else
    [ -f "$dir/src/test/java/bank/AccountTest.java" ] || fail "$p: no AccountTest.java"
    grep -q "import org.junit.Test;" "$dir/src/test/java/bank/AccountTest.java" || fail "$p: not JUnit 4"
  fi
  if ! (cd "$dir" && mvn -B -q verify) > "$work/$p-mvn.txt" 2>&1; then
    tail -40 "$work/$p-mvn.txt" >&2
    fail "$p: mvn verify"
    continue
  fi
  # Surefire's counts, every module.
  runs=$(cat $(find "$dir" -path '*/surefire-reports/*.txt') /dev/null \
    | { grep -o 'Tests run: [0-9]*, Failures: [0-9]*, Errors: [0-9]*' || true; } \
    | awk -F'[:,] *' '{r+=$2; f+=$4; e+=$6} END {printf "%d %d %d", r, f, e}')
  read -r run failed errors <<< "$runs"
  echo "$p: mvn verify: $run tests run, $failed failures, $errors errors"
  [ "$failed" = 0 ] && [ "$errors" = 0 ] && [ "$run" -gt 0 ] || fail "$p: failing tests under Maven"
  for c in ${checks[$p]}; do
    class=${c%%:*}; min=${c##*:}
    line=$(cat $(find "$dir" -name jacoco.csv) /dev/null | awk -F, -v c="$class" '$3 == c')
    [ -n "$line" ] || { fail "$p: $class not in JaCoCo's report"; continue; }
    read -r bm bc lm lc <<< "$(echo "$line" | awk -F, '{print $6, $7, $8, $9}')"
    pct=$(( (bc + bm) > 0 ? 100 * bc / (bc + bm) : 100 ))
    lpct=$(( (lc + lm) > 0 ? 100 * lc / (lc + lm) : 100 ))
    if [ "$pct" -lt "$min" ]; then
      fail "$p $class: JaCoCo branch coverage $pct % (min $min %)"
    else
      echo "ok   $p $class: JaCoCo branch coverage $pct % ($bc of $((bc + bm))), lines $lpct % ($lc of $((lc + lm))) (min $min % branches)"
    fi
  done
  # A second run resumes: every class skipped, no test file changed.
  sums=$(find "$dir" -path '*/src/test/java/*' -name '*.java' -exec sha256sum {} + | sort)
  "$fs" generate --project "$dir" --max-statements 40000 --seed 1 > "$work/$p-again.txt" 2>&1 || fail "$p: second run"
  grep -q "generated" "$work/$p-again.txt" && fail "$p: the second run generated again"
  [ "$sums" = "$(find "$dir" -path '*/src/test/java/*' -name '*.java' -exec sha256sum {} + | sort)" ] || fail "$p: the second run changed test files"
done
exit $status
