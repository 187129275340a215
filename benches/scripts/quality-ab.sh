#!/usr/bin/env bash
# Suite-quality A/B (issue 33): two ferrosuite builds (or flag sets) on the 20 commons-lang3 and
# 10 guava classes of the generated-tests benchmark; per suite the PIT mutation score
# (scripts/mutation.sh: DEFAULTS and OLD_DEFAULTS), JaCoCo branch coverage
# (scripts/coverage.sh), tests, assertions, tests with no assertion, exception-only tests and
# tests using non-public library classes (suite-quality.py), and a rerun of the suites under
# another time zone, locale and charset with -Xshare:off.
#
#   benches/scripts/quality-ab.sh OUT [SEED...]        (default seeds 1 2 3 4 5)
#   MODES="before after" BIN_before=/tmp/old/ferrosuite BIN_after=target/release/ferrosuite \
#   FLAGS_before="--no-mutation-assertions" BUDGET=60s JOBS=2 benches/scripts/quality-ab.sh /tmp/q 1 2
#
# MODES names the modes; BIN_<mode> is the binary of each (default: this tree's release
# build), FLAGS_<mode> extra generate flags, RUNTIME_JAR a ferrosuite-runtime.jar that
# replaces the one in each suite before the evaluation. CLASSES overrides the classes, MUTATORS the PIT
# groups. STEPS="generate evaluate" (the default) does both, one of them only that step (the
# generation is timed, the evaluation is not); "evaluate" is the three steps "coverage" (JaCoCo
# and suite-quality.py, minutes), "mutation" (PIT, most of the time) and "rerun", which can be
# named one by one. Writes OUT/<mode>-<seed>/ (generate's output and report, coverage.jsonl,
# quality.jsonl, mutation.jsonl, rerun.txt) and OUT/summary.md. Resumable: a step whose file
# is there is skipped (each is written under another name and renamed when complete), and PIT
# resumes at the first class and group its stopped run had not finished.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
[ $# -ge 1 ] || { sed -n '2,19p' "$0" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
shift
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1 2 3 4 5)
BUDGET=${BUDGET:-60s}
JOBS=${JOBS:-2}
MODES=${MODES:-"before after"}
STEPS=${STEPS:-"generate evaluate"}
J=/usr/share/java
L=org.apache.commons.lang3
G=com.google.common
CLASSES=${CLASSES:-"$L.ArrayUtils $L.BitField $L.BooleanUtils $L.CharRange $L.CharSetUtils
$L.CharUtils $L.ClassUtils $L.Conversion $L.LocaleUtils $L.ObjectUtils $L.Range $L.RegExUtils
$L.StringUtils $L.Validate $L.math.Fraction $L.math.NumberUtils $L.mutable.MutableInt
$L.text.WordUtils $L.time.DurationFormatUtils $L.time.StopWatch $G.base.Ascii $G.base.Joiner
$G.base.Preconditions $G.base.Splitter $G.base.Strings $G.math.IntMath $G.math.LongMath
$G.net.HostAndPort $G.primitives.Ints $G.primitives.UnsignedInts"}
read -r -a classes <<< "$(echo $CLASSES)"
cp=$J/commons-lang3.jar:$J/guava.jar
mock_cp=$J/mockito-core.jar:$J/byte-buddy.jar:$J/byte-buddy-agent.jar:$J/objenesis.jar
junit_cp=$J/junit-jupiter-api.jar:$J/apiguardian-api.jar:$J/opentest4j.jar:$J/junit-platform-commons.jar
built=false
args=()
for c in "${classes[@]}"; do args+=(--class "$c"); done
mkdir -p "$out/cwd"
# One run per OUT: two would write the same run directories and share the two cores, which
# spoils the timed generation without a trace in its output.
exec 9> "$out/.lock"
flock -n 9 || { echo "another quality-ab.sh is running on $out" >&2; exit 1; }
# Renames a step's output $1.tmp to $1.jsonl when it has a row: a harness that stopped before
# any class (Maven unreachable, say) leaves the step to the next run instead of marking it done.
finish() {
    if [ -s "$1.tmp" ]; then mv "$1.tmp" "$1.jsonl"; else echo "no rows in $1.tmp; step left to redo" >&2; fi
}
# Whether STEPS asks for step $1 ("evaluate" stands for its three).
want() {
    [[ " $STEPS " == *" $1 "* ]] \
        || { [[ " $STEPS " == *" evaluate "* ]] && [[ " coverage mutation rerun " == *" $1 "* ]]; }
}
for seed in "${seeds[@]}"; do
    for mode in $MODES; do
        dir=$out/$mode-$seed
        if want generate && [ ! -f "$dir/generated" ]; then
            bin_var=BIN_$mode; flags_var=FLAGS_$mode
            bin=${!bin_var:-}
            if [ -z "$bin" ]; then
                $built || cargo build -q --release -p ferrosuite -p ferrosuite-exec
                built=true
                bin=$root/target/release/ferrosuite
            fi
            read -r -a flags <<< "${!flags_var:-}"
            rm -rf "$dir"
            echo "== generate $mode seed $seed ($(date +%T))"
            (cd "$out/cwd" && "$bin" generate -c "$cp" "${args[@]}" --budget "$BUDGET" --seed "$seed" \
                --jobs "$JOBS" --out "$dir" "${flags[@]}") > "$out/$mode-$seed.log" 2>&1 || true
            touch "$dir/generated"
        fi
        [ -f "$dir/generated" ] || continue
        todo=()
        want coverage && [ ! -f "$dir/coverage.jsonl" ] && todo+=(coverage)
        want mutation && [ ! -f "$dir/mutation.jsonl" ] && todo+=(mutation)
        want rerun && [ ! -f "$dir/rerun.txt" ] && todo+=(rerun)
        [ ${#todo[@]} -gt 0 ] || continue
        echo "== evaluate $mode seed $seed: ${todo[*]} ($(date +%T))"
        # One runtime for every mode's suites when RUNTIME_JAR is given (the runtime is the
        # tests' harness, not what the modes compare). Stored suites may lack it.
        if [ -n "${RUNTIME_JAR:-}" ] && [ -d "$dir/src/test/java" ]; then
            cmp -s "$RUNTIME_JAR" "$dir/src/test/java/ferrosuite-runtime.jar" \
                || cp "$RUNTIME_JAR" "$dir/src/test/java/ferrosuite-runtime.jar"
        fi
        # Scratch of the two harnesses in the run directory, removed after them: they keep
        # theirs when a class has no suite (their exit status is then 1), 250 MB a time.
        if [[ " ${todo[*]} " == *" coverage "* ]]; then
            WORK=$dir/work-coverage FORMAT=json scripts/coverage.sh "$cp" "$dir" "${classes[@]}" \
                > "$dir/coverage.tmp" 2>/dev/null || true
            rm -rf "$dir/work-coverage"
            python3 benches/scripts/suite-quality.py "$cp" "$dir" "${classes[@]}" > "$dir/quality.jsonl"
            finish "$dir/coverage"
        fi
        if [[ " ${todo[*]} " == *" mutation "* ]]; then
            # Appends to the rows of a stopped run and skips the classes and groups they hold.
            DONE=$dir/mutation.tmp WORK=$dir/work-mutation THREADS=2 FORMAT=json \
                scripts/mutation.sh "$cp" "$dir" "${classes[@]}" >> "$dir/mutation.tmp" 2>/dev/null || true
            rm -rf "$dir/work-mutation"
            finish "$dir/mutation"
        fi
        [[ " ${todo[*]} " == *" rerun "* ]] || continue
        # The suites once more, elsewhere: the Chatham Islands' zone, Turkish, Latin-1, no CDS.
        rr=$dir/rerun
        rm -rf "$rr"
        mkdir -p "$rr/classes"
        runtime=$(find "$dir/src/test/java" -maxdepth 1 -name ferrosuite-runtime.jar | head -1)
        find "$dir/src/test/java" -name '*Test.java' > "$rr/sources.txt"
        javac --release 8 -nowarn -encoding UTF-8 -d "$rr/classes" -cp "$cp:$junit_cp:$mock_cp:$runtime" \
            @"$rr/sources.txt" > "$rr/javac.txt" 2>&1 || true
        (cd "$out/cwd" && java -Xshare:off -Duser.timezone=Pacific/Chatham -Duser.language=tr \
            -Duser.country=TR -Dfile.encoding=ISO-8859-1 \
            -jar "$J/junit-platform-console-standalone.jar" --disable-banner --details=none \
            --disable-ansi-colors --reports-dir "$rr/report" -cp "$rr/classes:$cp:$mock_cp:$runtime" --scan-classpath "$rr/classes") \
            > "$dir/rerun.tmp" 2>&1 || true
        # The console prints no summary when every test passed: the counts of the XML reports
        # (one per engine), summed, end the file, which is kept where the reports are not.
        for x in "$rr"/report/TEST-*.xml; do
            [ -f "$x" ] && grep -o '<testsuite [^>]*>' "$x" | head -1
        done | awk '{ for (i = 1; i <= NF; i++) if (split($i, kv, "=") == 2) {
                          k = kv[1]; v = kv[2]; gsub(/[^0-9]/, "", v)
                          if (k == "tests" || k == "failures" || k == "errors" || k == "skipped") n[k] += v } }
                    END { printf "counts: tests %d failures %d errors %d skipped %d\n",
                          n["tests"], n["failures"], n["errors"], n["skipped"] }' >> "$dir/rerun.tmp"
        mv "$dir/rerun.tmp" "$dir/rerun.txt"
    done
done
python3 benches/scripts/quality-summary.py "$out" "$MODES" "${seeds[@]}" > "$out/summary.md"
cat "$out/summary.md"
