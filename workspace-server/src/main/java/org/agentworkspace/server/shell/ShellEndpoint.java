package org.agentworkspace.server.shell;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.websocket.WsCloseCodes;
import io.helidon.websocket.WsListener;
import io.helidon.websocket.WsSession;
import io.helidon.websocket.WsUpgradeException;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.Principal;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.shell.ShellErrorCodes;
import org.agentworkspace.core.shell.ShellListener;
import org.agentworkspace.core.shell.ShellSession;
import org.agentworkspace.core.shell.ShellSessions;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ErrorResponses;
import org.agentworkspace.server.http.NodeRouter;
import org.agentworkspace.server.http.WsGate;
import org.agentworkspace.server.ws.InboundMessages;
import org.agentworkspace.server.ws.PumpedListener;
import org.agentworkspace.server.ws.SocketPump;

/**
 * {@code /shell}: one WebSocket drives one terminal. The upgrade is admitted by {@link WsGate} (administrator
 * session, ticket or cookie with our Origin); the first message must be {@code init}, which starts a terminal or
 * reattaches to one with the output missed since a given offset. See docs/shell.md for the protocol.
 *
 * <p>Every frame to the client goes through one sender thread per socket and a bounded queue: the terminal's reader
 * never blocks on a slow client; a client that falls {@link ShellLimits#maxQueuedChars()} behind is cut off (1013)
 * and may reattach from its last offset, as the terminal keeps buffering.
 */
