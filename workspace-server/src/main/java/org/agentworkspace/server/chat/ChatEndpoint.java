package org.agentworkspace.server.chat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

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
import org.agentworkspace.api.Scope;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.PermissionMode;
import org.agentworkspace.core.agent.AgentErrorCodes;
import org.agentworkspace.core.agent.AgentRunService;
import org.agentworkspace.core.agent.PermissionRequests;
import org.agentworkspace.core.journal.JournalCursor;
import org.agentworkspace.core.runs.RunEntry;
import org.agentworkspace.core.runs.RunHandle;
import org.agentworkspace.core.runs.RunInfo;
import org.agentworkspace.core.runs.RunStatus;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.NodeRouter;
import org.agentworkspace.server.http.WsGate;
import org.agentworkspace.server.ws.InboundMessages;
import org.agentworkspace.server.ws.PumpedListener;
import org.agentworkspace.server.ws.SocketPump;

/**
 * {@code /ws}: the chat WebSocket. One socket starts turns, continues sessions, aborts runs, answers permission
 * requests and follows any number of runs. Every frame about a run carries the sequence number of the run's log
 * entry it comes from: the log (the same one SSE and NDJSON serve) is the single source of truth, so a client that
 * reconnects and subscribes with the last {@code seq} it saw gets every later entry exactly once, in order. See
 * docs/live-channels.md for the protocol.
 *
 * <p>Each subscription reads its run through its own {@link JournalCursor} of the run's core journal on a virtual
 * thread; frames go to one sender thread per socket through a bounded queue. A cursor never slows the run; a
 * subscription whose socket does not drain its queue within {@link ChatLimits#slowConsumerGrace()} cuts the socket (1013).
 */
