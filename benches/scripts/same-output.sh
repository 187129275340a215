#!/usr/bin/env bash
# Whether two builds of ferrosuite write byte-identical test files: `generate --max-statements N
# --seed S` for each class of a list (commons-lang3 and guava by default), once per build, then
# the emitted `.java` files compared byte for byte (the report's timings differ from run to run
# and are not compared; its coverage figures are). A behaviour-preserving change must show no
# difference.
#
#   benches/scripts/same-output.sh d25cca7                  # that commit (built in a worktree) vs this checkout
#   benches/scripts/same-output.sh /work/builds/old /work/builds/new   # two builds as they are
#   STATEMENTS=50000 SEED=3 CLASSES="org.apache.commons.lang3.math.Fraction" benches/scripts/same-output.sh d25cca7
#   ALGORITHM=dynamosa CRITERIA=all benches/scripts/same-output.sh d25cca7   # another algorithm, every criterion
#
# A build is a directory holding `target/release/ferrosuite` and `target/release/ferrosuite-worker`,
# or a commit: the commit is checked out in a temporary worktree and built there (its own target
# directory under target/same-output/, kept for the next run). With one argument the second
# build is this checkout, built with `cargo build --release -p ferrosuite -p ferrosuite-exec`.
#
# Environment: STATEMENTS (20000), SEED (1), ALGORITHM and CRITERIA (`generate --algorithm` and
# `--criteria`; the tool's defaults when unset), CLASSES (binary names; default the list below),
# OUT (the runs' output, default a temporary directory removed afterwards). Exit status 0 when
# every file is identical, 1 when one differs or a run of one build failed and not the other's.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
[ $# -ge 1 ] && [ $# -le 2 ] || {
    echo "usage: $0 OLD [NEW]   (each a commit or a directory with target/release/ferrosuite)" >&2
    exit 2
}
STATEMENTS=${STATEMENTS:-20000}
SEED=${SEED:-1}
J=/usr/share/java
L=org.apache.commons.lang3
G=com.google.common
DEFAULT_CLASSES="
$L.math.Fraction $L.Conversion $L.BooleanUtils $L.CharRange $L.CharUtils $L.text.WordUtils
$L.text.StrTokenizer $L.math.NumberUtils $L.Range $L.builder.EqualsBuilder $L.mutable.MutableInt
$G.base.Strings $G.math.IntMath $G.primitives.Ints $G.base.Joiner $G.base.CharMatcher"
CLASSES=${CLASSES:-$DEFAULT_CLASSES}
CP="$J/commons-lang3.jar:$J/guava.jar"
for jar in commons-lang3 guava; do
    [ -f "$J/$jar.jar" ] || { echo "missing $J/$jar.jar (scripts/deps.sh installs it)" >&2; exit 2; }
done

# A build directory for a commit or a directory argument.
build_of() {
    local spec=$1
    if [ -x "$spec/target/release/ferrosuite" ]; then
        (cd "$spec" && pwd)
        return
    fi
    local commit
    commit=$(git rev-parse --verify --quiet "$spec^{commit}") || {
        echo "$spec: neither a build directory nor a commit" >&2
        exit 2
    }
    local short=${commit:0:7}
    local dir=$root/target/same-output/$short
    if [ ! -x "$dir/target/release/ferrosuite" ]; then
        local wt
        wt=$(mktemp -d)
        git worktree add --detach -q "$wt" "$commit"
        echo "building $short in $wt ..." >&2
        (cd "$wt" && CARGO_TARGET_DIR=$dir/target cargo build --release -q -p ferrosuite -p ferrosuite-exec) >&2
        git worktree remove --force "$wt"
    fi
    echo "$dir"
}

old=$(build_of "$1")
if [ $# -eq 2 ]; then
    new=$(build_of "$2")
else
    cargo build --release -q -p ferrosuite -p ferrosuite-exec
    new=$root
fi
out=${OUT:-}
if [ -z "$out" ]; then
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
# Each build runs its own worker.
unset FERROSUITE_WORKER

# The coverage figures of a report (not its timings), one line per class.
figures() {
    python3 - "$1" << 'EOF'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except OSError:
    sys.exit(0)
for c in r.get("classes", []):
    print(*(c.get(k) for k in ("class", "status", "goals", "covered", "branches",
                               "branches_covered", "statements_executed", "tests_emitted")))
EOF
}

differ=0
same=0
printf '%-45s %-10s %s\n' class result detail
for c in $CLASSES; do
    status=()
    for side in old new; do
        bin=${!side}/target/release/ferrosuite
        dir=$out/$side/$c
        rm -rf "$dir"
        mkdir -p "$out/$side"
        set +e
        "$bin" generate -c "$CP" --class "$c" --max-statements "$STATEMENTS" --seed "$SEED" \
            ${ALGORITHM:+--algorithm "$ALGORITHM"} ${CRITERIA:+--criteria "$CRITERIA"} \
            --out "$dir" > "$dir.log" 2>&1
        status+=($?)
        set -e
    done
    detail="exit ${status[0]}/${status[1]}"
    o=$out/old/$c/src
    n=$out/new/$c/src
    result=identical
    if [ "${status[0]}" != "${status[1]}" ]; then
        result=DIFFERENT
    elif [ -d "$o" ] || [ -d "$n" ]; then
        if ! diff -r -q "$o" "$n" > /dev/null 2>&1; then
            result=DIFFERENT
            detail="$detail; $(diff -r -q "$o" "$n" 2>&1 | head -1)"
        fi
    fi
    if [ $result = identical ] \
        && [ "$(figures "$out/old/$c/ferrosuite-report.json")" != "$(figures "$out/new/$c/ferrosuite-report.json")" ]; then
        result=DIFFERENT
        detail="$detail; the reports' coverage figures differ"
    fi
    if [ $result = identical ]; then
        same=$((same + 1))
        files=$(find "$n" -name '*.java' 2> /dev/null | wc -l)
        bytes=$(find "$n" -name '*.java' -exec cat {} + 2> /dev/null | wc -c)
        detail="$detail; $files file(s), $bytes bytes"
    else
        differ=$((differ + 1))
    fi
    printf '%-45s %-10s %s\n' "$c" "$result" "$detail"
done
echo "old: $old"
if [ $# -eq 2 ]; then
    echo "new: $new"
else
    echo "new: this checkout ($(git describe --always --dirty))"
fi
echo "$same identical, $differ different ($STATEMENTS statements, seed $SEED, algorithm ${ALGORITHM:-default}, criteria ${CRITERIA:-default})"
[ "$differ" = 0 ]
