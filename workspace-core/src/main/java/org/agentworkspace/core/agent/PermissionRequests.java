package org.agentworkspace.core.agent;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.runs.RunEngine;

/**
 * The tool-permission requests of interactive runs that wait for an answer. The state lives here, in the engine, not
 * in a socket: a client that reconnects finds its pending requests again ({@link #pending}). Every request and every
 * answer is also an entry of the run's log ({@code permission-request} / {@code permission-response} events), so a
 * replay shows them in order with everything else.
 *
 * <p>An answer becomes the CLI's {@code control_response} line on the run's stdin. A request nobody answers is
 * denied at its {@code expiresAt}; requests still open when a run is aborted are denied ("cancelled").
 */
public final class PermissionRequests implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(PermissionRequests.class.getName());
    private static final String ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
    /** Less than the engine's default inactivity timeout (10 min): a waiting CLI prints nothing. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);
    /** The engine request that answers an open request on the node holding its run (payload {requestId, allow}). */
    static final String ANSWER = "permission-answer";
    /** The engine request that denies a run's open requests ("cancelled") and then cancels it. */
    static final String ABORT = "abort";
    private static final java.util.regex.Pattern REQUEST_ID = java.util.regex.Pattern.compile("perm_[a-z0-9]{20}");

    /**
     * One open request. {@code cliRequestId} is the CLI's own id, answered in its control protocol; {@code seq} the
     * log entry of its {@code permission-request} event (-1 while it is being stored).
     */
    public record Pending(String requestId, String runId, String cliRequestId, String toolName, JsonNode input,
                          Instant expiresAt, long seq) {
    }

    private final RunEngine engine;
    private final ObjectMapper mapper;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, Pending> open = new ConcurrentHashMap<>();
    private final Map<String, ScheduledFuture<?>> expiries = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer;
    private volatile Duration timeout = DEFAULT_TIMEOUT;
    private final List<java.util.function.Consumer<Pending>> openListeners =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    PermissionRequests(RunEngine engine, ObjectMapper mapper, Clock clock) {
        this.engine = engine;
        this.mapper = mapper;
        this.clock = clock;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "aw-permission-expiry");
            t.setDaemon(true);
            return t;
        });
        // what this node does when a node that does not hold the run asks (docs/scale-out.md)
        engine.handleRequests(ANSWER, (runId, payload) -> {
            JsonNode n = parse(payload);
            String requestId = n.path("requestId").asText("");
            Pending p = open.get(requestId);
            if (p == null || !p.runId().equals(runId)) {
                throw notFound();
            }
            return String.valueOf(answer(requestId, n.path("allow").asBoolean(false), "answered"));
        });
        engine.handleRequests(ABORT, (runId, payload) -> String.valueOf(engine.cancel(runId, () -> cancelAll(runId))));
    }

    private JsonNode parse(String payload) {
        try {
            return mapper.readTree(payload);
        } catch (java.io.IOException e) {
            throw WorkspaceException.Validation.of("a permission answer request must be JSON");
        }
    }

    private static WorkspaceException.NotFound notFound() {
        return new WorkspaceException.NotFound(AgentErrorCodes.PERMISSION_REQUEST_NOT_FOUND,
                "no open permission request with this id (answered, expired, or its run ended)");
    }

    /**
     * Stops a run from any node: its open requests are denied ("cancelled"), then it is cancelled, on the node that
     * holds it (this one, or another node through the engine's stored request).
     *
     * @return true when the run was queued or running and is now being cancelled
     */
    public boolean abort(String runId) {
        return engine.request(runId, ABORT, "").map(Boolean::parseBoolean).orElse(false);
    }

    /** How long a request waits for an answer before it is denied (default 5 minutes). */
    public void setTimeout(Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("the permission timeout must be positive");
        }
        timeout = d;
    }

    public Duration timeout() {
        return timeout;
    }

    /**
     * Registers a request the CLI just made and stores its {@code permission-request} event (called on the run's
     * stdout reader, so the event lands right after the CLI's line).
     */
    void opened(String runId, String cliRequestId, String toolName, JsonNode input) {
        Instant expires = clock.instant().plus(timeout).truncatedTo(ChronoUnit.MILLIS);
        Pending p = new Pending(newId(), runId, cliRequestId, toolName, input == null ? mapper.createObjectNode()
                : input, expires, -1);
        open.put(p.requestId(), p);
        expiries.put(p.requestId(), timer.schedule(() -> expire(p.requestId()), timeout.toMillis(),
                TimeUnit.MILLISECONDS));
        ObjectNode ev = mapper.createObjectNode();
        ev.put("kind", "permission-request");
        ObjectNode data = ev.putObject("data");
        data.put("requestId", p.requestId());
        data.put("toolName", toolName);
        data.set("input", p.input());
        data.put("expiresAt", expires.toString());
        long seq = engine.note(runId, ev.toString());
        Pending stored = open.computeIfPresent(p.requestId(), (k, v) -> new Pending(v.requestId(), v.runId(),
                v.cliRequestId(), v.toolName(), v.input(), v.expiresAt(), seq));
        if (stored != null) {
            for (java.util.function.Consumer<Pending> l : openListeners) {
                try {
                    l.accept(stored);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "a permission request listener failed", e);
                }
            }
        }
    }

    /**
     * Calls {@code listener} with each request once it is open and stored (a run now waits for the user). Called on
     * the run's stdout reader: it must return quickly.
     */
    public void addOpenListener(java.util.function.Consumer<Pending> listener) {
        openListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** The open request with this id. */
    public Optional<Pending> find(String requestId) {
        return Optional.ofNullable(open.get(requestId));
    }

    /**
     * The open request with this id wherever its run is held: this node's, else read from the log of an unfinished
     * run of another node (a {@code permission-request} entry with no {@code permission-response} after it, not
     * expired). Such a request has no {@link Pending#cliRequestId()} (only the run's node knows it).
     */
    public Optional<Pending> locate(String requestId) {
        Pending p = open.get(requestId);
        if (p != null) {
            return Optional.of(p);
        }
        if (requestId == null || !REQUEST_ID.matcher(requestId).matches()) {
            return Optional.empty();
        }
        for (String runId : engine.unfinishedWithEvent("\"requestId\":\"" + requestId + "\"")) {
            if (engine.holds(runId)) {
                continue; // this node's run: its open requests are the ones above
            }
            for (Pending q : openInLog(runId)) {
                if (q.requestId().equals(requestId)) {
                    return Optional.of(q);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Whether request {@code requestId} of run {@code runId} is open: on this node, or, for a run another node holds,
     * according to its log.
     */
    public Optional<Pending> findOpen(String runId, String requestId) {
        Pending p = open.get(requestId);
        if (p != null) {
            return Optional.of(p);
        }
        if (engine.holds(runId)) {
            return Optional.empty();
        }
        return openInLog(runId).stream().filter(q -> q.requestId().equals(requestId)).findFirst();
    }

    /**
     * Answers an open request on whichever node holds its run ({@link #answer} there).
     *
     * @return the seq of the stored answer
     * @throws WorkspaceException.NotFound {@code PERMISSION_REQUEST_NOT_FOUND}: unknown, already answered or expired
     */
    public long answerAnywhere(Pending p, boolean allow) {
        if (open.containsKey(p.requestId())) {
            return answer(p.requestId(), allow, "answered");
        }
        String payload = mapper.createObjectNode().put("requestId", p.requestId()).put("allow", allow).toString();
        return engine.request(p.runId(), ANSWER, payload).map(Long::parseLong).orElseThrow(PermissionRequests::notFound);
    }

    /** The open requests of a run another node holds, from its log; empty when the run has ended. */
    private List<Pending> openInLog(String runId) {
        if (engine.find(runId).map(i -> i.status().terminal()).orElse(true)) {
            return List.of();
        }
        Map<String, Pending> found = new java.util.LinkedHashMap<>();
        Instant now = clock.instant();
        for (org.agentworkspace.core.runs.RunEntry e : engine.eventsContaining(runId, "\"kind\":\"permission-",
                10_000)) {
            JsonNode n;
            try {
                n = mapper.readTree(e.payload());
            } catch (java.io.IOException ex) {
                continue;
            }
            JsonNode d = n.path("data");
            String id = d.path("requestId").asText("");
            switch (n.path("kind").asText("")) {
                case "permission-request" -> {
                    Instant expires;
                    try {
                        expires = Instant.parse(d.path("expiresAt").asText(""));
                    } catch (java.time.format.DateTimeParseException ex) {
                        continue;
                    }
                    if (expires.isAfter(now)) {
                        found.put(id, new Pending(id, runId, null, d.path("toolName").asText(""),
                                d.path("input"), expires, e.seq()));
                    }
                }
                case "permission-response" -> found.remove(id);
                default -> { }
            }
        }
        List<Pending> out = new ArrayList<>(found.values());
        out.sort(Comparator.comparing(Pending::expiresAt));
        return out;
    }

    /** The run's open requests, oldest first (of a run another node holds: read from its log). */
    public List<Pending> pending(String runId) {
        if (!engine.holds(runId) && open.values().stream().noneMatch(p -> p.runId().equals(runId))) {
            return openInLog(runId);
        }
        return localPending(runId);
    }

    private List<Pending> localPending(String runId) {
        List<Pending> out = new ArrayList<>();
        for (Pending p : open.values()) {
            if (p.runId().equals(runId)) {
                out.add(p);
            }
        }
        out.sort(Comparator.comparing(Pending::expiresAt));
        return out;
    }

    /**
     * Answers an open request: stores a {@code permission-response} event, then writes the CLI's
     * {@code control_response} (allow with the tool input unchanged, or deny) to the run's stdin.
     *
     * @return the seq of the stored answer (-1 when the run had ended meanwhile)
     * @throws WorkspaceException.NotFound {@code PERMISSION_REQUEST_NOT_FOUND}: unknown, already answered or expired
     */
    public long answer(String requestId, boolean allow, String reason) {
        Pending p = open.remove(requestId);
        if (p == null) {
            throw notFound();
        }
        ScheduledFuture<?> f = expiries.remove(requestId);
        if (f != null) {
            f.cancel(false);
        }
        ObjectNode ev = mapper.createObjectNode();
        ev.put("kind", "permission-response");
        ObjectNode data = ev.putObject("data");
        data.put("requestId", p.requestId());
        data.put("toolName", p.toolName());
        data.put("decision", allow ? "allow" : "deny");
        data.put("reason", reason);
        long seq = engine.note(p.runId(), ev.toString());
        ObjectNode behaviour = mapper.createObjectNode();
        if (allow) {
            behaviour.put("behavior", "allow");
            behaviour.set("updatedInput", p.input());
        } else {
            behaviour.put("behavior", "deny");
            behaviour.put("message", switch (reason) {
                case "expired" -> "Permission request expired without an answer";
                case "cancelled" -> "The run was stopped";
                default -> "The user denied this action";
            });
        }
        ObjectNode line = mapper.createObjectNode();
        line.put("type", "control_response");
        ObjectNode response = line.putObject("response");
        response.put("subtype", "success");
        response.put("request_id", p.cliRequestId());
        response.set("response", behaviour);
        if (!engine.write(p.runId(), line + "\n")) {
            LOG.log(System.Logger.Level.DEBUG, "run " + p.runId() + ": the answer to " + requestId
                    + " found stdin closed");
        }
        return seq;
    }

    /** Denies the run's open requests ("cancelled"): before an abort, so the log shows how each ended. */
    public void cancelAll(String runId) {
        for (Pending p : localPending(runId)) {
            try {
                answer(p.requestId(), false, "cancelled");
            } catch (WorkspaceException.NotFound e) {
                // answered meanwhile
            }
        }
    }

    /** The run has ended: its requests cannot be answered any more. */
    void forget(String runId) {
        for (Pending p : localPending(runId)) {
            open.remove(p.requestId());
            ScheduledFuture<?> f = expiries.remove(p.requestId());
            if (f != null) {
                f.cancel(false);
            }
        }
    }

    private void expire(String requestId) {
        expiries.remove(requestId);
        try {
            answer(requestId, false, "expired");
        } catch (WorkspaceException.NotFound e) {
            // answered just now
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "could not deny the expired permission request " + requestId, e);
        }
    }

    private String newId() {
        StringBuilder b = new StringBuilder("perm_");
        for (int i = 0; i < 20; i++) {
            b.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return b.toString();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
