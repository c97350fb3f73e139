package org.agentworkspace.testkit.realcli;

/** The real codex CLI (npm codex) against the mock LLM. */
class RealCodexCliTest extends RealCliScenarios {
    RealCodexCliTest() {
        super("codex");
    }
}
