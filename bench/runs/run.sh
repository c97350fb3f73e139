#!/bin/sh
# Run engine benchmark: concurrent runs of a timestamping emitter, followed while they write (see RunBench.java).
# Usage: bench/runs/run.sh [runs=20] [events=10000] [rate=0] [lingerMs=0] [jdbcUrl|sqlite] [batch]
set -eu
cd "$(dirname "$0")/../.."
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export JAVA_HOME
./mvnw -B -q -o -pl workspace-core -am install -DskipTests
cp_file=$(mktemp)
trap 'rm -f "$cp_file"' EXIT
./mvnw -B -q -o -pl workspace-core dependency:build-classpath -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=runtime
exec "$JAVA_HOME/bin/java" -Xmx512m --enable-native-access=ALL-UNNAMED \
  -cp "workspace-core/target/classes:$(cat "$cp_file")" bench/runs/RunBench.java "$@"
