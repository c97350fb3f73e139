package org.agentworkspace.core.providers;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.AgentProviders;

/**
 * The providers one engine knows, each with its {@link ProviderFacts}: the adapters found through the SPI
 * ({@link AgentProviders}) and nothing else. Every part of provider management (status, credentials, models,
 * installs, config files, MCP) looks a provider up here; an id that is not here is 404 {@code PROVIDER_NOT_FOUND}.
 */
public final class ProviderCatalog {
    private final AgentProviders adapters;
    private final Map<String, ProviderFacts> byId;

    private ProviderCatalog(AgentProviders adapters) {
        this.adapters = Objects.requireNonNull(adapters, "adapters");
        Map<String, ProviderFacts> m = new LinkedHashMap<>();
        for (AgentProvider p : adapters.all()) {
            m.put(p.id(), new ProviderFacts(p.descriptor()));
        }
        this.byId = java.util.Collections.unmodifiableMap(m);
    }

    /** The catalog of these adapters, in their order. */
    public static ProviderCatalog of(AgentProviders adapters) {
        return new ProviderCatalog(adapters);
    }

    /** The catalog of the adapters {@code ServiceLoader} finds ({@link AgentProviders#load()}). */
    public static ProviderCatalog load() {
        return of(AgentProviders.load());
    }

    /** The adapters, to plan runs with. */
    public AgentProviders adapters() {
        return adapters;
    }

    /** Every provider, in load order (the wire order of lists and inventories). */
    public List<ProviderFacts> all() {
        return List.copyOf(byId.values());
    }

    /** Every id, in load order. */
    public List<String> ids() {
        return List.copyOf(byId.keySet());
    }

    /** The facts of a loaded provider. */
    public Optional<ProviderFacts> find(String id) {
        return Optional.ofNullable(id == null ? null : byId.get(id));
    }

    /** The facts of a loaded provider, or 404 {@code PROVIDER_NOT_FOUND}. */
    public ProviderFacts require(String id) {
        return find(id).orElseThrow(() -> new WorkspaceException.NotFound(ProviderErrorCodes.PROVIDER_NOT_FOUND,
                "no provider '" + ProviderFacts.printable(id) + "'; known: " + String.join(", ", byId.keySet())));
    }
}
