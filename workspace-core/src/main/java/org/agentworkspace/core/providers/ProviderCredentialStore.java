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
 * The provider credentials this service holds: at most one per provider (an API key and an optional endpoint), for
 * the whole service. The key is sealed with the data directory's {@link SecretBox} bound to
 * {@code provider-credential:<provider>}; only the sealed text, a mask tail and the base URL are stored (table
 * {@code provider_credentials}). Nothing here ever writes a key into the service's own environment: a key leaves the
 * store only through {@link #credentialsFor}, which the launch of <em>that</em> provider uses.
 */
public final class ProviderCredentialStore {
    private static final int MAX_KEY = 4096;

    private final Store store;
    private final SecretBox box;
    private final Clock clock;
    private final CopyOnWriteArrayList<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
    private volatile org.agentworkspace.core.network.OutboundPolicy outbound =
            org.agentworkspace.core.network.OutboundPolicy.publicOnly();

    private ProviderCredentialStore(Store store, SecretBox box, Clock clock) {
        this.store = store;
        this.box = box;
        this.clock = clock;
    }

    public static ProviderCredentialStore create(Store store, SecretBox box, Clock clock) {
        return new ProviderCredentialStore(Objects.requireNonNull(store), Objects.requireNonNull(box),
                Objects.requireNonNull(clock));
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
     * Stores (or replaces) the provider's credential.
     *
     * @param baseUrl {@code null} for the vendor's default endpoint
     * @param userId  who stores it (kept for the audit trail), or {@code null}
     * @throws WorkspaceException.Validation for an empty, too long or control-character key, a base URL that is not
     *         an http(s) URL or carries user info, or a base URL for a provider that takes none
     */
    public Info save(String provider, String apiKey, String baseUrl, Long userId) {
        ProviderFacts facts = ProviderFacts.of(provider);
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

    /** What is stored for the provider, without the key. */
    public Optional<Info> find(String provider) {
        ProviderFacts.of(provider);
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

    /** Every built-in provider, in wire order, with what is stored (empty when nothing). */
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
        for (ProviderFacts f : ProviderFacts.ALL) {
            out.put(f.id(), Optional.ofNullable(rows.get(f.id())));
        }
        return out;
    }

    /** Removes the provider's credential; {@code true} when one was stored. */
    public boolean delete(String provider) {
        ProviderFacts.of(provider);
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

    /**
     * The credential a launch of {@code provider} gets: the stored key and endpoint, or
     * {@link ProviderCredentials#none()} (the CLI's own login). Only ever call this for the provider being launched.
     *
     * @throws WorkspaceException.Conflict {@code CONFLICT} when the stored key cannot be opened (the data directory's
     *         secret key changed): store it again
     */
    public ProviderCredentials credentialsFor(String provider) {
        ProviderFacts.of(provider);
        record Row(String ciphertext, String baseUrl) {
        }
        Optional<Row> row;
        try {
            row = store.read(h -> h.createQuery("SELECT ciphertext, base_url FROM provider_credentials "
                            + "WHERE provider = :p").bind("p", provider)
                    .map((rs, ctx) -> new Row(rs.getString("ciphertext"), rs.getString("base_url")))
                    .findOne());
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        if (row.isEmpty()) {
            return ProviderCredentials.none();
        }
        try {
            return new ProviderCredentials(box.open(row.get().ciphertext(), context(provider)), row.get().baseUrl());
        } catch (SecretBox.Unreadable e) {
            throw new WorkspaceException.Conflict(ErrorCodes.CONFLICT, "the stored " + provider
                    + " credential cannot be read (the secret key changed); store it again");
        }
    }

    private static Long nullableLong(java.sql.ResultSet rs, String column) throws java.sql.SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    private static String context(String provider) {
        return "provider-credential:" + provider;
    }
}
