package org.agentworkspace.server.routes;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.helidon.http.HeaderNames;
import io.helidon.http.sse.SseEvent;
import io.helidon.webserver.http.ServerResponse;
import io.helidon.webserver.sse.SseSink;

import org.agentworkspace.core.agent.AgentRuns;
import org.agentworkspace.core.runs.EntryKind;
import org.agentworkspace.core.runs.RunCursor;
import org.agentworkspace.core.runs.RunEntry;
import org.agentworkspace.core.runs.RunStatus;

/**
 * Writes a run's log to a client as SSE or NDJSON. The cursor delivers every entry after the starting sequence
 * number exactly once and in order; each emitted frame carries its entry's {@code seq} as the SSE {@code id}, so
 * a client that reconnects with {@code Last-Event-ID} continues after the last frame it saw. Native stdout lines
 * are not frames of their own: each is attached as {@code native} to the first event parsed from it.
 */
final class RunStreams {
    static final Duration KEEP_ALIVE = Duration.ofSeconds(15);

    private final ObjectMapper mapper;
    private final AgentRuns runs;

    RunStreams(ObjectMapper mapper, AgentRuns runs) {
        this.mapper = mapper;
        this.runs = runs;
    }

    /** One output channel: SSE or NDJSON. Every method flushes. */
    interface Out extends AutoCloseable {
        void emit(long id, String name, JsonNode data);

        void keepAlive();

        @Override
        void close();
    }

    /**
     * A keep-alive: a comment line and an empty {@code data:} field. Helidon's SSE sink writes a data field for every
     * event and cannot write an event without data (a bare comment fails with "no media writer for Object"); an
     * event whose data is empty is not dispatched by an EventSource (HTML Living Standard, "dispatch the event"), so
     * clients see nothing but traffic.
     */
    static SseEvent keepAliveEvent(String comment) {
        return SseEvent.builder().comment(comment).data("").build();
    }

    Out sse(ServerResponse res) {
        res.header(HeaderNames.CACHE_CONTROL, "no-store");
        res.header(HeaderNames.create("X-Accel-Buffering"), "no");
        SseSink sink = res.sink(SseSink.TYPE);
        return new Out() {
            @Override
            public void emit(long id, String name, JsonNode data) {
                SseEvent.Builder b = SseEvent.builder().name(name).data(data.toString());
                if (id > 0) {
                    b.id(Long.toString(id));
                }
                sink.emit(b.build());
            }

            @Override
            public void keepAlive() {
                sink.emit(keepAliveEvent("keep-alive"));
            }

            @Override
            public void close() {
                sink.close();
            }
        };
    }

