package org.agentworkspace.server.system;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** POSTs to an SSE route and reads the frames (tests only). */
final class UpdateStream implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    record Event(String id, String name, JsonNode data) {
    }

    final int status;
    final String contentType;
    private final InputStream body;
    private final BufferedReader reader;

    private UpdateStream(int status, String contentType, InputStream body) {
        this.status = status;
        this.contentType = contentType;
        this.body = body;
        this.reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
    }

    static UpdateStream post(HttpClient http, URI uri, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
                .header("Accept", "text/event-stream").POST(HttpRequest.BodyPublishers.noBody());
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        try {
            HttpResponse<InputStream> res = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            return new UpdateStream(res.statusCode(), res.headers().firstValue("Content-Type").orElse(""),
                    res.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The whole body as text (an error answer). */
    String text() {
        try {
            return new String(body.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every event until the stream ends. */
    List<Event> all() {
        List<Event> out = new ArrayList<>();
        String id = null;
        String name = null;
        StringBuilder data = null;
        try {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isEmpty()) {
                    if (data != null && !data.isEmpty()) {
                        out.add(new Event(id, name == null ? "message" : name, JSON.readTree(data.toString())));
                    }
                    id = null;
                    name = null;
                    data = null;
                    continue;
                }
                if (line.startsWith(":")) {
                    continue;
                }
                int colon = line.indexOf(':');
                String field = colon < 0 ? line : line.substring(0, colon);
                String value = colon < 0 ? "" : line.substring(colon + 1).replaceFirst("^ ", "");
                switch (field) {
                    case "id" -> id = value;
                    case "event" -> name = value;
                    case "data" -> data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
                    default -> {
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    @Override
    public void close() {
        try {
            body.close();
        } catch (IOException e) {
            // dropping the connection
        }
    }
}
