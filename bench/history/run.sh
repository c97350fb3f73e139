#!/usr/bin/env bash
# The history index over a generated 2 GB HOME, through the server jar (see HistoryIndexBench.java and
# docs/benchmarks.md "History index (2 GB)").
# Usage: bench/history/run.sh [requests=50]
# Environment: AW_BENCH_SEED (42), AW_BENCH_BYTES (2g), AW_BENCH_SESSIONS (10000), AW_BENCH_PROJECTS (100),
#              AW_BENCH_CACHE (~/.cache/agent-workspace), AW_BENCH_JAVA_OPTS (the server's JVM options; default
#              the flags scripts/run.sh starts the server with; set it to " " for the JVM's defaults).
set -eu
cd "$(dirname "$0")/../.."
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export JAVA_HOME
./mvnw -B -q -o -pl workspace-server,workspace-testkit -am package -DskipTests
runner=$(ls workspace-testkit/target/workspace-testkit-*-runner.jar | head -n 1)
seed=${AW_BENCH_SEED:-42}
bytes=${AW_BENCH_BYTES:-2g}
sessions=${AW_BENCH_SESSIONS:-10000}
projects=${AW_BENCH_PROJECTS:-100}
version=$("$JAVA_HOME/bin/java" -cp "$runner" org.agentworkspace.testkit.historygen.Main --version)
cache=${AW_BENCH_CACHE:-$HOME/.cache/agent-workspace}
home="$cache/history-$bytes-p$projects-s$sessions-seed$seed-v$version"
if [ ! -f "$home/aw-historygen-manifest.json" ]; then
    # generated once per generator version and options; written aside and renamed when complete
    rm -rf "$home.partial"
    "$JAVA_HOME/bin/java" -Xmx1g -cp "$runner" org.agentworkspace.testkit.historygen.Main --out "$home.partial" \
        --projects "$projects" --sessions "$sessions" --target-bytes "$bytes" --seed "$seed"
    rm -rf "$home"
    mv "$home.partial" "$home"
fi
# the flags, start-up cache and malloc setting scripts/run.sh starts the server with (scripts/jvm-opts.sh)
. scripts/jdk.sh
. scripts/jvm-opts.sh
# also when the options given name the cache: JDK 25 accepted a cache older than a rebuilt jar of the same size and
# ran that jar's OLD classes (seen here), so the cache is brought up to date first
case " ${AW_BENCH_JAVA_OPTS:-} ${AW_JAVA_OPTS:-}" in
    "  "|*AOTCache=*) scripts/aot-cache.sh || echo "benchmarking without the start-up cache" >&2 ;;
esac
AW_BENCH_JAVA_OPTS=${AW_BENCH_JAVA_OPTS:-$(aw_server_java_opts)}
export AW_BENCH_JAVA_OPTS MALLOC_ARENA_MAX
exec "$JAVA_HOME/bin/java" -cp "$runner" bench/history/HistoryIndexBench.java \
    workspace-server/target/workspace-server.jar "$home" "$@"