    Out ndjson(ServerResponse res) {
        res.header(HeaderNames.CONTENT_TYPE, "application/x-ndjson");
        res.header(HeaderNames.CACHE_CONTROL, "no-store");
        res.header(HeaderNames.create("X-Accel-Buffering"), "no");
        OutputStream out = res.outputStream();
        return new Out() {
            @Override
            public void emit(long id, String name, JsonNode data) {
                ObjectNode line = mapper.createObjectNode();
                line.put("event", name);
                if (id > 0) {
                    line.put("id", id);
                }
                line.set("data", data);
                write((line.toString() + "\n").getBytes(StandardCharsets.UTF_8));
            }

            @Override
            public void keepAlive() {
                write("\n".getBytes(StandardCharsets.UTF_8));
            }

            private void write(byte[] bytes) {
                try {
                    out.write(bytes);
                    out.flush();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }

            @Override
            public void close() {
                try {
                    out.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
    }

    /** What to do with the frames of one stream kind. */
    interface Frames {
        /** An event of the run (kind and data from the parser, native attached). */
        void event(RunEntry entry, ObjectNode event, Out out);

        /** A status entry; {@code terminal} for the last entry of the log. */
        void status(RunEntry entry, RunStatus status, JsonNode payload, Out out);

        /** A stderr / truncation / parse-error line. */
        void log(RunEntry entry, ObjectNode line, Out out);
    }

    /**
     * Copies the log from {@code cursor} to {@code out} until the terminal status entry has been handled.
     *
     * @throws UncheckedIOException the client went away
     */
    void pump(RunCursor cursor, String provider, Frames frames, Out out) throws InterruptedException {
        pump(cursor, provider, frames, out, () -> false);
    }

    /** How often a stream looks at {@code ended} while the run is quiet. */
    static final Duration ENDED_CHECK = Duration.ofMillis(250);

    /**
     * As {@link #pump(RunCursor, String, Frames, Out)}, and ends within {@link #ENDED_CHECK} once {@code ended} says
     * so (the account that opened the stream was deleted), with an {@code error} event {@code CREDENTIAL_REVOKED}.
     */
    void pump(RunCursor cursor, String provider, Frames frames, Out out, java.util.function.BooleanSupplier ended)
            throws InterruptedException {
        JsonNode pendingNative = null;
        long nextBeat = System.nanoTime() + KEEP_ALIVE.toNanos();
        while (true) {
            if (ended.getAsBoolean()) {
                out.emit(0, "error", mapper.createObjectNode().put("code", "CREDENTIAL_REVOKED")
                        .put("message", "the account that opened this stream was deleted"));
                return;
            }
            Optional<RunEntry> next = cursor.poll(ENDED_CHECK);
            if (next.isEmpty()) {
                if (cursor.finished()) {
                    return;
                }
                if (System.nanoTime() - nextBeat >= 0) {
                    nextBeat = System.nanoTime() + KEEP_ALIVE.toNanos();
                    out.keepAlive();
                }
                continue;
            }
            RunEntry e = next.get();
            JsonNode payload = parse(e.payload());
            switch (e.kind()) {
                case NATIVE -> {
                    String line = runs.redact(e.runId(), provider, payload.path("line").asText());
                    pendingNative = parseLine(line);
                }
                case EVENT -> {
                    ObjectNode ev = mapper.createObjectNode();
                    ev.put("seq", e.seq());
                    ev.put("runId", e.runId());
                    ev.put("provider", provider);
                    ev.put("kind", payload.path("kind").asText());
                    ev.put("at", e.at().toString());
                    ev.set("data", payload.path("data"));
                    if (pendingNative != null) {
                        ev.set("native", pendingNative);
                        pendingNative = null;
                    }
                    frames.event(e, ev, out);
                }
                case STATUS -> {
                    RunStatus s = RunStatus.ofWireName(payload.path("status").asText("failed"));
                    frames.status(e, s, payload, out);
                    if (s.terminal()) {
                        return;
                    }
                }
                case STDERR, TRUNCATED, PARSE_ERROR -> {
                    ObjectNode line = mapper.createObjectNode();
                    line.put("seq", e.seq());
                    line.put("at", e.at().toString());
                    line.put("stream", e.kind() == EntryKind.STDERR ? "stderr" : "system");
                    line.put("text", e.kind() == EntryKind.STDERR
                            ? runs.redact(e.runId(), provider, payload.path("line").asText())
                            : e.kind().wireName() + " " + e.payload());
                    frames.log(e, line, out);
                }
            }
        }
    }

    JsonNode parse(String payload) {
        try {
            return mapper.readTree(payload);
        } catch (IOException e) {
            return mapper.createObjectNode();
        }
    }

    private JsonNode parseLine(String line) {
        try {
            JsonNode n = mapper.readTree(line);
            return n == null ? mapper.getNodeFactory().textNode(line) : n;
        } catch (IOException e) {
            return mapper.getNodeFactory().textNode(line);
        }
    }

    /** The API's name of a run status: the engine's {@code succeeded} is {@code completed}. */
    static String statusName(RunStatus s) {
        return s == RunStatus.SUCCEEDED ? "completed" : s.wireName();
    }
}
