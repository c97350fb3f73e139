#!/bin/sh
# One node against three on one throwaway PostgreSQL database: runs started per second and event latency across
# nodes, through the packaged server jar (see NodesBench.java and docs/benchmarks.md).
# Usage: bench/nodes/run.sh [topologies=1,3] [clients=8] [runsPerClient=25] [lines=1000] [rate=50] [warmup=2]
# PostgreSQL admin URL: AW_BENCH_PG_URL (default jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres).
set -eu
cd "$(dirname "$0")/../.."
. scripts/jdk.sh
./mvnw -B -q -o -pl workspace-server -am package -DskipTests -Dskip.web
exec "$JAVA_HOME/bin/java" -cp 'workspace-server/target/libs/*' bench/nodes/NodesBench.java \
  workspace-server/target/workspace-server.jar workspace-server/target/libs "$@"
