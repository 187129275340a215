#!/usr/bin/env bash
# PAFM A/B (issue 31): JaCoCo branch coverage of the suites emitted with functional mocking and
# private access (the defaults) and without them (--no-mocks --no-private-access), on 21 classes
# of guava, joda-time, commons-math3, commons-collections4, commons-io and commons-lang3 whose
# branches depend on interface or abstract collaborators or on private state; then the false
# positives: each class with one private field and one private method renamed (behaviour
# unchanged; the members the emitted tests reach by reflection first), and the PAFM suites of
# the first seed run against it (failed and skipped tests).
#
#   benches/scripts/pafm-ab.sh OUT [SEED...]     (default seeds 1 2 3 4 5)
#   BUDGET=60s JOBS=2 CLASSES="a.B c.D" benches/scripts/pafm-ab.sh /tmp/pafm 1 2
#
# Writes OUT/<mode>-<seed>/ (generate's output, report and coverage.jsonl), OUT/renamed/ and
# OUT/summary.md (medians, Vargha-Delaney A12 and the Mann-Whitney p per class, overall
# means, tests/s, false positives).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
[ $# -ge 1 ] || { sed -n '2,16p' "$0" >&2; exit 2; }
out=$1
shift
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1 2 3 4 5)
BUDGET=${BUDGET:-60s}
JOBS=${JOBS:-2}
J=/usr/share/java
G=com.google.common
T=org.joda.time
M=org.apache.commons.math3
C=org.apache.commons.collections4
IO=org.apache.commons.io
L=org.apache.commons.lang3
CLASSES=${CLASSES:-"$G.base.Stopwatch $G.reflect.TypeResolver $G.util.concurrent.Striped
$G.util.concurrent.MoreExecutors $G.base.Suppliers $T.format.DateTimeFormatter
$T.format.PeriodFormatter $T.format.DateTimeFormatterBuilder
$M.ode.nonstiff.DormandPrince54Integrator $C.iterators.CollatingIterator
$M.fitting.leastsquares.LevenbergMarquardtOptimizer $M.analysis.solvers.BrentSolver
$M.analysis.integration.SimpsonIntegrator $M.optim.univariate.BrentOptimizer
$C.iterators.FilterIterator $C.comparators.ComparatorChain $C.map.LazyMap
$C.functors.SwitchTransformer $IO.filefilter.AndFileFilter
$IO.comparator.CompositeFileComparator $L.text.StrSubstitutor"}
read -r -a classes <<< "$(echo $CLASSES)"
jars=(guava joda-time commons-math3 commons-collections4 commons-io commons-lang3)
cp=$(printf "$J/%s.jar:" "${jars[@]}")
cp=${cp%:}
jar_of() {
    case $1 in
    com.google.*) echo guava ;; org.joda.*) echo joda-time ;; $M.*) echo commons-math3 ;;
    $C.*) echo commons-collections4 ;; $IO.*) echo commons-io ;; *) echo commons-lang3 ;;
    esac
}
cargo build -q --release -p ferrosuite
mkdir -p "$out"
args=()
for c in "${classes[@]}"; do args+=(--class "$c"); done
for seed in "${seeds[@]}"; do
    for mode in pafm none; do
        dir=$out/$mode-$seed
        [ -f "$dir/coverage.jsonl" ] && continue
        rm -rf "$dir"
        flags=()
        [ "$mode" = none ] && flags=(--no-mocks --no-private-access)
        echo "== $mode seed $seed ($(date +%T))"
        target/release/ferrosuite generate -c "$cp" "${args[@]}" --budget "$BUDGET" --seed "$seed" \
            --jobs "$JOBS" --out "$dir" "${flags[@]}" > "$out/$mode-$seed.log" 2>&1 || true
        FORMAT=json scripts/coverage.sh "$cp" "$dir" "${classes[@]}" > "$dir/coverage.tmp" || true
        mv "$dir/coverage.tmp" "$dir/coverage.jsonl"
    done
done
# False positives: the PAFM suites of the first seed against each class renamed.
tools=$out/tools
[ -f "$tools/ferrosuite/tools/RenamePrivate.class" ] || scripts/java-tools.sh "$tools" > /dev/null
mock_cp=$J/mockito-core.jar:$J/byte-buddy.jar:$J/byte-buddy-agent.jar:$J/objenesis.jar
junit_cp=$J/junit-jupiter-api.jar:$J/apiguardian-api.jar:$J/opentest4j.jar:$J/junit-platform-commons.jar
ren=$out/renamed
rm -rf "$ren"
mkdir -p "$ren"
for c in "${classes[@]}"; do
    test_src=$out/pafm-${seeds[0]}/src/test/java/${c//.//}Test.java
    tag=${c//[^A-Za-z0-9]/_}
    [ -f "$test_src" ] || { echo "{\"class\":\"$c\",\"tests\":0}" >> "$ren/results.jsonl"; continue; }
    jar=$(jar_of "$c")
    # The private members the tests reach, preferred.
    names=$(grep -oE 'PrivateAccess\.(call|set|get)\([A-Za-z0-9_.]+\.class, [^,]+, "[^"]+"' "$test_src" |
        sed -E 's/.*"([^"]+)"$/\1/' | sort -u | tr '\n' ' ' || true)
    renamed=$(java -cp "$tools:$J/asm.jar:$J/asm-commons.jar" ferrosuite.tools.RenamePrivate \
        "$J/$jar.jar" "$ren/$tag.jar" "$c" $names | tr '\n' ';')
    rcp=$(echo "$cp" | sed "s#$J/$jar.jar#$ren/$tag.jar#")
    mkdir -p "$ren/$tag/classes"
    javac --release 8 -nowarn -encoding UTF-8 -d "$ren/$tag/classes" -cp "$cp:$junit_cp:$mock_cp" \
        "$test_src" > "$ren/$tag/javac.txt" 2>&1 || true
    java -jar "$J/junit-platform-console-standalone.jar" --disable-banner --details=none \
        --disable-ansi-colors --reports-dir "$ren/$tag/reports" \
        -cp "$ren/$tag/classes:$rcp:$mock_cp" --select-class "${c}Test" > "$ren/$tag/run.txt" 2>&1 || true
    xml=$ren/$tag/reports/TEST-junit-jupiter.xml
    attr() { grep -oE "$1=\"[0-9]+\"" "$xml" 2>/dev/null | head -1 | grep -oE '[0-9]+' || echo 0; }
    echo "{\"class\":\"$c\",\"renamed\":\"$renamed\",\"tests\":$(attr tests),\"failures\":$(attr failures),\"errors\":$(attr errors),\"skipped\":$(attr skipped),\"private_accesses\":$(grep -c 'PrivateAccess\.' "$test_src" || true),\"mocks\":$(grep -c 'UNSTUBBED);' "$test_src" || true)}" >> "$ren/results.jsonl"
done
python3 benches/scripts/ab-summary.py "$out" "${seeds[@]}" > "$out/summary.md"
cat "$out/summary.md"
