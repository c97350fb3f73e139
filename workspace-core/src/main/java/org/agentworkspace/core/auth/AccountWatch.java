package org.agentworkspace.core.auth;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongConsumer;

/**
 * Tells what holds an account's live work (its runs, streams and sockets) the moment the account is deleted, so that
 * it ends at once instead of at its next periodic check. {@link #watch} ties one connection to an account;
 * {@link #onDeleted} is for services that own work of many accounts (the engine cancels the account's runs).
 * Callbacks run on the deleting thread after the deletion is committed; a failing one is logged and the others
 * still run. See docs/auth.md "Deleting an account".
 */
public final class AccountWatch {
    private static final System.Logger LOG = System.getLogger(AccountWatch.class.getName());

    private final Map<Long, Set<Watch>> watches = new ConcurrentHashMap<>();
    private final CopyOnWriteArrayList<LongConsumer> listeners = new CopyOnWriteArrayList<>();

    AccountWatch() {
    }

    /** A registration of {@link #watch}: close it when the connection ends on its own. */
    public interface Watch extends AutoCloseable {
        /** True once the account was deleted (the callback has run or is running). */
        boolean ended();

        @Override
        void close();
    }

    /** Runs {@code onDeleted} once if the account is deleted while the returned watch is open. */
    public Watch watch(long userId, Runnable onDeleted) {
        Objects.requireNonNull(onDeleted, "onDeleted");
        WatchImpl w = new WatchImpl(userId, onDeleted);
        watches.computeIfAbsent(userId, u -> ConcurrentHashMap.newKeySet()).add(w);
        return w;
    }

    /** Calls {@code listener} with the id of every account deleted from now on. */
    public void onDeleted(LongConsumer listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** How many connections are watched for this account (tests and diagnostics). */
    public int watching(long userId) {
        Set<Watch> s = watches.get(userId);
        return s == null ? 0 : s.size();
    }

    /** Called by {@link Accounts#delete} once the account is gone from the store. */
    void deleted(long userId) {
        Set<Watch> s = watches.remove(userId);
        if (s != null) {
            for (Watch w : s) {
                ((WatchImpl) w).fire();
            }
        }
        for (LongConsumer l : listeners) {
            try {
                l.accept(userId);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "a listener of account deletions failed", e);
            }
        }
    }

    private final class WatchImpl implements Watch {
        private final long userId;
        private final Runnable onDeleted;
        private volatile boolean ended;

        WatchImpl(long userId, Runnable onDeleted) {
            this.userId = userId;
            this.onDeleted = onDeleted;
        }

        void fire() {
            ended = true;
            try {
                onDeleted.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "ending a connection of deleted account " + userId + " failed", e);
            }
        }

        @Override
        public boolean ended() {
            return ended;
        }

        @Override
        public void close() {
            Set<Watch> s = watches.get(userId);
            if (s != null) {
                s.remove(this);
            }
        }
    }
}
