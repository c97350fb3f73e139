package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * An HTTP client for contract tests: every response is checked against the OpenAPI document and a non-conforming
 * response fails the test with the list of violations.
 *
 * <pre>{@code
 * Session admin = client.login();
 * JsonNode user = client.get("/api/auth/user").as(admin.bearer()).send().expectStatus(200).json();
 * }</pre>
 */
public final class ContractClient {
    private static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS");
    private static final Pattern QUERY_SECRET = Pattern.compile("(?i)((?:apiKey|token|streamTicket)=)[^&]*");
    private static final Pattern BODY_SECRET = Pattern.compile(
            "(?i)(\"(?:token|api_key|apiKey|ticket|password|githubToken)\"\\s*:\\s*\")[^\"]*\"");

    private final ContractTarget target;
    private final OpenApiContract contract;
    private final HttpClient http;
    private final ObjectMapper json = new ObjectMapper();
    private final Duration timeout;

    private ContractClient(ContractTarget target, OpenApiContract contract, Duration timeout) {
        this.target = Objects.requireNonNull(target, "target");
        this.contract = Objects.requireNonNull(contract, "contract");
        this.timeout = timeout;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
    }

    /** A client for the target, checking against the bundled document. */
    public static ContractClient create(ContractTarget target) {
        return create(target, OpenApiContract.bundled());
    }

    /** A client for the target, checking against the given document. */
    public static ContractClient create(ContractTarget target, OpenApiContract contract) {
        return new ContractClient(target, contract, Duration.ofSeconds(30));
    }

    /** The target. */
    public ContractTarget target() {
        return target;
    }

    /** The document responses are checked against. */
    public OpenApiContract contract() {
        return contract;
    }

    /** A GET request. */
    public Request get(String pathAndQuery) {
        return request("GET", pathAndQuery);
    }

    /** A POST request. */
    public Request post(String pathAndQuery) {
        return request("POST", pathAndQuery);
    }

    /** A PUT request. */
    public Request put(String pathAndQuery) {
        return request("PUT", pathAndQuery);
    }

    /** A PATCH request. */
    public Request patch(String pathAndQuery) {
        return request("PATCH", pathAndQuery);
    }

    /** A DELETE request. */
    public Request delete(String pathAndQuery) {
        return request("DELETE", pathAndQuery);
    }

    /** A request with any method. */
    public Request request(String method, String pathAndQuery) {
        return new Request(method.toUpperCase(Locale.ROOT), pathAndQuery);
    }

    /** Signs in with the target's account. */
    public Session login() {
        return login(target.username(), target.password());
    }

    /** Signs in; fails the test unless the login succeeds. */
    public Session login(String username, String password) {
        ContractResponse response = post("/api/auth/login")
                .json(Map.of("username", username, "password", password))
                .send()
                .expectStatus(200);
        JsonNode body = response.json();
        String token = body.path("token").asText();
        String cookie = response.setCookie("token").map(ContractResponse.SetCookie::value).orElse(token);
        return new Session(token, cookie, body.path("user"));
    }

