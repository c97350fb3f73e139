package org.agentworkspace.server.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.index.HistoryIndex;
import org.agentworkspace.core.projects.ProjectRegistry;
import org.agentworkspace.core.runs.NodeDirectory;

/**
 * Where work runs (docs/scale-out.md "Where work runs"): on a shared store, a request that acts on a project's folder
 * is served by a node whose declared roots hold that folder. When this node's roots do not hold it, the request is
 * forwarded to a live node whose roots do (a small reverse proxy: the caller's credential passes through, the answer,
 * SSE and NDJSON included, is streamed back), or, for a WebSocket, refused with {@value #PROJECT_ON_OTHER_NODE} naming
 * that node's address; a folder only nodes that are down declare is 503 {@value #PROJECT_UNAVAILABLE}. On SQLite
 * (one node) nothing here applies: every request is served where it arrives.
 *
 * <p>A forwarded request carries {@value #HOP_HEADER}: the forwarding node's id, the time, and an HMAC over them and
 * the request line keyed from the store's shared signing secret. A request carrying the header is never forwarded
 * again (no loops); a runner-only node serves its public routes only to a request whose proof checks out.
 */
public final class NodeRouter {
    private static final System.Logger LOG = System.getLogger(NodeRouter.class.getName());
    /** The hop header: {@code <node id> <epoch seconds> <base64url HMAC>}. */
    public static final String HOP_HEADER = "X-AW-Forwarded-By";
    /** The answer header naming the node that served a forwarded request. */
    public static final String SERVED_BY = "X-AW-Served-By";
    public static final String PROJECT_ON_OTHER_NODE = "PROJECT_ON_OTHER_NODE";
    public static final String PROJECT_UNAVAILABLE = "PROJECT_UNAVAILABLE";
    public static final String RUNNER_ONLY = "RUNNER_ONLY";
    /** How long the serving node may take to start its answer. */
    private static final Duration ANSWER_TIMEOUT = Duration.ofMinutes(5);
    /** How far a proof's time may be from this node's clock. */
    private static final long PROOF_SKEW_SECONDS = 120;
    private static final HeaderName HOP = HeaderNames.create(HOP_HEADER);
    private static final HeaderName X_API_KEY = HeaderNames.create("X-API-Key");
    /** Request headers passed to the serving node besides the credential (which is handled apart). */
    private static final List<HeaderName> PASSED = List.of(HeaderNames.ACCEPT, HeaderNames.ACCEPT_LANGUAGE,
            HeaderNames.USER_AGENT, HeaderNames.create("Last-Event-ID"), HeaderNames.create("X-Request-Id"));
    /** Answer headers never copied back (hop-by-hop, or set by this node's own server). */
    private static final Set<String> NOT_COPIED = Set.of("connection", "keep-alive", "transfer-encoding",
            "content-length", "upgrade", "te", "trailer", "proxy-authenticate", "date", "server", ":status");

    /** One route's way to name the folder it acts on (empty: nothing to place, served here). */
    @FunctionalInterface
    public interface Folder {
        Optional<Path> of(Call call, NodeRouter router);
    }

    private final NodeDirectory directory;
    private final ProjectRegistry projects;
    private final HistoryIndex history;
    private final byte[] proofKey;
    private final boolean runnerOnly;
    private final HttpClient client;

