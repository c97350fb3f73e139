#!/bin/sh
# Agent runs over SSE through the server jar (see AgentSseBench.java and docs/benchmarks.md).
# Usage: bench/agent/run.sh [runs=20] [events=10000] [rate=0]
set -eu
cd "$(dirname "$0")/../.."
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export JAVA_HOME
./mvnw -B -q -o -pl workspace-server -am package -DskipTests
exec "$JAVA_HOME/bin/java" bench/agent/AgentSseBench.java workspace-server/target/workspace-server.jar "$@"
