#!/usr/bin/env bash
# Builds the server when its sources changed since the last build, then starts it.
# Defaults: http://127.0.0.1:3001, data in ~/.agent-workspace. Options: scripts/run.sh --help (or docs/configuration.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jdk.sh

jar=workspace-server/target/workspace-server.jar
stale=1
if [ -f "$jar" ] && [ -d workspace-server/target/libs ]; then
  stale=0
  if [ -n "$(find pom.xml docs/openapi.yaml workspace-*/pom.xml workspace-*/src/main -newer "$jar" -print -quit 2>/dev/null)" ]; then
    stale=1
  fi
fi
if [ "$stale" = 1 ]; then
  echo "building the server (first run, or sources changed)..." >&2
  ./mvnw -q -B -DskipTests -pl workspace-server -am install >&2
fi
# Memory: a capped heap and the serial collector keep the process small while the history index reads a large
# history (targets: under 250 MB resident while indexing, 150 MB idle; docs/configuration.md "Memory").
# AW_JAVA_OPTS replaces these flags.
# Start-up: an application class-data archive next to the jar (written when the server exits the first time, and
# again whenever the jar changed) roughly halves the time to the first answer.
read -r -a java_opts <<< "${AW_JAVA_OPTS:--Xms32m -Xmx128m -XX:+UseSerialGC -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30 -XX:MaxMetaspaceSize=128m -XX:ReservedCodeCacheSize=64m -Xss512k -XX:+AutoCreateSharedArchive -XX:SharedArchiveFile=workspace-server/target/workspace-server.jsa -Xlog:cds=error}"
# fewer glibc malloc arenas: SQLite's native allocations from several threads otherwise fragment into many
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
exec "$JAVA_HOME/bin/java" "${java_opts[@]}" -jar "$jar" "$@"
