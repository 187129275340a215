#!/usr/bin/env bash
# The crates that must not need a JDK build without one, and those that must not pull in a JVM
# do not: builds ferrosuite-bytecode, -cfg, -testcase, -executor, -fitness, -search, -mio,
# -cling and -emit with no `java`, `javac` or other JDK tool on PATH and no JAVA_HOME (a PATH of links to
# every other program), then checks with `cargo tree` (normal, build and dev edges) that neither
# ferrosuite-fitness nor ferrosuite-emit depends on `jni` or on the JVM host.
#
#   scripts/no-jdk-build.sh        # target directory: target/no-jdk
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
shim=$(mktemp -d)
trap 'rm -rf "$shim"' EXIT
jdk_tools=" java javac javadoc javap jar jarsigner jshell jlink jmod jdeps jdb jcmd jconsole jinfo jmap jps jstack jstat jstatd jhsdb jfr jpackage jrunscript keytool rmiregistry serialver "
IFS=: read -r -a dirs <<< "$PATH"
for dir in "${dirs[@]}"; do
    [ -d "$dir" ] || continue
    for f in "$dir"/*; do
        b=${f##*/}
        [[ $jdk_tools == *" $b "* ]] && continue
        [ -x "$f" ] && [ ! -e "$shim/$b" ] && ln -s "$f" "$shim/$b"
    done
done
crates=(ferrosuite-bytecode ferrosuite-cfg ferrosuite-testcase ferrosuite-executor
        ferrosuite-fitness ferrosuite-search ferrosuite-mio ferrosuite-cling ferrosuite-emit
        ferrosuite-mocking)
args=()
for c in "${crates[@]}"; do args+=(-p "$c"); done
env -i HOME="$HOME" PATH="$shim" CARGO_TARGET_DIR="$root/target/no-jdk" \
    ${RUSTUP_HOME:+RUSTUP_HOME=$RUSTUP_HOME} ${CARGO_HOME:+CARGO_HOME=$CARGO_HOME} bash -c '
    set -euo pipefail
    if command -v java > /dev/null || command -v javac > /dev/null || [ -n "${JAVA_HOME:-}" ]; then
        echo "no-jdk-build: a JDK is still reachable" >&2
        exit 1
    fi
    cargo build -q "$@"
' bash "${args[@]}"
echo "built without a JDK: ${crates[*]}"
for c in ferrosuite-fitness ferrosuite-emit; do
    tree=$(cargo tree -q -p "$c" -e normal,build,dev)
    if grep -qE '^[^a-z]*(jni|ferrosuite-exec|ferrosuite-runtime) ' <<< "$tree"; then
        echo "no-jdk-build: $c depends on the JVM:" >&2
        grep -E '(jni|ferrosuite-exec|ferrosuite-runtime) ' <<< "$tree" >&2
        exit 1
    fi
    echo "cargo tree -p $c: no jni, no ferrosuite-exec, no ferrosuite-runtime"
done
