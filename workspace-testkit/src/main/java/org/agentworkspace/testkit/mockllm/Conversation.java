package org.agentworkspace.testkit.mockllm;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Optional;

/**
 * The API-neutral view of one model request that the {@link Planner} decides on.
 *
 * @param api which wire API the request came through
 * @param model the model the client asked for ("" when the API carries it elsewhere)
 * @param stream whether the client asked for a streamed answer
 * @param lastUserText the text of the most recent real user message (tool results skipped), raw with markers
 * @param toolResultTurn true when the newest message carries a tool result (the follow-up of a tool call)
 * @param toolResultText the text of that tool result ("" otherwise)
 * @param tools the tools the client offered
 * @param forcedTool a tool the client forces the model to call ({@code tool_choice} / Gemini mode ANY)
 * @param jsonSchema a JSON schema the answer must follow (structured-output side requests)
 * @param cwd the working directory the client told the model about, when it could be found
 * @param requestBytes the size of the request body, for usage numbers
 */
public record Conversation(
        Api api,
        String model,
        boolean stream,
        String lastUserText,
        boolean toolResultTurn,
        String toolResultText,
        List<ToolSpec> tools,
        Optional<String> forcedTool,
        Optional<JsonNode> jsonSchema,
        Optional<String> cwd,
        int requestBytes) {

    public Conversation {
        tools = List.copyOf(tools);
    }

    /** The wire APIs the mock speaks. */
    public enum Api { ANTHROPIC_MESSAGES, OPENAI_CHAT, OPENAI_RESPONSES, GEMINI }

    /**
     * A tool offered by the client.
     *
     * @param name tool name as the client spells it
     * @param kind FUNCTION (JSON arguments) or CUSTOM (free-form text input, e.g. codex's {@code apply_patch})
     * @param parameters the JSON schema of the arguments (a missing node for CUSTOM tools)
     */
    public record ToolSpec(String name, Kind kind, JsonNode parameters) {
        public enum Kind { FUNCTION, CUSTOM }
    }
}
