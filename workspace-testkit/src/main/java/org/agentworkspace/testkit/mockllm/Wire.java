package org.agentworkspace.testkit.mockllm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Low-level response writing shared by the API renderers. */
final class Wire {

    private static final Pattern NOISE = Pattern.compile(
            "(?s)<(system-reminder|environment_context|user_instructions|INSTRUCTIONS|system_instructions|"
                    + "permissions instructions|collaboration_mode|skills_instructions|session_context)>.*?</\\1>");
    private static final String PATH = "(/[^\\s\"'`<>\\\\|]+)";
    /** How the real CLIs tell the model its working directory; the first match in this order wins. */
    private static final Pattern[] CWD_HINTS = {
        Pattern.compile("<cwd>(/[^<\\n]+)</cwd>"),                                        // codex
        Pattern.compile("(?i)working directory:\\s*" + PATH),                              // claude, opencode
        Pattern.compile("currently working in the directory:\\s*" + PATH),                 // gemini, qwen
        Pattern.compile("Workspace Directories:\\**(?:\\\\n|\\s)+-\\s*" + PATH),       // gemini
        Pattern.compile("(?i)(?:current working directory|cwd)(?: is)?:\\s*" + PATH),     // others
    };

    private Wire() {
    }

    /** Removes the blocks CLIs wrap around the user's words (reminders, environment context). */
    static String stripNoise(String text) {
        return NOISE.matcher(text).replaceAll("").strip();
    }

    /** The working directory a CLI told the model about, found in the raw request body. */
    static java.util.Optional<String> findCwd(String rawBody) {
        for (Pattern p : CWD_HINTS) {
            Matcher m = p.matcher(rawBody);
            if (m.find()) {
                String path = m.group(1).replaceAll("[.,;:)]+$", "");
                return java.util.Optional.of(path);
            }
        }
        return java.util.Optional.empty();
    }

    static int estimateTokens(int chars) {
        return Math.max(1, chars / 4);
    }

    static void sendJson(HttpExchange ex, int status, JsonNode body, ObjectMapper json) throws IOException {
        byte[] bytes = json.writeValueAsBytes(body);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** A server-sent-events (or raw chunked) stream; every write is flushed so clients see each event at once. */
    static final class Stream implements AutoCloseable {
        private final OutputStream out;
        private final ObjectMapper json;
        private final long deltaDelayMs;

        Stream(HttpExchange ex, String contentType, ObjectMapper json, long deltaDelayMs) throws IOException {
            this.json = json;
            this.deltaDelayMs = deltaDelayMs;
            ex.getResponseHeaders().set("Content-Type", contentType);
            ex.getResponseHeaders().set("Cache-Control", "no-cache");
            ex.sendResponseHeaders(200, 0);
            this.out = ex.getResponseBody();
        }

        /** {@code event: name} + {@code data: json}. */
        void event(String name, JsonNode data) throws IOException {
            raw("event: " + name + "\ndata: " + json.writeValueAsString(data) + "\n\n");
        }

        /** {@code data: json} only (OpenAI Chat, Gemini). */
        void data(JsonNode data) throws IOException {
            raw("data: " + json.writeValueAsString(data) + "\n\n");
        }

        void raw(String s) throws IOException {
            out.write(s.getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        /** Pause between deltas when the server was built with a delta delay. */
        void pace() {
            if (deltaDelayMs > 0) {
                try {
                    Thread.sleep(deltaDelayMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }
}
