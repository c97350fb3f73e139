#!/usr/bin/env bash
# Server start-up: process start -> first /health and -> first complete project list, fresh and restarted, over a
# small generated history, with the JVM flags and start-up cache of scripts/run.sh (see StartupBench.java and
# docs/benchmarks.md "Start-up").
# Usage: bench/startup/run.sh [runs=7]
# Environment: AW_BENCH_JAVA_OPTS (the server's JVM options; default those of scripts/run.sh, start-up cache
#              included; " " for the JVM's defaults), AW_BENCH_CACHE (~/.cache/agent-workspace).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/jdk.sh
# build only when a source is newer than the jar (a rebuild rewrites the jars, and the start-up cache with them)
if [ ! -f workspace-server/target/workspace-server.jar ] || ! ls workspace-testkit/target/workspace-testkit-*-runner.jar \
    >/dev/null 2>&1 || [ -n "$(find pom.xml docs/openapi.yaml workspace-*/pom.xml workspace-*/src/main \
    -newer workspace-server/target/workspace-server.jar -print -quit 2>/dev/null)" ]; then
    ./mvnw -B -q -pl workspace-server,workspace-testkit -am package -DskipTests
fi
. scripts/jvm-opts.sh
if [ -z "${AW_BENCH_JAVA_OPTS:-}" ] && [ -z "${AW_JAVA_OPTS:-}" ]; then
    scripts/aot-cache.sh || echo "benchmarking without the start-up cache" >&2
fi
AW_BENCH_JAVA_OPTS=${AW_BENCH_JAVA_OPTS:-$(aw_server_java_opts)}
export AW_BENCH_JAVA_OPTS MALLOC_ARENA_MAX
runner=$(ls workspace-testkit/target/workspace-testkit-*-runner.jar | head -n 1)
version=$("$JAVA_HOME/bin/java" -cp "$runner" org.agentworkspace.testkit.historygen.Main --version)
home="${AW_BENCH_CACHE:-$HOME/.cache/agent-workspace}/history-30m-p10-s300-seed1-v$version"
if [ ! -f "$home/aw-historygen-manifest.json" ]; then
    rm -rf "$home.partial"
    "$JAVA_HOME/bin/java" -cp "$runner" org.agentworkspace.testkit.historygen.Main --out "$home.partial" \
        --projects 10 --sessions 300 --target-bytes 30m --seed 1
    rm -rf "$home"
    mv "$home.partial" "$home"
fi
exec "$JAVA_HOME/bin/java" -cp "$runner" bench/startup/StartupBench.java "$AW_SERVER_JAR" "$home" "$@"
