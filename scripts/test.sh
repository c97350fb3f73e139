#!/usr/bin/env bash
# Runs every test: unit and store tests (SQLite, and PostgreSQL when one answers on 127.0.0.1:5432), the server's
# security tests, the contract suite against the embedded server, and the module-path launch check; first the
# OpenAPI linter over docs/openapi.yaml (scripts/lint-openapi.sh), so a lint finding fails the command.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jdk.sh
echo "using JDK at $JAVA_HOME" >&2
scripts/lint-openapi.sh
exec ./mvnw -B -ntp verify "$@"
