package org.agentworkspace.testkit.realcli;

/** The real claude CLI (npm claude) against the mock LLM. */
class RealClaudeCliTest extends RealCliScenarios {
    RealClaudeCliTest() {
        super("claude");
    }
}
