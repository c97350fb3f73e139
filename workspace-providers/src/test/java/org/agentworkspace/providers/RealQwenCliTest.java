package org.agentworkspace.providers;

import java.util.List;
import org.agentworkspace.api.provider.PermissionMode;
import org.agentworkspace.api.provider.ProviderId;

/** Our qwen plan against the real CLI and the mock LLM. */
class RealQwenCliTest extends RealCliRun {
    RealQwenCliTest() {
        super(ProviderId.QWEN, "qwen3-coder-plus", "/v1", List.of(PermissionMode.ACCEPT_EDITS, PermissionMode.BYPASS));
    }
}