    public NodeRouter(NodeDirectory directory, ProjectRegistry projects, HistoryIndex history, byte[] signingSecret,
                      boolean runnerOnly) {
        this.directory = directory;
        this.projects = projects;
        this.history = history;
        this.proofKey = hmac(signingSecret, "aw-node-forward".getBytes(StandardCharsets.UTF_8));
        this.runnerOnly = runnerOnly;
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** Whether this node was started with {@code --runner-only}. */
    public boolean runnerOnly() {
        return runnerOnly;
    }

    /** This node's id. */
    public String nodeId() {
        return directory.selfId();
    }

    /** Records this node's roots and address in the store (after it listens: the port is known then). */
    public void publish(String advertiseUrl, List<Path> roots) {
        directory.publish(advertiseUrl, roots, runnerOnly);
        if (!directory.shared()) {
            return;
        }
        LOG.log(System.Logger.Level.INFO, "node " + directory.selfId() + " serves projects under " + roots
                + " at " + advertiseUrl + (runnerOnly ? " (runner only)" : ""));
    }

    // ------------------------------------------------------------------ folders of requests

    /** The folder of a project named as the API names projects (registered name, or one found in histories). */
    public Optional<Path> projectFolder(String name) {
        if (name == null || name.isBlank()) {
            return Optional.empty();
        }
        return projects.lookup(name).map(p -> Path.of(p.path()))
                .or(() -> history.findProject(name).map(h -> Path.of(h.path())));
    }

    /** A folder given as an absolute path (quick-start); empty when it is not one. */
    public static Optional<Path> absolute(String raw) {
        if (raw == null || raw.isBlank()) {
            return Optional.empty();
        }
        try {
            Path p = Path.of(raw);
            return p.isAbsolute() ? Optional.of(p.normalize()) : Optional.empty();
        } catch (java.nio.file.InvalidPathException e) {
            return Optional.empty();
        }
    }

    // ------------------------------------------------------------------ placement

    /**
     * Serves the call on the node that has its folder: returns false when it is this node's (or nothing is to be
     * placed, or the store has one node, or the request was forwarded already), true after forwarding it.
     *
     * @throws WorkspaceException.Unavailable {@value #PROJECT_UNAVAILABLE} when only nodes that are down declare
     *                                        the folder
     */
    boolean forward(Call call, Folder folder) throws IOException {
        if (!directory.shared() || call.request().headers().contains(HOP)) {
            return false;
        }
        Optional<Path> f = folder.of(call, this);
        if (f.isEmpty()) {
            return false;
        }
        NodeDirectory.Placement p = directory.place(f.get());
        if (p.target().isPresent()) {
            proxy(call, p.target().get());
            return true;
        }
        if (p.unavailable()) {
            throw unavailable(p.holders());
        }
        return false;
    }

    /**
     * For a WebSocket message that acts on {@code folder}: the live node to use instead of this one, or empty when
     * this node serves it (or the store has one node).
     *
     * @throws WorkspaceException.Unavailable {@value #PROJECT_UNAVAILABLE} when only nodes that are down declare it
     */
    public Optional<NodeDirectory.NodeInfo> elsewhere(Optional<Path> folder) {
        if (!directory.shared() || folder.isEmpty()) {
            return Optional.empty();
        }
        NodeDirectory.Placement p = directory.place(folder.get());
        if (p.unavailable()) {
            throw unavailable(p.holders());
        }
        return p.target();
    }

    /** The message of {@value #PROJECT_ON_OTHER_NODE}: the node to connect to instead. */
    public static String onOtherNode(NodeDirectory.NodeInfo node) {
        return "this project's folder is on node " + node.id() + " (host " + node.host() + "); connect to "
                + node.advertiseUrl() + " for it";
    }

    private static WorkspaceException unavailable(List<NodeDirectory.NodeInfo> holders) {
        String which = holders.stream().map(n -> n.id() + " (host " + n.host() + (n.advertiseUrl() == null ? ""
                : ", " + n.advertiseUrl()) + ")").collect(Collectors.joining(", "));
        return new WorkspaceException.Unavailable(PROJECT_UNAVAILABLE, "this project's folder is served by "
                + which + ", and no such node is running now; start one of them (or a node whose --project-roots "
                + "hold the folder) and retry", null);
    }

    // ------------------------------------------------------------------ the proxy

    private void proxy(Call call, NodeDirectory.NodeInfo target) throws IOException {
        ServerRequest req = call.request();
        ServerResponse res = call.response();
        String method = req.prologue().method().text();
        String rawPath = req.path().rawPath();
        String query = req.query().rawValue();
        String base = target.advertiseUrl().endsWith("/")
                ? target.advertiseUrl().substring(0, target.advertiseUrl().length() - 1) : target.advertiseUrl();
        URI uri = URI.create(base + rawPath + (query == null || query.isEmpty() ? "" : "?" + query));
        // the answer's head must come within ANSWER_TIMEOUT (a git push or pull included); its body, an SSE or NDJSON
        // stream, may then last as long as it does
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(ANSWER_TIMEOUT);
        // the body the Guard read, bounded by the route's limit and checked for unknown fields, sent as JSON again
        if (Guard.unsafe(req.prologue().method())) {
            b.method(method, HttpRequest.BodyPublishers.ofByteArray(call.serialize(call.body())));
            b.header("Content-Type", "application/json");
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        Headers h = req.headers();
        // the caller's own credential: an API key or bearer header as sent; a session cookie (its origin already
        // checked here) as a bearer token, so the serving node needs no cookie or origin of its own
        if (h.contains(X_API_KEY)) {
            b.header("X-API-Key", h.get(X_API_KEY).get());
        } else if (h.contains(HeaderNames.AUTHORIZATION)) {
            b.header("Authorization", h.get(HeaderNames.AUTHORIZATION).get());
        } else {
            req.headers().cookies().first("token").asOptional().ifPresent(t -> b.header("Authorization",
                    "Bearer " + t));
        }
        for (HeaderName n : PASSED) {
            if (h.contains(n)) {
                b.header(n.defaultCase(), h.get(n).get());
            }
        }
        if (req.remotePeer().address() instanceof InetSocketAddress peer && peer.getAddress() != null) {
            b.header("X-Forwarded-For", peer.getAddress().getHostAddress());
        }
        b.header(HOP_HEADER, proof(method, rawPath));
        HttpResponse<InputStream> answer;
        try {
            answer = client.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw new WorkspaceException.Unavailable(PROJECT_UNAVAILABLE, "this project's folder is on node "
                    + target.id() + " (" + target.advertiseUrl() + "), which did not answer; retry shortly", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WorkspaceException.Unavailable(PROJECT_UNAVAILABLE, "interrupted while forwarding", e);
        }
        res.status(Status.create(answer.statusCode()));
        for (Map.Entry<String, List<String>> e : answer.headers().map().entrySet()) {
            if (!NOT_COPIED.contains(e.getKey().toLowerCase(Locale.ROOT))) {
                res.header(HeaderNames.create(e.getKey()), e.getValue().toArray(String[]::new));
            }
        }
        res.header(HeaderNames.create(SERVED_BY), target.id());
        try (InputStream in = answer.body()) {
            if (answer.statusCode() == 204 || answer.statusCode() == 304) {
                res.send();
                return;
            }
            try (OutputStream out = res.outputStream()) {
                byte[] buf = new byte[16 * 1024];
                int n;
                // each piece as it arrives: an SSE or NDJSON answer streams through
                while ((n = in.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            }
        }
    }

    // ------------------------------------------------------------------ the hop proof

    /** Whether the request came from another node of this store (its proof checks out). */
    public boolean forwardedByNode(ServerRequest req) {
        return req.headers().first(HOP).map(v -> verify(v, req.prologue().method().text(), req.path().rawPath()))
                .orElse(false);
    }

    String proof(String method, String rawPath) {
        return proof(method, rawPath, System.currentTimeMillis() / 1000);
    }

    /** The proof made at {@code now} (epoch seconds). */
    String proof(String method, String rawPath, long now) {
        String id = directory.selfId();
        return id + " " + now + " " + Base64.getUrlEncoder().withoutPadding().encodeToString(
                hmac(proofKey, (id + "\n" + now + "\n" + method + "\n" + rawPath).getBytes(StandardCharsets.UTF_8)));
    }

    boolean verify(String value, String method, String rawPath) {
        String[] parts = value.strip().split(" ");
        if (parts.length != 3) {
            return false;
        }
        long at;
        try {
            at = Long.parseLong(parts[1]);
        } catch (NumberFormatException e) {
            return false;
        }
        if (Math.abs(System.currentTimeMillis() / 1000 - at) > PROOF_SKEW_SECONDS) {
            return false;
        }
        byte[] expected = hmac(proofKey, (parts[0] + "\n" + at + "\n" + method + "\n" + rawPath)
                .getBytes(StandardCharsets.UTF_8));
        byte[] given;
        try {
            given = Base64.getUrlDecoder().decode(parts[2]);
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(expected, given);
    }

    private static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
