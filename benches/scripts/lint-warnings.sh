#!/usr/bin/env bash
# How many javac warnings the emitted suites cause: generates tests for 40 commons-lang3 and
# guava classes (forty-classes.sh, as split-output.sh; --max-statements 60000 --seed 1), then compiles
# them with `javac --release 8 -Xlint:rawtypes,unchecked,deprecation` twice: as emitted, and with every
# `@SuppressWarnings` line removed (what the tests still need suppressed). Prints the test and
# annotation counts and both warning counts; the generate report is in OUT.
#
#   benches/scripts/lint-warnings.sh              # validated (javac + JUnit), OUT=/tmp/lint
#   VALIDATE=0 benches/scripts/lint-warnings.sh   # --no-validate: every test the search kept
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/lint}
J=/usr/share/java
. benches/scripts/forty-classes.sh
args=()
for c in $FORTY_CLASSES; do args+=(--class "$c"); done
validate=()
[ "${VALIDATE:-1}" = 0 ] && validate=(--no-validate)
cargo build -q --release -p ferrosuite
rm -rf "$OUT"
mkdir -p "$OUT"
target/release/ferrosuite generate -c "$J/commons-lang3.jar:$J/guava.jar" "${args[@]}" \
    --max-statements 60000 --seed 1 "${validate[@]}" --out "$OUT/gen" > "$OUT/generate.txt" 2>&1 ||
    echo "generate exit $? (see $OUT/generate.txt)"
cp="$J/commons-lang3.jar:$J/guava.jar:$J/junit-jupiter-api.jar:$J/apiguardian-api.jar:$J/opentest4j.jar:$J/mockito-core.jar"
mapfile -t files < <(find "$OUT/gen/src" -name '*.java' | sort)
count() { grep -ho "$1" "${files[@]}" | wc -l; }
echo "test classes: ${#files[@]}, tests: $(count '@Test'), methods with @SuppressWarnings: $(count '@SuppressWarnings')"
# lint NAME FILES...: javac's rawtypes and unchecked warnings and errors for FILES.
lint() {
    local name=$1
    shift
    mkdir -p "$OUT/$name.classes"
    javac -Xmaxwarns 100000 -Xmaxerrs 1000 -Xlint:rawtypes,unchecked,deprecation --release 8 -encoding UTF-8 \
        -d "$OUT/$name.classes" -cp "$cp" "$@" > "$OUT/$name.txt" 2>&1 || true
    local all raw unchecked deprecation
    all=$(grep -c 'warning:' "$OUT/$name.txt" || true)
    deprecation=$(grep -c 'warning: \[deprecation\]' "$OUT/$name.txt" || true)
    raw=$(grep -c 'warning: \[rawtypes\]' "$OUT/$name.txt" || true)
    unchecked=$(grep -c 'warning: \[unchecked\]' "$OUT/$name.txt" || true)
    echo "$name: $raw rawtypes, $unchecked unchecked, $deprecation deprecation, $((all - raw - unchecked - deprecation)) other warnings, $(grep -c 'error:' "$OUT/$name.txt" || true) errors"
}
lint as-emitted "${files[@]}"
rm -rf "$OUT/stripped"
cp -r "$OUT/gen/src" "$OUT/stripped"
mapfile -t stripped < <(find "$OUT/stripped" -name '*.java' | sort)
sed -i '/@SuppressWarnings/d' "${stripped[@]}"
lint without-annotations "${stripped[@]}"
