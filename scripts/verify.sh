#!/usr/bin/env bash
# Instruments each Debian subject jar with all probes and links every class under
# -Xverify:all (fixtures/tools/.../VerifyAll.java: linking forced without running static
# initialisers). Prints "verified N/TOTAL" per jar; exit status 1 on any verification error.
#
# Usage: scripts/verify.sh [jar-name...]   (default: the five subject jars)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jars=("$@")
[ ${#jars[@]} -gt 0 ] || jars=(commons-lang3 guava joda-time commons-math3 commons-collections4)
. "$root/scripts/workdir.sh"
workdir verify
cargo build -q --release -p ferrosuite --manifest-path "$root/Cargo.toml"
"$root/scripts/java-tools.sh" "$work/tools"
status=0
for j in "${jars[@]}"; do
  rm -rf "$work/$j"
  "$root/target/release/ferrosuite" instrument -c "/usr/share/java/$j.jar" -o "$work/$j" | head -2 | sed "s/^/$j: /"
  if ! java -Xverify:all -cp "$work/tools:$work/$j" ferrosuite.tools.VerifyAll "$work/$j" | tail -3 | sed "s/^/$j: /"; then
    status=1
  fi
done
exit $status
