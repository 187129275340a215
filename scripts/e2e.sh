#!/usr/bin/env bash
# End to end, as a user would: `ferrosuite generate` for fixture classes (a seed and a statement
# budget, so the run is reproducible), then the emitted tests compiled with javac and run with
# JUnit 5 and JUnit 4 under JaCoCo's agent (scripts/coverage.sh); fails unless every test
# compiles and passes three times and JaCoCo's branch coverage of each class reaches what the
# class allows (thresholds below, from the fixtures: Stack and Branches are fully coverable);
# and PIT (scripts/mutation.sh) runs on the Stack suites and kills some of its mutants.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/workdir.sh"
workdir e2e
cargo build -q --release -p ferrosuite --manifest-path "$root/Cargo.toml"
fs=$root/target/release/ferrosuite
"$root/fixtures/build.sh" "$work/classes" > /dev/null
cp=$work/classes/java8
# class and minimum JaCoCo branch coverage (%)
checks=("examples.Stack 100" "examples.Branches 95")
status=0
for junit in 5 4; do
  out=$work/tests-junit$junit
  rm -rf "$out"
  "$fs" generate -c "$cp" --class examples.Stack --class examples.Branches --max-statements 60000 \
    --seed 1 --junit "$junit" --out "$out" > "$work/generate-$junit.txt"
  cat "$work/generate-$junit.txt"
  JUNIT=$junit RUNS=3 FORMAT=json WORK=$work/coverage-$junit "$root/scripts/coverage.sh" "$cp" "$out" \
    examples.Stack examples.Branches > "$work/coverage-$junit.jsonl" || status=1
  cat "$work/coverage-$junit.jsonl"
  for c in "${checks[@]}"; do
    read -r class min <<< "$c"
    line=$(grep "\"class\":\"$class\"" "$work/coverage-$junit.jsonl")
    got=$(echo "$line" | awk -F'[:,]' '{for (i=1;i<NF;i++) {if ($i=="\"branches_covered\"") bc=$(i+1); if ($i=="\"branches\"") b=$(i+1); if ($i=="\"failed\"") f=$(i+1); if ($i=="\"flaky\"") k=$(i+1)}} END {printf "%d %d %d %d", (b>0 ? 100*bc/b : 100), f, k, b}')
    read -r pct failed flaky branches <<< "$got"
    if [ "$pct" -lt "$min" ] || [ "$failed" -ne 0 ] || [ "$flaky" -ne 0 ]; then
      echo "FAIL junit$junit $class: JaCoCo branch coverage $pct % (min $min %), failed $failed, flaky $flaky" >&2
      status=1
    else
      echo "ok   junit$junit $class: JaCoCo branch coverage $pct % of $branches (min $min %), 3 runs, no failure, no flaky test"
    fi
  done
  # PIT on the Stack suite: both mutator groups for JUnit 5, the current defaults for JUnit 4.
  groups=DEFAULTS,OLD_DEFAULTS
  [ "$junit" = 4 ] && groups=DEFAULTS
  if ! MUTATORS=$groups FORMAT=json WORK=$work/mutation-$junit "$root/scripts/mutation.sh" "$cp" \
      "$out" examples.Stack > "$work/mutation-$junit.jsonl"; then
    echo "FAIL junit$junit: scripts/mutation.sh failed (work files in $work/mutation-$junit)" >&2
    status=1
  fi
  cat "$work/mutation-$junit.jsonl"
  while read -r line; do
    got=$(echo "$line" | awk -F'[:,]' '{for (i=1;i<NF;i++) {if ($i=="\"killed\"") k=$(i+1); if ($i=="\"mutants\"") t=$(i+1)}} END {printf "%d %d", k, t}')
    read -r killed mutants <<< "$got"
    if [ "$mutants" -lt 10 ] || [ $((100 * killed)) -lt $((30 * mutants)) ]; then
      echo "FAIL junit$junit: PIT killed $killed of $mutants mutants of examples.Stack (min 30 %)" >&2
      status=1
    fi
  done < "$work/mutation-$junit.jsonl"
done
exit $status
