package org.agentworkspace.core.auth;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.User;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.store.Store;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * User accounts. Registration is open only while no account exists (the first account becomes the administrator);
 * after that, administrators create accounts. Usernames are unique ignoring case.
 */
public final class Accounts {
    /** 1–64 characters: letters, digits and {@code . _ @ -}. */
    public static final Pattern USERNAME = Pattern.compile("[A-Za-z0-9._@-]{1,64}");
    public static final int MIN_PASSWORD = 8;
    public static final int MAX_PASSWORD = 1024;
    private static final Pattern EMAIL = Pattern.compile("[^@\\s]{1,64}@[^@\\s]{1,255}");

    static final RowMapper<User> USER = (rs, ctx) -> new User(rs.getLong("id"), rs.getString("username"),
            rs.getString("email"), Instant.ofEpochMilli(rs.getLong("created_at")), rs.getBoolean("is_admin"));

    private final Store store;
    private final PasswordHasher hasher;
    private final Clock clock;
    private final AccountWatch watch = new AccountWatch();

    Accounts(Store store, PasswordHasher hasher, Clock clock) {
        this.store = store;
        this.hasher = hasher;
        this.clock = clock;
    }

    /** What ends an account's runs, streams and sockets when it is deleted. */
    public AccountWatch watch() {
        return watch;
    }

    /** True while no account has ever been created (setup not complete). */
    public boolean needsSetup() {
        return store.read(h -> h.createQuery("SELECT COUNT(*) FROM setup_guard").mapTo(Integer.class).one()) == 0;
    }

    /**
     * Creates the first account, as administrator. Safe under any number of concurrent calls: exactly one succeeds,
     * the others get {@link ErrorCodes#SETUP_COMPLETE}.
     */
    public User registerFirstUser(String username, String password) {
        validate(username, password);
        if (!needsSetup()) {
            throw setupComplete();
        }
        String hash = hasher.hash(password);
        try {
            return store.write(h -> {
                if (h.createQuery("SELECT COUNT(*) FROM setup_guard").mapTo(Integer.class).one() > 0) {
                    throw setupComplete();
                }
                h.createUpdate("INSERT INTO setup_guard (id, completed_at) VALUES (1, :t)")
                        .bind("t", clock.millis()).execute();
                return insert(h, username, null, hash, true);
            });
        } catch (JdbiException e) {
            if (Store.isUniqueViolation(e)) {
                throw setupComplete();
            }
            throw Store.unavailable(e);
        }
    }

    /** Creates a further account (administrators only; the caller checks). */
    public User create(String username, String password, String email, boolean admin) {
        validate(username, password);
        if (email != null && !EMAIL.matcher(email).matches()) {
            throw WorkspaceException.Validation.of("email is not a valid address");
        }
        String hash = hasher.hash(password);
        try {
            return store.write(h -> insert(h, username, email, hash, admin));
        } catch (JdbiException e) {
            if (Store.isUniqueViolation(e)) {
                throw new WorkspaceException.Conflict(ErrorCodes.USERNAME_TAKEN, "that username is taken");
            }
            throw Store.unavailable(e);
        }
    }

    private User insert(Handle h, String username, String email, String hash, boolean admin) {
        long now = clock.millis();
        long id = h.createQuery("INSERT INTO users (username, username_key, email, password_hash, is_admin, "
                        + "created_at) VALUES (:u, :k, :e, :p, :a, :t) RETURNING id")
                .bind("u", username).bind("k", key(username)).bind("e", email).bind("p", hash)
                .bind("a", admin).bind("t", now).mapTo(Long.class).one();
        return new User(id, username, email, Instant.ofEpochMilli(now), admin);
    }

    /**
     * Checks a username and password. Unknown accounts cost the same hashing work as known ones and fail with the
     * same code and message.
     */
    public User authenticate(String username, String password) {
        if (username == null || password == null || password.length() > MAX_PASSWORD
                || !USERNAME.matcher(username).matches()) {
            throw invalidCredentials();
        }
        record Row(User user, String hash) {
        }
        Optional<Row> row = store.read(h -> h.createQuery("SELECT * FROM users WHERE username_key = :k")
                .bind("k", key(username))
                .map((rs, ctx) -> new Row(USER.map(rs, ctx), rs.getString("password_hash"))).findOne());
        if (row.isEmpty()) {
            hasher.verifyDummy(password);
            throw invalidCredentials();
        }
        if (!hasher.verify(password, row.get().hash())) {
            throw invalidCredentials();
        }
        return row.get().user();
    }

    public Optional<User> find(long id) {
        return store.read(h -> h.createQuery("SELECT * FROM users WHERE id = :id").bind("id", id).map(USER)
                .findOne());
    }

    public User get(long id) {
        return find(id).orElseThrow(() -> new WorkspaceException.NotFound(ErrorCodes.USER_NOT_FOUND,
                "no such user"));
    }

    public List<User> list() {
        return store.read(h -> h.createQuery("SELECT * FROM users ORDER BY id").map(USER).list());
    }

    /**
     * Deletes an account with its keys and tickets, then ends its live work at once through {@link #watch()}: its
     * runs are cancelled, its streams end and its sockets close. An account cannot delete itself.
     */
    public void delete(long actingUserId, long id) {
        if (actingUserId == id) {
            throw new WorkspaceException.Conflict(ErrorCodes.CONFLICT, "you cannot delete your own account");
        }
        int n = store.write(h -> h.createUpdate("DELETE FROM users WHERE id = :id").bind("id", id).execute());
        if (n == 0) {
            throw new WorkspaceException.NotFound(ErrorCodes.USER_NOT_FOUND, "no such user");
        }
        watch.deleted(id);
    }

    static String key(String username) {
        return username.toLowerCase(Locale.ROOT);
    }

    private static void validate(String username, String password) {
        if (username == null || !USERNAME.matcher(username).matches()) {
            throw WorkspaceException.Validation.of(
                    "username must be 1-64 characters of letters, digits and . _ @ -");
        }
        if (password == null || password.length() < MIN_PASSWORD || password.length() > MAX_PASSWORD) {
            throw WorkspaceException.Validation.of("password must be " + MIN_PASSWORD + "-" + MAX_PASSWORD
                    + " characters");
        }
    }

    private static WorkspaceException setupComplete() {
        return new WorkspaceException.Forbidden(ErrorCodes.SETUP_COMPLETE,
                "setup is complete: registration is closed");
    }

    private static WorkspaceException invalidCredentials() {
        return new WorkspaceException.Unauthenticated(ErrorCodes.INVALID_CREDENTIALS,
                "invalid username or password");
    }
}
