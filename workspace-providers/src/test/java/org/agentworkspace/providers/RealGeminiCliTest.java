package org.agentworkspace.providers;

import java.util.List;
import org.agentworkspace.api.provider.PermissionMode;
import org.agentworkspace.api.provider.ProviderId;

/** Our gemini plan against the real CLI and the mock LLM. */
class RealGeminiCliTest extends RealCliRun {
    RealGeminiCliTest() {
        super(ProviderId.GEMINI, "gemini-2.5-flash", "", List.of(PermissionMode.ACCEPT_EDITS, PermissionMode.BYPASS));
    }
}
