package org.agentworkspace.testkit.mockllm;

import java.util.List;

/** What the scripted model answers to one request; rendered into each API's wire format. */
public sealed interface Reply {

    /** A text answer delivered as these deltas (their concatenation is the full text). */
    record Text(List<String> deltas) implements Reply {
        public Text {
            deltas = List.copyOf(deltas);
        }

        public String text() {
            return String.join("", deltas);
        }
    }

    /**
     * A tool call, optionally preceded by a short text.
     *
     * @param preamble text emitted before the call ("" for none)
     * @param name the tool's name
     * @param custom true for a free-form (CUSTOM) tool, whose {@code input} is raw text, not JSON
     * @param input JSON arguments, or the raw input of a custom tool
     */
    record ToolCall(String preamble, String name, boolean custom, String input) implements Reply {
    }

    /** An HTTP error answer. */
    record Failure(int status, String message) implements Reply {
    }
}
