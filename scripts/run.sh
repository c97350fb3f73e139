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
exec "$JAVA_HOME/bin/java" -jar "$jar" "$@"
