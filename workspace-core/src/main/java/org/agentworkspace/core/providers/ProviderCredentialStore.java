package org.agentworkspace.core.providers;

import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.secrets.SecretBox;
import org.agentworkspace.core.store.Store;
import org.jdbi.v3.core.JdbiException;

/**
 * The provider credentials this service holds, at two levels (docs/provider-management.md §4):
 * <ul>
 *   <li>an account's <em>own</em> credential per provider (table {@code account_provider_credentials}), which a
 *       signed-in user stores for the runs that account starts, and</li>
 *   <li>one <em>service-wide</em> credential per provider (table {@code provider_credentials}), which only an
 *       administrator stores, for the runs of accounts without a key of their own.</li>
 * </ul>
 * A run resolves {@link #resolve(String, Long)}: the run's account's own key, else the service key, else none (the
 * CLI's own login). The key is sealed with the data directory's {@link SecretBox}, bound to
 * {@code provider-credential:<provider>} (service) or {@code provider-credential:<provider>:user:<id>} (own); only
 * the sealed text, a mask tail and the base URL are stored. Nothing here ever writes a key into the service's own
 * environment: a key leaves the store only through {@link #resolve} and {@link #credentialsFor}, which the launch
 * of <em>that</em> provider uses.
 */
public final class ProviderCredentialStore implements org.agentworkspace.core.agent.ProviderCredentialsSource {
    private static final int MAX_KEY = 4096;

    private final Store store;
    private final SecretBox box;
    private final Clock clock;
    private final ProviderCatalog catalog;
    private final CopyOnWriteArrayList<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
    private volatile org.agentworkspace.core.network.OutboundPolicy outbound =
            org.agentworkspace.core.network.OutboundPolicy.publicOnly();

    private ProviderCredentialStore(Store store, SecretBox box, Clock clock, ProviderCatalog catalog) {
        this.store = store;
        this.box = box;
        this.clock = clock;
        this.catalog = catalog;
    }

    /** The store of the providers {@code ServiceLoader} finds. */
    public static ProviderCredentialStore create(Store store, SecretBox box, Clock clock) {
        return create(store, box, clock, ProviderCatalog.load());
    }

    /** The store of the providers of {@code catalog}: a key is stored only for one of them. */
    public static ProviderCredentialStore create(Store store, SecretBox box, Clock clock, ProviderCatalog catalog) {
        return new ProviderCredentialStore(Objects.requireNonNull(store), Objects.requireNonNull(box),
                Objects.requireNonNull(clock), Objects.requireNonNull(catalog));
    }

    /** The providers this store keeps keys for (and the rest of provider management knows). */
    public ProviderCatalog catalog() {
        return catalog;
    }

    /**
     * What is stored for a provider, never the key.
     *
     * @param tail      the characters the mask shows ({@link SecretBox#tail})
     * @param baseUrl   the endpoint override, or {@code null}
     * @param updatedBy the user who stored it, or {@code null} (deleted user, or stored by a tool)
     */
    public record Info(String provider, String tail, String baseUrl, Long updatedBy, Instant updatedAt) {
        /** {@code "…"} plus the tail. */
        public String masked() {
            return "…" + tail;
        }
    }

    /** Whose credential a run uses (wire ids {@code own}, {@code service}, {@code none}). */
    public enum Source {
        /** the run's account's own stored key */
        OWN("own"),
        /** the service-wide key an administrator stored */
        SERVICE("service"),
        /** nothing stored: the CLI uses its own login, if any */
        NONE("none");

        private final String wire;

        Source(String wire) {
            this.wire = wire;
        }

        public String wire() {
            return wire;
        }
    }

    /**
     * The credential a run of one account uses, and where it comes from.
     *
     * @param credentials the key and base URL, or {@link ProviderCredentials#none()}
     * @param source      {@link Source#OWN}, {@link Source#SERVICE} or {@link Source#NONE}
     */
    public record Resolved(ProviderCredentials credentials, Source source) {
        public Resolved {
            Objects.requireNonNull(credentials, "credentials");
            Objects.requireNonNull(source, "source");
        }
    }

