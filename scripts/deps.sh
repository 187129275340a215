#!/usr/bin/env bash
# Installs the Debian packages ferrosuite's tests use (a JDK, the subject jars, JaCoCo, ASM, Graphviz,
# JUnit 5, Mockito, Maven) when any is missing. Needs root (or sudo) and apt; does nothing when all
# are present.
set -euo pipefail
if ! command -v dpkg-query > /dev/null || ! command -v apt-get > /dev/null; then
  # Not Debian: check what the scripts use instead of installing it.
  need=(/usr/share/java/junit-jupiter-api.jar /usr/share/java/junit-platform-console-standalone.jar
        /usr/share/java/commons-lang3.jar /usr/share/java/guava.jar)
  missing=()
  command -v javac > /dev/null || missing+=(javac)
  for f in "${need[@]}"; do [ -f "$f" ] || missing+=("$f"); done
  [ ${#missing[@]} -eq 0 ] && exit 0
  echo "deps: missing ${missing[*]} (and apt is not available to install them): install a JDK," \
    "and JUnit 5 and the subject jars under /usr/share/java as Debian's packages lay them out" >&2
  exit 1
fi
pkgs=(default-jdk-headless unzip libcommons-lang3-java libguava-java libjoda-time-java libcommons-math3-java
      libcommons-collections4-java libjacoco-java libasm-java junit5 junit4 libmockito-java graphviz maven)
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
if [ "$(id -u)" != 0 ]; then
  command -v sudo > /dev/null || {
    echo "deps: missing packages ${missing[*]}: install them as root (apt-get install ${missing[*]})" >&2
    exit 1
  }
  sudo=sudo
fi
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
