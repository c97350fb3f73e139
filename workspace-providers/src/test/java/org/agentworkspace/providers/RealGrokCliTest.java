package org.agentworkspace.providers;

import java.util.List;
import org.agentworkspace.api.provider.PermissionMode;
import org.agentworkspace.api.provider.ProviderId;

/** Our grok plan against the real CLI and the mock LLM. */
class RealGrokCliTest extends RealCliRun {
    RealGrokCliTest() {
        super(ProviderId.GROK, "grok-code-fast-1", "/v1", List.of(PermissionMode.DEFAULT));
    }
}
