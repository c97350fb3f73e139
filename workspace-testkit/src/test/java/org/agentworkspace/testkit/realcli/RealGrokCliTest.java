package org.agentworkspace.testkit.realcli;

/** The real grok CLI (npm grok) against the mock LLM. */
class RealGrokCliTest extends RealCliScenarios {
    RealGrokCliTest() {
        super("grok");
    }
}
