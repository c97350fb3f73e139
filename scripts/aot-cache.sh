#!/usr/bin/env bash
# Writes the server's start-up cache, a JDK AOT cache (JEP 483/514/515: classes loaded and linked ahead of time plus
# method profiles), to workspace-server/target/workspace-server.aot when it is missing or stale: older than the
# server jar or one of its libraries, or written by another JDK or with other JVM flags. scripts/run.sh and
# bench/history/run.sh call it; it takes ~20-40 s once per build and nothing when the cache is current.
# How: a training run (scripts/AotTraining.java) of the server with the flags of scripts/jvm-opts.sh on a throwaway
# data directory over a small generated history (workspace-testkit's generator; an empty one when the testkit jar
# is missing), doing what a first session does; then a check that the JVM accepts the cache (-XX:AOTMode=on), and a
# rename into place. On JDK 21-24 it does nothing (run.sh uses the class-data archive there).
# Usage: scripts/aot-cache.sh [--force]      Exit status: 0 when the cache is current, 1 when it could not be made.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jdk.sh
. scripts/jvm-opts.sh

major=$(aw_jdk_major)
if [ "${major:-0}" -lt 25 ]; then
  exit 0
fi
if [ ! -f "$AW_SERVER_JAR" ] || [ ! -d workspace-server/target/libs ]; then
  echo "aot-cache: no server build at $AW_SERVER_JAR (build it first: scripts/run.sh does)" >&2
  exit 1
fi

stamp_file="$AW_AOT_CACHE.stamp"
# what the cache depends on besides the jars: the JDK (its path and build) and the flags
stamp="$JAVA_HOME $(sed -n 's/^JAVA_RUNTIME_VERSION=//p' "$JAVA_HOME/release" 2>/dev/null | tr -d '"') | $AW_MEMORY_OPTS"
if [ "${1:-}" != "--force" ] && [ -f "$AW_AOT_CACHE" ] && [ -f "$stamp_file" ] \
    && [ "$(cat "$stamp_file")" = "$stamp" ] \
    && [ -z "$(find "$AW_SERVER_JAR" workspace-server/target/libs -newer "$AW_AOT_CACHE" -print -quit)" ]; then
  exit 0
fi

echo "preparing the start-up cache (once per build, about half a minute)..." >&2
work=$(mktemp -d "${TMPDIR:-/tmp}/aw-aot.XXXXXX")
partial="$AW_AOT_CACHE.partial-$$"
cleanup() { rm -rf "$work"; rm -f "$partial" "$partial.config"; }
trap cleanup EXIT
rm -f "$AW_AOT_CACHE" "$stamp_file"

mkdir -p "$work/home"
runner=$(ls workspace-testkit/target/workspace-testkit-*-runner.jar 2>/dev/null | head -n 1 || true)
if [ -n "$runner" ]; then
  "$JAVA_HOME/bin/java" -cp "$runner" org.agentworkspace.testkit.historygen.Main --out "$work/home/gen" \
      --projects 10 --sessions 300 --target-bytes 30m --seed 1 > "$work/historygen.log" 2>&1 \
    || { echo "aot-cache: generating the training history failed:" >&2; cat "$work/historygen.log" >&2; exit 1; }
  home="$work/home/gen"
else
  echo "aot-cache: no testkit runner jar; training against an empty history" >&2
  home="$work/home"
fi

read -r -a mem_opts <<< "$AW_MEMORY_OPTS"
if ! "$JAVA_HOME/bin/java" -cp "workspace-server/target/libs/*" scripts/AotTraining.java "$JAVA_HOME/bin/java" \
    "$AW_SERVER_JAR" "$home" "$work/data" "$partial" "$work/server.log" "${mem_opts[@]}" 2> "$work/training.log"; then
  echo "aot-cache: the training run failed; the server starts without the cache. Its output:" >&2
  cat "$work/training.log" >&2
  tail -n 30 "$work/server.log" >&2 || true
  exit 1
fi
if [ ! -s "$partial" ]; then
  echo "aot-cache: the training run wrote no cache; the server starts without it. Server log:" >&2
  tail -n 30 "$work/server.log" >&2
  exit 1
fi
# the JVM must accept the cache with exactly these flags (-XX:AOTMode=on fails instead of falling back)
if ! "$JAVA_HOME/bin/java" "${mem_opts[@]}" -XX:AOTCache="$partial" -XX:AOTMode=on -jar "$AW_SERVER_JAR" --help \
    > /dev/null 2> "$work/check.log"; then
  echo "aot-cache: the JVM does not accept the new cache; the server starts without it:" >&2
  cat "$work/check.log" >&2
  exit 1
fi
mv -f "$partial" "$AW_AOT_CACHE"
printf '%s' "$stamp" > "$stamp_file"
echo "start-up cache written: $AW_AOT_CACHE ($(( $(wc -c < "$AW_AOT_CACHE") / 1048576 )) MB)" >&2
