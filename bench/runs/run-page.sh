#!/bin/sh
# A page of 200 runs out of one user's 5,000: stored outcome + log tails against log replay (see RunPageBench.java).
# Usage: bench/runs/run-page.sh [runs=5000] [entries=500]
# Builds nothing into ~/.m2: it compiles workspace-api and workspace-core in the reactor and runs on their classes.
set -eu
cd "$(dirname "$0")/../.."
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export JAVA_HOME
cp_file=$(mktemp)
trap 'rm -f "$cp_file"' EXIT
./mvnw -B -q -o -pl workspace-core -am compile dependency:build-classpath -Dskip.web \
  -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=runtime
exec "$JAVA_HOME/bin/java" -Xmx512m --enable-native-access=ALL-UNNAMED \
  -cp "workspace-api/target/classes:workspace-core/target/classes:$(cat "$cp_file")" bench/runs/RunPageBench.java "$@"
