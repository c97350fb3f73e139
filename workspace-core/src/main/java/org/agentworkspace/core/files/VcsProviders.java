package org.agentworkspace.core.files;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;

import org.agentworkspace.api.vcs.VcsFactory;

/** Finds {@link VcsFactory} implementations with {@link ServiceLoader}; a duplicate id fails fast. */
public final class VcsProviders {
    private final List<VcsFactory> factories;

    private VcsProviders(List<VcsFactory> factories) {
        this.factories = factories;
    }

    /** The factories visible to this module's layer (the git module provides {@code git}). */
    public static VcsProviders load() {
        List<VcsFactory> found = new ArrayList<>();
        for (VcsFactory factory : ServiceLoader.load(VcsFactory.class, VcsProviders.class.getClassLoader())) {
            found.add(factory);
        }
        return of(found);
    }

    /** Explicit registration, for tests and embedding. */
    public static VcsProviders of(List<VcsFactory> factories) {
        Set<String> ids = new HashSet<>();
        for (VcsFactory factory : factories) {
            if (!ids.add(factory.id())) {
                throw new IllegalStateException("two VCS implementations share the id " + factory.id());
            }
        }
        return new VcsProviders(List.copyOf(factories));
    }

    public List<VcsFactory> all() {
        return factories;
    }

    public Optional<VcsFactory> find(String id) {
        return factories.stream().filter(f -> f.id().equals(id)).findFirst();
    }
}
