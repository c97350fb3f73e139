package org.agentworkspace.testkit.mockllm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.concurrent.atomic.AtomicLong;

/** Per-server state the renderers share: the JSON mapper, a deterministic id counter and the delta pacing. */
record Ctx(ObjectMapper json, AtomicLong ids, long deltaDelayMs, long createdEpochSeconds) {

    /** A fresh id like {@code msg_mock_000001}; deterministic per server instance. */
    String id(String prefix) {
        return prefix + "mock_" + String.format("%06d", ids.incrementAndGet());
    }

    ObjectNode obj() {
        return json.createObjectNode();
    }

    ArrayNode arr() {
        return json.createArrayNode();
    }
}
