package org.agentworkspace.core.notifications;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.interfaces.ECPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.secrets.SecretBox;
import org.agentworkspace.core.store.Store;
import org.agentworkspace.core.json.JsonMappers;
import org.jdbi.v3.core.JdbiException;

/**
 * Web Push (RFC 8030) for the service: the VAPID key pair (RFC 8292), users' push subscriptions, and delivery of
 * encrypted messages (RFC 8291).
 *
 * <ul>
 *   <li>The VAPID key pair (P-256) is generated on first use and kept in the store (table {@code server_secrets},
 *       row {@code vapid}): the public key as base64url, the private key as PKCS#8 sealed with the data
 *       directory's {@link SecretBox}. The private key never leaves the engine.</li>
 *   <li>A subscription (table {@code web_push_subscriptions}) keeps the endpoint and the {@code auth} secret
 *       sealed (bound to the row's id), the {@code p256dh} key and the endpoint's origin in the clear, and a SHA-256
 *       digest of the endpoint so the same browser subscribing again replaces its row (also when another account
 *       of the service subscribes it: the browser now belongs to that account).</li>
 *   <li>Delivery runs on two worker threads behind a bounded queue (messages beyond it are dropped and logged),
 *       each request with a timeout. A 404 or 410 from the push service removes the subscription. Logs name only
 *       the endpoint's origin and the subscription id, never the endpoint path or keys.</li>
 * </ul>
 */
