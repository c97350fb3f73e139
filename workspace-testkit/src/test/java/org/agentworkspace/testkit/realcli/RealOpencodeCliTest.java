package org.agentworkspace.testkit.realcli;

/** The real opencode CLI (npm opencode) against the mock LLM. */
class RealOpencodeCliTest extends RealCliScenarios {
    RealOpencodeCliTest() {
        super("opencode");
    }
}
