#!/usr/bin/env bash
# A/B of the search's run-time seeding: the same searches with the default
# `observed_share` (values the code under test compared feed value generation) and with
# `--observed-share 0` (harvested constants only). Statement budgets, so the result of each
# search does not depend on the machine's load: the two variants run at once, each pinned to a
# core. `search-stats` then prints the medians and each class's Â12 / Mann–Whitney p of the
# default against the variant.
#
#   benches/scripts/seeding-ab.sh                      # 10 classes, seeds 0-4, whole-suite and DynaMOSA, 1M statements
#   STATEMENTS=200000 SEEDS=1 CLASSES="org.apache.commons.lang3.BooleanUtils" benches/scripts/seeding-ab.sh
#
# Environment: STATEMENTS (1000000), SEEDS (5), ALGORITHMS ("whole-suite dynamosa"), CLASSES,
# OUT (default benches/results/seeding-ab.jsonl; appended to).
set -euo pipefail
cd "$(dirname "$0")/../.."
STATEMENTS=${STATEMENTS:-1000000}
SEEDS=${SEEDS:-5}
ALGORITHMS=${ALGORITHMS:-"whole-suite dynamosa"}
OUT=${OUT:-benches/results/seeding-ab.jsonl}
J=/usr/share/java
CP="$J/commons-lang3.jar:$J/guava.jar"
L=org.apache.commons.lang3
G=com.google.common
CLASSES=${CLASSES:-"$L.BooleanUtils $L.CharUtils $L.Conversion $L.LocaleUtils $L.StringUtils
$L.math.Fraction $L.math.NumberUtils $L.time.DurationFormatUtils $G.net.HostAndPort $G.base.Splitter"}
cargo build -q --release -p ferrosuite-exec -p ferrosuite-benches
args=(--cp "$CP" --seeds "$SEEDS" --statements "$STATEMENTS")
for c in $CLASSES; do args+=(--class "$c"); done
for a in $ALGORITHMS; do args+=(--algorithm "$a"); done
mkdir -p "$(dirname "$OUT")"
pin() { if command -v taskset > /dev/null && [ "$(nproc)" -ge 2 ]; then taskset -c "$1" "${@:2}"; else "${@:2}"; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin 0 target/release/search-bench "${args[@]}" > "$tmp/default.txt" &
pin 1 target/release/search-bench "${args[@]}" --observed-share 0 > "$tmp/constants.txt" &
wait
grep -h '^{' "$tmp/default.txt" "$tmp/constants.txt" >> "$OUT"
target/release/search-stats "$OUT"