    /**
     * The addresses a stored {@code baseUrl} may name, and that the model catalog may connect to (public ones, and
     * the endpoints an administrator allowed).
     */
    public void useOutboundPolicy(org.agentworkspace.core.network.OutboundPolicy policy) {
        this.outbound = Objects.requireNonNull(policy, "policy");
    }

    /** The policy set by {@link #useOutboundPolicy}. */
    public org.agentworkspace.core.network.OutboundPolicy outboundPolicy() {
        return outbound;
    }

    /** Called with the provider id after its credential changed (the model cache drops its entry). */
    void onChange(Consumer<String> listener) {
        listeners.add(listener);
    }

    /**
     * Stores (or replaces) the provider's <em>service-wide</em> credential, which runs of accounts without a key of
     * their own use. Who may call this is the caller's business (the HTTP route: administrators only).
     *
     * @param baseUrl {@code null} for the vendor's default endpoint
     * @param userId  who stores it (kept for the audit trail), or {@code null}
     * @throws WorkspaceException.Validation for an empty, too long or control-character key, a base URL that is not
     *         an http(s) URL or carries user info, or a base URL for a provider that takes none
     */
    public Info save(String provider, String apiKey, String baseUrl, Long userId) {
        String url = validate(provider, apiKey, baseUrl);
        String sealed = box.seal(apiKey, context(provider));
        String tail = SecretBox.tail(apiKey);
        long now = clock.millis();
        try {
            store.write(h -> {
                h.createUpdate("DELETE FROM provider_credentials WHERE provider = :p").bind("p", provider).execute();
                return h.createUpdate("INSERT INTO provider_credentials (provider, ciphertext, tail, base_url, "
                                + "updated_by, updated_at) VALUES (:p, :c, :t, :u, :by, :at)")
                        .bind("p", provider).bind("c", sealed).bind("t", tail).bind("u", url)
                        .bind("by", userId).bind("at", now).execute();
            });
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        listeners.forEach(l -> l.accept(provider));
        return new Info(provider, tail, url, userId, Instant.ofEpochMilli(now));
    }

    /**
     * Stores (or replaces) the account's <em>own</em> credential for the provider: the runs that account starts use
     * it before the service-wide one. No other account's runs ever see it.
     *
     * @throws WorkspaceException.Validation as {@link #save}
     */
    public Info saveOwn(long userId, String provider, String apiKey, String baseUrl) {
        String url = validate(provider, apiKey, baseUrl);
        String sealed = box.seal(apiKey, context(provider, userId));
        String tail = SecretBox.tail(apiKey);
        long now = clock.millis();
        try {
            store.write(h -> {
                h.createUpdate("DELETE FROM account_provider_credentials WHERE user_id = :u AND provider = :p")
                        .bind("u", userId).bind("p", provider).execute();
                return h.createUpdate("INSERT INTO account_provider_credentials (user_id, provider, ciphertext, tail, "
                                + "base_url, updated_at) VALUES (:by, :p, :c, :t, :u, :at)")
                        .bind("by", userId).bind("p", provider).bind("c", sealed).bind("t", tail).bind("u", url)
                        .bind("at", now).execute();
            });
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        listeners.forEach(l -> l.accept(provider));
        return new Info(provider, tail, url, userId, Instant.ofEpochMilli(now));
    }

    /** The checked base URL (null for none); throws for a bad key or URL. */
    private String validate(String provider, String apiKey, String baseUrl) {
        ProviderFacts facts = catalog.require(provider);
        if (apiKey == null || apiKey.isBlank()) {
            throw WorkspaceException.Validation.of("apiKey must not be empty");
        }
        if (apiKey.length() > MAX_KEY) {
            throw WorkspaceException.Validation.of("apiKey must be at most " + MAX_KEY + " characters");
        }
        String url = baseUrl == null || baseUrl.isBlank() ? null : baseUrl.strip();
        if (url != null && !facts.baseUrlAllowed()) {
            throw new WorkspaceException.Validation(ProviderErrorCodes.UNSUPPORTED_CAPABILITY,
                    facts.displayName() + " has no endpoint override; store the key without baseUrl");
        }
        // the same rules the launch applies (http(s), no quotes or spaces, no query), checked before storing
        new ProviderCredentials(apiKey, url);
        if (url != null && URI.create(url).getRawUserInfo() != null) {
            throw WorkspaceException.Validation.of("baseUrl must not carry user info; store the secret as apiKey");
        }
        if (url != null) {
            outbound.checkUrl(URI.create(url), "baseUrl");
        }
        return url;
    }

    /** What is stored service-wide for the provider, without the key. */
    public Optional<Info> find(String provider) {
        catalog.require(provider);
        try {
            return store.read(h -> h.createQuery("SELECT provider, tail, base_url, updated_by, updated_at "
                            + "FROM provider_credentials WHERE provider = :p").bind("p", provider)
                    .map((rs, ctx) -> new Info(rs.getString("provider"), rs.getString("tail"),
                            rs.getString("base_url"), nullableLong(rs, "updated_by"),
                            Instant.ofEpochMilli(rs.getLong("updated_at"))))
                    .findOne());
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
    }

    /** Every loaded provider, in load order, with its service-wide credential (empty when none). */
    public Map<String, Optional<Info>> inventory() {
        Map<String, Info> rows = new LinkedHashMap<>();
        try {
            store.read(h -> h.createQuery("SELECT provider, tail, base_url, updated_by, updated_at "
                            + "FROM provider_credentials")
                    .map((rs, ctx) -> new Info(rs.getString("provider"), rs.getString("tail"),
                            rs.getString("base_url"), nullableLong(rs, "updated_by"),
                            Instant.ofEpochMilli(rs.getLong("updated_at"))))
                    .list()).forEach(i -> rows.put(i.provider(), i));
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        Map<String, Optional<Info>> out = new LinkedHashMap<>();
        for (ProviderFacts f : catalog.all()) {
            out.put(f.id(), Optional.ofNullable(rows.get(f.id())));
        }
        return out;
    }

    /** Removes the provider's service-wide credential; {@code true} when one was stored. */
    public boolean delete(String provider) {
        catalog.require(provider);
        boolean removed;
        try {
            removed = store.write(h -> h.createUpdate("DELETE FROM provider_credentials WHERE provider = :p")
                    .bind("p", provider).execute()) > 0;
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        if (removed) {
            listeners.forEach(l -> l.accept(provider));
        }
        return removed;
    }

    /** The account's own credential for the provider, without the key. */
    public Optional<Info> findOwn(long userId, String provider) {
        catalog.require(provider);
        try {
            return store.read(h -> h.createQuery("SELECT provider, tail, base_url, user_id, updated_at "
                            + "FROM account_provider_credentials WHERE user_id = :u AND provider = :p")
                    .bind("u", userId).bind("p", provider)
                    .map((rs, ctx) -> new Info(rs.getString("provider"), rs.getString("tail"),
                            rs.getString("base_url"), rs.getLong("user_id"),
                            Instant.ofEpochMilli(rs.getLong("updated_at"))))
                    .findOne());
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
    }

    /** Every loaded provider, in load order, with the account's own credential (empty when none). */
    public Map<String, Optional<Info>> inventoryOwn(long userId) {
        Map<String, Info> rows = new LinkedHashMap<>();
        try {
            store.read(h -> h.createQuery("SELECT provider, tail, base_url, user_id, updated_at "
                            + "FROM account_provider_credentials WHERE user_id = :u").bind("u", userId)
                    .map((rs, ctx) -> new Info(rs.getString("provider"), rs.getString("tail"),
                            rs.getString("base_url"), rs.getLong("user_id"),
                            Instant.ofEpochMilli(rs.getLong("updated_at"))))
                    .list()).forEach(i -> rows.put(i.provider(), i));
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        Map<String, Optional<Info>> out = new LinkedHashMap<>();
        for (ProviderFacts f : catalog.all()) {
            out.put(f.id(), Optional.ofNullable(rows.get(f.id())));
        }
        return out;
    }

    /** Removes the account's own credential for the provider; {@code true} when one was stored. */
    public boolean deleteOwn(long userId, String provider) {
        catalog.require(provider);
        boolean removed;
        try {
            removed = store.write(h -> h.createUpdate("DELETE FROM account_provider_credentials "
                    + "WHERE user_id = :u AND provider = :p").bind("u", userId).bind("p", provider).execute()) > 0;
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        if (removed) {
            listeners.forEach(l -> l.accept(provider));
        }
        return removed;
    }

    /**
     * Which credential a run of {@code provider} started now by account {@code userId} uses: the account's own, else
     * the service-wide one, else none (the CLI's own login). {@code userId} null (a run no account started) skips
     * the first step. Only ever call this for the provider being launched.
     *
     * @throws WorkspaceException.Conflict {@code CONFLICT} when the stored key cannot be opened (the data directory's
     *         secret key changed): store it again
     */
    @Override
    public Resolved resolve(String provider, Long userId) {
        catalog.require(provider);
        if (userId != null) {
            Optional<Row> own = row("SELECT ciphertext, base_url FROM account_provider_credentials "
                    + "WHERE user_id = :u AND provider = :p", provider, userId);
            if (own.isPresent()) {
                return new Resolved(open(own.get(), provider, context(provider, userId), "your"), Source.OWN);
            }
        }
        ProviderCredentials service = credentialsFor(provider);
        return service.hasApiKey() ? new Resolved(service, Source.SERVICE)
                : new Resolved(ProviderCredentials.none(), Source.NONE);
    }

    /** Which source {@link #resolve} would use, without opening any key. */
    public Source source(String provider, Long userId) {
        if (userId != null && findOwn(userId, provider).isPresent()) {
            return Source.OWN;
        }
        return find(provider).isPresent() ? Source.SERVICE : Source.NONE;
    }

    private record Row(String ciphertext, String baseUrl) {
    }

    private Optional<Row> row(String sql, String provider, Long userId) {
        try {
            return store.read(h -> {
                var q = h.createQuery(sql).bind("p", provider);
                if (userId != null) {
                    q.bind("u", userId);
                }
                return q.map((rs, ctx) -> new Row(rs.getString("ciphertext"), rs.getString("base_url"))).findOne();
            });
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
    }

    private ProviderCredentials open(Row row, String provider, String context, String whose) {
        try {
            return new ProviderCredentials(box.open(row.ciphertext(), context), row.baseUrl());
        } catch (SecretBox.Unreadable e) {
            throw new WorkspaceException.Conflict(ErrorCodes.CONFLICT, "the stored " + provider + " credential ("
                    + whose + ") cannot be read (the secret key changed); store it again");
        }
    }

    /**
     * The provider's service-wide key and endpoint, or {@link ProviderCredentials#none()}. Runs use
     * {@link #resolve}, which looks at the run's account first. Only ever call this for the provider being launched.
     *
     * @throws WorkspaceException.Conflict {@code CONFLICT} when the stored key cannot be opened (the data directory's
     *         secret key changed): store it again
     */
    @Override
    public ProviderCredentials credentialsFor(String provider) {
        catalog.require(provider);
        Optional<Row> row = row("SELECT ciphertext, base_url FROM provider_credentials WHERE provider = :p", provider,
                null);
        return row.isEmpty() ? ProviderCredentials.none() : open(row.get(), provider, context(provider), "service");
    }

    private static Long nullableLong(java.sql.ResultSet rs, String column) throws java.sql.SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    private static String context(String provider) {
        return "provider-credential:" + provider;
    }

    private static String context(String provider, long userId) {
        return "provider-credential:" + provider + ":user:" + userId;
    }
}
