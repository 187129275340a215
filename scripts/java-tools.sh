#!/usr/bin/env bash
# Compiles the Java tools in fixtures/tools (verifier, semantics driver, JaCoCo dump, the
# private-member renamer of the PAFM benchmark) into $1 and
# extracts JaCoCo's agent there. Sourced by the other scripts; needs Debian's libjacoco-java and
# libasm-java for the JaCoCo dump.
set -euo pipefail
tools_dir=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
JACOCO_CP=/usr/share/java/org.jacoco.core.jar:/usr/share/java/asm.jar:/usr/share/java/asm-commons.jar:/usr/share/java/asm-tree.jar
mkdir -p "$tools_dir"
javac -nowarn -d "$tools_dir" "$root"/fixtures/tools/ferrosuite/tools/VerifyAll.java "$root"/fixtures/tools/ferrosuite/tools/SemanticsDriver.java
if [ -f /usr/share/java/org.jacoco.core.jar ]; then
  javac -nowarn -cp "$JACOCO_CP" -d "$tools_dir" "$root"/fixtures/tools/ferrosuite/tools/JacocoDump.java \
    "$root"/fixtures/tools/ferrosuite/tools/RenamePrivate.java
  # Debian's org.jacoco.agent.jar is not the agent: the agent is jacocoagent.jar inside it.
  (cd "$tools_dir" && unzip -o -q /usr/share/java/org.jacoco.agent.jar jacocoagent.jar)
fi
