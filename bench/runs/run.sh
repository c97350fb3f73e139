#!/bin/sh
# Run engine benchmark: concurrent runs of a timestamping emitter, followed while they write (see RunBench.java).
# Usage: bench/runs/run.sh [runs=20] [events=10000] [rate=0] [lingerMs=0] [jdbcUrl|sqlite] [batch]
set -eu
cd "$(dirname "$0")/../.."
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export JAVA_HOME
cp_file=$(mktemp)
trap 'rm -f "$cp_file"' EXIT
# one reactor build: the sibling modules resolve from their target/ folders, so nothing is installed into ~/.m2;
# the classpath file is written per module, workspace-core (built last) writes it last
./mvnw -B -q -o -pl workspace-core -am package -DskipTests dependency:build-classpath -Dmdep.outputFile="$cp_file" \
    -Dmdep.includeScope=runtime
exec "$JAVA_HOME/bin/java" -Xmx512m --enable-native-access=ALL-UNNAMED \
  -cp "workspace-core/target/classes:$(cat "$cp_file")" bench/runs/RunBench.java "$@"
