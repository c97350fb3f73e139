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
# JVM flags (memory limits, start-up cache): scripts/jvm-opts.sh, shared with bench/history/run.sh; AW_JAVA_OPTS
# replaces them. The start-up cache (a JDK 25 AOT cache next to the jar) is written by scripts/aot-cache.sh once per
# build, before the first start; when it cannot be written the server starts without it, only slower.
. scripts/jvm-opts.sh
if [ -z "${AW_JAVA_OPTS:-}" ]; then
  scripts/aot-cache.sh || echo "starting without the start-up cache" >&2
fi
read -r -a java_opts <<< "$(aw_server_java_opts)"
exec "$JAVA_HOME/bin/java" "${java_opts[@]}" -jar "$AW_SERVER_JAR" "$@"
