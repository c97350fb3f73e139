# Sourced by scripts/run.sh, scripts/aot-cache.sh and bench/history/run.sh (after scripts/jdk.sh): the server's JVM
# flags in one place, so the benchmark measures exactly what run.sh starts. See docs/configuration.md "Memory" and
# "Start-up".

# Memory: a capped heap and the serial collector keep the process small while the history index reads a large
# history (targets: under 250 MB resident while indexing, 150 MB idle). The heap starts small and gives memory back
# after a burst: a full collection (the index asks for one when it is ready) shrinks it to 30 % free at once
# (-ShrinkHeapInSteps; by default the serial collector gives back 0 % of the excess at the first full collection,
# 10 % at the second, 40 % at the third), and from JDK 22 on the C heap's free pages go back to the system every
# 5 s (TrimNativeHeapInterval). docs/configuration.md "Memory" has the measurements.
AW_MEMORY_OPTS="-Xms32m -Xmx96m -XX:+UseSerialGC -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30 \
-XX:-ShrinkHeapInSteps -XX:MaxMetaspaceSize=128m -XX:ReservedCodeCacheSize=64m -Xss512k"

# Crashes: a JVM that runs out of memory (heap, metaspace, threads) ends at once with status 3 instead of living on
# with dead threads (a listener that no longer accepts, a scheduler that no longer fires); scripts/run.sh, or a service
# manager, then starts it again. docs/configuration.md "Exit status and restarts".
AW_CRASH_OPTS="-XX:+ExitOnOutOfMemoryError"

# JIT: methods are compiled after five times as many calls and loop iterations as the JVM's defaults. On two cores
# the compilers took a third of the machine in the first seconds of indexing a large history, much of it on start-up
# code run only a few thousand times; with the thresholds scaled the C2 compiler used 2.8-3.1 s of CPU instead of
# 4.2-5.1 s over the 2 GB benchmark history, the indexing threads about the same, and request latencies afterwards
# were unchanged (docs/benchmarks.md, run 16).
AW_JIT_OPTS="-XX:CompileThresholdScaling=5"

# The start-up cache next to the jar (scripts/aot-cache.sh writes it).
AW_SERVER_JAR=workspace-server/target/workspace-server.jar
AW_AOT_CACHE=workspace-server/target/workspace-server.aot
AW_CDS_ARCHIVE=workspace-server/target/workspace-server.jsa

# fewer glibc malloc arenas: SQLite's native allocations from several threads otherwise fragment into many
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"

# The feature version of $JAVA_HOME/bin/java (set by jdk.sh).
aw_jdk_major() {
  echo "${AW_JDK_MAJOR:-$(aw_java_major "$JAVA_HOME/bin/java")}"
}
if [ "$(aw_jdk_major)" -ge 22 ] 2>/dev/null; then
  AW_MEMORY_OPTS="$AW_MEMORY_OPTS -XX:TrimNativeHeapInterval=5000"
fi

# Prints the server's JVM flags: AW_JAVA_OPTS when set (it replaces all of them), otherwise the memory, crash and JIT
# flags plus
# the start-up cache: on JDK 25+ the AOT cache when scripts/aot-cache.sh has written one (its notes are not printed:
# a cache the JVM cannot use is only slower, and aot-cache.sh checks each cache it writes with -XX:AOTMode=on);
# on JDK 21-24 the dynamic class-data archive the JVM writes itself on its first exit.
aw_server_java_opts() {
  if [ -n "${AW_JAVA_OPTS:-}" ]; then
    printf '%s\n' "$AW_JAVA_OPTS"
    return
  fi
  local major
  major=$(aw_jdk_major)
  if [ "${major:-0}" -ge 25 ]; then
    if [ -f "$AW_AOT_CACHE" ]; then
      printf '%s\n' "$AW_MEMORY_OPTS $AW_CRASH_OPTS $AW_JIT_OPTS -XX:AOTCache=$AW_AOT_CACHE -Xlog:aot*=off -Xlog:cds*=off"
    else
      printf '%s\n' "$AW_MEMORY_OPTS $AW_CRASH_OPTS $AW_JIT_OPTS"
    fi
  else
    printf '%s\n' "$AW_MEMORY_OPTS $AW_CRASH_OPTS $AW_JIT_OPTS -XX:+AutoCreateSharedArchive -XX:SharedArchiveFile=$AW_CDS_ARCHIVE -Xlog:cds=error"
  fi
}
