package org.agentworkspace.providers;

import java.util.List;
import org.agentworkspace.api.provider.PermissionMode;
import org.agentworkspace.api.provider.ProviderId;

/** Our codex plan against the real CLI and the mock LLM. */
class RealCodexCliTest extends RealCliRun {
    RealCodexCliTest() {
        super(ProviderId.CODEX, "gpt-5.5", "/v1", List.of(PermissionMode.ACCEPT_EDITS, PermissionMode.BYPASS));
    }
}