    /** Serialises a value to JSON text. */
    public String toJson(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot serialise request body", e);
        }
    }

    static String redactQuery(String pathAndQuery) {
        return QUERY_SECRET.matcher(pathAndQuery).replaceAll("$1***");
    }

    /** A body for failure messages: secret-looking JSON values replaced by {@code ***}, long text shortened. */
    static String redactBody(String body) {
        String redacted = BODY_SECRET.matcher(body).replaceAll("$1***\"");
        return redacted.length() <= 500 ? redacted : redacted.substring(0, 500) + "…";
    }

    /** A request being built. Nothing is sent until {@link #send()}. */
    public final class Request {
        private final String method;
        private final String pathAndQuery;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private Credential credential = Credential.none();
        private String body;

        private Request(String method, String pathAndQuery) {
            this.method = method;
            this.pathAndQuery = pathAndQuery;
            headers.put("Accept", "application/json");
        }

        /** Authenticates with this credential. */
        public Request as(Credential credential) {
            this.credential = Objects.requireNonNull(credential, "credential");
            return this;
        }

        /** Authenticates as this session (bearer JWT). */
        public Request as(Session session) {
            return as(session.bearer());
        }

        /** Sets a header (replacing one of the same name). */
        public Request header(String name, String value) {
            headers.put(name, value);
            return this;
        }

        /** A JSON body: a {@code String} is sent as is, anything else is serialised. */
        public Request json(Object value) {
            return body("application/json", value instanceof String s ? s : toJson(value));
        }

        /** A raw body with a content type. */
        public Request body(String contentType, String text) {
            headers.put("Content-Type", contentType);
            this.body = text;
            return this;
        }

        /** Sends the request and fails the test if the response does not conform to the document. */
        public ContractResponse send() {
            ContractResponse response = sendUnchecked();
            List<String> violations = contract.validateResponse(method, pathAndQuery, response.status(),
                    response.headers().map(), response.body());
            if (!violations.isEmpty()) {
                fail("response does not conform to the OpenAPI document:\n  - " + String.join("\n  - ", violations)
                        + "\n  body: " + redactBody(response.body()));
            }
            return response;
        }

        /**
         * Opens a server-sent event stream ({@code Accept: text/event-stream}). The status and headers are checked
         * against the document at once; an error response is read whole and checked like {@link #send()}.
         */
        public ContractEventStream openStream() {
            headers.put("Accept", "text/event-stream");
            HttpRequest request = build(null);
            HttpResponse<InputStream> response;
            try {
                response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
            } catch (IOException e) {
                return fail(method + " " + redactQuery(pathAndQuery) + " failed: " + e, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return fail(method + " " + redactQuery(pathAndQuery) + " interrupted", e);
            }
            boolean stream = response.statusCode() / 100 == 2
                    && response.headers().firstValue("content-type").orElse("").startsWith("text/event-stream");
            String text = "";
            if (!stream) {
                try (InputStream in = response.body()) {
                    text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    return fail(method + " " + redactQuery(pathAndQuery) + ": reading the body failed: " + e, e);
                }
            }
            ContractResponse head = new ContractResponse(method, pathAndQuery, response.statusCode(),
                    response.headers(), text);
            List<String> violations = contract.validateResponse(method, pathAndQuery, head.status(),
                    head.headers().map(), text);
            if (!violations.isEmpty()) {
                if (stream) {
                    closeQuietly(response.body());
                }
                fail("response does not conform to the OpenAPI document:\n  - " + String.join("\n  - ", violations)
                        + "\n  body: " + redactBody(text));
            }
            return new ContractEventStream(head, contract, stream ? response.body() : null);
        }

        /** Sends the request without checking the response against the document. */
        public ContractResponse sendUnchecked() {
            try {
                HttpResponse<String> response = http.send(build(timeout),
                        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                return new ContractResponse(method, pathAndQuery, response.statusCode(), response.headers(),
                        response.body() == null ? "" : response.body());
            } catch (IOException e) {
                return fail(method + " " + redactQuery(pathAndQuery) + " failed: " + e, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return fail(method + " " + redactQuery(pathAndQuery) + " interrupted", e);
            }
        }

        private HttpRequest build(Duration requestTimeout) {
            URI uri = target.resolve(pathAndQuery);
            HttpRequest.Builder builder = HttpRequest.newBuilder(uri);
            if (requestTimeout != null) {
                builder.timeout(requestTimeout);
            }
            headers.forEach(builder::header);
            credential.applyTo(builder);
            if (credential instanceof Credential.Cookie && !SAFE_METHODS.contains(method)
                    && headers.keySet().stream().noneMatch("Origin"::equalsIgnoreCase)) {
                // a browser sends its origin with cookie-authenticated changes; servers reject them without it
                builder.header("Origin", target.origin());
            }
            builder.method(method, body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
            return builder.build();
        }
    }

    private static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException e) {
            // dropping the connection anyway
        }
    }

    /**
     * A signed-in session.
     *
     * @param token the JWT from the login response
     * @param cookie the value of the {@code token} cookie set by the login
     * @param user the user object of the login response
     */
    public record Session(String token, String cookie, JsonNode user) {
        /** The session as {@code Authorization: Bearer <jwt>}. */
        public Credential bearer() {
            return Credential.bearer(token);
        }

        /** The session as the {@code token} cookie. */
        public Credential cookieCredential() {
            return Credential.cookie(cookie);
        }

        /** Whether the signed-in user is an administrator. */
        public boolean isAdmin() {
            return user.path("is_admin").asBoolean(false);
        }

        @Override
        public String toString() {
            return "Session[user=" + user.path("username").asText() + ", token=***]";
        }
    }

    /** Builds a JSON object body from key/value pairs (values may be null). */
    public static Map<String, Object> body(Object... keyValues) {
        if (keyValues.length % 2 != 0) {
            throw new IllegalArgumentException("key/value pairs expected");
        }
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put((String) keyValues[i], keyValues[i + 1]);
        }
        return map;
    }

    /** Lists strings, for JSON bodies. */
    public static List<String> list(String... values) {
        return new ArrayList<>(List.of(values));
    }
}
