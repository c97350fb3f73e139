package org.agentworkspace.providers;

import java.util.List;
import org.agentworkspace.api.provider.PermissionMode;
import org.agentworkspace.api.provider.ProviderId;

/** Our claude plan against the real CLI and the mock LLM. */
class RealClaudeCliTest extends RealCliRun {
    RealClaudeCliTest() {
        super(ProviderId.CLAUDE, "claude-sonnet-4-5", "", List.of(PermissionMode.ACCEPT_EDITS, PermissionMode.BYPASS));
    }
}
