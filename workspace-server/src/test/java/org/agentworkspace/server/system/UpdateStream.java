package org.agentworkspace.server.system;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.agentworkspace.server.SseClient;

/** POSTs to the update route and reads its frames with their data as JSON (tests only). */
final class UpdateStream implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    record Event(String id, String name, JsonNode data) {
    }

    final int status;
    final String contentType;
    private final SseClient sse;

    private UpdateStream(SseClient sse) {
        this.sse = sse;
        this.status = sse.status;
        this.contentType = sse.contentType;
    }

    static UpdateStream post(HttpClient http, URI uri, String... headers) {
        return new UpdateStream(SseClient.post(http, uri, headers));
    }

    /** The whole body as text (an error answer). */
    String text() {
        return sse.text();
    }

    /** Every event until the stream ends. */
    List<Event> all() {
        return sse.all().stream().map(e -> {
            try {
                return new Event(e.id(), e.name(), JSON.readTree(e.data()));
            } catch (IOException x) {
                throw new UncheckedIOException(x);
            }
        }).toList();
    }

    @Override
    public void close() {
        sse.close();
    }
}
