#!/usr/bin/env bash
# Lints docs/openapi.yaml with Redocly CLI (tools/openapi-lint: the version pinned by its committed package-lock.json,
# installed with `npm ci` from the npm registry; the rules and the justified exceptions are in its redocly.yaml).
# Exits non-zero on any finding. Needs node (20.19+ or 22.12+) and npm; scripts/test.sh runs this first.
set -euo pipefail
cd "$(dirname "$0")/../tools/openapi-lint"
if ! command -v npm >/dev/null 2>&1; then
    echo "lint-openapi: npm is not installed (Node.js 20.19+ or 22.12+ is needed to lint docs/openapi.yaml)" >&2
    exit 1
fi
# Redocly CLI's usage telemetry and update check would reach beyond the npm registry: both off.
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
npm ci --prefer-offline --no-audit --no-fund --ignore-scripts --loglevel=error >&2
exec npx --no-install redocly lint --config redocly.yaml ../../docs/openapi.yaml
