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

    /** The run's open requests, oldest first. */
    public List<Pending> pending(String runId) {
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
            throw new WorkspaceException.NotFound(AgentErrorCodes.PERMISSION_REQUEST_NOT_FOUND,
                    "no open permission request with this id (answered, expired, or its run ended)");
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
        for (Pending p : pending(runId)) {
            try {
                answer(p.requestId(), false, "cancelled");
            } catch (WorkspaceException.NotFound e) {
                // answered meanwhile
            }
        }
    }

    /** The run has ended: its requests cannot be answered any more. */
    void forget(String runId) {
        for (Pending p : pending(runId)) {
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
