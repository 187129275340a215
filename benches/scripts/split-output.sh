#!/usr/bin/env bash
# Whether the way a run is split changes what it writes: `generate --max-statements N --seed S`
# for 40 classes of commons-lang3 and guava, once as one run (the reference), then as each
# variant: `shards` (4 runs with --shard 0/4 … 3/4, whose reports `ferrosuite merge` joins),
# `jobs=K` (--jobs K) and `workers=K` (--workers K). Each variant's test files are compared
# byte for byte with the reference's, and its report's classes (wall times and paths aside)
# with the reference report's. Prints one line per variant and the wall time of each run.
#
#   benches/scripts/split-output.sh                      # shards, jobs=2, workers=2
#   VARIANTS="jobs=2 jobs=4 workers=2 workers=4" STATEMENTS=60000 benches/scripts/split-output.sh
#
# Environment: STATEMENTS (60000), SEED (1), VARIANTS, CLASSES (binary names; default the 40
# of forty-classes.sh), VALIDATE (1: compile and run the tests with javac and JUnit; 0: --no-validate),
# OUT (the runs' output, default a temporary directory removed afterwards). Exit status 0
# when every variant wrote the reference's files.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
STATEMENTS=${STATEMENTS:-60000}
SEED=${SEED:-1}
VARIANTS=${VARIANTS:-"shards jobs=2 workers=2"}
J=/usr/share/java
. benches/scripts/forty-classes.sh
CLASSES=${CLASSES:-$FORTY_CLASSES}
CP="$J/commons-lang3.jar:$J/guava.jar"
validate=()
[ "${VALIDATE:-1}" = 0 ] && validate=(--no-validate)
cargo build -q --release -p ferrosuite -p ferrosuite-exec
fs=$root/target/release/ferrosuite
if [ -n "${OUT:-}" ]; then
    work=$OUT
    mkdir -p "$work"
else
    work=$(mktemp -d /tmp/ferrosuite-split.XXXXXX)
    trap 'rm -rf "$work"' EXIT
fi
class_args=()
for c in $CLASSES; do class_args+=(--class "$c"); done

# run NAME EXTRA-ARGS...: one generate run into $work/NAME, timed.
run() {
    local name=$1
    shift
    rm -rf "${work:?}/$name"
    local t0 t1
    t0=$(date +%s.%N)
    "$fs" generate -c "$CP" "${class_args[@]}" --max-statements "$STATEMENTS" --seed "$SEED" \
        "${validate[@]}" --out "$work/$name" "$@" > "$work/$name.txt" 2> "$work/$name.err" || true
    t1=$(date +%s.%N)
    echo "$name: $(echo "$t1 - $t0" | bc) s" >&2
}

# The report's classes without wall times and paths, one JSON object per line.
classes_of() {
    python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["classes"]:
    for k in ("seconds", "search_seconds", "file"):
        c.pop(k, None)
    print(json.dumps(c, sort_keys=True))
PY
}

run reference
ref_files=$(cd "$work/reference" && find src -name '*.java' | sort)
echo "reference: $(echo "$ref_files" | grep -c .) test files, $(grep -r -c '@Test' "$work/reference/src" | awk -F: '{s += $2} END {print s}') tests"
status=0
for v in $VARIANTS; do
    case $v in
        shards)
            reports=()
            for k in 0 1 2 3; do
                run "shard$k" --shard "$k/4"
                reports+=("$work/shard$k/ferrosuite-report.json")
            done
            mkdir -p "$work/shards"
            for k in 0 1 2 3; do cp -r "$work/shard$k/src" "$work/shards/" 2>/dev/null || true; done
            # Exit 3 (a class without tests) is a result here, not a failure.
            "$fs" merge "${reports[@]}" --out "$work/shards/ferrosuite-report.json" > "$work/merge.txt" || true
            ;;
        jobs=*) run "$v" --jobs "${v#jobs=}" ;;
        workers=*) run "$v" --workers "${v#workers=}" ;;
        *) echo "unknown variant $v" >&2; exit 2 ;;
    esac
    dir=$work/$v
    files=$(cd "$dir" && find src -name '*.java' | sort)
    differ=0
    for f in $ref_files; do
        cmp -s "$work/reference/$f" "$dir/$f" || { differ=$((differ + 1)); echo "  $v: $f differs" >&2; }
    done
    [ "$files" = "$ref_files" ] || echo "  $v: other files: $(comm -3 <(echo "$ref_files") <(echo "$files") | tr -d '\t' | tr '\n' ' ')" >&2
    same_report=yes
    [ "$(classes_of "$work/reference/ferrosuite-report.json")" = "$(classes_of "$dir/ferrosuite-report.json")" ] || same_report=no
    identical=$(( $(echo "$ref_files" | grep -c .) - differ ))
    echo "$v: $identical of $(echo "$ref_files" | grep -c .) files identical, report classes the same: $same_report"
    if [ "$differ" -gt 0 ] || [ "$files" != "$ref_files" ] || [ "$same_report" = no ]; then
        status=1
    fi
done
exit $status
