package org.agentworkspace.testkit.realcli;

/** The real qwen CLI (npm qwen) against the mock LLM. */
class RealQwenCliTest extends RealCliScenarios {
    RealQwenCliTest() {
        super("qwen");
    }
}
