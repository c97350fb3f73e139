package org.agentworkspace.testkit.mockllm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * A scripted LLM endpoint on 127.0.0.1 that speaks the wire formats the real coding-agent CLIs parse: Anthropic
 * Messages, OpenAI Chat Completions, OpenAI Responses and Gemini, streaming and not, plus model lists.
 *
 * <p>The answer is chosen by markers in the last user message (see {@link Script} and docs/testkit.md): plain prompts
 * get {@code MOCK-REPLY: <first words>}; {@code [[mock:tool:write_file path=NAME content=TEXT]]} makes the model call
 * the requesting CLI's own file-writing tool; {@code [[mock:error:429]]}, {@code [[mock:slow:MS]]} and
 * {@code [[mock:long:N]]} choose failures, delays and long streams. Any path prefix is accepted, so a base URL with or
 * without {@code /v1} works.
 *
 * <pre>{@code
 * try (MockLlmServer mock = MockLlmServer.create().start()) {
 *     env.put("ANTHROPIC_BASE_URL", mock.baseUrl());
 *     ...
 *     assertEquals("sk-test", mock.requests().get(0).apiKey().orElseThrow());
 * }
 * }</pre>
 */
public final class MockLlmServer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(MockLlmServer.class.getName());
    private static final Pattern GEMINI_CALL = Pattern.compile(".*/models/([^/:]+):([A-Za-z]+)$");
    private static final Pattern GEMINI_MODEL = Pattern.compile(".*/v1(?:beta|alpha)?/models/([^/:]+)$");
    private static final Pattern GEMINI_LIST = Pattern.compile(".*/v1(?:beta|alpha)/models/?$");
    private static final Pattern MODEL_GET = Pattern.compile(".*/models/([^/:]+)$");

    /** Models every list answers with, covering each CLI's default. */
    public static final List<String> DEFAULT_MODELS = List.of(
            "claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5",
            "gpt-5.5", "gpt-5-codex", "gpt-4.1",
            "gemini-2.5-flash", "gemini-2.5-pro", "gemini-2.5-flash-lite",
            "qwen3-coder-plus", "grok-4", "grok-code-fast-1", "mock-model");

    private final int requestedPort;
    private final List<String> models;
    private final Optional<Path> logFile;
    private final ObjectMapper json = new ObjectMapper();
    private final Ctx ctx;
    private final Planner planner = new Planner();
    private final List<RecordedRequest> requests = new CopyOnWriteArrayList<>();
    private HttpServer server;
    private ExecutorService executor;

    private MockLlmServer(Builder b) {
        this.requestedPort = b.port;
        this.models = List.copyOf(b.models);
        this.logFile = Optional.ofNullable(b.logFile);
        this.ctx = new Ctx(json, new AtomicLong(), b.deltaDelay.toMillis(), 1_767_225_600L);
    }

    /** A server with defaults: random free port, no delta delay, {@link #DEFAULT_MODELS}. Call {@link #start()}. */
    public static MockLlmServer create() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Options for {@link MockLlmServer}. */
    public static final class Builder {
        private int port;
        private Duration deltaDelay = Duration.ZERO;
        private List<String> models = DEFAULT_MODELS;
        private Path logFile;

        private Builder() {
        }

        /** Port to bind on 127.0.0.1; 0 (the default) picks a free one. */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            this.port = port;
            return this;
        }

        /** Pause between streamed deltas (default none). */
        public Builder deltaDelay(Duration d) {
            this.deltaDelay = Objects.requireNonNull(d);
            return this;
        }

        /** Model ids the model-list endpoints answer with. */
        public Builder models(List<String> ids) {
            this.models = List.copyOf(ids);
            return this;
        }

        /** Also append every request as one JSON line to this file (credential headers redacted). */
        public Builder logTo(Path file) {
            this.logFile = file;
            return this;
        }

        public MockLlmServer build() {
            return new MockLlmServer(this);
        }
    }

    /** Binds 127.0.0.1 and starts serving. */
    public synchronized MockLlmServer start() {
        if (server != null) {
            throw new IllegalStateException("already started");
        }
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), requestedPort), 64);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind 127.0.0.1:" + requestedPort, e);
        }
        executor = Executors.newVirtualThreadPerTaskExecutor();
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
        LOG.log(System.Logger.Level.DEBUG, "mock LLM listening on {0}", baseUrl());
        return this;
    }

    /** The port actually bound. */
    public int port() {
        if (server == null) {
            throw new IllegalStateException("not started");
        }
        return server.getAddress().getPort();
    }

    /** {@code http://127.0.0.1:PORT} (no trailing slash, no {@code /v1}). */
    public String baseUrl() {
        return "http://127.0.0.1:" + port();
    }

    /** Every request received so far, oldest first. */
    public List<RecordedRequest> requests() {
        return List.copyOf(requests);
    }

    /** Requests whose path ends with the given suffix, e.g. {@code "/v1/messages"}. */
    public List<RecordedRequest> requests(String pathSuffix) {
        return requests.stream().filter(r -> r.path().endsWith(pathSuffix)).toList();
    }

    public void clearRequests() {
        requests.clear();
    }

    @Override
    public synchronized void close() {
        if (server != null) {
            server.stop(0);
            executor.close();
            server = null;
        }
    }

    private void handle(HttpExchange ex) {
        String method = ex.getRequestMethod().toUpperCase(Locale.ROOT);
        URI uri = ex.getRequestURI();
        String path = uri.getPath();
        String query = uri.getRawQuery() == null ? "" : uri.getRawQuery();
        String body = "";
        String api = "other";
        String scenario = "";
        int status = 500;
        try {
            body = readBody(ex);
            Route route = route(method, path, ex);
            api = route.api;
            if (route.kind == RouteKind.MODEL_CALL) {
                JsonNode parsed = body.isBlank() ? json.createObjectNode() : json.readTree(body);
                Conversation c = switch (route.api) {
                    case "anthropic" -> AnthropicApi.read(parsed, body);
                    case "openai-chat" -> OpenAiChatApi.read(parsed, body);
                    case "openai-responses" -> OpenAiResponsesApi.read(parsed, body);
                    default -> GeminiApi.read(parsed, body, route.model, route.geminiStream);
                };
                Planner.Plan plan = planner.plan(c);
                scenario = describe(plan.reply());
                status = plan.reply() instanceof Reply.Failure f ? f.status() : 200;
                record(method, path, query, ex, body, api, status, scenario);
                sleep(plan.delayMs());
                switch (route.api) {
                    case "anthropic" -> AnthropicApi.write(ex, c, plan.reply(), ctx);
                    case "openai-chat" -> OpenAiChatApi.write(ex, c, parsed, plan.reply(), ctx);
                    case "openai-responses" -> OpenAiResponsesApi.write(ex, c, plan.reply(), ctx);
                    default -> GeminiApi.write(ex, c, plan.reply(), query.contains("alt=sse"), ctx);
                }
                return;
            }
            JsonNode answer = switch (route.kind) {
                case HEALTH -> json.createObjectNode().put("status", "ok");
                case COUNT_TOKENS_ANTHROPIC -> json.createObjectNode()
                        .put("input_tokens", AnthropicApi.countTokens(null, body));
                case COUNT_TOKENS_GEMINI -> json.createObjectNode().put("totalTokens", Wire.estimateTokens(body.length()));
                case EMBED_GEMINI -> embedding();
                case LIST_ANTHROPIC -> anthropicModels();
                case LIST_OPENAI -> openAiModels();
                case LIST_GEMINI -> geminiModels();
                case MODEL_ANTHROPIC -> anthropicModel(route.model);
                case MODEL_OPENAI -> openAiModel(route.model);
                case MODEL_GEMINI -> geminiModel(route.model);
                case NOT_FOUND -> notFound(method, path);
                case MODEL_CALL -> throw new IllegalStateException();
            };
            status = route.kind == RouteKind.NOT_FOUND ? 404 : 200;
            record(method, path, query, ex, body, api, status, scenario);
            Wire.sendJson(ex, status, answer, json);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "mock LLM failed on " + method + " " + path, e);
            if (status == 500) {
                record(method, path, query, ex, body, api, 500, "exception:" + e.getClass().getSimpleName());
            }
            try {
                ObjectNode err = json.createObjectNode();
                err.putObject("error").put("message", "mock failure: " + e).put("type", "api_error");
                Wire.sendJson(ex, 500, err, json);
            } catch (IOException | RuntimeException ignored) {
                // headers were already sent: the client sees a truncated stream, which is what happened
                LOG.log(System.Logger.Level.DEBUG, "could not send the error answer", ignored);
            }
        } finally {
            ex.close();
        }
    }

    private enum RouteKind {
        MODEL_CALL, HEALTH, COUNT_TOKENS_ANTHROPIC, COUNT_TOKENS_GEMINI, EMBED_GEMINI, LIST_ANTHROPIC, LIST_OPENAI,
        LIST_GEMINI, MODEL_ANTHROPIC, MODEL_OPENAI, MODEL_GEMINI, NOT_FOUND
    }

    private record Route(RouteKind kind, String api, String model, boolean geminiStream) {
        static Route of(RouteKind k, String api) {
            return new Route(k, api, "", false);
        }
    }

    private static Route route(String method, String path, HttpExchange ex) {
        boolean anthropicHeaders = ex.getRequestHeaders().containsKey("anthropic-version");
        if (path.endsWith("/__mock/health")) {
            return Route.of(RouteKind.HEALTH, "mock");
        }
        if (method.equals("POST")) {
            if (path.endsWith("/messages/count_tokens")) {
                return Route.of(RouteKind.COUNT_TOKENS_ANTHROPIC, "anthropic");
            }
            if (path.endsWith("/messages")) {
                return Route.of(RouteKind.MODEL_CALL, "anthropic");
            }
            if (path.endsWith("/chat/completions")) {
                return Route.of(RouteKind.MODEL_CALL, "openai-chat");
            }
            if (path.endsWith("/responses")) {
                return Route.of(RouteKind.MODEL_CALL, "openai-responses");
            }
            Matcher g = GEMINI_CALL.matcher(path);
            if (g.matches()) {
                String model = g.group(1);
                return switch (g.group(2)) {
                    case "generateContent" -> new Route(RouteKind.MODEL_CALL, "gemini", model, false);
                    case "streamGenerateContent" -> new Route(RouteKind.MODEL_CALL, "gemini", model, true);
                    case "countTokens" -> new Route(RouteKind.COUNT_TOKENS_GEMINI, "gemini", model, false);
                    case "embedContent", "batchEmbedContents" -> new Route(RouteKind.EMBED_GEMINI, "gemini", model, false);
                    default -> Route.of(RouteKind.NOT_FOUND, "gemini");
                };
            }
        }
        if (method.equals("GET") || method.equals("HEAD")) {
            if (GEMINI_LIST.matcher(path).matches()) {
                return Route.of(RouteKind.LIST_GEMINI, "gemini");
            }
            Matcher gm = GEMINI_MODEL.matcher(path);
            if (gm.matches() && path.contains("/v1beta/")) {
                return new Route(RouteKind.MODEL_GEMINI, "gemini", gm.group(1), false);
            }
            if (path.endsWith("/models") || path.endsWith("/models/")) {
                return anthropicHeaders ? Route.of(RouteKind.LIST_ANTHROPIC, "anthropic")
                        : Route.of(RouteKind.LIST_OPENAI, "openai");
            }
            Matcher m = MODEL_GET.matcher(path);
            if (m.matches()) {
                return anthropicHeaders ? new Route(RouteKind.MODEL_ANTHROPIC, "anthropic", m.group(1), false)
                        : new Route(RouteKind.MODEL_OPENAI, "openai", m.group(1), false);
            }
        }
        return Route.of(RouteKind.NOT_FOUND, "other");
    }

    private String readBody(HttpExchange ex) throws IOException {
        InputStream in = ex.getRequestBody();
        String enc = Optional.ofNullable(ex.getRequestHeaders().getFirst("Content-Encoding")).orElse("");
        if (enc.equalsIgnoreCase("gzip")) {
            in = new GZIPInputStream(in);
        }
        try (InputStream body = in) {
            return new String(body.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private void record(String method, String path, String query, HttpExchange ex, String body, String api,
            int status, String scenario) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), List.copyOf(v)));
        RecordedRequest r = new RecordedRequest(Instant.now(), method, path, query, headers, body, api, status,
                scenario);
        requests.add(r);
        logFile.ifPresent(f -> appendLog(f, r));
    }

    private void appendLog(Path file, RecordedRequest r) {
        ObjectNode line = json.createObjectNode().put("time", r.time().toString()).put("method", r.method())
                .put("path", r.path()).put("query", r.query()).put("api", r.api()).put("status", r.status())
                .put("scenario", r.scenario());
        ObjectNode h = line.putObject("headers");
        r.headers().forEach((k, v) -> h.put(k, isSecretHeader(k) ? "<redacted>" : String.join(", ", v)));
        try {
            line.set("body", r.body().isBlank() ? json.nullNode() : json.readTree(r.body()));
        } catch (IOException e) {
            line.put("body", r.body());
        }
        try {
            synchronized (this) {
                Files.writeString(file, json.writeValueAsString(line) + "\n", StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot append to the request log " + file, e);
        }
    }

    private static boolean isSecretHeader(String name) {
        return name.equals("authorization") || name.equals("x-api-key") || name.equals("x-goog-api-key")
                || name.equals("cookie") || name.contains("token");
    }

    private static String describe(Reply reply) {
        return switch (reply) {
            case Reply.Text t -> "text";
            case Reply.ToolCall tc -> "tool:" + tc.name();
            case Reply.Failure f -> "error:" + f.status();
        };
    }

    private static void sleep(long ms) {
        if (ms > 0) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private JsonNode notFound(String method, String path) {
        ObjectNode err = json.createObjectNode();
        err.putObject("error").put("message", "mock LLM has no route for " + method + " " + path)
                .put("type", "not_found_error").put("code", 404);
        return err;
    }

    private JsonNode embedding() {
        ObjectNode o = json.createObjectNode();
        ArrayNode values = o.putObject("embedding").putArray("values");
        for (int i = 0; i < 8; i++) {
            values.add(0.125 * i);
        }
        return o;
    }

    private JsonNode anthropicModels() {
        ObjectNode o = json.createObjectNode();
        ArrayNode data = o.putArray("data");
        models.forEach(m -> data.add(anthropicModel(m)));
        o.put("has_more", false);
        o.put("first_id", models.isEmpty() ? null : models.get(0));
        o.put("last_id", models.isEmpty() ? null : models.get(models.size() - 1));
        return o;
    }

    private ObjectNode anthropicModel(String id) {
        return json.createObjectNode().put("type", "model").put("id", id).put("display_name", "Mock " + id)
                .put("created_at", "2026-01-01T00:00:00Z");
    }

    private JsonNode openAiModels() {
        ObjectNode o = json.createObjectNode().put("object", "list");
        ArrayNode data = o.putArray("data");
        models.forEach(m -> data.add(openAiModel(m)));
        return o;
    }

    private ObjectNode openAiModel(String id) {
        return json.createObjectNode().put("id", id).put("object", "model").put("created", 1_767_225_600L)
                .put("owned_by", "mock");
    }

    private JsonNode geminiModels() {
        ObjectNode o = json.createObjectNode();
        ArrayNode data = o.putArray("models");
        models.forEach(m -> data.add(geminiModel(m)));
        return o;
    }

    private ObjectNode geminiModel(String id) {
        ObjectNode m = json.createObjectNode().put("name", "models/" + id).put("version", "001")
                .put("displayName", "Mock " + id).put("inputTokenLimit", 1_048_576).put("outputTokenLimit", 65_536);
        m.putArray("supportedGenerationMethods").add("generateContent").add("streamGenerateContent").add("countTokens");
        return m;
    }

    /**
     * Runs the mock standalone until killed: {@code MockLlmServer [--port N] [--log FILE]}. Used by
     * {@code scripts/record-cli-streams.sh}; the bound URL is logged at INFO.
     */
    public static void main(String[] args) throws InterruptedException {
        Builder b = builder();
        List<String> rest = new ArrayList<>(List.of(args));
        for (int i = 0; i < rest.size(); i++) {
            switch (rest.get(i)) {
                case "--port" -> b.port(Integer.parseInt(rest.get(++i)));
                case "--log" -> b.logTo(Path.of(rest.get(++i)));
                case "--delta-delay-ms" -> b.deltaDelay(Duration.ofMillis(Long.parseLong(rest.get(++i))));
                default -> throw new IllegalArgumentException("unknown option " + rest.get(i));
            }
        }
        MockLlmServer s = b.build().start();
        Runtime.getRuntime().addShutdownHook(new Thread(s::close));
        LOG.log(System.Logger.Level.INFO, "mock LLM listening on {0}", s.baseUrl());
        Thread.currentThread().join();
    }
}
