#!/bin/sh
# Git status/diff benchmark: JGit (workspace-git) against the git command on one generated repository.
# Usage: bench/git/run.sh [files=50000] [changed=1000] [runs=5]
set -eu
cd "$(dirname "$0")/../.."
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export JAVA_HOME
cp_file=$(mktemp)
trap 'rm -f "$cp_file"' EXIT
# one reactor build: the sibling modules resolve from their target/ folders, so nothing is installed into ~/.m2;
# the classpath file is written per module, workspace-git (built last) writes it last
./mvnw -B -q -pl workspace-git -am package -DskipTests dependency:build-classpath -Dmdep.outputFile="$cp_file" \
    -Dmdep.includeScope=runtime
exec "$JAVA_HOME/bin/java" -Xmx1g -cp "workspace-git/target/classes:$(cat "$cp_file")" bench/git/GitBench.java "$@"
