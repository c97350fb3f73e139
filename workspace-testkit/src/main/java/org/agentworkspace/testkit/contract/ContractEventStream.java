package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A server-sent event stream opened by {@link ContractClient.Request#openStream()}. The response line and headers
 * were checked against the document when it opened; every event read is checked against the response's
 * {@code x-sse-events}. Close it to drop the connection.
 */
public final class ContractEventStream implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Object END = new Object();

    private final ContractResponse response;
    private final OpenApiContract contract;
    private final InputStream body;
    private final LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();
    private final Thread reader;
    private volatile boolean closed;

    ContractEventStream(ContractResponse response, OpenApiContract contract, InputStream body) {
        this.response = response;
        this.contract = contract;
        this.body = body;
        this.reader = body == null ? null : Thread.ofVirtual().name("sse-reader").start(this::read);
        if (body == null) {
            events.add(END);
        }
    }

    /** The response (status and headers; the body is empty for an open stream, the error envelope otherwise). */
    public ContractResponse response() {
        return response;
    }

    /** The next event; fails the test when none arrives in time or the stream ends first. */
    public Event next(Duration timeout) {
        return nextOrEnd(timeout).orElseGet(() -> fail(response.describe() + ": the stream ended without another event"));
    }

    /** The next event, or empty when the stream ended; fails the test when neither happens in time. */
    public Optional<Event> nextOrEnd(Duration timeout) {
        Object item;
        try {
            item = events.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail("interrupted while waiting for an event", e);
        }
        if (item == null) {
            return fail(response.describe() + ": no event within " + timeout);
        }
        if (item == END) {
            events.add(END);
            return Optional.empty();
        }
        Event event = (Event) item;
        List<String> violations = contract.validateEvent(response.method(), response.target(), response.status(),
                event.event(), event.data());
        if (!violations.isEmpty()) {
            fail("event does not conform to the OpenAPI document:\n  - " + String.join("\n  - ", violations)
                    + "\n  data: " + ContractClient.redactBody(event.data()));
        }
        return Optional.of(event);
    }

    private void read() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
            String name = null;
            String id = null;
            StringBuilder data = null;
            String line;
            while ((line = lines.readLine()) != null) {
                if (line.isEmpty()) {
                    // an event with empty data (a keep-alive) is not dispatched, as in a browser
                    if (data != null && !data.isEmpty()) {
                        events.add(new Event(name == null ? "message" : name, id, data.toString()));
                    }
                    name = null;
                    data = null;
                    continue;
                }
                if (line.startsWith(":")) {
                    continue;
                }
                String[] field = line.split(":", 2);
                String value = field.length > 1 ? (field[1].startsWith(" ") ? field[1].substring(1) : field[1]) : "";
                switch (field[0]) {
                    case "event" -> name = value;
                    case "id" -> id = value;
                    case "data" -> data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
                    default -> {
                        // "retry" and unknown fields carry nothing the suite checks
                    }
                }
            }
        } catch (IOException e) {
            // closed by us, or the server dropped the connection: both end the stream
        } finally {
            events.add(END);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (body != null) {
            try {
                body.close();
            } catch (IOException e) {
                // nothing to do: the connection is being dropped
            }
            reader.interrupt();
        }
    }

    /**
     * One event.
     *
     * @param event the event name ({@code message} when the server named none)
     * @param id the {@code id:} field, or null
     * @param data the data lines joined with newlines
     */
    public record Event(String event, String id, String data) {
        /** The data parsed as JSON. */
        public JsonNode json() {
            try {
                return JSON.readTree(data);
            } catch (JsonProcessingException e) {
                return fail("event data is not JSON: " + data);
            }
        }
    }
}
