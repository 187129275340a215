#!/usr/bin/env bash
# PIT on the callee of each pair of an integration-ab.sh run (issue 34): E's mutants against the
# integration suite of (R, E) and against the union of the unit suites of R and of E, both
# through scripts/mutation.sh (PIT's DEFAULTS); per pair the mutants each kills and those only
# the integration suite kills (the paper's T_Cling \ T_EvoE+R).
#
#   benches/scripts/integration-mutation.sh OUT SEED [PAIR_INDEX...]   (default: every pair)
#   PIT_TIMEOUT=20m benches/scripts/integration-mutation.sh /tmp/it 1 1 3 4
#
# PIT_TIMEOUT bounds each PIT run (default 30m; a run cut off counts as not run).
# OUT is integration-ab.sh's output directory. Writes OUT/mutation/SEED/<k>/ (the combined
# sources, PIT's mutations.xml files) and OUT/mutation/SEED/results.jsonl, and prints the
# summary (integration-mutation.py). Resumable: a pair with both reports is skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
[ $# -ge 2 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
out=$(cd "$1" && pwd)
seed=$2
shift 2
J=/usr/share/java
mapfile -t pairs < "$out/pairs.tsv"
picks=("$@")
[ ${#picks[@]} -gt 0 ] || picks=($(seq 0 $((${#pairs[@]} - 1))))
simple() { local s=${1##*.}; echo "${s##*\$}"; }
for k in "${picks[@]}"; do
    IFS=$'\t' read -r jar r e _ <<< "${pairs[$k]}"
    dir=$out/mutation/$seed/$k
    [ -f "$dir/int-DEFAULTS.done" ] && [ -f "$dir/unit-DEFAULTS.done" ] && continue
    rm -rf "$dir"; mkdir -p "$dir"
    cp_=$J/$jar.jar
    rpkg=${r%.*}; epkg=${e%.*}
    it=$out/$seed/$k-integration/src/test/java/${rpkg//.//}/$(simple "$r")$(simple "$e")IT.java
    ut_r=$out/$seed/$k-unit-caller/src/test/java/${r//.//}Test.java
    ut_e=$out/$seed/$k-unit-callee/src/test/java/${e//.//}Test.java
    # One source root per side, with the runtime jar when a suite reproduces the environment.
    for side in int unit; do mkdir -p "$dir/$side/src/test/java"; done
    tests_int=""; tests_unit=""
    if [ -f "$it" ]; then
        mkdir -p "$dir/int/src/test/java/${rpkg//.//}"; cp "$it" "$dir/int/src/test/java/${rpkg//.//}/"
        tests_int="$rpkg.$(simple "$r")$(simple "$e")IT"
    fi
    for pair in "$ut_r:$r" "$ut_e:$e"; do
        f=${pair%%:*}; c=${pair#*:}
        if [ -f "$f" ]; then
            mkdir -p "$dir/unit/src/test/java/$(dirname "${c//.//}")"; cp "$f" "$dir/unit/src/test/java/${c//.//}Test.java"
            tests_unit="$tests_unit ${c}Test"
        fi
    done
    for kind in integration unit-caller unit-callee; do
        jarf=$out/$seed/$k-$kind/src/test/java/ferrosuite-runtime.jar
        if [ -f "$jarf" ]; then
            cp "$jarf" "$dir/int/src/test/java/" ; cp "$jarf" "$dir/unit/src/test/java/"
        fi
    done
    for side in int unit; do
        var=tests_$side; tests=$(echo ${!var})
        if [ -n "$tests" ]; then
            TESTS="$tests" KEEP="$dir/$side" MUTATORS=DEFAULTS THREADS=2 FORMAT=json \
                WORK="$dir/work-$side" timeout "${PIT_TIMEOUT:-30m}" scripts/mutation.sh "$cp_" "$dir/$side" "$e" \
                > "$dir/$side.json" 2> "$dir/$side.err" || true
        fi
        touch "$dir/$side-DEFAULTS.done"
    done
    rm -rf "$dir"/work-*
done
python3 "$root/benches/scripts/integration-mutation.py" "$out" "$seed"
