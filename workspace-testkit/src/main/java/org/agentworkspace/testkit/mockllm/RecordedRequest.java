package org.agentworkspace.testkit.mockllm;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One request the mock received, as tests inspect it (e.g. which API key reached the endpoint).
 *
 * @param time when it arrived
 * @param method HTTP method
 * @param path the request path
 * @param query the raw query string ("" when none)
 * @param headers all request headers, names lower-cased, values unredacted
 * @param body the request body as text
 * @param api which API handled it, or "other" for unrouted paths
 * @param status the HTTP status answered
 * @param scenario what the planner chose (e.g. "text", "tool:Write", "error:429"); "" for non-model calls
 */
public record RecordedRequest(
        Instant time,
        String method,
        String path,
        String query,
        Map<String, List<String>> headers,
        String body,
        String api,
        int status,
        String scenario) {

    public RecordedRequest {
        headers = Map.copyOf(headers);
    }

    /** The first value of a header (name case-insensitive). */
    public Optional<String> header(String name) {
        List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
        return v == null || v.isEmpty() ? Optional.empty() : Optional.of(v.get(0));
    }

    /**
     * The credential the client sent, from whichever header its API uses: {@code x-api-key},
     * {@code Authorization: Bearer}, {@code x-goog-api-key}, or the {@code key} query parameter.
     */
    public Optional<String> apiKey() {
        Optional<String> k = header("x-api-key").or(() -> header("x-goog-api-key"));
        if (k.isPresent()) {
            return k;
        }
        Optional<String> auth = header("authorization");
        if (auth.isPresent() && auth.get().regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Optional.of(auth.get().substring(7).strip());
        }
        for (String kv : query.split("&")) {
            if (kv.startsWith("key=")) {
                return Optional.of(kv.substring(4));
            }
        }
        return Optional.empty();
    }
}
