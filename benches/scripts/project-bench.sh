#!/usr/bin/env bash
# A whole Maven project, as a developer would run it: a copy of the project at $1 without its
# own tests (so that the coverage is the generated tests' alone), `ferrosuite generate
# --project` on every testable class, then Maven's own build runs the generated tests under
# JaCoCo (`mvn test` with the jacoco-maven-plugin's prepare-agent and report goals). Prints the
# classes, tests written, the Maven result (tests run, failures, errors), JaCoCo's line and
# branch coverage of the project (all classes, and the classes that got a test class), the
# wall time of the generation and the peak memory of ferrosuite and its worker JVMs together
# (sampled every 0.5 s).
#
#   benches/scripts/project-bench.sh /tmp/commons-csv            # --budget 30s --jobs 2
#   JOBS=1 BUDGET=30s benches/scripts/project-bench.sh /tmp/commons-csv
#
# Environment: BUDGET (30s), JOBS (2), SEED (1), MAVEN_ARGS (extra Maven arguments for both
# ferrosuite's and the coverage run, e.g. "-Drat.skip=true"), WORK (default a temporary
# directory, removed afterwards), JACOCO (the plugin version, 0.8.13).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 MAVEN-PROJECT-DIR" >&2; exit 2; }
src=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
BUDGET=${BUDGET:-30s}
JOBS=${JOBS:-2}
SEED=${SEED:-1}
JACOCO=${JACOCO:-0.8.13}
read -r -a maven_args <<< "${MAVEN_ARGS:-}"
cargo build -q --release -p ferrosuite --manifest-path "$root/Cargo.toml"
fs=$root/target/release/ferrosuite
if [ -n "${WORK:-}" ]; then work=$WORK; mkdir -p "$work"; else
    work=$(mktemp -d /tmp/ferrosuite-project.XXXXXX); trap 'rm -rf "$work"' EXIT; fi
dir=$work/project
rm -rf "$dir"
cp -r "$src" "$dir"
# The project's own tests out: the coverage below is the generated tests' alone.
find "$dir" -path '*/src/test/java' -type d -prune -exec rm -rf {} +
rm -rf "$dir"/target "$dir"/*/target
margs=()
for a in "${maven_args[@]}"; do margs+=("--maven-arg=$a"); done
# Peak memory: the sum of the resident sets of ferrosuite and its workers, every 0.5 s.
peak=$work/peak-kb
echo 0 > "$peak"
sample() {
    while sleep 0.5; do
        kb=$(ps -C ferrosuite,ferrosuite-worker -o rss= 2>/dev/null | awk '{s += $1} END {print s + 0}')
        [ "$kb" -gt "$(cat "$peak")" ] && echo "$kb" > "$peak"
    done
}
sample & sampler=$!
t0=$(date +%s.%N)
"$fs" generate --project "$dir" --budget "$BUDGET" --jobs "$JOBS" --seed "$SEED" "${margs[@]}" \
    > "$work/generate.txt" 2> "$work/generate.err" || echo "(generate exit $?: some classes got no test class)"
t1=$(date +%s.%N)
kill "$sampler" 2>/dev/null || true
cat "$work/generate.txt"
grep '^\[overall\]' "$work/generate.err" | tail -1
written=$(find "$dir" -path '*/src/test/java/*' -name '*.java' | wc -l)
tests=$(find "$dir" -path '*/src/test/java/*' -name '*.java' -exec grep -c '@Test' {} + | awk -F: '{s += $NF} END {print s + 0}')
echo "generate: $(echo "$t1 - $t0" | bc) s wall time, --jobs $JOBS, peak memory $(( $(cat "$peak") / 1024 )) MB (ferrosuite and workers)"
echo "written: $written test classes, $tests tests"
status=0
(cd "$dir" && mvn -B -Dstyle.color=never "${maven_args[@]}" \
    "org.jacoco:jacoco-maven-plugin:$JACOCO:prepare-agent" test "org.jacoco:jacoco-maven-plugin:$JACOCO:report") \
    > "$work/mvn.txt" 2>&1 || status=$?
runs=$(cat $(find "$dir" -path '*/surefire-reports/*.txt') /dev/null | { grep -o 'Tests run: [0-9]*, Failures: [0-9]*, Errors: [0-9]*' || true; } \
    | awk -F'[:,] *' '{r += $2; f += $4; e += $6} END {printf "%d tests run, %d failures, %d errors", r, f, e}')
echo "mvn test: exit $status; $runs"
[ "$status" = 0 ] || tail -30 "$work/mvn.txt"
python3 - "$dir" $(find "$dir" -name jacoco.csv) <<'PY'
import csv, os, sys
rows = [r for f in sys.argv[2:] for r in csv.DictReader(open(f))]
tested = set()
for base, _, files in os.walk(sys.argv[1]):
    if "/src/test/java" in base:
        tested.update(f[:-len("Test.java")] for f in files if f.endswith("Test.java"))
def figures(rs):
    bm = sum(int(r["BRANCH_MISSED"]) for r in rs); bc = sum(int(r["BRANCH_COVERED"]) for r in rs)
    lm = sum(int(r["LINE_MISSED"]) for r in rs); lc = sum(int(r["LINE_COVERED"]) for r in rs)
    return f"lines {100*lc/max(lc+lm,1):.1f} % ({lc}/{lc+lm}), branches {100*bc/max(bc+bm,1):.1f} % ({bc}/{bc+bm})"
print(f"JaCoCo, all {len(rows)} classes: {figures(rows)}")
top = [r for r in rows if r["CLASS"].split(".")[0] in tested]
print(f"JaCoCo, the {len(set(r['CLASS'].split('.')[0] for r in top))} classes with a test class (and their nested classes): {figures(top)}")
PY
exit $status
