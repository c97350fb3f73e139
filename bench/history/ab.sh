#!/usr/bin/env bash
# Alternating A/B of the history index's first full read, without any HTTP client: each checkout's built server
# (workspace-server/target, with its start-up cache when present) is started on a fresh data directory over the
# benchmark HOME of bench/history/run.sh, and timed from the JVM's start until it logs "history index ready"; the
# process's user/system CPU time at that moment and the server's own listing time are printed too. Runs alternate A, B, A, B… so that a machine
# whose speed drifts treats both alike (docs/benchmarks.md, run 13).
# Usage: bench/history/ab.sh CHECKOUT_A CHECKOUT_B [rounds=3]
#        (build each first, e.g. `./mvnw -o -q install -DskipTests` and `scripts/aot-cache.sh` in it; run
#        bench/history/run.sh once to generate the HOME)
# Environment: AW_BENCH_HOME (default: the run.sh HOME for seed 42, 2 GB), AW_BENCH_EXTRA (more JVM flags).
set -eu
a=$(cd "$1" && pwd); b=$(cd "$2" && pwd); rounds=${3:-3}
cd "$(dirname "$0")/../.."
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export JAVA_HOME
. scripts/jdk.sh
home=${AW_BENCH_HOME:-$HOME/.cache/agent-workspace/history-2g-p100-s10000-seed42-v1}
[ -f "$home/aw-historygen-manifest.json" ] || { echo "no benchmark HOME at $home: run bench/history/run.sh once" >&2; exit 1; }
one() {
    local repo=$1 data log pid t0 t1 i stat
    data=$(mktemp -d "${TMPDIR:-/tmp}/aw-ab.XXXXXX")
    log=$data/server.log
    # each checkout's own flags and start-up cache
    local opts
    opts=$(cd "$repo" && . scripts/jvm-opts.sh && aw_server_java_opts)
    t0=$(date +%s%N)
    (cd "$repo" && exec "$JAVA_HOME/bin/java" $opts ${AW_BENCH_EXTRA:-} -jar workspace-server/target/workspace-server.jar \
        --port 0 --data-dir "$data/data" --history-home "$home") > "$log" 2>&1 &
    pid=$!
    for i in $(seq 1 6000); do
        grep -q "history index ready: [1-9]" "$log" 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    t1=$(date +%s%N)
    stat=$(cut -d' ' -f14,15 "/proc/$pid/stat" 2>/dev/null || echo "0 0")
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    printf '%-40s ready after %6.2f s   CPU user %5.1f s, system %4.1f s   %s\n' "$repo" \
        "$(echo "($t1 - $t0) / 1000000000" | bc -l)" "$(echo "${stat% *} / 100" | bc -l)" \
        "$(echo "${stat#* } / 100" | bc -l)" "$(grep -o 'history listed in [0-9,]* ms' "$log" | head -n 1)"
    rm -rf "$data"
}
for r in $(seq 1 "$rounds"); do
    one "$a"
    one "$b"
done