public final class WebPush implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(WebPush.class.getName());
    /** Most subscriptions one user may hold (browsers and devices). */
    public static final int MAX_SUBSCRIPTIONS_PER_USER = 20;
    static final int QUEUE = 256;
    private static final String VAPID = "vapid";

    /** A subscription as clients see it: no endpoint path, no keys. */
    public record Subscription(String id, String origin, Instant createdAt) {
    }

    /** What a delivery needs (engine-internal). */
    record Target(String id, long userId, URI endpoint, byte[] p256dh, byte[] auth) {
        @Override
        public String toString() {
            return "Target[" + id + " → " + WebPushCrypto.origin(endpoint) + "]";
        }
    }

    private final Store store;
    private final SecretBox box;
    private final Clock clock;
    private final WebPushSettings settings;
    private final ObjectMapper mapper = JsonMappers.shared();
    private final SecureRandom random = new SecureRandom();
    /** Made at the first delivery: a JDK HTTP client (its TLS set-up) costs ~90 ms, too much for every start. */
    private HttpClient http;
    private final ThreadPoolExecutor workers;
    private final AtomicLong delivered = new AtomicLong();
    private volatile Vapid vapid;
    private volatile org.agentworkspace.core.network.OutboundPolicy outbound =
            org.agentworkspace.core.network.OutboundPolicy.publicOnly();

    private record Vapid(byte[] publicKey, PrivateKey privateKey) {
    }

    WebPush(Store store, SecretBox box, Clock clock, WebPushSettings settings) {
        this.store = Objects.requireNonNull(store);
        this.box = Objects.requireNonNull(box);
        this.clock = Objects.requireNonNull(clock);
        this.settings = Objects.requireNonNull(settings);
        this.workers = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE), r -> {
            Thread t = new Thread(r, "aw-web-push");
            t.setDaemon(true);
            return t;
        }, new ThreadPoolExecutor.AbortPolicy());
        this.workers.allowCoreThreadTimeOut(true);
    }

    private synchronized HttpClient http() {
        if (http == null) {
            http = HttpClient.newBuilder().connectTimeout(settings.timeout())
                    .followRedirects(HttpClient.Redirect.NEVER).build();
        }
        return http;
    }

    public WebPushSettings settings() {
        return settings;
    }

    /** The VAPID public key: the 65-byte uncompressed P-256 point, base64url — the browser's applicationServerKey. */
    public String publicKey() {
        return P256.b64(vapid().publicKey());
    }

    /**
     * Stores (or replaces) a subscription of {@code userId} from the browser's {@code PushSubscription.toJSON()}
     * values.
     *
     * @throws WorkspaceException.Validation {@code INVALID_PUSH_ENDPOINT}, {@code INVALID_PUSH_KEYS}
     * @throws WorkspaceException.Conflict {@code TOO_MANY_PUSH_SUBSCRIPTIONS}
     */
    public Subscription subscribe(long userId, String endpoint, String p256dh, String auth) {
        URI uri = PushEndpoints.parse(endpoint, settings.allowLoopbackHttp());
        byte[] point = P256.unb64(p256dh).filter(b -> P256.decode(b).isPresent()).orElseThrow(() ->
                new WorkspaceException.Validation(NotificationErrorCodes.INVALID_PUSH_KEYS,
                        "keys.p256dh must be an uncompressed P-256 public key (65 bytes, base64url)"));
        byte[] secret = P256.unb64(auth).filter(b -> b.length == 16).orElseThrow(() ->
                new WorkspaceException.Validation(NotificationErrorCodes.INVALID_PUSH_KEYS,
                        "keys.auth must be a 16-byte secret in base64url"));
        String digest = digest(endpoint);
        String id = "wps_" + HexFormat.of().formatHex(randomBytes(12));
        ObjectNode sealedDoc = mapper.createObjectNode();
        sealedDoc.put("endpoint", endpoint);
        sealedDoc.put("auth", P256.b64(secret));
        String sealed = box.seal(sealedDoc.toString(), context(id));
        String origin = WebPushCrypto.origin(uri);
        Instant now = Instant.ofEpochMilli(clock.millis());
        try {
            store.write(h -> {
                h.createUpdate("DELETE FROM web_push_subscriptions WHERE endpoint_digest = :d").bind("d", digest)
                        .execute();
                int count = h.createQuery("SELECT COUNT(*) FROM web_push_subscriptions WHERE user_id = :u")
                        .bind("u", userId).mapTo(Integer.class).one();
                if (count >= MAX_SUBSCRIPTIONS_PER_USER) {
                    throw new WorkspaceException.Conflict(NotificationErrorCodes.TOO_MANY_PUSH_SUBSCRIPTIONS,
                            "at most " + MAX_SUBSCRIPTIONS_PER_USER + " push subscriptions per user; remove one first");
                }
                return h.createUpdate("INSERT INTO web_push_subscriptions (id, user_id, endpoint_digest, "
                                + "endpoint_origin, p256dh, sealed, created_at) VALUES (:id, :u, :d, :o, :k, :s, :at)")
                        .bind("id", id).bind("u", userId).bind("d", digest).bind("o", origin)
                        .bind("k", P256.b64(point)).bind("s", sealed).bind("at", now.toEpochMilli()).execute();
            });
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        return new Subscription(id, origin, now);
    }

    /** The user's subscriptions, newest first. */
    public List<Subscription> subscriptions(long userId) {
        try {
            return store.read(h -> h.createQuery("SELECT id, endpoint_origin, created_at FROM web_push_subscriptions "
                            + "WHERE user_id = :u ORDER BY created_at DESC, id")
                    .bind("u", userId)
                    .map((rs, ctx) -> new Subscription(rs.getString("id"), rs.getString("endpoint_origin"),
                            Instant.ofEpochMilli(rs.getLong("created_at"))))
                    .list());
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
    }

    /**
     * Removes one of the user's subscriptions.
     *
     * @throws WorkspaceException.NotFound {@code PUSH_SUBSCRIPTION_NOT_FOUND} (also for another user's)
     */
    public void unsubscribe(long userId, String id) {
        int n;
        try {
            n = store.write(h -> h.createUpdate("DELETE FROM web_push_subscriptions WHERE id = :id AND user_id = :u")
                    .bind("id", id).bind("u", userId).execute());
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        if (n == 0) {
            throw new WorkspaceException.NotFound(NotificationErrorCodes.PUSH_SUBSCRIPTION_NOT_FOUND,
                    "no push subscription of yours has this id");
        }
    }

    /** Messages handed to push services with a success answer since start (diagnostics, tests). */
    public long delivered() {
        return delivered.get();
    }

    /** Queues the message for every subscription of the user; returns at once. */
    void deliver(long userId, byte[] payload) {
        try {
            deliverCounting(userId, payload);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "web push: cannot read the subscriptions of user " + userId, e);
        }
    }

    /** Queues the message for every subscription of the user; how many there are. */
    int deliverCounting(long userId, byte[] payload) {
        List<Target> targets = targets(userId);
        for (Target t : targets) {
            try {
                workers.execute(() -> send(t, payload));
            } catch (RejectedExecutionException e) {
                LOG.log(System.Logger.Level.WARNING, "web push: queue full, message for subscription " + t.id()
                        + " dropped");
            }
        }
        return targets.size();
    }

    private void send(Target t, byte[] payload) {
        String where = WebPushCrypto.origin(t.endpoint());
        try {
            if (!deliverable(t.endpoint())) {
                LOG.log(System.Logger.Level.WARNING, "web push: subscription " + t.id() + " at " + where
                        + " resolves to an address that is not public; not sent");
                return;
            }
            Vapid v = vapid();
            byte[] body = WebPushCrypto.encrypt(payload, t.p256dh(), t.auth());
            String jwt = WebPushCrypto.vapidJwt(t.endpoint(), settings.subject(), clock.instant(), v.privateKey());
            HttpRequest req = HttpRequest.newBuilder(t.endpoint()).timeout(settings.timeout())
                    .header("Content-Encoding", "aes128gcm")
                    .header("Content-Type", "application/octet-stream")
                    .header("TTL", Long.toString(settings.ttl().toSeconds()))
                    .header("Urgency", "normal")
                    .header("Authorization", "vapid t=" + jwt + ", k=" + P256.b64(v.publicKey()))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
            HttpResponse<Void> res = http().send(req, HttpResponse.BodyHandlers.discarding());
            int status = res.statusCode();
            if (status >= 200 && status < 300) {
                delivered.incrementAndGet();
            } else if (status == 404 || status == 410) {
                remove(t.id());
                LOG.log(System.Logger.Level.INFO, "web push: " + where + " answered " + status + " for subscription "
                        + t.id() + "; removed it");
            } else {
                LOG.log(System.Logger.Level.WARNING, "web push: " + where + " answered " + status
                        + " for subscription " + t.id());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // the exception text may hold the URL: log only its type
            LOG.log(System.Logger.Level.WARNING, "web push to " + where + " (subscription " + t.id() + ") failed: "
                    + e.getClass().getSimpleName());
        }
    }

    /**
     * The addresses deliveries may reach: the endpoint's host is resolved at each delivery and every address must
     * be public (or the endpoint allowed by the administrator).
     */
    public void useOutboundPolicy(org.agentworkspace.core.network.OutboundPolicy policy) {
        this.outbound = java.util.Objects.requireNonNull(policy, "policy");
    }

    private boolean deliverable(URI endpoint) {
        if (settings.allowLoopbackHttp() && "127.0.0.1".equals(endpoint.getHost())) {
            return true;
        }
        try {
            outbound.checkConnect(endpoint);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private List<Target> targets(long userId) {
        record Row(String id, String p256dh, String sealed) {
        }
        List<Row> rows;
        try {
            rows = store.read(h -> h.createQuery("SELECT id, p256dh, sealed FROM web_push_subscriptions "
                            + "WHERE user_id = :u").bind("u", userId)
                    .map((rs, ctx) -> new Row(rs.getString("id"), rs.getString("p256dh"), rs.getString("sealed")))
                    .list());
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        List<Target> out = new java.util.ArrayList<>();
        for (Row r : rows) {
            try {
                JsonNode doc = mapper.readTree(box.open(r.sealed(), context(r.id())));
                out.add(new Target(r.id(), userId, URI.create(doc.path("endpoint").asText()),
                        P256.unb64(r.p256dh()).orElseThrow(), P256.unb64(doc.path("auth").asText()).orElseThrow()));
            } catch (java.io.IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "web push: subscription " + r.id() + " cannot be opened; skipped");
            }
        }
        return out;
    }

    private void remove(String id) {
        try {
            store.write(h -> h.createUpdate("DELETE FROM web_push_subscriptions WHERE id = :id").bind("id", id)
                    .execute());
        } catch (JdbiException e) {
            LOG.log(System.Logger.Level.WARNING, "web push: cannot remove subscription " + id);
        }
    }

    /** Loads the key pair, creating and storing it once (the first writer wins on a shared store). */
    private Vapid vapid() {
        Vapid v = vapid;
        if (v != null) {
            return v;
        }
        synchronized (this) {
            if (vapid == null) {
                vapid = loadOrCreate();
            }
            return vapid;
        }
    }

    private Vapid loadOrCreate() {
        try {
            java.util.Optional<VapidRow> row = readVapid();
            if (row.isEmpty()) {
                KeyPair kp = P256.generate();
                String pub = P256.b64(P256.encode((ECPublicKey) kp.getPublic()));
                String sealed = box.seal(Base64.getEncoder().encodeToString(kp.getPrivate().getEncoded()),
                        "server-secret:" + VAPID);
                long now = clock.millis();
                store.write(h -> h.createUpdate("INSERT INTO server_secrets (name, ciphertext, public_value, "
                                + "created_at) VALUES (:n, :c, :p, :at) ON CONFLICT (name) DO NOTHING")
                        .bind("n", VAPID).bind("c", sealed).bind("p", pub).bind("at", now).execute());
                row = readVapid();
            }
            VapidRow r = row.orElseThrow();
            byte[] pkcs8 = Base64.getDecoder().decode(box.open(r.ciphertext(), "server-secret:" + VAPID));
            PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
            return new Vapid(P256.unb64(r.publicValue()).orElseThrow(), key);
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the stored VAPID key cannot be read", e);
        }
    }

    private record VapidRow(String ciphertext, String publicValue) {
    }

    private java.util.Optional<VapidRow> readVapid() {
        return store.read(h -> h.createQuery("SELECT ciphertext, public_value FROM server_secrets WHERE name = :n")
                .bind("n", VAPID).map((rs, ctx) -> new VapidRow(rs.getString("ciphertext"),
                        rs.getString("public_value"))).findOne());
    }

    private static String context(String id) {
        return "web-push-subscription:" + id;
    }

    private static String digest(String endpoint) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(endpoint.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    @Override
    public void close() {
        workers.shutdownNow();
    }
}
