package org.agentworkspace.providers;

import java.util.List;
import org.agentworkspace.api.provider.PermissionMode;
import org.agentworkspace.api.provider.ProviderId;

/**
 * Our opencode plan against the real CLI and the mock LLM. opencode is slow (5-10 s per run, two model calls), so
 * the tool runs only in ACCEPT_EDITS, the mode whose config content ({@code permission.edit}) only this test proves;
 * {@code --auto} (BYPASS) is exercised by the testkit's own real-CLI test and the fake.
 */
class RealOpencodeCliTest extends RealCliRun {
    RealOpencodeCliTest() {
        super(ProviderId.OPENCODE, "mock-model", "/v1", List.of(PermissionMode.ACCEPT_EDITS));
    }
}
