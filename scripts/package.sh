#!/usr/bin/env bash
# Makes a runtime-dir update package of the current build, and its manifest (docs/system-update.md):
#   dist/agent-workspace-<version>.zip   workspace-server.jar and libs/ from workspace-server/target
#   dist/manifest.json                   {"version", "url", "sha256", "size"} (url relative to the manifest)
#   dist/manifest.json.sig               with --sign KEY: the Ed25519 signature of manifest.json (openssl), base64
# Publish the three files side by side; servers started with --update-url <.../manifest.json> (and
# --update-public-key when signed) install the package on POST /api/system/update.
# Usage: scripts/package.sh [--out DIR] [--sign ED25519_PRIVATE_KEY_PEM]     (build first: scripts/run.sh or ./mvnw package)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jdk.sh

out=dist
key=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --sign) key="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

target=workspace-server/target
if [ ! -f "$target/workspace-server.jar" ] || [ ! -d "$target/libs" ]; then
  echo "no server build in $target (build it first: ./mvnw -B -DskipTests package)" >&2
  exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/aw-package.XXXXXX")
trap 'rm -rf "$work"' EXIT

# the version the server reports on /health (its build.properties, without a -SNAPSHOT suffix)
(cd "$work" && "$JAVA_HOME/bin/jar" xf "$OLDPWD/$target/workspace-server.jar" org/agentworkspace/server/build.properties)
version=$(sed -n 's/^version=\([0-9]*\.[0-9]*\.[0-9]*\).*/\1/p' "$work/org/agentworkspace/server/build.properties")
if [ -z "$version" ]; then
  echo "cannot read the version from $target/workspace-server.jar" >&2
  exit 1
fi

mkdir -p "$work/pkg" "$out"
cp "$target/workspace-server.jar" "$work/pkg/"
cp -r "$target/libs" "$work/pkg/"
name="agent-workspace-$version.zip"
rm -f "$out/$name.partial"
"$JAVA_HOME/bin/jar" --create --no-manifest --file "$out/$name.partial" -C "$work/pkg" .
mv "$out/$name.partial" "$out/$name"
sha=$(sha256sum "$out/$name" | cut -d' ' -f1)
size=$(stat -c %s "$out/$name")
printf '{"version":"%s","url":"%s","sha256":"%s","size":%s}\n' "$version" "$name" "$sha" "$size" > "$out/manifest.json.partial"
mv "$out/manifest.json.partial" "$out/manifest.json"
rm -f "$out/manifest.json.sig"
if [ -n "$key" ]; then
  openssl pkeyutl -sign -inkey "$key" -rawin -in "$out/manifest.json" | base64 -w0 > "$out/manifest.json.sig"
fi
echo "$out/$name ($size bytes, sha256 $sha)"
echo "$out/manifest.json${key:+ and $out/manifest.json.sig}"
