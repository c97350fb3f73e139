package org.agentworkspace.core.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.agentworkspace.api.ApiKeyInfo;
import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.Principal;
import org.agentworkspace.api.Scope;
import org.agentworkspace.api.User;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.store.Store;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * API keys. A key is {@code px_} and 32 lowercase hex digits (128 random bits), shown once at creation; the store
 * keeps only its SHA-256 digest, the prefix and the last four characters. Legacy {@code ck_} keys are accepted only
 * after an administrator imports them ({@link #importLegacy}). A value of the wrong shape is refused before any
 * lookup.
 */
public final class ApiKeys {
    /** The exact shape of a key; anything else is refused without touching the store. */
    public static final Pattern FORMAT = Pattern.compile("(px|ck)_[0-9a-f]{32}");
    private static final long LAST_USED_RESOLUTION_MS = 60_000;
    private static final HexFormat HEX = HexFormat.of();

    private final Store store;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    ApiKeys(Store store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** True when the value has the shape of a key (so a bearer value is a key rather than a JWT). */
    public static boolean looksLikeKey(String value) {
        return value != null && (value.startsWith("px_") || value.startsWith("ck_"));
    }

    /**
     * Creates a key for a user. {@code scopes} null means {@link Scope#defaults()}; an empty set is refused.
     *
     * @return the key with its full value, the only time it is available
     */
    public ApiKeyInfo create(long userId, String name, Set<Scope> scopes) {
        String label = validName(name);
        Set<Scope> granted = scopes == null ? Scope.defaults() : scopes;
        if (granted.isEmpty()) {
            throw new WorkspaceException.Validation(ErrorCodes.UNKNOWN_SCOPE, "a key needs at least one scope");
        }
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        String value = "px_" + HEX.formatHex(bytes);
        return insert(userId, label, value, granted, false);
    }

    /**
     * Imports a legacy {@code ck_} key so that it keeps working; only its digest is stored. Used by the
     * {@code import-legacy-key} command, never over HTTP.
     */
    public ApiKeyInfo importLegacy(long userId, String name, String value, Set<Scope> scopes) {
        if (value == null || !value.startsWith("ck_") || !FORMAT.matcher(value).matches()) {
            throw WorkspaceException.Validation.of("a legacy key is ck_ followed by 32 lowercase hex digits");
        }
        ApiKeyInfo info = insert(userId, validName(name), value, scopes == null ? Scope.defaults() : scopes, true);
        return masked(info);
    }

    private ApiKeyInfo insert(long userId, String name, String value, Set<Scope> scopes, boolean legacy) {
        long now = clock.millis();
        try {
            long id = store.write(h -> h.createQuery("INSERT INTO api_keys (user_id, key_name, key_digest, key_prefix, "
                            + "key_tail, scopes, is_active, legacy, created_at) VALUES (:u, :n, :d, :p, :tail, :s, "
                            + ":active, :legacy, :t) RETURNING id")
                    .bind("u", userId).bind("n", name).bind("d", digest(value)).bind("p", value.substring(0, 3))
                    .bind("tail", value.substring(value.length() - 4)).bind("s", encode(scopes))
                    .bind("active", true).bind("legacy", legacy).bind("t", now)
                    .mapTo(Long.class).one());
            return new ApiKeyInfo(id, name, value, scopes, Instant.ofEpochMilli(now), null, true, legacy);
        } catch (JdbiException e) {
            if (Store.isUniqueViolation(e)) {
                throw new WorkspaceException.Conflict(ErrorCodes.CONFLICT, "that key is already registered");
            }
            throw Store.unavailable(e);
        }
    }

    /** The user's keys, values masked ({@code px_…abcd}). */
    public List<ApiKeyInfo> list(long userId) {
        return store.read(h -> h.createQuery("SELECT * FROM api_keys WHERE user_id = :u ORDER BY id")
                .bind("u", userId).map(MASKED).list());
    }

    /** Deletes one of the user's keys; another user's key is reported as not found. */
    public void delete(long userId, long keyId) {
        int n = store.write(h -> h.createUpdate("DELETE FROM api_keys WHERE id = :id AND user_id = :u")
                .bind("id", keyId).bind("u", userId).execute());
        if (n == 0) {
            throw notFound();
        }
    }

    /** Turns one of the user's keys on or off; returns it masked. */
    public ApiKeyInfo setActive(long userId, long keyId, boolean active) {
        return store.write(h -> {
            int n = h.createUpdate("UPDATE api_keys SET is_active = :a WHERE id = :id AND user_id = :u")
                    .bind("a", active).bind("id", keyId).bind("u", userId).execute();
            if (n == 0) {
                throw notFound();
            }
            return h.createQuery("SELECT * FROM api_keys WHERE id = :id").bind("id", keyId).map(MASKED).one();
        });
    }

    /**
     * Authenticates a key value: shape first, then a lookup by digest, a constant-time comparison, and the active
     * flag. Records {@code last_used} (at most once a minute per key).
     */
    public Optional<Principal> authenticate(String value) {
        if (value == null || !FORMAT.matcher(value).matches()) {
            return Optional.empty();
        }
        String digest = digest(value);
        record Row(long keyId, String digest, boolean active, Set<Scope> scopes, Long lastUsed, User user) {
        }
        Optional<Row> row = store.read(h -> h.createQuery("SELECT k.id AS key_id, k.key_digest, k.is_active, "
                        + "k.scopes, k.last_used, u.* FROM api_keys k JOIN users u ON u.id = k.user_id "
                        + "WHERE k.key_digest = :d")
                .bind("d", digest)
                .map((rs, ctx) -> new Row(rs.getLong("key_id"), rs.getString("key_digest"),
                        rs.getBoolean("is_active"), decode(rs.getString("scopes")),
                        nullableLong(rs, "last_used"), Accounts.USER.map(rs, ctx)))
                .findOne());
        if (row.isEmpty() || !row.get().active() || !MessageDigest.isEqual(
                row.get().digest().getBytes(StandardCharsets.US_ASCII), digest.getBytes(StandardCharsets.US_ASCII))) {
            return Optional.empty();
        }
        Row r = row.get();
        long now = clock.millis();
        if (r.lastUsed() == null || now - r.lastUsed() >= LAST_USED_RESOLUTION_MS) {
            store.write(h -> h.createUpdate("UPDATE api_keys SET last_used = :t WHERE id = :id")
                    .bind("t", now).bind("id", r.keyId()).execute());
        }
        return Optional.of(new Principal(r.user(), Principal.Kind.API_KEY, r.keyId(), r.scopes()));
    }

    /** True while the key exists and is active (stream tickets minted by a key die with it). */
    boolean isActive(long keyId) {
        return store.read(h -> h.createQuery("SELECT is_active FROM api_keys WHERE id = :id").bind("id", keyId)
                .mapTo(Boolean.class).findOne()).orElse(false);
    }

    /** Parses scope names; unknown names are refused with {@link ErrorCodes#UNKNOWN_SCOPE}. */
    public static Set<Scope> parseScopes(Collection<String> names) {
        EnumSet<Scope> out = EnumSet.noneOf(Scope.class);
        for (String n : names) {
            out.add(Scope.find(n).orElseThrow(() -> new WorkspaceException.Validation(ErrorCodes.UNKNOWN_SCOPE,
                    "unknown scope: " + printable(n))));
        }
        return out;
    }

    static String encode(Set<Scope> scopes) {
        return scopes.stream().map(Scope::id).sorted().collect(Collectors.joining(" "));
    }

    static Set<Scope> decode(String s) {
        EnumSet<Scope> out = EnumSet.noneOf(Scope.class);
        Arrays.stream(s.split(" ")).map(Scope::find).flatMap(Optional::stream).forEach(out::add);
        return out;
    }

    static String digest(String value) {
        try {
            return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final RowMapper<ApiKeyInfo> MASKED = (rs, ctx) -> {
        Long lastUsed = nullableLong(rs, "last_used");
        return new ApiKeyInfo(rs.getLong("id"), rs.getString("key_name"),
                rs.getString("key_prefix") + "\u2026" + rs.getString("key_tail"), decode(rs.getString("scopes")),
                Instant.ofEpochMilli(rs.getLong("created_at")), lastUsed == null ? null
                : Instant.ofEpochMilli(lastUsed), rs.getBoolean("is_active"), rs.getBoolean("legacy"));
    };

    private static Long nullableLong(java.sql.ResultSet rs, String column) throws java.sql.SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    private static ApiKeyInfo masked(ApiKeyInfo k) {
        String v = k.value();
        return new ApiKeyInfo(k.id(), k.name(), v.substring(0, 3) + "\u2026" + v.substring(v.length() - 4),
                k.scopes(), k.createdAt(), k.lastUsed(), k.active(), k.legacy());
    }

    private static String validName(String name) {
        if (name == null || name.isBlank() || name.length() > 100 || name.chars().anyMatch(Character::isISOControl)) {
            throw WorkspaceException.Validation.of("name must be 1-100 characters with no control characters");
        }
        return name.strip();
    }

    private static String printable(String s) {
        String cut = s.length() > 40 ? s.substring(0, 40) + "…" : s;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }

    private static WorkspaceException notFound() {
        return new WorkspaceException.NotFound(ErrorCodes.API_KEY_NOT_FOUND, "no such API key");
    }
}
