package org.agentworkspace.testkit.realcli;

/** The real gemini CLI (npm gemini) against the mock LLM. */
class RealGeminiCliTest extends RealCliScenarios {
    RealGeminiCliTest() {
        super("gemini");
    }
}
