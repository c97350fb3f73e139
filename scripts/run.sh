#!/usr/bin/env bash
# Builds the server when its sources changed since the last build, then starts it, and supervises it: when the
# server exits with code 42 (POST /api/system/restart, or a self-update that pulled new code) it is rebuilt if its
# sources changed (a failed rebuild starts the previous build again) and started again with the same options. When it
# crashed (3: the JVM ran out of memory; 70: a thread the service cannot live without died; 134: the JVM aborted) it
# is started again after a back-off of 1 s, doubling up to 60 s while it keeps crashing within a minute of its start.
# Any other exit status (0 after SIGTERM or Ctrl-C, 1 cannot start, 2 bad options) ends this script with that status.
# docs/configuration.md "Exit status and restarts".
# Defaults: http://127.0.0.1:3001, data in ~/.agent-workspace. Options: scripts/run.sh --help (or docs/configuration.md).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jdk.sh

# the exit status by which the server asks to be started again (docs/system-update.md)
restart_code=42
# the exit statuses of a crash, after which the server is started again with a back-off
crash_codes=" 3 70 134 "
backoff=1

build_if_stale() {
  local jar=workspace-server/target/workspace-server.jar stale=1
  if [ -f "$jar" ] && [ -d workspace-server/target/libs ]; then
    stale=0
    if [ -n "$(find pom.xml docs/openapi.yaml workspace-*/pom.xml workspace-*/src/main workspace-web/src workspace-web/sw \
        workspace-web/public workspace-web/index.html workspace-web/package-lock.json -newer "$jar" -print -quit 2>/dev/null)" ]; then
      stale=1
    fi
  fi
  if [ "$stale" = 1 ]; then
    # the web UI is built with this machine's Node and npm (workspace-web/build.sh): stop here when they are missing
    # or too old, with the reason, unless the UI is skipped (AW_SKIP_WEB=1: the server then serves only the API)
    local web_opt=""
    if [ "${AW_SKIP_WEB:-}" = 1 ]; then
      web_opt="-Dskip.web"
    elif [ -f workspace-web/build.sh ] && ! bash workspace-web/build.sh --check; then
      return 1
    fi
    echo "building the server (first run, or sources changed)..." >&2
    # package, not install: the server runs from workspace-server/target (its jar and libs/), nothing is needed in
    # ~/.m2, and the integration-test phase (the browser test) is never reached
    ./mvnw -q -B -DskipTests $web_opt -pl workspace-server -am package >&2
  fi
}

# JVM flags (memory limits, start-up cache): scripts/jvm-opts.sh, shared with bench/history/run.sh; AW_JAVA_OPTS
# replaces them. The start-up cache (a JDK 25 AOT cache next to the jar) is written by scripts/aot-cache.sh once per
# build, before the first start; when it cannot be written the server starts without it, only slower.
. scripts/jvm-opts.sh

# --help only prints the server's options: no supervision
for arg in "$@"; do
  if [ "$arg" = "--help" ] || [ "$arg" = "help" ]; then
    build_if_stale
    exec "$JAVA_HOME/bin/java" -jar "$AW_SERVER_JAR" --help
  fi
done

# SIGINT (Ctrl-C), SIGTERM and SIGHUP reach the server as SIGTERM (it shuts down gracefully; a background child of a
# script ignores SIGINT), and the loop then ends with the server's status
child=""
stopping=0
forward() {
  stopping=1
  if [ -n "$child" ]; then
    kill -TERM "$child" 2>/dev/null || true
  fi
}
trap forward TERM INT HUP

first=1
while true; do
  if [ "$first" = 1 ]; then
    build_if_stale
  elif ! build_if_stale; then
    # after a restart (a git self-update, say) a failed build must not leave the service down: the previous build
    # starts again (its version on /health tells clients the update did not take), and the next restart retries
    echo "agent-workspace: the rebuild failed; starting the previous build" >&2
  fi
  first=0
  if [ -z "${AW_JAVA_OPTS:-}" ]; then
    scripts/aot-cache.sh || echo "starting without the start-up cache" >&2
  fi
  read -r -a java_opts <<< "$(aw_server_java_opts)"
  started=$SECONDS
  "$JAVA_HOME/bin/java" "${java_opts[@]}" -jar "$AW_SERVER_JAR" "$@" &
  child=$!
  status=0
  # wait returns early (status > 128) when a trapped signal arrives: wait again until the server has exited
  while true; do
    wait "$child" && status=0 || status=$?
    if ! kill -0 "$child" 2>/dev/null; then
      break
    fi
  done
  child=""
  if [ "$stopping" = 1 ]; then
    exit "$status"
  fi
  if [ "$status" = "$restart_code" ]; then
    echo "agent-workspace: restart requested (exit $restart_code); starting again..." >&2
    backoff=1
    continue
  fi
  case "$crash_codes" in
    *" $status "*) ;;
    *) exit "$status" ;;
  esac
  # a server that ran for a minute before it crashed starts again at once-ish; one that keeps crashing waits longer
  if [ $((SECONDS - started)) -ge 60 ]; then
    backoff=1
  fi
  echo "agent-workspace: the server crashed (exit $status); starting it again in ${backoff} s..." >&2
  sleep "$backoff" &
  wait $! || true
  if [ "$stopping" = 1 ]; then
    exit "$status"
  fi
  backoff=$((backoff * 2 > 60 ? 60 : backoff * 2))
done
