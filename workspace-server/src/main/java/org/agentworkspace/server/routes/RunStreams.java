package org.agentworkspace.server.routes;

import java.io.IOException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.helidon.webserver.http.ServerResponse;

import org.agentworkspace.core.agent.AgentRunService;
import org.agentworkspace.core.runs.EntryKind;
import org.agentworkspace.core.runs.RunEntry;
import org.agentworkspace.core.runs.RunStatus;
import org.agentworkspace.server.http.JournalStream;

/**
 * The frames of a run's log, for the {@link JournalStream} follower (SSE or NDJSON). The run's cursor delivers every
 * entry after the starting sequence number exactly once and in order; each emitted frame carries its entry's
 * {@code seq} as the SSE {@code id}, so a client that reconnects with {@code Last-Event-ID} continues after the last
 * frame it saw. Native stdout lines are not frames of their own: each is attached as {@code native} to the first
 * event parsed from it.
 */
final class RunStreams {
    private final ObjectMapper mapper;
    private final AgentRunService runs;

    RunStreams(ObjectMapper mapper, AgentRunService runs) {
        this.mapper = mapper;
        this.runs = runs;
    }

    /** One output channel of a run stream: a JSON frame with the entry's seq as its id. */
    static final class Out {
        private final JournalStream.Out out;

        Out(JournalStream.Out out) {
            this.out = out;
        }

        /** A frame; {@code id} 0 for none. */
        void emit(long id, String name, JsonNode data) {
            out.emit(id > 0 ? id : JournalStream.NO_ID, name, data.toString());
        }
    }

    /** A run stream as SSE ({@code Cache-Control: no-store}, not buffered by proxies). */
    JournalStream.Out sse(ServerResponse res) {
        return JournalStream.sse(res, "no-store", true);
    }

    /** A run stream as NDJSON. */
    JournalStream.Out ndjson(ServerResponse res) {
        return JournalStream.ndjson(res, "no-store");
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
     * The journal frames of a run stream: each entry of the log through {@code frames}, until the terminal status
     * entry has been handled. Heartbeats are {@code keep-alive} comments.
     */
    JournalStream.Frames<RunEntry> frames(String provider, Frames frames) {
        return new JournalStream.Frames<>() {
            private JsonNode pendingNative;

            @Override
            public boolean entry(RunEntry e, JournalStream.Out raw) {
                Out out = new Out(raw);
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
                        return s.terminal();
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
                return false;
            }
        };
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