public final class ShellEndpoint implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ShellEndpoint.class.getName());
    /** Administrator session only; tickets accepted (a streaming route). */
    public static final Access ACCESS = Access.session().admin().stream();
    public static final String PATH = "/shell";
    /** Client messages one socket may send per second (typing and pastes stay far below); close 1008 beyond. */
    static final int MAX_MESSAGES_PER_SECOND = 200;

    private final WsGate gate;
    private final ShellSessions shells;
    private final ShellLimits limits;
    private final ObjectMapper json;
    private final Map<String, Integer> connections = new ConcurrentHashMap<>();
    /** The kind of the store's rows for terminal connections (several nodes on one store). */
    static final String KIND = "shell";
    private final AtomicLong slowConsumerCuts = new AtomicLong();
    private final ScheduledExecutorService timer;

    public ShellEndpoint(WsGate gate, ShellSessions shells, ShellLimits limits, ObjectMapper json) {
        this.gate = gate;
        this.shells = shells;
        this.limits = limits;
        this.json = json;
        this.timer = SocketPump.heartbeatTimer("shell");
        // a deleted account's terminals are killed, not kept for a reattach
        gate.accountWatch().onDeleted(id -> shells.closeAllOf(String.valueOf(id)));
    }

    /** A listener for one new socket. */
    public WsListener listener() {
        return new Connection();
    }

    public ShellSessions shells() {
        return shells;
    }

    /** How many sockets were cut for reading too slowly (since start). */
    public long slowConsumerCuts() {
        return slowConsumerCuts.get();
    }

    /** Open {@code /shell} sockets of this user (a dead peer counts until a write or the heartbeat notices). */
    public int connections(String userId) {
        return connections.getOrDefault(userId, 0);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    private final class Connection extends PumpedListener implements ShellListener {
        Connection() {
            super("shell");
        }

        private final SocketPump pump = new SocketPump("shell", limits.heartbeat(), limits.writeTimeout(), this::end);
        /** Held while a replay and the switch to live output are queued, so nothing overtakes the replay. */
        private final ReentrantLock order = new ReentrantLock();
        private final InboundMessages inbound = new InboundMessages(limits.maxMessageBytes(),
                MAX_MESSAGES_PER_SECOND, pump);
        private volatile Principal principal;
        private volatile ShellSession shell;
        private volatile org.agentworkspace.core.auth.AccountWatch.Watch watch;
        private final java.util.concurrent.atomic.AtomicBoolean counted = new java.util.concurrent.atomic.AtomicBoolean();
        /** This connection's place in the store's count over every node (several nodes on one store), or null. */
        private volatile String place;

        @Override
        public Optional<Headers> onHttpUpgrade(HttpPrologue prologue, Headers headers) throws WsUpgradeException {
            principal = gate.admit(ACCESS, prologue, headers);
            return Optional.empty();
        }

        @Override
        public void onOpen(WsSession session) {
            pump.start(session, timer);
            // deleting the account closes the socket at once (its terminals are killed: see the constructor)
            watch = gate.accountWatch().watch(principal.user().id(),
                    () -> closeWith(CLOSE_ACCOUNT_DELETED, "the account was deleted"));
            int n = connections.merge(userId(), 1, Integer::sum);
            counted.set(true);
            if (n > limits.maxConnectionsPerUser()) {
                fail(429, ShellErrorCodes.TOO_MANY_CONNECTIONS, "at most " + limits.maxConnectionsPerUser()
                        + " terminal connections per user", WsCloseCodes.TRY_AGAIN_LATER);
                return;
            }
            // several nodes on one store: the user's terminal connections on every node count
            org.agentworkspace.core.runs.OpenStreams everyNode = gate.everyNode();
            if (everyNode != null) {
                Optional<String> taken = everyNode.open(KIND, principal.user().id(), limits.maxConnectionsPerUser());
                if (taken.isEmpty()) {
                    fail(429, ShellErrorCodes.TOO_MANY_CONNECTIONS, "at most " + limits.maxConnectionsPerUser()
                            + " terminal connections per user", WsCloseCodes.TRY_AGAIN_LATER);
                    return;
                }
                place = taken.get();
                if (!counted.get() && place != null) {
                    // the socket ended meanwhile: end() found no place to give back
                    everyNode.close(place);
                    place = null;
                }
            }
        }

        private String userId() {
            return String.valueOf(principal.user().id());
        }

        @Override
        public void onMessage(WsSession session, String text, boolean last) {
            pump.heard();
            if (pump.closing()) {
                return;
            }
            String message = inbound.accept(text, last);
            if (message == null) {
                return;
            }
            try {
                handle(message);
            } catch (WorkspaceException e) {
                send(error(ErrorResponses.status(e).code(), e.code(), e.getMessage()));
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "shell message failed", e);
                send(error(500, ErrorCodes.INTERNAL_ERROR, "the message could not be handled"));
            }
        }

        @Override
        protected SocketPump pump() {
            return pump;
        }

        private void handle(String message) {
            JsonNode m;
            try {
                m = json.readTree(message);
            } catch (java.io.IOException e) {
                throw invalid("not a JSON message");
            }
            if (m == null || !m.isObject()) {
                throw invalid("a message is a JSON object with a type");
            }
            String type = m.path("type").asText("");
            ShellSession s = shell;
            if (s == null && !type.equals("init") && !type.equals("ping")) {
                throw invalid("the first message must be init");
            }
            switch (type) {
                case "init" -> init(m);
                case "input" -> {
                    JsonNode data = m.get("data");
                    if (data == null || !data.isTextual()) {
                        throw invalid("input needs a string data");
                    }
                    if (s.exitCode().isEmpty()) {
                        s.write(data.asText());
                    }
                }
                case "resize" -> s.resize(size(m, "cols"), size(m, "rows"));
                case "ping" -> send(object("pong"));
                case "close" -> {
                    shells.close(s);
                    closeWith(WsCloseCodes.NORMAL_CLOSE, "terminal closed");
                }
                default -> throw invalid("unknown message type");
            }
        }

        private void init(JsonNode m) {
            if (shell != null) {
                throw invalid("this socket already drives a terminal");
            }
            int cols = size(m, "cols");
            int rows = size(m, "rows");
            String sessionId = text(m, "sessionId");
            if (sessionId != null) {
                ShellSession s = shells.find(userId(), sessionId).orElseThrow(() -> new WorkspaceException.NotFound(
                        ShellErrorCodes.SHELL_NOT_FOUND, "no terminal with this id (it may have been reaped)"));
                JsonNode last = m.get("lastOffset");
                long from = last == null || last.isNull() ? 0 : last.asLong(-1);
                if (from < 0 || (last != null && !last.isNull() && !last.canConvertToLong())) {
                    throw invalid("lastOffset must be a byte offset (an integer >= 0)");
                }
                attach(s, from, false);
                if (s.exitCode().isEmpty()) {
                    s.resize(cols, rows);
                }
                return;
            }
            String project = text(m, "projectName");
            if (project == null) {
                throw invalid("init needs projectName (a new terminal) or sessionId (a reattach)");
            }
            // on a shared store, a terminal opens on a node whose roots hold the project's folder: another node is
            // named for the client to connect to (docs/scale-out.md "Where work runs")
            java.util.Optional<org.agentworkspace.core.runs.NodeDirectory.NodeInfo> other = gate.nodes()
                    .flatMap(n -> n.elsewhere(n.projectFolder(project)));
            if (other.isPresent()) {
                ObjectNode refusal = error(421, NodeRouter.PROJECT_ON_OTHER_NODE, NodeRouter.onOtherNode(other.get()));
                ((ObjectNode) refusal.get("error")).put("nodeId", other.get().id())
                        .put("nodeUrl", other.get().advertiseUrl());
                send(refusal);
                return;
            }
            ShellSession s;
            try {
                s = shells.open(userId(), project, cols, rows, text(m, "provider"));
            } catch (WorkspaceException.RateLimited e) {
                send(error(429, ShellErrorCodes.TOO_MANY_SHELLS, e.getMessage()));
                return;
            }
            attach(s, 0, true);
        }

        /** Queues ready, the replay, then switches to live output, all under {@link #order}. */
        private void attach(ShellSession s, long from, boolean fresh) {
            order.lock();
            try {
                ShellSession.Attachment a = s.attach(from, this);
                shell = s;
                ObjectNode ready = object("ready");
                ready.put("sessionId", s.id());
                ready.put("offset", a.offset());
                ready.put("cwd", s.cwd().toString());
                send(ready);
                if (fresh) {
                    // what the terminal printed before this attach (its first prompt)
                    if (!a.replay().isEmpty()) {
                        sendUncounted(output(a.replay(), a.offset()));
                    }
                } else {
                    ObjectNode start = object("replay-start");
                    start.put("from", a.replayFrom());
                    start.put("truncated", a.truncated());
                    send(start);
                    if (!a.replay().isEmpty()) {
                        sendUncounted(output(a.replay(), a.offset()));
                    }
                    ObjectNode end = object("replay-end");
                    end.put("offset", a.offset());
                    send(end);
                }
                a.exitCode().ifPresent(this::onExit);
            } finally {
                order.unlock();
            }
        }

        @Override
        public void onOutput(String data, long offset) {
            order.lock();
            try {
                send(output(data, offset));
            } finally {
                order.unlock();
            }
        }

        @Override
        public void onExit(int exitCode) {
            order.lock();
            try {
                ObjectNode exit = object("exit");
                exit.put("exitCode", exitCode);
                send(exit);
                closeWith(WsCloseCodes.NORMAL_CLOSE, "terminal exited");
            } finally {
                order.unlock();
            }
        }

        private ObjectNode output(String data, long offset) {
            ObjectNode o = object("output");
            o.put("data", data);
            o.put("offset", offset);
            return o;
        }

        private ObjectNode object(String type) {
            ObjectNode o = json.createObjectNode();
            o.put("type", type);
            return o;
        }

        private ObjectNode error(int status, String code, String message) {
            ObjectNode o = object("error");
            o.put("status", status);
            ObjectNode e = o.putObject("error");
            e.put("code", code);
            e.put("message", message);
            return o;
        }

        private void fail(int status, String code, String message, int closeCode) {
            send(error(status, code, message));
            closeWith(closeCode, code);
        }

        private void send(ObjectNode frame) {
            String text = write(frame);
            if (pump.queuedChars() + text.length() > limits.maxQueuedChars()) {
                // a slow consumer: stop feeding it (closing drops further output; the socket's end detaches it);
                // the terminal keeps its output for a reattach
                if (!pump.closing()) {
                    slowConsumerCuts.incrementAndGet();
                    LOG.log(System.Logger.Level.INFO, "shell socket cut: the client reads too slowly");
                    pump.cut(WsCloseCodes.TRY_AGAIN_LATER, "slow consumer: reattach from your last offset");
                }
                return;
            }
            pump.send(text);
        }

        /** A replay: at most the ring's size, sent whole even to a slow reader (live output after it is counted). */
        private void sendUncounted(ObjectNode frame) {
            pump.sendUncounted(write(frame));
        }

        private String write(ObjectNode frame) {
            try {
                return json.writeValueAsString(frame);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }

        private void closeWith(int code, String reason) {
            pump.closeWith(code, reason);
        }

        /** The socket is gone: detach (the terminal stays for a reattach), stop the sender and the heartbeat. */
        @Override
        protected void end() {
            pump.stop();
            if (watch != null) {
                watch.close();
            }
            ShellSession s = shell;
            if (s != null) {
                s.detach(this);
            }
            if (counted.compareAndSet(true, false)) {
                connections.computeIfPresent(userId(), (k, v) -> v <= 1 ? null : v - 1);
                String p = place;
                if (p != null) {
                    place = null;
                    gate.everyNode().close(p);
                }
            }
        }

        private static WorkspaceException invalid(String message) {
            return new WorkspaceException.Validation(ShellErrorCodes.INVALID_MESSAGE, message);
        }

        private static String text(JsonNode m, String field) {
            JsonNode v = m.get(field);
            if (v == null || v.isNull()) {
                return null;
            }
            if (!v.isTextual() || v.asText().isEmpty()) {
                throw invalid(field + " must be a non-empty string");
            }
            return v.asText();
        }

        private static int size(JsonNode m, String field) {
            JsonNode v = m.get(field);
            if (v == null || !v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < 1 || v.asInt() > 1000) {
                throw invalid(field + " must be an integer from 1 to 1000");
            }
            return v.asInt();
        }
    }
}
