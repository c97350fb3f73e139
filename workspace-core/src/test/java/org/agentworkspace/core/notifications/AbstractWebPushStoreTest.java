package org.agentworkspace.core.notifications;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.security.interfaces.ECPublicKey;
import java.time.Clock;
import java.util.List;

import org.agentworkspace.api.User;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.auth.Authentication;
import org.agentworkspace.core.secrets.SecretBox;
import org.agentworkspace.core.store.Store;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Notification storage on one database: the in-app list (kept across a restart, bounded, read marks, what a
 * reconnecting stream gets); Web Push storage: the VAPID key pair made once and shared by two components on the same store,
 * subscriptions sealed, replaced by endpoint, bounded per user, owned, and deleted with their user.
 */
abstract class AbstractWebPushStoreTest {
    protected String url;
    private Store store;
    private SecretBox box;
    private Authentication auth;

    protected abstract String createDatabase() throws Exception;

    protected abstract void dropDatabase();

    @BeforeEach
    void open() throws Exception {
        url = createDatabase();
        store = Store.open(url);
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        box = SecretBox.withKey(key);
        auth = Authentication.create(store, Clock.systemUTC(), EngineConfig.AuthSettings.defaults());
    }

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
        dropDatabase();
    }

    private WebPush webPush() {
        return new WebPush(store, box, Clock.systemUTC(), WebPushSettings.defaults());
    }

    private static String p256dh() {
        return P256.b64(P256.encode((ECPublicKey) P256.generate().getPublic()));
    }

    private static final String AUTH = P256.b64(new byte[16]);

    /**
     * A push endpoint whose name resolves to an internal address (the resolver hook stands in for a DNS answer) is
     * resolved at delivery through the outbound policy, and nothing is sent.
     */
    @Test
    void aPushEndpointThatResolvesToAnInternalAddressIsNotDeliveredTo() throws Exception {
        User alice = auth.accounts().create("alice", "alice password", null, false);
        java.util.List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (WebPush push = webPush()) {
            push.useOutboundPolicy(org.agentworkspace.core.network.OutboundPolicy.create(java.util.Set.of(), host -> {
                asked.add(host);
                return new java.net.InetAddress[] {java.net.InetAddress.getByName("169.254.169.254")};
            }));
            push.subscribe(alice.id(), "https://push.rebind.test/send/1", p256dh(), AUTH);
            push.deliver(alice.id(), "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (asked.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(java.util.List.of("push.rebind.test"), asked, "resolved at delivery through the hook");
            Thread.sleep(200);
            assertEquals(0, push.delivered());
        }
    }

    @Test
    void inAppNotificationsAreKeptAcrossARestartBoundedAndPerUser() throws Exception {
        User alice = auth.accounts().create("alice", "alice password", null, false);
        User bob = auth.accounts().create("bob", "bob password", null, false);
        org.agentworkspace.core.settings.UserSettings settings =
                org.agentworkspace.core.settings.UserSettings.create(store, Clock.systemUTC());
        long firstId;
        long lastId;
        try (Notifications n = Notifications.create(store, settings, box, Clock.systemUTC(),
                WebPushSettings.defaults())) {
            firstId = n.raise(alice.id(), NotificationKind.STOP, "Claude finished", "done",
                    new Notifications.Context("p", "s", "r")).orElseThrow().id();
            for (int i = 0; i < Notifications.KEPT_PER_USER + 4; i++) {
                n.raise(alice.id(), NotificationKind.ERROR, "failed " + i, "", Notifications.Context.NONE);
            }
            lastId = n.raise(bob.id(), NotificationKind.STOP, "bob's", "", Notifications.Context.NONE).orElseThrow()
                    .id();
        }
        // a restart: a new component over the same store
        try (Store reopened = Store.open(url);
             Notifications n = Notifications.create(reopened, settings, box, Clock.systemUTC(),
                     WebPushSettings.defaults())) {
            List<Notification> kept = n.list(alice.id(), Notifications.MAX_LIMIT, false);
            assertEquals(Notifications.KEPT_PER_USER, kept.size(), "the newest are kept");
            assertEquals("failed " + (Notifications.KEPT_PER_USER + 3), kept.getFirst().title());
            assertTrue(kept.stream().noneMatch(x -> x.id() == firstId), "the oldest are not listed");
            int stored = reopened.read(h -> h.createQuery("SELECT COUNT(*) FROM notifications WHERE user_id = :u")
                    .bind("u", alice.id()).mapTo(Integer.class).one());
            assertEquals(Notifications.KEPT_PER_USER, stored, "the oldest were deleted");
            assertEquals(Notifications.KEPT_PER_USER, n.unreadCount(alice.id()));
            Notification read = n.markRead(alice.id(), Long.toString(kept.get(5).id()));
            assertTrue(read.read());
            assertEquals(Notifications.KEPT_PER_USER - 1, n.unreadCount(alice.id()));
            assertThrows(WorkspaceException.NotFound.class, () -> n.markRead(bob.id(),
                    Long.toString(kept.get(5).id())), "not bob's");
            assertEquals(1, n.list(bob.id(), 10, false).size());
            // a stream that reconnects with the id of the third newest gets the two after it, oldest first
            List<Notification> missed = n.awaitAfter(alice.id(), kept.get(2).id(), java.time.Duration.ZERO);
            assertEquals(List.of(kept.get(1).id(), kept.get(0).id()), missed.stream().map(Notification::id).toList());
            assertEquals(kept.getFirst().id(), n.cursor(alice.id()));
            // the same through the account's journal: its newest is the cursor, a reader resumes after an id it
            // handed out, and a Last-Event-ID it never handed out starts after the newest (the one rule)
            org.agentworkspace.core.journal.EventJournal<Notification> journal = n.journal(alice.id());
            assertEquals(kept.getFirst().id(), journal.newest());
            try (var reader = journal.resume(Long.toString(kept.get(2).id()), journal.newest())) {
                assertEquals(kept.get(1).id(), reader.poll(java.time.Duration.ZERO).orElseThrow().id());
                assertEquals(kept.get(0).id(), reader.poll(java.time.Duration.ZERO).orElseThrow().id());
                assertTrue(reader.poll(java.time.Duration.ofMillis(20)).isEmpty());
                assertTrue(!reader.finished(), "a notification journal never ends");
            }
            for (String other : List.of("junk", Long.toString(kept.getFirst().id() + 1))) {
                assertEquals(kept.getFirst().id(), journal.resume(other, journal.newest()).lastSeq(), other);
            }
            // ids go on growing after the restart, and a waiting stream wakes for a new one
            java.util.concurrent.CompletableFuture<List<Notification>> waiting =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                        try {
                            return n.awaitAfter(alice.id(), kept.getFirst().id(), java.time.Duration.ofSeconds(20));
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    });
            Thread.sleep(200);
            Notification fresh = n.raise(alice.id(), NotificationKind.ACTION_REQUIRED, "needs you", "",
                    Notifications.Context.NONE).orElseThrow();
            assertTrue(fresh.id() > lastId);
            assertEquals(List.of(fresh.id()), waiting.get(5, java.util.concurrent.TimeUnit.SECONDS).stream()
                    .map(Notification::id).toList());
            assertEquals(Notifications.KEPT_PER_USER - 1, n.markAllRead(alice.id()));
            assertEquals(0, n.unreadCount(alice.id()));
            assertEquals(List.of(), n.list(alice.id(), 10, true));
        }
        // deleted with their user
        auth.accounts().delete(alice.id(), bob.id());
        int rows = store.read(h -> h.createQuery("SELECT COUNT(*) FROM notifications WHERE user_id = :u")
                .bind("u", bob.id()).mapTo(Integer.class).one());
        assertEquals(0, rows);
    }

    @Test
    void theKeyPairIsMadeOnceForTheStore() {
        try (WebPush a = webPush(); WebPush b = webPush()) {
            String key = a.publicKey();
            assertEquals(key, b.publicKey(), "a second component (another node) reads the same pair");
            assertTrue(P256.unb64(key).flatMap(P256::decode).isPresent());
            String sealed = store.read(h -> h.createQuery("SELECT ciphertext FROM server_secrets WHERE name = 'vapid'")
                    .mapTo(String.class).one());
            assertTrue(sealed.startsWith("v1:"), "the private key is sealed");
        }
    }

    @Test
    void subscriptionsAreSealedReplacedBoundedAndOwned() {
        User alice = auth.accounts().create("alice", "alice password", null, false);
        User bob = auth.accounts().create("bob", "bobs password", null, false);
        try (WebPush push = webPush()) {
            String endpoint = "https://push.example.com/wpush/v2/secret-capability";
            WebPush.Subscription first = push.subscribe(alice.id(), endpoint, p256dh(), AUTH);
            assertEquals("https://push.example.com", first.origin());
            String row = store.read(h -> h.createQuery("SELECT endpoint_origin || ' ' || sealed FROM "
                    + "web_push_subscriptions").mapTo(String.class).one());
            assertFalse(row.contains("secret-capability") || row.contains(AUTH), "endpoint and auth are sealed");

            WebPush.Subscription again = push.subscribe(alice.id(), endpoint, p256dh(), AUTH);
            assertNotEquals(first.id(), again.id());
            assertEquals(List.of(again.id()), push.subscriptions(alice.id()).stream()
                    .map(WebPush.Subscription::id).toList(), "the same endpoint replaces its row");
            WebPush.Subscription moved = push.subscribe(bob.id(), endpoint, p256dh(), AUTH);
            assertEquals(List.of(), push.subscriptions(alice.id()), "the browser now belongs to bob");
            assertEquals(NotificationErrorCodes.PUSH_SUBSCRIPTION_NOT_FOUND, assertThrows(
                    WorkspaceException.NotFound.class, () -> push.unsubscribe(alice.id(), moved.id())).code());

            for (int i = 0; i < WebPush.MAX_SUBSCRIPTIONS_PER_USER; i++) {
                push.subscribe(alice.id(), "https://push.example.com/" + i, p256dh(), AUTH);
            }
            assertEquals(NotificationErrorCodes.TOO_MANY_PUSH_SUBSCRIPTIONS, assertThrows(
                    WorkspaceException.Conflict.class, () -> push.subscribe(alice.id(), "https://push.example.com/x",
                            p256dh(), AUTH)).code());
            push.subscribe(alice.id(), "https://push.example.com/0", p256dh(), AUTH);
            assertEquals(WebPush.MAX_SUBSCRIPTIONS_PER_USER, push.subscriptions(alice.id()).size(),
                    "replacing one of them is not a new one");

            auth.accounts().delete(alice.id(), bob.id());
            assertEquals(List.of(), push.subscriptions(bob.id()), "deleted with their user");
        }
    }
}
