package org.agentworkspace.testkit.mockllm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.agentworkspace.testkit.mockllm.Conversation.ToolSpec;

/**
 * Gemini API: {@code POST /v1beta/models/{model}:generateContent}, {@code :streamGenerateContent} (SSE with
 * {@code alt=sse}, a JSON array stream without), {@code :countTokens} and {@code :embedContent}.
 */
final class GeminiApi {

    private GeminiApi() {
    }

    static Conversation read(JsonNode body, String raw, String model, boolean stream) {
        List<ToolSpec> tools = new ArrayList<>();
        for (JsonNode t : body.path("tools")) {
            for (JsonNode fd : t.path("functionDeclarations")) {
                JsonNode params = fd.has("parametersJsonSchema") ? fd.path("parametersJsonSchema") : fd.path("parameters");
                tools.add(new ToolSpec(fd.path("name").asText(), ToolSpec.Kind.FUNCTION, params));
            }
        }
        JsonNode fcc = body.path("toolConfig").path("functionCallingConfig");
        Optional<String> forced = "ANY".equals(fcc.path("mode").asText()) && fcc.path("allowedFunctionNames").size() > 0
                ? Optional.of(fcc.path("allowedFunctionNames").get(0).asText()) : Optional.empty();
        if (forced.isEmpty() && "ANY".equals(fcc.path("mode").asText()) && !tools.isEmpty()) {
            forced = Optional.of(tools.get(0).name());
        }
        JsonNode gc = body.path("generationConfig");
        Optional<JsonNode> schema = gc.has("responseJsonSchema") ? Optional.of(gc.path("responseJsonSchema"))
                : gc.has("responseSchema") ? Optional.of(gc.path("responseSchema"))
                : "application/json".equals(gc.path("responseMimeType").asText())
                        ? Optional.of(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("type", "object")) : Optional.empty();
        JsonNode contents = body.path("contents");
        boolean toolTurn = false;
        String toolText = "";
        if (!contents.isEmpty()) {
            for (JsonNode part : contents.get(contents.size() - 1).path("parts")) {
                if (part.has("functionResponse")) {
                    toolTurn = true;
                    toolText = responseText(part.path("functionResponse").path("response"));
                }
            }
        }
        String lastUser = "";
        for (int i = contents.size() - 1; i >= 0 && lastUser.isEmpty(); i--) {
            JsonNode c = contents.get(i);
            if (!"model".equals(c.path("role").asText())) {
                StringBuilder sb = new StringBuilder();
                for (JsonNode p : c.path("parts")) {
                    if (p.has("text")) {
                        sb.append(sb.isEmpty() ? "" : "\n").append(p.path("text").asText());
                    }
                }
                lastUser = Wire.stripNoise(sb.toString());
            }
        }
        return new Conversation(Conversation.Api.GEMINI, model, stream, lastUser, toolTurn, toolText, tools, forced,
                schema, Wire.findCwd(raw), raw.length());
    }

    private static String responseText(JsonNode response) {
        if (response.has("output") && response.path("output").isTextual()) {
            return response.path("output").asText();
        }
        if (response.has("content") && response.path("content").isTextual()) {
            return response.path("content").asText();
        }
        return response.toString();
    }

    static void write(HttpExchange ex, Conversation c, Reply reply, boolean sse, Ctx ctx) throws IOException {
        if (reply instanceof Reply.Failure f) {
            ObjectNode err = ctx.obj();
            err.putObject("error").put("code", f.status()).put("message", f.message()).put("status", status(f.status()));
            Wire.sendJson(ex, f.status(), err, ctx.json());
            return;
        }
        String respId = ctx.id("gresp_");
        int in = Wire.estimateTokens(c.requestBytes());
        int out = Wire.estimateTokens(AnthropicApi.outputChars(reply));
        List<String> texts = switch (reply) {
            case Reply.Text t -> t.deltas();
            case Reply.ToolCall tc -> tc.preamble().isEmpty() ? List.of() : List.of(tc.preamble());
            case Reply.Failure f -> List.of();
        };
        if (!c.stream()) {
            ObjectNode resp = chunk(ctx, c, respId);
            ArrayNode parts = parts(resp);
            if (!texts.isEmpty()) {
                parts.addObject().put("text", String.join("", texts));
            }
            addCall(reply, parts, ctx);
            finish(resp, in, out);
            Wire.sendJson(ex, 200, resp, ctx.json());
            return;
        }
        List<ObjectNode> chunks = new ArrayList<>();
        for (String d : texts) {
            ObjectNode ck = chunk(ctx, c, respId);
            parts(ck).addObject().put("text", d);
            ck.putObject("usageMetadata").put("promptTokenCount", in).put("totalTokenCount", in);
            chunks.add(ck);
        }
        if (reply instanceof Reply.ToolCall) {
            ObjectNode ck = chunk(ctx, c, respId);
            addCall(reply, parts(ck), ctx);
            chunks.add(ck);
        }
        if (chunks.isEmpty()) {
            ObjectNode ck = chunk(ctx, c, respId);
            parts(ck).addObject().put("text", "");
            chunks.add(ck);
        }
        finish(chunks.get(chunks.size() - 1), in, out);
        try (Wire.Stream s = new Wire.Stream(ex, sse ? "text/event-stream" : "application/json", ctx.json(),
                ctx.deltaDelayMs())) {
            if (sse) {
                for (ObjectNode ck : chunks) {
                    s.raw("data: " + ctx.json().writeValueAsString(ck) + "\r\n\r\n");
                    s.pace();
                }
            } else {
                for (int i = 0; i < chunks.size(); i++) {
                    s.raw((i == 0 ? "[" : ",\r\n") + ctx.json().writeValueAsString(chunks.get(i)));
                    s.pace();
                }
                s.raw("]");
            }
        }
    }

    private static void addCall(Reply reply, ArrayNode parts, Ctx ctx) throws IOException {
        if (reply instanceof Reply.ToolCall tc) {
            ObjectNode call = parts.addObject().putObject("functionCall").put("name", tc.name());
            call.set("args", tc.custom() ? ctx.obj().put("input", tc.input()) : ctx.json().readTree(tc.input()));
        }
    }

    private static ObjectNode chunk(Ctx ctx, Conversation c, String respId) {
        ObjectNode ck = ctx.obj();
        ObjectNode cand = ck.putArray("candidates").addObject();
        cand.putObject("content").put("role", "model").putArray("parts");
        cand.put("index", 0);
        ck.put("modelVersion", c.model().isEmpty() ? "gemini-2.5-flash" : c.model());
        ck.put("responseId", respId);
        return ck;
    }

    private static ArrayNode parts(ObjectNode chunk) {
        return (ArrayNode) chunk.path("candidates").get(0).path("content").path("parts");
    }

    private static void finish(ObjectNode chunk, int in, int out) {
        ((ObjectNode) chunk.path("candidates").get(0)).put("finishReason", "STOP");
        chunk.putObject("usageMetadata").put("promptTokenCount", in).put("candidatesTokenCount", out)
                .put("totalTokenCount", in + out);
    }

    private static String status(int code) {
        return switch (code) {
            case 400 -> "INVALID_ARGUMENT";
            case 401 -> "UNAUTHENTICATED";
            case 403 -> "PERMISSION_DENIED";
            case 404 -> "NOT_FOUND";
            case 429 -> "RESOURCE_EXHAUSTED";
            case 503 -> "UNAVAILABLE";
            default -> "INTERNAL";
        };
    }
}
