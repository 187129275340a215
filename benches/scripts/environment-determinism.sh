#!/usr/bin/env bash
# Whether `generate` writes the same bytes for the same seed and statement budget when the code
# under test draws randomness the JDK seeds from the clock (commons-lang3's ArrayUtils.shuffle:
# `new Random()`, ThreadLocalRandom): RUNS runs with the controlled environment (the default)
# and two with --no-environment, then the SHA-256 of each emitted test file.
#
#   benches/scripts/environment-determinism.sh OUT
#   RUNS=3 STATEMENTS=50000 SEED=1 CLASS=org.apache.commons.lang3.ArrayUtils \
#       JAR=/usr/share/java/commons-lang3.jar benches/scripts/environment-determinism.sh /tmp/det
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -eq 1 ] || { sed -n '2,9p' "$0" >&2; exit 2; }
out=$1
RUNS=${RUNS:-3}
STATEMENTS=${STATEMENTS:-50000}
SEED=${SEED:-1}
CLASS=${CLASS:-org.apache.commons.lang3.ArrayUtils}
JAR=${JAR:-/usr/share/java/commons-lang3.jar}
cargo build -q --release -p ferrosuite -p ferrosuite-exec
file=src/test/java/$(echo "$CLASS" | tr . /)Test.java
run() {
    local dir=$out/$1
    rm -rf "$dir"
    shift
    target/release/ferrosuite generate -c "$JAR" --class "$CLASS" --max-statements "$STATEMENTS" \
        --seed "$SEED" --out "$dir" "$@" > "$dir.log" 2>&1 || true
}
mkdir -p "$out"
for r in $(seq 1 "$RUNS"); do run "env-$r"; done
for r in 1 2; do run "noenv-$r" --no-environment; done
for d in "$out"/env-* "$out"/noenv-*; do
    [ -d "$d" ] || continue
    printf '%s  %s  %s tests\n' "$(sha256sum < "$d/$file" | cut -c1-16)" "$(basename "$d")" \
        "$(grep -c '@Test' "$d/$file")"
done
