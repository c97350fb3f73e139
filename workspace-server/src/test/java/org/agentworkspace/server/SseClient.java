package org.agentworkspace.server;

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
import java.time.Duration;
import java.util.function.Predicate;

/** Reads a server-sent event stream frame by frame (tests only): a GET stream, or a job started by a POST. */
public final class SseClient implements AutoCloseable {
    public record Event(String id, String name, String data) {
    }

    public final int status;
    public final String contentType;
    private final InputStream body;
    private final BufferedReader reader;

    private SseClient(int status, String contentType, InputStream body) {
        this.status = status;
        this.contentType = contentType;
        this.body = body;
        this.reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
    }

    /** GETs the stream; {@code headers} are name, value pairs. */
    public static SseClient open(HttpClient http, URI uri, String... headers) {
        return send(http, HttpRequest.newBuilder(uri).GET(), headers);
    }

    /** POSTs without a body and reads the answer as a stream (a job that streams its progress). */
    public static SseClient post(HttpClient http, URI uri, String... headers) {
        return send(http, HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.noBody()), headers);
    }

    private static SseClient send(HttpClient http, HttpRequest.Builder b, String... headers) {
        b.header("Accept", "text/event-stream");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        try {
            HttpResponse<InputStream> res = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            return new SseClient(res.statusCode(), res.headers().firstValue("Content-Type").orElse(""), res.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The whole body as text (an error answer instead of a stream). */
    public String text() {
        try {
            return new String(body.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The next event, or null when the stream ended. Comment lines are skipped. */
    public Event next() {
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
    public List<Event> until(Predicate<Event> stop) {
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
    public List<Event> all() {
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
