#!/bin/sh
# What the shared run caps cost a run's start on PostgreSQL (see AdmissionBench.java, docs/benchmarks.md).
# Usage: bench/runs/admission.sh [adminJdbcUrl=jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres] [n=300]
set -eu
cd "$(dirname "$0")/../.."
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export JAVA_HOME
cp_file=$(mktemp)
trap 'rm -f "$cp_file"' EXIT
./mvnw -B -q -o -pl workspace-core -am package -DskipTests dependency:build-classpath -Dmdep.outputFile="$cp_file" \
    -Dmdep.includeScope=runtime
exec "$JAVA_HOME/bin/java" -Xmx512m --enable-native-access=ALL-UNNAMED \
  -cp "workspace-core/target/classes:$(cat "$cp_file")" bench/runs/AdmissionBench.java "$@"
