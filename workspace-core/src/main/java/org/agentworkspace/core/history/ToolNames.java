package org.agentworkspace.core.history;

import java.util.LinkedHashMap;
import java.util.Map;

/** Remembers the tool name of recent tool-call ids within one read, so a result can name its tool. Bounded. */
final class ToolNames {
    private static final int MAX = 4096;
    private final Map<String, String> names = new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > MAX;
        }
    };

    void put(String callId, String name) {
        if (callId != null && name != null) {
            names.put(callId, name);
        }
    }

    String get(String callId) {
        return callId == null ? null : names.get(callId);
    }
}
