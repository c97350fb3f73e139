#!/usr/bin/env bash
# Starts the testkit's mock LLM (docs/testkit.md "The mock LLM") on 127.0.0.1: a scripted endpoint speaking the
# Anthropic, OpenAI (Chat and Responses) and Gemini APIs, for trying the service without a provider account.
#   scripts/mock-llm.sh --port 8787 [--log FILE] [--delta-delay-ms N]
# Builds the testkit's runner jar (the testkit and every library it needs, in one jar) when it is missing or older
# than the testkit's sources, then runs org.agentworkspace.testkit.mockllm.MockLlmServer from it. Stop it with
# Ctrl-C. Point a provider's base URL at http://127.0.0.1:PORT (any API key is accepted and recorded redacted).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jdk.sh

jar=$(ls workspace-testkit/target/workspace-testkit-*-runner.jar 2>/dev/null | head -n1 || true)
if [ -z "$jar" ] || [ ! -f "$jar" ] || [ -n "$(find pom.xml workspace-testkit/pom.xml workspace-testkit/src/main -newer "$jar" -print -quit 2>/dev/null)" ]; then
  echo "building the testkit's runner jar (first run, or sources changed)..." >&2
  # package only: nothing is installed into the local Maven repository
  ./mvnw -q -B -ntp -DskipTests -pl workspace-testkit -am package >&2
  jar=$(ls workspace-testkit/target/workspace-testkit-*-runner.jar | head -n1)
fi
exec "$JAVA_HOME/bin/java" -cp "$jar" org.agentworkspace.testkit.mockllm.MockLlmServer "$@"
