package org.agentworkspace.server.agent;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;

import org.agentworkspace.server.TestServer;

/** A minimal SSE reader for tests: frames with id, event name and JSON data. */
final class Sse {
    record Frame(String id, String name, JsonNode data) {
        long seq() {
            return id == null ? -1 : Long.parseLong(id);
        }
    }

    private final BufferedReader reader;

    Sse(InputStream in) {
        this.reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    }

    /** The next frame, or null at the end of the stream. Comments and events with empty data (keep-alives) are skipped. */
    Frame next() throws IOException {
        String id = null;
        String name = "message";
        StringBuilder data = null;
        String line;
        while ((line = reader.readLine()) != null) {
            if (line.isEmpty()) {
                if (data != null && !data.isEmpty()) {
                    return new Frame(id, name, TestServer.JSON.readTree(data.toString()));
                }
                // an event with empty data (a keep-alive) is not dispatched, as in a browser
                data = null;
                name = "message";
                continue;
            }
            if (line.startsWith(":")) {
                continue;
            }
            int colon = line.indexOf(':');
            String field = colon < 0 ? line : line.substring(0, colon);
            String value = colon < 0 ? "" : line.substring(colon + 1).stripLeading();
            switch (field) {
                case "id" -> id = value;
                case "event" -> name = value;
                case "data" -> data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
                default -> {
                }
            }
        }
        return null;
    }

    /** Every frame until the stream ends or {@code stop} matches (the matching frame included). */
    List<Frame> until(Predicate<Frame> stop) throws IOException {
        List<Frame> out = new ArrayList<>();
        Frame f;
        while ((f = next()) != null) {
            out.add(f);
            if (stop.test(f)) {
                break;
            }
        }
        return out;
    }

    void close() throws IOException {
        reader.close();
    }
}
