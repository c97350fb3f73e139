package org.agentworkspace.core.runs;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Folds a run's unified events into its {@link RunOutcome}, in log order. Only the few kinds that change the outcome
 * are parsed at all (recognised by the payload's leading {@code "kind"}, which the agent bridge always writes first);
 * text deltas, tools and native lines cost one prefix check. Folding the same events twice gives the same outcome, so
 * a batch the writer has to retry is folded again without harm. Used by the log writer (one thread) only.
 */
final class OutcomeFold {
    private Boolean success;
    private String sessionId;
    private String resultText;
    private String lastText;
    private RunOutcome.Usage usage;
    private String errorCode;
    private String errorMessage;
    private boolean changed;

    /** Folds one {@code event} entry's payload; true when the outcome changed. */
    boolean apply(String payload, Json json) {
        if (!payload.startsWith("{\"kind\":\"")) {
            return false;
        }
        boolean relevant = payload.startsWith("session\"", 9) || payload.startsWith("usage\"", 9)
                || payload.startsWith("completed\"", 9) || payload.startsWith("error\"", 9)
                || payload.startsWith("text\"", 9);
        if (!relevant) {
            return false;
        }
        JsonNode n = json.tree(payload);
        if (n == null) {
            return false;
        }
        JsonNode d = n.path("data");
        switch (n.path("kind").asText()) {
            case "session" -> {
                if (d.hasNonNull("sessionId")) {
                    sessionId = d.path("sessionId").asText();
                }
            }
            case "text" -> {
                if (!"assistant".equals(d.path("role").asText())) {
                    return false;
                }
                lastText = d.path("text").asText();
            }
            case "usage" -> usage = new RunOutcome.Usage(d.path("input").asLong(), d.path("output").asLong(),
                    d.path("cacheRead").asLong(), d.path("cacheWrite").asLong(),
                    d.path("cost").isNumber() ? d.path("cost").asDouble() : null);
            case "error" -> {
                if (errorCode != null) {
                    return false;
                }
                errorCode = d.path("code").asText();
                errorMessage = d.path("message").asText();
            }
            case "completed" -> {
                success = d.path("success").asBoolean();
                if (d.hasNonNull("sessionId")) {
                    sessionId = d.path("sessionId").asText();
                }
                resultText = d.path("resultText").asText(null);
            }
            default -> {
                return false;
            }
        }
        changed = true;
        return true;
    }

    /** True once since the last call when something changed. */
    boolean takeChanged() {
        boolean c = changed;
        changed = false;
        return c;
    }

    RunOutcome outcome() {
        return new RunOutcome(success, sessionId, resultText, lastText, usage, errorCode, errorMessage);
    }
}
