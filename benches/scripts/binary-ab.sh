#!/usr/bin/env bash
# A/B of two ferrosuite binaries on single-class runs: for each class and seed, `generate` with
# OLD then NEW (interleaved, so both see the same load), and one summary line per run from its
# report: tag, statements, goals covered, goals, branch goals covered, tests emitted, search
# seconds, class seconds, the search host's counters.
#
#   OLD=/tmp/a/ferrosuite NEW=target/release/ferrosuite OUT=/tmp/ab \
#       benches/scripts/binary-ab.sh "com.google.common.collect.HashMultiset ..." "1 2" \
#       --max-statements 200000
#
# Arguments after the seeds go to every `generate`. CP overrides the class path (default:
# commons-collections4, commons-lang3, guava and joda-time from /usr/share/java). A fixed
# statement budget makes both searches deterministic, so the lines compare the same search's
# cost; a time budget compares what each reaches in the same time. Appends to OUT/summary.txt
# and ends it with DONE; each run's output is OUT/<tag>/ and its log OUT/<tag>.log.
set -uo pipefail
: "${OLD:?ferrosuite binary without the change}" "${NEW:?ferrosuite binary with the change}"
[ $# -ge 2 ] || { sed -n '2,15p' "$0" >&2; exit 2; }
read -r -a classes <<< "$1"
read -r -a seeds <<< "$2"
shift 2
J=/usr/share/java
CP=${CP:-$J/commons-collections4.jar:$J/commons-lang3.jar:$J/guava.jar:$J/joda-time.jar}
O=${OUT:-/tmp/binary-ab}
mkdir -p "$O/cwd"
O=$(cd "$O" && pwd)
cd "$O/cwd"
run() { # mode class seed generate-args...
    local m=$1 c=$2 s=$3
    shift 3
    local bin=$OLD
    [ "$m" = new ] && bin=$NEW
    local tag
    tag=$m-${c##*.}-$s-$(echo "$*" | tr -dc '0-9a-z')
    rm -rf "${O:?}/$tag"
    "$bin" generate -c "$CP" --class "$c" --seed "$s" --out "$O/$tag" "$@" > "$O/$tag.log" 2>&1
    python3 - "$O/$tag/ferrosuite-report.json" "$tag" >> "$O/summary.txt" <<'EOF'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print(sys.argv[2], "no report:", e)
    sys.exit()
c = r["classes"][0]
h = c.get("search_host") or {}
print(sys.argv[2], c["statements_executed"], c["covered"], c["goals"], c["branches_covered"],
      c["tests_emitted"], round(c["search_seconds"], 1), round(c["seconds"], 1),
      {k: v for k, v in h.items() if k != "first_crash"})
EOF
}
for c in "${classes[@]}"; do
    for s in "${seeds[@]}"; do
        for m in old new; do run "$m" "$c" "$s" "$@"; done
    done
done
echo DONE >> "$O/summary.txt"
