package org.agentworkspace.providers;

import java.util.List;
import org.agentworkspace.api.provider.PermissionMode;
import org.agentworkspace.api.provider.ProviderId;

/** Our opencode plan against the real CLI and the mock LLM. */
class RealOpencodeCliTest extends RealCliRun {
    RealOpencodeCliTest() {
        super(ProviderId.OPENCODE, "mock-model", "/v1", List.of(PermissionMode.ACCEPT_EDITS, PermissionMode.BYPASS));
    }
}
