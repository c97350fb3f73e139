#!/usr/bin/env bash
# Builds the browser UI with the machine's Node and npm (called by Maven's generate-resources phase, and usable by
# hand): `npm ci` when the lock file changed since the last install, then `vite build` when a source changed since
# the last build. Output: dist/ plus dist/files.txt (the list WebAssets reads). Node itself is never downloaded.
#   build.sh            build (incremental)
#   build.sh --skip     package no UI (engine-only work: -Dskip.web); the server then answers / with its JSON 404
#   build.sh --test     the UI's unit tests (vitest)
#   build.sh --check    only check that Node and npm are there and new enough (scripts/run.sh and test.sh)
set -euo pipefail
cd "$(dirname "$0")"
min_major=20 min_minor=19

if [ "${1:-}" = "--skip" ]; then
  rm -rf dist && mkdir -p dist && : > dist/files.txt
  echo "workspace-web: UI build skipped (-Dskip.web); the server will serve no UI" >&2
  exit 0
fi

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "workspace-web: Node.js ${min_major}.${min_minor} or newer and npm are needed to build the web UI, and none was found on PATH." >&2
  echo "  Install them (Debian: apt-get install nodejs npm; or nodejs.org), or build without the UI: -Dskip.web" >&2
  exit 1
fi
ver=$(node -p 'process.versions.node')
major=${ver%%.*}; rest=${ver#*.}; minor=${rest%%.*}
if [ "$major" -lt "$min_major" ] || { [ "$major" -eq "$min_major" ] && [ "$minor" -lt "$min_minor" ]; }; then
  echo "workspace-web: Node.js $ver is too old; the web UI needs ${min_major}.${min_minor} or newer (or build with -Dskip.web)" >&2
  exit 1
fi

if [ "${1:-}" = "--check" ]; then
  exit 0
fi

lock_hash=$(sha256sum package-lock.json | cut -c1-64)
if [ ! -f node_modules/.aw-lock-hash ] || [ "$(cat node_modules/.aw-lock-hash)" != "$lock_hash" ]; then
  echo "workspace-web: npm ci" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$lock_hash" > node_modules/.aw-lock-hash
fi

if [ "${1:-}" = "--test" ]; then
  if [ -n "${2:-}" ]; then
    echo "workspace-web: -Dtest=${2} names other tests; the UI's unit tests are not run" >&2
    exit 0
  fi
  exec npx --no-install vitest run
fi

stamp=dist/.aw-build-stamp
if [ -f "$stamp" ] && [ -z "$(find src sw public index.html vite.config.ts tsconfig.json package-lock.json -newer "$stamp" -print -quit 2>/dev/null)" ]; then
  exit 0
fi
echo "workspace-web: building the UI (tsc, vite)" >&2
npx --no-install tsc --noEmit -p . >&2
npx --no-install vite build --logLevel warn >&2
(cd dist && find . -type f ! -name '.aw-*' ! -name 'files.txt' ! -path './.vite/*' | sed 's|^\./||' | sort > files.txt)
touch "$stamp"
