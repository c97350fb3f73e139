package org.agentworkspace.core.auth;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.agentworkspace.api.WorkspaceException;

/**
 * Slows password guessing: at most {@code accountLimit} failed logins per account and {@code clientLimit} per client
 * address within a sliding window. Once over, every attempt for that account or from that client gets 429 with the
 * seconds until the oldest failure leaves the window — checked before the password is hashed, so a correct password
 * during a lockout is refused the same way (no oracle). Unknown accounts are counted exactly like known ones.
 * State is per process and bounded: at most {@value #MAX_TRACKED} keys of each kind are tracked.
 */
public final class LoginThrottle {
    static final int MAX_TRACKED = 10_000;

    private final Clock clock;
    private final int accountLimit;
    private final int clientLimit;
    private final long windowMs;
    private final Map<String, Deque<Long>> byAccount = new ConcurrentHashMap<>();
    private final Map<String, Deque<Long>> byClient = new ConcurrentHashMap<>();

    LoginThrottle(Clock clock, int accountLimit, int clientLimit, Duration window) {
        this.clock = clock;
        this.accountLimit = accountLimit;
        this.clientLimit = clientLimit;
        this.windowMs = window.toMillis();
    }

    /** Throws {@link WorkspaceException.RateLimited} when the account or the client is locked out. */
    public void check(String username, String client) {
        long now = clock.millis();
        long wait = Math.max(waitMs(byAccount, accountKey(username), accountLimit, now),
                waitMs(byClient, client, clientLimit, now));
        if (wait > 0) {
            throw new WorkspaceException.RateLimited("too many failed logins; try again later",
                    (wait + 999) / 1000);
        }
    }

    public void recordFailure(String username, String client) {
        long now = clock.millis();
        add(byAccount, accountKey(username), now);
        add(byClient, client, now);
    }

    /** A successful login clears the account's failures (the client's stay: it may be guessing other accounts). */
    public void recordSuccess(String username) {
        byAccount.remove(accountKey(username));
    }

    private long waitMs(Map<String, Deque<Long>> map, String key, int limit, long now) {
        Deque<Long> q = map.get(key);
        if (q == null) {
            return 0;
        }
        synchronized (q) {
            prune(q, now);
            if (q.size() < limit) {
                return 0;
            }
            return q.peekFirst() + windowMs - now;
        }
    }

    private void add(Map<String, Deque<Long>> map, String key, long now) {
        if (map.size() >= MAX_TRACKED) {
            evictExpired(map, now);
        }
        Deque<Long> q = map.computeIfAbsent(key, k -> new ArrayDeque<>());
        synchronized (q) {
            prune(q, now);
            q.addLast(now);
            while (q.size() > Math.max(accountLimit, clientLimit)) {
                q.pollFirst();
            }
        }
    }

    private void evictExpired(Map<String, Deque<Long>> map, long now) {
        for (Iterator<Map.Entry<String, Deque<Long>>> it = map.entrySet().iterator(); it.hasNext(); ) {
            Deque<Long> q = it.next().getValue();
            synchronized (q) {
                prune(q, now);
                if (q.isEmpty()) {
                    it.remove();
                }
            }
        }
        if (map.size() >= MAX_TRACKED) {
            // still full of live entries: drop an arbitrary one rather than grow without bound
            Iterator<String> it = map.keySet().iterator();
            if (it.hasNext()) {
                map.remove(it.next());
            }
        }
    }

    private void prune(Deque<Long> q, long now) {
        while (!q.isEmpty() && q.peekFirst() <= now - windowMs) {
            q.pollFirst();
        }
    }

    private static String accountKey(String username) {
        return username == null ? "" : Accounts.key(username);
    }
}
