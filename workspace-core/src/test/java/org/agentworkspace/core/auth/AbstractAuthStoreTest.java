package org.agentworkspace.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import org.agentworkspace.api.ApiKeyInfo;
import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.Principal;
import org.agentworkspace.api.Scope;
import org.agentworkspace.api.User;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.store.Store;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The store and authentication behaviour every database must show; subclasses supply SQLite or PostgreSQL. */
abstract class AbstractAuthStoreTest {
    /** A clock tests can move forward. */
    static final class MutableClock extends Clock {
        final AtomicLong millis = new AtomicLong(Instant.parse("2026-11-21T12:00:00Z").toEpochMilli());

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis.get());
        }

        void advance(Duration d) {
            millis.addAndGet(d.toMillis());
        }
    }

    protected String url;
    protected Store store;
    protected MutableClock clock;
    protected Authentication auth;

    protected abstract String createDatabase() throws Exception;

    protected void dropDatabase() throws Exception {
    }

    @BeforeEach
    void open() throws Exception {
        url = createDatabase();
        store = Store.open(url);
        clock = new MutableClock();
        auth = Authentication.create(store, clock, EngineConfig.AuthSettings.defaults()
                .withLoginLimits(3, 10, Duration.ofMinutes(15)));
    }

    @AfterEach
    void close() throws Exception {
        store.close();
        dropDatabase();
    }

    @Test
    void migrationsApplyOnceAndReopenIsIdempotent() {
        assertEquals(Store.latestSchemaVersion(), store.schemaVersion());
        try (Store again = Store.open(url)) {
            assertEquals(Store.latestSchemaVersion(), again.schemaVersion());
        }
    }

    @Test
    void fiftyConcurrentRegistrationsCreateExactlyOneAdministrator() throws Exception {
        int n = 50;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<String>> results = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < n; i++) {
                String name = "user" + i;
                results.add(pool.submit(() -> {
                    start.await();
                    try {
                        auth.accounts().registerFirstUser(name, "correct horse battery");
                        return "ok";
                    } catch (WorkspaceException e) {
                        return e.code();
                    }
                }));
            }
            start.countDown();
            int ok = 0;
            for (Future<String> f : results) {
                String r = f.get();
                if (r.equals("ok")) {
                    ok++;
                } else {
                    assertEquals(ErrorCodes.SETUP_COMPLETE, r);
                }
            }
            assertEquals(1, ok);
        }
        assertEquals(1, auth.accounts().list().size());
        assertTrue(auth.accounts().list().getFirst().admin());
        assertFalse(auth.accounts().needsSetup());
    }

    @Test
    void loginChecksPasswordAndTreatsUnknownUsersAlike() {
        User admin = auth.accounts().registerFirstUser("Alice", "correct horse battery");
        assertEquals(admin.id(), auth.accounts().authenticate("alice", "correct horse battery").id());
        WorkspaceException wrong = assertThrows(WorkspaceException.class,
                () -> auth.accounts().authenticate("alice", "wrong password!"));
        WorkspaceException unknown = assertThrows(WorkspaceException.class,
                () -> auth.accounts().authenticate("mallory", "wrong password!"));
        assertEquals(wrong.code(), unknown.code());
        assertEquals(wrong.getMessage(), unknown.getMessage());
        assertEquals(ErrorCodes.USERNAME_TAKEN, assertThrows(WorkspaceException.class,
                () -> auth.accounts().create("ALICE", "another password", null, false)).code());
    }

    @Test
    void throttleLocksAnAccountAfterRepeatedFailuresEvenForTheRightPassword() {
        auth.accounts().registerFirstUser("alice", "correct horse battery");
        LoginThrottle t = auth.throttle();
        for (int i = 0; i < 3; i++) {
            t.begin("alice", "10.0.0.1"); // three attempts that fail: each stays counted
        }
        WorkspaceException.RateLimited limited = assertThrows(WorkspaceException.RateLimited.class,
                () -> t.begin("alice", "10.0.0.2"));
        assertTrue(limited.retryAfterSeconds() > 0 && limited.retryAfterSeconds() <= 900);
        clock.advance(Duration.ofMinutes(16));
        t.begin("alice", "10.0.0.2");
    }

    @Test
    void throttleLocksAClientThatGuessesManyAccounts() {
        LoginThrottle t = auth.throttle();
        for (int i = 0; i < 10; i++) {
            t.begin("user" + i, "10.0.0.9");
        }
        assertThrows(WorkspaceException.RateLimited.class, () -> t.begin("someone-else", "10.0.0.9"));
        t.begin("someone-else", "10.0.0.10");
    }

    @Test
    void parallelAttemptsCannotAllPassTheCheckBeforeTheirFailuresAreCounted() throws Exception {
        auth.accounts().registerFirstUser("alice", "correct horse battery");
        LoginThrottle t = auth.throttle();
        int parallel = 12;
        ExecutorService pool = Executors.newFixedThreadPool(parallel);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Boolean>> tries = new ArrayList<>();
        for (int i = 0; i < parallel; i++) {
            String client = "10.1.0." + i;
            tries.add(pool.submit(() -> {
                go.await();
                try {
                    t.begin("alice", client); // a wrong password: the attempt stays counted
                    return true;
                } catch (WorkspaceException.RateLimited e) {
                    return false;
                }
            }));
        }
        go.countDown();
        int passed = 0;
        for (Future<Boolean> f : tries) {
            passed += f.get() ? 1 : 0;
        }
        pool.shutdown();
        assertEquals(3, passed, "the account's limit, however many arrive at once");
        // a success takes its attempt back and clears the account's failures
        clock.advance(Duration.ofMinutes(16));
        LoginThrottle.Attempt ok = t.begin("alice", "10.2.0.1");
        t.succeeded(ok);
        int rows = store.read(h -> h.createQuery("SELECT COUNT(*) FROM login_failures WHERE failed_at > :since")
                .bind("since", clock.millis() - 1000).mapTo(Integer.class).one());
        assertEquals(0, rows);
    }

    @Test
    void throttleIsSharedByServersOnOneStoreAndSurvivesARestart() {
        auth.accounts().registerFirstUser("alice", "correct horse battery");
        EngineConfig.AuthSettings limits = EngineConfig.AuthSettings.defaults()
                .withLoginLimits(3, 10, Duration.ofMinutes(15));
        // a second server on the same database: failures recorded by either count for both
        Authentication other = Authentication.create(store, clock, limits);
        auth.throttle().begin("Alice", "10.0.0.1");
        other.throttle().begin("alice", "10.0.0.2");
        clock.advance(Duration.ofMinutes(5));
        auth.throttle().begin("alice", "10.0.0.3");
        assertThrows(WorkspaceException.RateLimited.class, () -> other.throttle().begin("alice", "10.0.0.4"));
        // a restart: a new store handle and engine over the same database
        try (Store reopened = Store.open(url)) {
            Authentication restarted = Authentication.create(reopened, clock, limits);
            WorkspaceException.RateLimited limited = assertThrows(WorkspaceException.RateLimited.class,
                    () -> restarted.throttle().begin("ALICE", "10.0.0.5"));
            // the lockout ends when the oldest of the three newest failures leaves the 15 minute window
            assertEquals(600, limited.retryAfterSeconds());
            clock.advance(Duration.ofMinutes(10).plusMillis(1));
            restarted.throttle().begin("alice", "10.0.0.5"); // with the one of 10 minutes ago: two
            // a success on one server clears the account's failures everywhere; nothing names the account or the
            // address
            LoginThrottle.Attempt right = restarted.throttle().begin("alice", "10.0.0.5");
            assertThrows(WorkspaceException.RateLimited.class, () -> other.throttle().begin("alice", "10.0.0.6"));
            auth.throttle().succeeded(right);
            restarted.throttle().begin("alice", "10.0.0.5");
            other.throttle().begin("alice", "10.0.0.6");
            List<String> subjects = store.read(h -> h.createQuery("SELECT subject FROM login_failures")
                    .mapTo(String.class).list());
            assertFalse(subjects.isEmpty());
            assertTrue(subjects.stream().allMatch(x -> x.matches("[0-9a-f]{64}")), subjects.toString());
        }
        // failures older than the window are deleted when the next one is recorded
        clock.advance(Duration.ofMinutes(16));
        auth.throttle().begin("bob", "10.0.0.7");
        int rows = store.read(h -> h.createQuery("SELECT COUNT(*) FROM login_failures")
                .mapTo(Integer.class).one());
        assertEquals(2, rows);
    }

    @Test
    void apiKeysAreStoredAsDigestsMaskedInListsAndRefusedWhenInactiveOrDeleted() {
        User u = auth.accounts().registerFirstUser("alice", "correct horse battery");
        ApiKeyInfo created = auth.apiKeys().create(u.id(), "ci", null);
        assertTrue(created.value().matches("px_[0-9a-f]{32}"));
        assertEquals(Scope.defaults(), created.scopes());

        List<ApiKeyInfo> listed = auth.apiKeys().list(u.id());
        assertEquals(1, listed.size());
        assertEquals("px_\u2026" + created.value().substring(31), listed.getFirst().value());

        Principal p = auth.apiKeys().authenticate(created.value()).orElseThrow();
        assertEquals(u.id(), p.user().id());
        assertEquals(Principal.Kind.API_KEY, p.kind());
        assertTrue(auth.apiKeys().list(u.id()).getFirst().lastUsed() != null);

        String stored = store.read(h -> h.createQuery("SELECT key_digest || ' ' || key_tail FROM api_keys")
                .mapTo(String.class).one());
        assertFalse(stored.contains(created.value().substring(3, 31)));

        auth.apiKeys().setActive(u.id(), created.id(), false);
        assertTrue(auth.apiKeys().authenticate(created.value()).isEmpty());
        auth.apiKeys().setActive(u.id(), created.id(), true);
        assertTrue(auth.apiKeys().authenticate(created.value()).isPresent());
        auth.apiKeys().delete(u.id(), created.id());
        assertTrue(auth.apiKeys().authenticate(created.value()).isEmpty());
        assertEquals(ErrorCodes.API_KEY_NOT_FOUND, assertThrows(WorkspaceException.class,
                () -> auth.apiKeys().delete(u.id(), created.id())).code());
    }

    @Test
    void malformedAndUnknownKeysAreRefused() {
        User u = auth.accounts().registerFirstUser("alice", "correct horse battery");
        String good = auth.apiKeys().create(u.id(), "ci", EnumSet.of(Scope.TASKS_READ)).value();
        for (String bad : List.of(good + "0", good.substring(0, 34), good.toUpperCase(), good + "\n", " " + good,
                "ck_" + good.substring(3), "px_" + "g".repeat(32), "")) {
            assertTrue(auth.apiKeys().authenticate(bad).isEmpty(), bad);
        }
        assertEquals(ErrorCodes.UNKNOWN_SCOPE, assertThrows(WorkspaceException.class,
                () -> ApiKeys.parseScopes(List.of("admin"))).code());
        assertEquals(ErrorCodes.UNKNOWN_SCOPE, assertThrows(WorkspaceException.class,
                () -> auth.apiKeys().create(u.id(), "none", Set.of())).code());
    }

    @Test
    void legacyKeysWorkOnlyOnceImported() {
        User u = auth.accounts().registerFirstUser("alice", "correct horse battery");
        String legacy = "ck_0123456789abcdef0123456789abcdef";
        assertTrue(auth.apiKeys().authenticate(legacy).isEmpty());
        ApiKeyInfo imported = auth.apiKeys().importLegacy(u.id(), "old ci", legacy, null);
        assertTrue(imported.legacy());
        assertEquals("ck_\u2026cdef", imported.value());
        assertTrue(auth.apiKeys().authenticate(legacy).isPresent());
    }

    @Test
    void aTicketIsRedeemedExactlyOnceUnderConcurrency() throws Exception {
        User u = auth.accounts().registerFirstUser("alice", "correct horse battery");
        Principal session = new Principal(u, Principal.Kind.SESSION, null, Scope.all());
        StreamTickets.Ticket ticket = auth.tickets().issue(session);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> results = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 20; i++) {
                results.add(pool.submit(() -> {
                    start.await();
                    return auth.tickets().redeem(ticket.value()).isPresent();
                }));
            }
            start.countDown();
            int ok = 0;
            for (Future<Boolean> f : results) {
                ok += f.get() ? 1 : 0;
            }
            assertEquals(1, ok);
        }
    }

    @Test
    void ticketsExpireCarryTheirScopesAndDieWithTheirKey() {
        User u = auth.accounts().registerFirstUser("alice", "correct horse battery");
        ApiKeyInfo key = auth.apiKeys().create(u.id(), "reader", EnumSet.of(Scope.TASKS_READ));
        Principal viaKey = auth.apiKeys().authenticate(key.value()).orElseThrow();

        StreamTickets.Ticket t1 = auth.tickets().issue(viaKey);
        Principal redeemed = auth.tickets().redeem(t1.value()).orElseThrow();
        assertEquals(Set.of(Scope.TASKS_READ), redeemed.scopes());
        assertEquals(key.id(), redeemed.apiKeyId());

        StreamTickets.Ticket t2 = auth.tickets().issue(viaKey);
        clock.advance(Duration.ofSeconds(31));
        assertTrue(auth.tickets().redeem(t2.value()).isEmpty());

        StreamTickets.Ticket t3 = auth.tickets().issue(viaKey);
        auth.apiKeys().setActive(u.id(), key.id(), false);
        assertTrue(auth.tickets().redeem(t3.value()).isEmpty());
        assertTrue(auth.tickets().redeem("st_" + "A".repeat(43)).isEmpty());
    }

    @Test
    void outstandingTicketsAreCapped() {
        User u = auth.accounts().registerFirstUser("alice", "correct horse battery");
        Principal session = new Principal(u, Principal.Kind.SESSION, null, Scope.all());
        for (int i = 0; i < 64; i++) {
            auth.tickets().issue(session);
        }
        assertThrows(WorkspaceException.RateLimited.class, () -> auth.tickets().issue(session));
        clock.advance(Duration.ofSeconds(31));
        auth.tickets().issue(session);
    }

    @Test
    void deletingAUserRemovesItsKeysAndTickets() {
        User admin = auth.accounts().registerFirstUser("alice", "correct horse battery");
        User bob = auth.accounts().create("bob", "bobs password", "bob@example.org", false);
        ApiKeyInfo key = auth.apiKeys().create(bob.id(), "bob ci", null);
        StreamTickets.Ticket t = auth.tickets().issue(new Principal(bob, Principal.Kind.SESSION, null, Scope.all()));
        assertEquals(ErrorCodes.CONFLICT, assertThrows(WorkspaceException.class,
                () -> auth.accounts().delete(admin.id(), admin.id())).code());
        auth.accounts().delete(admin.id(), bob.id());
        assertTrue(auth.accounts().find(bob.id()).isEmpty());
        assertTrue(auth.apiKeys().authenticate(key.value()).isEmpty());
        assertTrue(auth.tickets().redeem(t.value()).isEmpty());
        int left = store.read(h -> h.createQuery("SELECT COUNT(*) FROM api_keys").mapTo(Integer.class).one());
        assertEquals(0, left);
    }
}
