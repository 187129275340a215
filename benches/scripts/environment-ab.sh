#!/usr/bin/env bash
# Environment A/B (issue 32): JaCoCo branch coverage of the suites emitted with the controlled
# environment (the default: virtual clock, seeded randomness, virtual files and console,
# environment statements) and without it (--no-environment), on 20 classes of guava,
# commons-io, joda-time and commons-lang3 that read files, streams, the clock or randomness, and
# the fixtures env.Settings, env.Notes and env.Dice; the tests and assertions the stability
# check removed in each mode; whether each generate run left the file system as it was (a
# listing of the home, working and temporary directories before and after); and RERUNS reruns
# of the first seed's environment suites in a random test order, all but the first under a
# shifted clock (libfaketime: another day, month and year; installed with apt-get if missing).
#
#   benches/scripts/environment-ab.sh OUT [SEED...]     (default seeds 1 2 3 4 5)
#   BUDGET=60s JOBS=2 RERUNS=5 CLASSES="a.B c.D" benches/scripts/environment-ab.sh /tmp/envab 1 2
#   FERROSUITE_BIN=/tmp/bin/ferrosuite ...   (a copy of a release build, not rebuilt)
#   MODES=env ...   (the modes to run: env, plain or both, the default "env plain")
#
# Writes OUT/<mode>-<seed>/ (generate's output, report and coverage.jsonl), OUT/listing/ (the
# differences, one file per run), OUT/reruns/ and OUT/summary.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
[ $# -ge 1 ] || { sed -n '2,15p' "$0" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
shift
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1 2 3 4 5)
BUDGET=${BUDGET:-60s}
JOBS=${JOBS:-2}
RERUNS=${RERUNS:-5}
MODES=${MODES:-"env plain"}
J=/usr/share/java
G=com.google.common
IO=org.apache.commons.io
L=org.apache.commons.lang3
CLASSES=${CLASSES:-"$G.io.MoreFiles $G.io.Files $G.io.ByteSource $G.io.ByteStreams
$G.io.CharStreams $G.io.CharSource $G.io.FileBackedOutputStream $G.base.Stopwatch
$IO.FileUtils $IO.IOUtils $IO.LineIterator $IO.file.PathUtils $IO.input.ReversedLinesFileReader
$IO.output.LockableFileWriter org.joda.time.tz.ZoneInfoCompiler $L.SystemUtils $L.ArrayUtils
$L.RandomStringUtils $L.RandomUtils $L.time.StopWatch env.Settings env.Notes env.Dice"}
read -r -a classes <<< "$(echo $CLASSES)"
fixtures=$out/fixtures
[ -d "$fixtures/java8" ] || fixtures/build.sh "$fixtures" > /dev/null
jars=(guava commons-io joda-time commons-lang3)
cp=$(printf "$J/%s.jar:" "${jars[@]}")$fixtures/java8
if [ -z "${FERROSUITE_BIN:-}" ]; then
    cargo build -q --release -p ferrosuite -p ferrosuite-exec
    FERROSUITE_BIN=$root/target/release/ferrosuite
fi
command -v faketime > /dev/null || apt-get install -y faketime > /dev/null 2>&1 \
    || { apt-get update > /dev/null 2>&1 && apt-get install -y faketime > /dev/null 2>&1; } || true
args=()
for c in "${classes[@]}"; do args+=(--class "$c"); done
# The directories code under test could write to, without this benchmark's own output, the
# toolchains' caches and the JVMs' transient performance files.
listing() {
    find "$HOME" "$root" /tmp -xdev \( -path "$out" -o -path "$root/target" -o -path "$HOME/.cargo" \
        -o -path "$HOME/.rustup" -o -path "$HOME/.cache" -o -path "/tmp/hsperfdata_*" \
        -o -path "/tmp/bash_jobs*" -o -path "$root/.git" \) -prune -o -printf '%p\t%s\t%T@\n' \
        2>/dev/null | sort -T "$out"
}
mkdir -p "$out/listing" "$out/cwd"
for seed in "${seeds[@]}"; do
    for mode in $MODES; do
        dir=$out/$mode-$seed
        [ -f "$dir/coverage.jsonl" ] && continue
        rm -rf "$dir"
        flags=()
        [ "$mode" = plain ] && flags=(--no-environment)
        echo "== $mode seed $seed ($(date +%T))"
        listing > "$out/listing/before"
        # From an empty working directory, which must stay empty.
        (cd "$out/cwd" && "$FERROSUITE_BIN" generate -c "$cp" "${args[@]}" \
            --budget "$BUDGET" --seed "$seed" --jobs "$JOBS" --out "$dir" "${flags[@]}") \
            > "$out/$mode-$seed.log" 2>&1 || true
        listing > "$out/listing/after"
        { diff "$out/listing/before" "$out/listing/after" || true
          find "$out/cwd" -mindepth 1; } > "$out/listing/$mode-$seed.diff"
        FORMAT=json scripts/coverage.sh "$cp" "$dir" "${classes[@]}" > "$dir/coverage.tmp" || true
        mv "$dir/coverage.tmp" "$dir/coverage.jsonl"
    done
done
# Reruns of the first seed's environment suites, each in another random test order.
first=$out/env-${seeds[0]}
rr=$out/reruns
rm -rf "$rr"
mkdir -p "$rr/classes"
mock_cp=$J/mockito-core.jar:$J/byte-buddy.jar:$J/byte-buddy-agent.jar:$J/objenesis.jar
junit_cp=$J/junit-jupiter-api.jar:$J/apiguardian-api.jar:$J/opentest4j.jar:$J/junit-platform-commons.jar
runtime=$(find "$first/src/test/java" -maxdepth 1 -name ferrosuite-runtime.jar | head -1)
find "$first/src/test/java" -name '*Test.java' > "$rr/sources.txt"
javac --release 8 -nowarn -encoding UTF-8 -d "$rr/classes" -cp "$cp:$junit_cp:$mock_cp:$runtime" \
    @"$rr/sources.txt" > "$rr/javac.txt" 2>&1 || true
# Clock offsets of the reruns: the real clock, then another day, month, year and decade.
shifts=("" +1d +45d -400d +3650d)
shift_of() { [ "$1" -le ${#shifts[@]} ] && echo "${shifts[$(($1 - 1))]}" || echo "+$(($1 * 17))d"; }
for k in $(seq 1 "$RERUNS"); do
    clock=()
    s=$(shift_of "$k")
    [ -n "$s" ] && command -v faketime > /dev/null && clock=(env FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f "$s")
    (cd "$out/cwd" && "${clock[@]}" java -jar "$J/junit-platform-console-standalone.jar" --disable-banner \
        --details=none --disable-ansi-colors --reports-dir "$rr/run-$k" \
        --config=junit.jupiter.testmethod.order.default='org.junit.jupiter.api.MethodOrderer$Random' \
        --config=junit.jupiter.execution.order.random.seed="$k" \
        -cp "$rr/classes:$cp:$mock_cp:$runtime" --scan-classpath "$rr/classes") \
        > "$rr/run-$k.txt" 2>&1 || true
done
{
    MODES=env,plain LABEL=environment python3 benches/scripts/ab-summary.py "$out" "${seeds[@]}"
    echo "File system: lines of difference in the listing of \$HOME, $root and /tmp (and files"
    echo "left in the empty working directory) after each generate run:"
    echo
    for f in "$out"/listing/*.diff; do
        echo "- $(basename "$f" .diff): $(grep -c . "$f" || true)"
    done
    echo
    echo "Reruns of the environment suites of seed ${seeds[0]} in random test orders (clock shift"
    echo "by libfaketime in brackets):"
    echo
    for k in $(seq 1 "$RERUNS"); do
        s=$(shift_of "$k"); command -v faketime > /dev/null || s="no faketime"
        # The console prints no summary when every test passed: the XML report has the counts.
        x=$rr/run-$k/TEST-junit-jupiter.xml
        count() { grep -o "$1=\"[0-9]*\"" "$x" 2> /dev/null | head -1 | tr -dc 0-9; }
        echo "- run $k [${s:-real clock}]: $(count tests) tests, $(count failures) failed, $(count errors) errors; $(grep -E '^  JUnit Jupiter:' "$rr/run-$k.txt" | tr -s ' ' | tr '\n' ';')"
    done
} > "$out/summary.md"
cat "$out/summary.md"
