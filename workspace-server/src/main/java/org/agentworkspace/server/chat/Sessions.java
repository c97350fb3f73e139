package org.agentworkspace.server.chat;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.core.agent.AgentRunService;
import org.agentworkspace.core.agent.RunSummary;
import org.agentworkspace.core.runs.EntryKind;
import org.agentworkspace.core.runs.RunCursor;
import org.agentworkspace.core.runs.RunEntry;
import org.agentworkspace.core.runs.RunInfo;

/**
 * Which run belongs to which CLI session, learned from the runs' logs ({@code session} events) and from turns that
 * continue a session. A session's latest run is the one {@code subscribe}/{@code abort} by {@code sessionId} name.
 * A session's newest run is the engine's session index (the runs' typed session column, written as their
 * {@code session} events are stored), so it holds across restarts and for every run, however old.
 */
final class Sessions {
    private static final System.Logger LOG = System.getLogger(Sessions.class.getName());
    static final int SCAN_ENTRIES = 200;
    private final AgentRunService service;
    private final AgentRunService runs;
    private final ObjectMapper json;
    private final Map<String, String> sessionOfRun = new ConcurrentHashMap<>();
    private final Map<String, String> latestRunOfSession = new ConcurrentHashMap<>();
    private final Map<String, JsonNode> usageOfEndedRun = new ConcurrentHashMap<>();

    Sessions(AgentRunService service, ObjectMapper json) {
        this.service = service;
        this.runs = service;
        this.json = json;
    }

    /**
     * A turn started run {@code runId} (continuing {@code sessionId}, or a new session when null): index it now and
     * learn its session id from its log in the background, whoever follows it.
     */
    void watch(String runId, String sessionId) {
        if (sessionId != null) {
            sessionOfRun.put(runId, sessionId);
            latestRunOfSession.put(sessionId, runId);
        }
        Thread.ofVirtual().name("chat-session-" + runId).start(() -> {
            try (RunCursor c = runs.follow(runId, 0)) {
                for (Optional<RunEntry> e = c.next(); e.isPresent(); e = c.next()) {
                    String id = sessionEvent(e.get());
                    if (id != null) {
                        learned(runId, id);
                        return;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "could not learn the session of " + runId, e);
            }
        });
    }

    void learned(String runId, String sessionId) {
        sessionOfRun.put(runId, sessionId);
        latestRunOfSession.merge(sessionId, runId, (old, now) -> newer(old, now));
    }

    private String newer(String a, String b) {
        Optional<RunInfo> ia = runs.info(a);
        Optional<RunInfo> ib = runs.info(b);
        if (ia.isEmpty()) {
            return b;
        }
        if (ib.isEmpty()) {
            return a;
        }
        return ib.get().createdAt().isBefore(ia.get().createdAt()) ? a : b;
    }

    /** The session's newest run: the engine's index, else one this endpoint started whose session is not stored yet. */
    Optional<RunInfo> latest(String sessionId) {
        Optional<RunInfo> stored = service.latestOfSession(sessionId).map(org.agentworkspace.core.runs.RunRecord::info);
        if (stored.isPresent()) {
            return stored;
        }
        String runId = latestRunOfSession.get(sessionId);
        return runId == null ? Optional.empty() : runs.info(runId);
    }

    /**
     * The run's session id: known, or its resumed session, or the first {@code session} event of its log among the
     * entries up to {@code upToSeq} (later ones reach the subscriber live).
     */
    Optional<String> sessionOf(RunInfo info, long upToSeq) {
        String known = sessionOfRun.get(info.id());
        if (known != null) {
            return Optional.of(known);
        }
        String resumed = runs.metadata(info).path("resumeSessionId").asText(null);
        if (resumed != null) {
            return Optional.of(resumed);
        }
        // the session event comes with the CLI's first lines: look no further than that
        upToSeq = Math.min(upToSeq, SCAN_ENTRIES);
        if (upToSeq <= 0) {
            return Optional.empty();
        }
        try (RunCursor c = runs.follow(info.id(), 0)) {
            while (true) {
                Optional<RunEntry> e = c.poll(Duration.ZERO);
                if (e.isEmpty() || e.get().seq() > upToSeq) {
                    return Optional.empty();
                }
                String id = sessionEvent(e.get());
                if (id != null) {
                    sessionOfRun.put(info.id(), id);
                    return Optional.of(id);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * The run's token usage (its last {@code usage} event), or null. Once the run has ended it is computed once (the
     * many subscribers of one run that all complete at the same moment wait for one reader of the log) and cached.
     */
    JsonNode usage(RunInfo info) {
        if (!info.status().terminal()) {
            return computeUsage(info);
        }
        if (usageOfEndedRun.size() > 10_000) {
            usageOfEndedRun.clear();
        }
        return usageOfEndedRun.computeIfAbsent(info.id(), id -> computeUsage(info));
    }

    private JsonNode computeUsage(RunInfo info) {
        RunSummary.Usage u = runs.summary(info).usage();
        JsonNode node;
        if (u == null) {
            node = json.nullNode();
        } else {
            ObjectNode o = json.createObjectNode();
            o.put("input", u.input());
            o.put("output", u.output());
            o.put("cacheRead", u.cacheRead());
            o.put("cacheWrite", u.cacheWrite());
            if (u.cost() == null) {
                o.putNull("cost");
            } else {
                o.put("cost", u.cost());
            }
            node = o;
        }
        return node;
    }

    private String sessionEvent(RunEntry e) {
        if (e.kind() != EntryKind.EVENT || !e.payload().contains("\"session\"")) {
            return null;
        }
        try {
            JsonNode n = json.readTree(e.payload());
            return "session".equals(n.path("kind").asText()) ? n.path("data").path("sessionId").asText(null) : null;
        } catch (java.io.IOException ex) {
            return null;
        }
    }
}