public final class ChatEndpoint implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ChatEndpoint.class.getName());
    /** Any authenticated caller with tasks:read (sessions hold every scope); tickets accepted. */
    public static final Access ACCESS = Access.scope(Scope.TASKS_READ).stream();
    public static final String PATH = "/ws";
    static final String INVALID_MESSAGE = "INVALID_MESSAGE";
    static final String TOO_MANY_CONNECTIONS = "TOO_MANY_CONNECTIONS";
    static final String TOO_MANY_SUBSCRIPTIONS = "TOO_MANY_SUBSCRIPTIONS";
    static final String SESSION_NOT_FOUND = "SESSION_NOT_FOUND";
    static final String SESSION_BUSY = "SESSION_BUSY";

    private final WsGate gate;
    private final AgentRunService service;
    private final AgentRunService runs;
    private final ChatLimits limits;
    private final ObjectMapper json;
    private final Sessions sessions;
    private final Map<String, Integer> connections = new ConcurrentHashMap<>();
    private final AtomicLong slowConsumerCuts = new AtomicLong();
    private final ScheduledExecutorService timer;

    public ChatEndpoint(WsGate gate, AgentRunService service, ChatLimits limits, ObjectMapper json) {
        this.gate = gate;
        this.service = service;
        this.runs = service;
        this.limits = limits;
        this.json = json;
        this.sessions = new Sessions(service, json);
        this.timer = SocketPump.heartbeatTimer("chat");
    }

    /** A listener for one new socket. */
    /** The newest run of a CLI session (the engine's session index). */
    public Optional<RunInfo> latestRunOfSession(String sessionId) {
        return sessions.latest(sessionId);
    }

    public WsListener listener() {
        return new Connection();
    }

    public ChatLimits limits() {
        return limits;
    }

    /** The open permission requests (and their timeout) of the runs behind this endpoint. */
    public PermissionRequests permissions() {
        return runs.permissions();
    }

    /** Open {@code /ws} sockets of this user. */
    public int connections(long userId) {
        return connections.getOrDefault(String.valueOf(userId), 0);
    }

    /** How many sockets were cut for reading too slowly (since start). */
    public long slowConsumerCuts() {
        return slowConsumerCuts.get();
    }

    /** The kind of the store's rows for {@code /ws} sockets (several nodes on one store). */
    static final String KIND = "ws";

    /** The cap as the HTTP fallback checks it: 429 when the user already holds the maximum of sockets. */
    void checkCap(Principal p) {
        if (connections.getOrDefault(String.valueOf(p.user().id()), 0) >= limits.maxConnectionsPerUser()) {
            throw tooManyConnections();
        }
        org.agentworkspace.core.runs.OpenStreams everyNode = gate.everyNode();
        if (everyNode != null && everyNode.count(KIND, p.user().id()) >= limits.maxConnectionsPerUser()) {
            throw tooManyConnections();
        }
    }

    /**
     * Takes one of the user's connection slots or refuses the upgrade with 429; on a store shared by several nodes
     * also one of its places over every node, whose id is returned (null on one node).
     */
    private String reserve(Principal p) {
        String user = String.valueOf(p.user().id());
        boolean[] ok = {false};
        connections.compute(user, (k, v) -> {
            int n = v == null ? 0 : v;
            if (n >= limits.maxConnectionsPerUser()) {
                return v;
            }
            ok[0] = true;
            return n + 1;
        });
        if (!ok[0]) {
            throw tooManyConnections();
        }
        org.agentworkspace.core.runs.OpenStreams everyNode = gate.everyNode();
        if (everyNode == null) {
            return null;
        }
        Optional<String> place;
        try {
            place = everyNode.open(KIND, p.user().id(), limits.maxConnectionsPerUser());
        } catch (RuntimeException e) {
            release(p);
            throw e;
        }
        if (place.isEmpty()) {
            release(p);
            throw tooManyConnections();
        }
        return place.get();
    }

    private void release(Principal p) {
        connections.computeIfPresent(String.valueOf(p.user().id()), (k, v) -> v <= 1 ? null : v - 1);
    }

    private WorkspaceException tooManyConnections() {
        return new WorkspaceException.RateLimited(TOO_MANY_CONNECTIONS, "at most " + limits.maxConnectionsPerUser()
                + " chat connections per user", 5);
    }

    /** Stops the heartbeat timer and the permission expiry timer (the server is stopping). */
    @Override
    public void close() {
        timer.shutdownNow();
        runs.permissions().close();
    }


    /** Whether the principal may see (and act on) the run: its starter or an administrator. */
    boolean visible(Principal p, RunInfo info) {
        return runs.record(info.id()).filter(r -> AgentRunService.visible(p.user(), r)).isPresent();
    }

    private final class Connection extends PumpedListener {
        Connection() {
            super("chat");
        }

        private final SocketPump pump = new SocketPump("chat", limits.heartbeat(), limits.writeTimeout(), this::end);
        private final InboundMessages inbound = new InboundMessages(limits.maxMessageBytes(),
                limits.maxMessagesPerSecond(), pump);
        private final Map<String, Subscription> subscriptions = new HashMap<>();
        private final AtomicBoolean counted = new AtomicBoolean();
        /** This socket's place in the store's count over every node, or null. */
        private volatile String place;
        private volatile Principal principal;
        private volatile org.agentworkspace.core.auth.AccountWatch.Watch watch;

        @Override
        public Optional<Headers> onHttpUpgrade(HttpPrologue prologue, Headers headers) throws WsUpgradeException {
            principal = gate.admit(ACCESS, prologue, headers, p -> place = reserve(p));
            counted.set(true);
            return Optional.empty();
        }

        @Override
        public void onOpen(WsSession session) {
            pump.start(session, timer);
            // deleting the account closes the socket at once (its runs are cancelled by the engine)
            watch = gate.accountWatch().watch(principal.user().id(),
                    () -> closeWith(CLOSE_ACCOUNT_DELETED, "the account was deleted"));
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
            JsonNode m = null;
            try {
                m = parse(message);
                handle(m);
            } catch (WorkspaceException e) {
                send(error(e.code(), e.getMessage(), m));
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "chat message failed", e);
                send(error(ErrorCodes.INTERNAL_ERROR, "the message could not be handled", m));
            }
        }

        @Override
        protected SocketPump pump() {
            return pump;
        }

        private JsonNode parse(String message) {
            JsonNode m;
            try {
                m = json.readTree(message);
            } catch (java.io.IOException e) {
                throw invalid("not a JSON message");
            }
            if (m == null || !m.isObject()) {
                throw invalid("a message is a JSON object with a type");
            }
            return m;
        }

        private void handle(JsonNode m) {
            switch (m.path("type").asText("")) {
                case "ping" -> send(object("pong", 0));
                case "subscribe" -> subscribe(m);
                case "unsubscribe" -> unsubscribe(m);
                case "turn" -> turn(m);
                case "abort" -> abort(m);
                case "permission-response" -> permissionResponse(m);
                default -> throw invalid("unknown message type");
            }
        }

        private void requireWrite() {
            if (!principal.has(Scope.TASKS_WRITE)) {
                throw new WorkspaceException.Forbidden(ErrorCodes.INSUFFICIENT_SCOPE,
                        "this message needs the scope tasks:write");
            }
        }

        // ---- messages ----

        private void subscribe(JsonNode m) {
            long afterSeq = 0;
            JsonNode a = m.get("afterSeq");
            if (a != null && !a.isNull()) {
                if (!a.isIntegralNumber() || !a.canConvertToLong() || a.asLong() < 0) {
                    throw invalid("afterSeq must be an integer >= 0");
                }
                afterSeq = a.asLong();
            }
            RunInfo info = target(m);
            follow(info, afterSeq, text(m, "sessionId"), text(m, "clientRequestId"));
        }

        private void unsubscribe(JsonNode m) {
            RunInfo info = target(m);
            Subscription s;
            synchronized (subscriptions) {
                s = subscriptions.remove(info.id());
            }
            if (s != null) {
                s.stop();
            }
        }

        /** Sends {@code PROJECT_ON_OTHER_NODE} naming {@code other}, when present; true when it did. */
        private boolean misdirected(java.util.Optional<org.agentworkspace.core.runs.NodeDirectory.NodeInfo> other,
                                    JsonNode m) {
            if (other.isEmpty()) {
                return false;
            }
            ObjectNode refusal = error(NodeRouter.PROJECT_ON_OTHER_NODE, NodeRouter.onOtherNode(other.get()), m);
            ((ObjectNode) refusal.get("error")).put("nodeId", other.get().id())
                    .put("nodeUrl", other.get().advertiseUrl());
            send(refusal);
            return true;
        }

        private void turn(JsonNode m) {
            requireWrite();
            String clientRequestId = text(m, "clientRequestId");
            String message = text(m, "message");
            String provider = text(m, "provider");
            if (message == null || provider == null) {
                throw invalid("turn needs message and provider");
            }
            if (m.hasNonNull("projectPath")) {
                throw invalid("name the project with projectName (a registered project); projectPath is not accepted");
            }
            String sessionId = text(m, "sessionId");
            String projectName = text(m, "projectName");
            // the engine's rule, as POST /api/automation/run: host (default), worktree, docker refused
            AgentRunService.Isolation isolation = AgentRunService.Isolation.parse(text(m, "isolation"));
            service.checkIsolation(isolation);
            if (isolation != AgentRunService.Isolation.HOST && sessionId != null) {
                // a CLI session belongs to the folder it ran in; an isolated turn works in a new worktree
                throw invalid("isolation 'worktree' starts a new session: omit sessionId");
            }
            JsonNode keepNode = m.get("keepWorktree");
            if (keepNode != null && !keepNode.isNull() && !keepNode.isBoolean()) {
                throw invalid("keepWorktree must be true or false");
            }
            boolean keep = keepNode != null && keepNode.asBoolean(false);
            // a registered project on another node's roots is named before this node resolves (and refuses) it
            String named = projectName;
            if (named != null && misdirected(gate.nodes().flatMap(n -> n.elsewhere(n.projectFolder(named))), m)) {
                return;
            }
            Path dir;
            if (projectName != null) {
                dir = runs.settings().projects().find(projectName).orElseThrow(() ->
                        new WorkspaceException.NotFound(AgentErrorCodes.PROJECT_NOT_FOUND, "no such project"));
            } else if (sessionId != null) {
                RunInfo last = sessions.latest(sessionId).filter(r -> visible(principal, r)).orElseThrow(() ->
                        new WorkspaceException.NotFound(SESSION_NOT_FOUND, "no such session"));
                dir = Path.of(runs.metadata(last).path("projectPath").asText());
                projectName = runs.metadata(last).path("projectId").asText(null);
            } else {
                throw invalid("turn needs projectName (or sessionId to continue a session)");
            }
            // on a shared store, a turn runs on a node whose roots hold the folder: another node is named for the
            // client to connect to (docs/scale-out.md "Where work runs")
            Path folder = dir;
            if (misdirected(gate.nodes().flatMap(n -> n.elsewhere(java.util.Optional.of(folder))), m)) {
                return;
            }
            PermissionMode mode = null;
            String modeName = text(m, "permissionMode");
            if (modeName != null) {
                mode = PermissionMode.find(modeName).orElseThrow(() -> invalid(
                        "permissionMode must be default, acceptEdits or bypassPermissions"));
            }
            if (sessionId != null) {
                // the engine's rule: the caller's own session (one found only on disk: administrators), not busy
                service.continueSession(principal.user(), sessionId);
            }
            requireRoom();
            Map<String, Object> extra = new HashMap<>();
            extra.put("clientRequestId", clientRequestId);
            RunHandle h = service.start(new AgentRunService.Start(principal.user().id(), "ws", provider, message, dir,
                    projectName, null, text(m, "model"), sessionId, mode, extra), isolation, keep);
            sessions.watch(h.id(), sessionId);
            RunInfo info = runs.info(h.id()).orElseThrow();
            follow(info, 0, sessionId, clientRequestId);
        }

        private void abort(JsonNode m) {
            requireWrite();
            RunInfo info = target(m);
            runs.abort(info.id());
        }

        private void permissionResponse(JsonNode m) {
            requireWrite();
            String requestId = text(m, "requestId");
            String decision = text(m, "decision");
            if (requestId == null || !("allow".equals(decision) || "deny".equals(decision))) {
                throw invalid("permission-response needs requestId and decision allow or deny");
            }
            // this node's request, or one of a run another node holds (found in its log; answered there)
            PermissionRequests.Pending p = runs.permissions().locate(requestId).orElseThrow(() ->
                    new WorkspaceException.NotFound(AgentErrorCodes.PERMISSION_REQUEST_NOT_FOUND,
                            "no open permission request with this id (answered, expired, or its run ended)"));
            RunInfo info = runs.info(p.runId()).orElseThrow();
            if (!visible(principal, info)) {
                throw new WorkspaceException.NotFound(AgentErrorCodes.PERMISSION_REQUEST_NOT_FOUND,
                        "no open permission request with this id (answered, expired, or its run ended)");
            }
            runs.permissions().answerAnywhere(p, "allow".equals(decision));
        }

        /** The run a message names by runId, or the latest run of its sessionId; visible to the caller. */
        private RunInfo target(JsonNode m) {
            String runId = text(m, "runId");
            String sessionId = text(m, "sessionId");
            Optional<RunInfo> info;
            if (runId != null) {
                info = runs.info(runId).filter(r -> visible(principal, r));
                if (info.isEmpty()) {
                    throw new WorkspaceException.NotFound(AgentErrorCodes.RUN_NOT_FOUND, "no such run");
                }
            } else if (sessionId != null) {
                info = sessions.latest(sessionId).filter(r -> visible(principal, r));
                if (info.isEmpty()) {
                    throw new WorkspaceException.NotFound(SESSION_NOT_FOUND, "no such session");
                }
            } else {
                throw invalid("name a runId or a sessionId");
            }
            return info.get();
        }

        /** Refuses one more subscription on a socket that follows the maximum of runs. */
        private void requireRoom() {
            synchronized (subscriptions) {
                if (subscriptions.size() >= limits.maxSubscriptionsPerSocket()) {
                    throw new WorkspaceException.RateLimited(TOO_MANY_SUBSCRIPTIONS, "at most "
                            + limits.maxSubscriptionsPerSocket() + " subscriptions per socket", 1);
                }
            }
        }

        /** Sends {@code subscribed}, re-sends open permission requests already behind {@code afterSeq}, follows. */
        private void follow(RunInfo info, long afterSeq, String sessionHint, String clientRequestId) {
            String runId = info.id();
            Subscription old;
            Subscription sub;
            synchronized (subscriptions) {
                if (!subscriptions.containsKey(runId)) {
                    requireRoom();
                }
                old = subscriptions.remove(runId);
                sub = new Subscription(info, afterSeq, clientRequestId);
                subscriptions.put(runId, sub);
            }
            if (old != null) {
                old.stop();
            }
            sub.sessionId = sessions.sessionOf(info, afterSeq).orElse(sessionHint);
            ObjectNode subscribed = object("subscribed", runs.lastSeq(runId));
            subscribed.put("runId", runId);
            subscribed.put("sessionId", sub.sessionId);
            subscribed.put("afterSeq", afterSeq);
            subscribed.put("status", statusName(info.status()));
            if (clientRequestId != null) {
                subscribed.put("clientRequestId", clientRequestId);
            }
            send(subscribed);
            for (PermissionRequests.Pending p : runs.permissions().pending(runId)) {
                if (p.seq() > 0 && p.seq() <= afterSeq) {
                    send(permissionFrame(sub, p));
                }
            }
            sub.thread = Thread.ofVirtual().name("chat-follow-" + runId).start(sub::pump);
        }

        private ObjectNode permissionFrame(Subscription sub, PermissionRequests.Pending p) {
            ObjectNode f = object("permission-request", p.seq());
            f.put("runId", p.runId());
            f.put("sessionId", sub.sessionId);
            f.put("requestId", p.requestId());
            f.put("toolName", p.toolName());
            f.set("input", p.input());
            f.put("expiresAt", p.expiresAt().toString());
            return f;
        }

        /** One followed run: a cursor from {@code afterSeq}, read on its own virtual thread. */
        private final class Subscription {
            final RunInfo info;
            final long afterSeq;
            final String clientRequestId;
            volatile String sessionId;
            volatile Thread thread;
            volatile boolean stopped;

            Subscription(RunInfo info, long afterSeq, String clientRequestId) {
                this.info = info;
                this.afterSeq = afterSeq;
                this.clientRequestId = clientRequestId;
            }

            void stop() {
                stopped = true;
                Thread t = thread;
                if (t != null) {
                    t.interrupt();
                }
            }

            void pump() {
                String provider = info.provider();
                String resumed = runs.metadata(info).path("resumeSessionId").asText(null);
                // the core journal of the run, the same reader the SSE follower uses
                try (JournalCursor<RunEntry> cursor = runs.journal(info.id()).follow(afterSeq)) {
                    while (!stopped && !pump.closing()) {
                        Optional<RunEntry> next = cursor.poll(Duration.ofSeconds(15));
                        if (next.isEmpty()) {
                            if (cursor.finished()) {
                                return;
                            }
                            continue;
                        }
                        RunEntry e = next.get();
                        JsonNode payload = parsePayload(e.payload());
                        if (e.kind() == org.agentworkspace.core.runs.EntryKind.STATUS) {
                            RunStatus s = RunStatus.ofWireName(payload.path("status").asText("failed"));
                            if (s.terminal()) {
                                complete(e, s, payload);
                                return;
                            }
                        }
                        ObjectNode ev = eventOf(e, payload, provider);
                        String kind = ev.path("kind").asText();
                        if ("session".equals(kind)) {
                            String id = ev.path("data").path("sessionId").asText(null);
                            if (id != null) {
                                sessionId = id;
                                sessions.learned(info.id(), id);
                            }
                        }
                        ObjectNode frame = object("event", e.seq());
                        frame.put("runId", info.id());
                        frame.put("sessionId", sessionId);
                        frame.set("event", ev);
                        if (!offer(frame)) {
                            return;
                        }
                        if ("session".equals(kind) && sessionId != null && !sessionId.equals(resumed)) {
                            ObjectNode created = object("session-created", e.seq());
                            created.put("runId", info.id());
                            created.put("sessionId", sessionId);
                            created.put("provider", provider);
                            if (clientRequestId != null) {
                                created.put("clientRequestId", clientRequestId);
                            }
                            offer(created);
                        }
                        if ("permission-request".equals(kind)) {
                            Optional<PermissionRequests.Pending> p = runs.permissions()
                                    .findOpen(info.id(), ev.path("data").path("requestId").asText());
                            if (p.isPresent()) {
                                offer(permissionFrame(this, new PermissionRequests.Pending(p.get().requestId(),
                                        p.get().runId(), p.get().cliRequestId(), p.get().toolName(),
                                        p.get().input(), p.get().expiresAt(), e.seq())));
                            }
                        }
                    }
                } catch (InterruptedException e) {
                    // unsubscribed or the socket ended
                } catch (RuntimeException e) {
                    if (!stopped && !pump.closing()) {
                        LOG.log(System.Logger.Level.WARNING, "chat subscription to " + info.id() + " failed", e);
                        send(error(ErrorCodes.INTERNAL_ERROR, "the subscription to " + info.id() + " failed", null));
                    }
                } finally {
                    synchronized (subscriptions) {
                        subscriptions.remove(info.id(), this);
                    }
                }
            }

            private void complete(RunEntry e, RunStatus s, JsonNode payload) throws InterruptedException {
                RunInfo ended = runs.info(info.id()).orElse(info);
                ObjectNode f = object("complete", e.seq());
                f.put("runId", info.id());
                f.put("sessionId", sessionId);
                f.put("status", statusName(s));
                if (payload.hasNonNull("exitCode")) {
                    f.put("exitCode", payload.path("exitCode").asInt());
                } else {
                    f.putNull("exitCode");
                }
                if (payload.hasNonNull("reason")) {
                    f.put("reason", payload.path("reason").asText());
                }
                f.set("usage", sessions.usage(ended));
                if (clientRequestId != null) {
                    f.put("clientRequestId", clientRequestId);
                }
                offer(f);
            }
        }

        /** The {@code event} of an entry: the parser's event as stored, or the entry's kind with its payload. */
        private ObjectNode eventOf(RunEntry e, JsonNode payload, String provider) {
            ObjectNode ev;
            switch (e.kind()) {
                case EVENT -> ev = payload.isObject() ? ((ObjectNode) payload).deepCopy() : json.createObjectNode();
                case NATIVE, STDERR -> {
                    ev = json.createObjectNode();
                    ev.put("kind", e.kind().wireName());
                    ObjectNode data = ev.putObject("data");
                    data.put("line", runs.redact(e.runId(), provider, payload.path("line").asText()));
                    if (payload.path("truncated").asBoolean(false)) {
                        data.put("truncated", true);
                    }
                }
                default -> {
                    ev = json.createObjectNode();
                    ev.put("kind", e.kind().wireName());
                    ev.set("data", payload);
                }
            }
            ev.put("at", e.at().toString());
            return ev;
        }

        private JsonNode parsePayload(String payload) {
            try {
                return json.readTree(payload);
            } catch (java.io.IOException e) {
                return json.createObjectNode();
            }
        }

        // ---- sending ----

        /**
         * Queues a subscription's frame, waiting while the socket's queue is full; false (and the socket cut as a
         * slow consumer) when it stays full for the grace period.
         */
        private boolean offer(ObjectNode frame) throws InterruptedException {
            String text = write(frame);
            if (!pump.awaitRoom(text.length(), limits.maxQueuedChars(), limits.slowConsumerGrace())) {
                if (!pump.closing()) {
                    slowConsumerCuts.incrementAndGet();
                    LOG.log(System.Logger.Level.INFO, "chat socket cut: the client reads too slowly");
                    pump.cut(WsCloseCodes.TRY_AGAIN_LATER, "slow consumer: subscribe again from your last seq");
                }
                return false;
            }
            pump.send(text);
            return !pump.closing();
        }

        /** Answers and notices from the message handler: queued at once (they are few and small). */
        private void send(ObjectNode frame) {
            pump.send(write(frame));
        }

        private String write(ObjectNode frame) {
            try {
                return json.writeValueAsString(frame);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }

        private ObjectNode object(String type, long seq) {
            ObjectNode o = json.createObjectNode();
            o.put("type", type);
            o.put("seq", seq);
            return o;
        }

        private ObjectNode error(String code, String message, JsonNode request) {
            ObjectNode o = object("error", 0);
            o.put("success", false);
            ObjectNode e = o.putObject("error");
            e.put("code", code);
            e.put("message", message);
            if (request != null) {
                JsonNode c = request.get("clientRequestId");
                if (c != null && c.isTextual()) {
                    o.put("clientRequestId", c.asText());
                }
                JsonNode r = request.get("runId");
                if (r != null && r.isTextual()) {
                    o.put("runId", r.asText());
                }
                JsonNode t = request.get("type");
                if (t != null && t.isTextual()) {
                    o.put("requestType", t.asText());
                }
            }
            return o;
        }

        private void closeWith(int code, String reason) {
            pump.closeWith(code, reason);
        }

        /** The socket is gone: stop the subscriptions (the runs go on), the sender and the heartbeat. */
        @Override
        protected void end() {
            pump.stop();
            if (watch != null) {
                watch.close();
            }
            synchronized (subscriptions) {
                for (Iterator<Subscription> it = subscriptions.values().iterator(); it.hasNext(); ) {
                    it.next().stop();
                    it.remove();
                }
            }
            if (counted.compareAndSet(true, false)) {
                release(principal);
                if (place != null) {
                    gate.everyNode().close(place);
                }
            }
        }
    }

    static String statusName(RunStatus s) {
        return s == RunStatus.SUCCEEDED ? "completed" : s.wireName();
    }

    private static WorkspaceException invalid(String message) {
        return new WorkspaceException.Validation(INVALID_MESSAGE, message);
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
}
