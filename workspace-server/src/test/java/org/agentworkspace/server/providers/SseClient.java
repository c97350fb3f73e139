package org.agentworkspace.server.providers;

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
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** Reads a server-sent event stream frame by frame (tests only). */
final class SseClient implements AutoCloseable {
    record Event(String id, String name, String data) {
    }

    final int status;
    private final InputStream body;
    private final BufferedReader reader;

    private SseClient(int status, InputStream body) {
        this.status = status;
        this.body = body;
        this.reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
    }

    static SseClient open(HttpClient http, URI uri, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).header("Accept", "text/event-stream").GET();
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        try {
            HttpResponse<InputStream> res = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            return new SseClient(res.statusCode(), res.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The next event, or null when the stream ended. Comment lines are skipped. */
    Event next() {
        String id = null;
        String name = null;
        StringBuilder data = null;
        try {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isEmpty()) {
                    if (data != null && !data.isEmpty()) {
                        return new Event(id, name == null ? "message" : name, data.toString());
                    }
                    data = null;
                    id = null;
                    name = null;
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
            return null;
        } catch (IOException e) {
            return null;
        }
    }

    /** Events until one matches (inclusive) or the stream ends. */
    List<Event> until(Predicate<Event> stop) {
        List<Event> out = new ArrayList<>();
        Event e;
        while ((e = next()) != null) {
            out.add(e);
            if (stop.test(e)) {
                break;
            }
        }
        return out;
    }

    /** Every event until the stream ends. */
    List<Event> all() {
        return until(e -> false);
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
