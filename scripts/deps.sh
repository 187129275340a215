#!/usr/bin/env bash
# Installs the Debian packages ferrosuite's tests use (a JDK, the subject jars, JaCoCo, ASM, Graphviz,
# JUnit 5, Mockito) when any is missing. Needs root (or sudo) and apt; does nothing when all
# are present.
set -euo pipefail
pkgs=(default-jdk-headless unzip libcommons-lang3-java libguava-java libjoda-time-java libcommons-math3-java
      libcommons-collections4-java libjacoco-java libasm-java junit5 junit4 libmockito-java graphviz)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# A JDK that is not Debian's (e.g. /usr/lib/jvm/temurin) is fine: only install one when javac is absent.
if command -v javac > /dev/null; then
  missing=("${missing[@]/default-jdk-headless}")
fi
missing=($(printf '%s\n' "${missing[@]}" | grep -v '^$' || true))
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
