#!/usr/bin/env bash
# Runs every test: unit and store tests (SQLite, and PostgreSQL when one answers on 127.0.0.1:5432), the server's
# security tests, the contract suite against the embedded server, the module-path launch check, the web UI's unit
# tests (vitest) and its browser tests (headless Chromium driven by playwright-core: WebUiBrowserIT); first the
# OpenAPI linter over docs/openapi.yaml (scripts/lint-openapi.sh), so a lint finding fails the command.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jdk.sh
echo "using JDK at $JAVA_HOME" >&2
# the web UI is built and tested with this machine's Node and npm: stop with the reason when they are missing or old
bash workspace-web/build.sh --check
# the browser tests (WebUiBrowserIT) drive Debian's Chromium: install it when missing and possible
if [ -z "${AW_CHROMIUM:-}" ] && ! [ -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium for the browser tests (apt-get)..." >&2
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is missing and cannot be installed here (needs root and apt-get): the browser tests will be skipped" >&2
  fi
fi
scripts/lint-openapi.sh
exec ./mvnw -B -ntp verify "$@"
