#!/usr/bin/env bash
# How well this machine runs two JVMs at once: an allocation-heavy Java loop (strings, a list,
# hash codes: the kind of work a test of a library class does) alone, then two copies at the
# same time. Prints the milliseconds of each run; the ceiling for the 1 -> 2 worker speed-up
# of the execution host is 2 * alone / together. Usage: benches/scripts/jvm-scaling.sh [iterations]
set -euo pipefail
n=${1:-100000000}
dir=$(mktemp -d /tmp/ferrosuite-jvm-scaling.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/Spin.java" <<'JAVA'
public class Spin {
    public static void main(String[] a) {
        long n = Long.parseLong(a[0]);
        long t0 = System.nanoTime();
        long acc = 0;
        java.util.ArrayList<String> l = new java.util.ArrayList<>();
        for (long i = 0; i < n; i++) {
            String s = "x" + (i % 1000);
            l.add(s);
            if (l.size() > 100) l.clear();
            acc += s.hashCode();
        }
        System.out.println((System.nanoTime() - t0) / 1000000 + " ms (checksum " + acc + ")");
    }
}
JAVA
javac -d "$dir" "$dir/Spin.java"
run() { java -XX:TieredStopAtLevel=1 -cp "$dir" Spin "$n"; }
echo "alone:    $(run)"
run > "$dir/a" & run > "$dir/b"; wait
echo "together: $(cat "$dir/a"); $(cat "$dir/b")"
