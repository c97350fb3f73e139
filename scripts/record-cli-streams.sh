#!/bin/sh
# Re-records the golden streams and history files of the real coding-agent CLIs against the mock LLM into
# workspace-testkit/src/main/resources/org/agentworkspace/testkit/recordings/ (see docs/testkit.md).
# Usage: scripts/record-cli-streams.sh [--providers claude,codex,gemini,qwen,opencode,grok] [--port 18787]
# Needs node + npm on PATH (the CLIs are installed into ${AW_E2E_CACHE:-~/.cache/agent-workspace/cli-e2e}).
# Uses (deletes and recreates) /tmp/aw-project and /tmp/aw-home.
set -eu
cd "$(dirname "$0")/.."
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
./mvnw -B -q -pl workspace-testkit -am compile
./mvnw -B -q -pl workspace-testkit dependency:build-classpath -Dmdep.outputFile=target/testkit.classpath
exec "$JAVA_HOME/bin/java" -cp "workspace-testkit/target/classes:$(cat workspace-testkit/target/testkit.classpath)" \
  org.agentworkspace.testkit.realcli.RecordCliStreams \
  --out workspace-testkit/src/main/resources/org/agentworkspace/testkit/recordings "$@"
