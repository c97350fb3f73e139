package org.agentworkspace.api.provider;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.regex.Pattern;

/**
 * The set of available providers, keyed by id. Built either from {@link ServiceLoader} ({@link #load()}) or from an
 * explicit list ({@link #of}, for tests and embedding). Two providers with the same id stop the construction at once:
 * a silent "last one wins" would run the wrong binary.
 */
public final class AgentProviders {

    private static final Pattern ID = Pattern.compile("[a-z][a-z0-9-]{0,31}");
    private final Map<String, AgentProvider> byId;

    private AgentProviders(Map<String, AgentProvider> byId) {
        this.byId = Collections.unmodifiableMap(byId);
    }

    /** Every {@link AgentProviderFactory} visible to this module's service loader (module path and class path). */
    public static AgentProviders load() {
        List<AgentProvider> providers = new ArrayList<>();
        for (AgentProviderFactory f : ServiceLoader.load(AgentProviderFactory.class,
                AgentProviders.class.getClassLoader())) {
            providers.add(f.create());
        }
        return of(providers);
    }

    /** Every factory of the given loader, e.g. {@code ServiceLoader.load(layer, AgentProviderFactory.class)}. */
    public static AgentProviders load(Iterable<AgentProviderFactory> factories) {
        List<AgentProvider> providers = new ArrayList<>();
        factories.forEach(f -> providers.add(f.create()));
        return of(providers);
    }

    /**
     * These providers, in the given order.
     *
     * @throws IllegalStateException if two share an id, an id is malformed, or a provider's descriptor is missing or
     *     names another id or display name
     */
    public static AgentProviders of(Collection<? extends AgentProvider> providers) {
        Map<String, AgentProvider> byId = new LinkedHashMap<>();
        for (AgentProvider p : providers) {
            String id = p.id();
            if (id == null || !ID.matcher(id).matches()) {
                throw new IllegalStateException("provider " + p.getClass().getName() + " has a malformed id: " + id);
            }
            ProviderDescriptor d = p.descriptor();
            if (d == null || !id.equals(d.id()) || !d.displayName().equals(p.displayName())) {
                throw new IllegalStateException("provider " + id + " (" + p.getClass().getName()
                        + ") has no descriptor of its own id and display name");
            }
            if (!p.binaryNames().contains(d.install().binary())) {
                throw new IllegalStateException("provider " + id + " installs the binary " + d.install().binary()
                        + ", which is not one of its binary names " + p.binaryNames());
            }
            AgentProvider previous = byId.putIfAbsent(id, p);
            if (previous != null) {
                throw new IllegalStateException("two providers claim the id '" + id + "': "
                        + previous.getClass().getName() + " and " + p.getClass().getName());
            }
        }
        return new AgentProviders(byId);
    }

    /** The provider with this id. */
    public Optional<AgentProvider> find(String id) {
        return Optional.ofNullable(id == null ? null : byId.get(id));
    }

    /** All providers, in load order. */
    public List<AgentProvider> all() {
        return List.copyOf(byId.values());
    }

    /** All ids, in load order. */
    public List<String> ids() {
        return List.copyOf(byId.keySet());
    }
}
