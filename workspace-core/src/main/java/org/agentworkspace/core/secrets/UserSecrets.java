package org.agentworkspace.core.secrets;

import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

import org.agentworkspace.core.store.Store;
import org.jdbi.v3.core.JdbiException;

/**
 * Per-user secrets at rest: one sealed value per user and kind (table {@code user_secrets}), sealed with
 * {@link SecretBox} bound to {@code user-secret:<userId>:<kind>}. Only the sealed text, the masked tail and an
 * optional non-secret label are stored. Deleting the user deletes their secrets.
 */
public final class UserSecrets {
    private static final Pattern KIND = Pattern.compile("[a-z][a-z0-9.-]{0,63}");

    private final Store store;
    private final SecretBox box;
    private final Clock clock;

    private UserSecrets(Store store, SecretBox box, Clock clock) {
        this.store = store;
        this.box = box;
        this.clock = clock;
    }

    public static UserSecrets create(Store store, SecretBox box, Clock clock) {
        return new UserSecrets(Objects.requireNonNull(store), Objects.requireNonNull(box), Objects.requireNonNull(clock));
    }

    /**
     * What is stored, without the value.
     *
     * @param tail the characters of the value a mask may show ({@link SecretBox#tail})
     * @param label the non-secret companion value, or {@code null}
     */
    public record Info(String kind, String tail, String label, Instant updatedAt) {
        /** {@code "…"} plus the tail. */
        public String masked() {
            return "…" + tail;
        }
    }

    /** A secret opened for use. {@link #toString()} hides the value. */
    public record Opened(String value, String label) {
        @Override
        public String toString() {
            return "Opened[value=***, label=" + label + "]";
        }
    }

    /** Stores (or replaces) the user's secret of this kind. */
    public Info put(long userId, String kind, String value, String label) {
        checkKind(kind);
        Objects.requireNonNull(value, "value");
        String sealed = box.seal(value, context(userId, kind));
        String tail = SecretBox.tail(value);
        long now = clock.millis();
        try {
            store.write(h -> {
                h.createUpdate("DELETE FROM user_secrets WHERE user_id = :u AND kind = :k")
                        .bind("u", userId).bind("k", kind).execute();
                return h.createUpdate("INSERT INTO user_secrets (user_id, kind, ciphertext, tail, label, updated_at) "
                                + "VALUES (:u, :k, :c, :t, :l, :at)")
                        .bind("u", userId).bind("k", kind).bind("c", sealed).bind("t", tail).bind("l", label)
                        .bind("at", now).execute();
            });
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        return new Info(kind, tail, label, Instant.ofEpochMilli(now));
    }

    /** What is stored for the user and kind, without the value. */
    public Optional<Info> find(long userId, String kind) {
        checkKind(kind);
        try {
            return store.read(h -> h.createQuery("SELECT tail, label, updated_at FROM user_secrets "
                            + "WHERE user_id = :u AND kind = :k")
                    .bind("u", userId).bind("k", kind)
                    .map((rs, ctx) -> new Info(kind, rs.getString("tail"), rs.getString("label"),
                            Instant.ofEpochMilli(rs.getLong("updated_at"))))
                    .findOne());
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
    }

    /**
     * The secret itself, for handing to whatever needs it (never to a client).
     *
     * @throws SecretBox.Unreadable when the stored value does not open (the key file changed, or the row was altered)
     */
    public Optional<Opened> open(long userId, String kind) {
        checkKind(kind);
        record Row(String ciphertext, String label) {
        }
        Optional<Row> row;
        try {
            row = store.read(h -> h.createQuery("SELECT ciphertext, label FROM user_secrets "
                            + "WHERE user_id = :u AND kind = :k")
                    .bind("u", userId).bind("k", kind)
                    .map((rs, ctx) -> new Row(rs.getString("ciphertext"), rs.getString("label")))
                    .findOne());
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        return row.map(r -> new Opened(box.open(r.ciphertext(), context(userId, kind)), r.label()));
    }

    /** Removes the user's secret of this kind; {@code true} when one was stored. */
    public boolean delete(long userId, String kind) {
        checkKind(kind);
        try {
            return store.write(h -> h.createUpdate("DELETE FROM user_secrets WHERE user_id = :u AND kind = :k")
                    .bind("u", userId).bind("k", kind).execute()) > 0;
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
    }

    private static String context(long userId, String kind) {
        return "user-secret:" + userId + ":" + kind;
    }

    private static void checkKind(String kind) {
        if (kind == null || !KIND.matcher(kind).matches()) {
            throw new IllegalArgumentException("a secret kind is lower-case letters, digits, '.' and '-'");
        }
    }
}
