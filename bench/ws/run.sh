#!/bin/sh
# Live chat over /ws under load through the server jar (see WsLoadBench.java and docs/benchmarks.md).
# Usage: bench/ws/run.sh [runs=20] [subscribers-per-run=10] [events=1000] [rate=40] [users=runs]
#        bench/ws/run.sh selftest      # the frame parser and the verifier against synthetic broken streams
# Extra server arguments: AW_WS_BENCH_SERVER_ARGS="--option value ..."; server JVM options: AW_WS_BENCH_JVM_ARGS="-Xmx256m"
set -eu
cd "$(dirname "$0")/../.."
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export JAVA_HOME
if [ "${1:-}" = selftest ]; then
    exec "$JAVA_HOME/bin/java" bench/ws/WsLoadBench.java selftest
fi
./mvnw -B -q -o -pl workspace-server -am package -DskipTests
exec "$JAVA_HOME/bin/java" bench/ws/WsLoadBench.java workspace-server/target/workspace-server.jar "$@"
