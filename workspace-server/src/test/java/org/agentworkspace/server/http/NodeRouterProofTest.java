package org.agentworkspace.server.http;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.WorkspaceEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hop proof of a forwarded request ({@code X-AW-Forwarded-By}, docs/scale-out.md "Where work runs"): valid only
 * for the request line it was made for, within two minutes, and only with the store's signing secret. A runner-only
 * node serves a client request only when it carries a valid one.
 */
class NodeRouterProofTest {
    @TempDir
    Path tmp;

    @Test
    void aProofHoldsForItsRequestLineForTwoMinutesUnderTheSharedSecret() throws Exception {
        try (WorkspaceEngine engine = WorkspaceEngine.open(EngineConfig.create(Files.createDirectories(
                tmp.resolve("data"))))) {
            byte[] secret = engine.signingSecret();
            NodeRouter router = new NodeRouter(engine.nodes(), engine.projects(), engine.history(), secret, true);
            String proof = router.proof("POST", "/api/automation/run");
            assertTrue(router.verify(proof, "POST", "/api/automation/run"));
            assertFalse(router.verify(proof, "GET", "/api/automation/run"), "another method");
            assertFalse(router.verify(proof, "POST", "/api/git/push"), "another path");
            long now = System.currentTimeMillis() / 1000;
            assertTrue(router.verify(router.proof("GET", "/x", now - 60), "GET", "/x"), "a minute old");
            assertFalse(router.verify(router.proof("GET", "/x", now - 180), "GET", "/x"), "three minutes old");
            assertFalse(router.verify(router.proof("GET", "/x", now + 180), "GET", "/x"), "from the future");
            String[] parts = proof.split(" ");
            assertFalse(router.verify("node_other " + parts[1] + " " + parts[2], "POST", "/api/automation/run"),
                    "another node's name on this proof");
            assertFalse(router.verify(parts[0] + " " + parts[1] + " AAAA", "POST", "/api/automation/run"));
            assertFalse(router.verify("garbage", "POST", "/api/automation/run"));
            byte[] other = secret.clone();
            other[0] ^= 1;
            NodeRouter foreign = new NodeRouter(engine.nodes(), engine.projects(), engine.history(), other, false);
            assertFalse(router.verify(foreign.proof("POST", "/api/automation/run"), "POST", "/api/automation/run"),
                    "made with another secret");
        }
    }
}
