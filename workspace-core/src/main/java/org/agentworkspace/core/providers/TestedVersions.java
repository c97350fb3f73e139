package org.agentworkspace.core.providers;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The version of each npm-installable CLI the test suite runs against (the real-CLI end-to-end tests through the
 * server, against the testkit's mock LLM), and the day that was last proven. An install through
 * {@code POST /api/providers/{provider}/install} without {@code version} installs exactly this version; a
 * {@code version} (a number or a dist-tag such as {@code latest}) picks another one.
 *
 * <p>Each version is written once, in the provider's descriptor ({@code ProviderDescriptor.Install}); this class
 * collects those of the providers {@code ServiceLoader} finds. The testkit (which depends on no project module)
 * pins the same versions in {@code RealCli.SPECS}; {@code TestedVersionsMirrorTest} fails when the two tables
 * differ. docs/provider-management.md §6 shows the table.
 */
public final class TestedVersions {
    /** The day the real-CLI tests last passed with every version below (ISO date). */
    public static final String TESTED_ON = "2026-11-27";

    /** The versions of the built-in providers, from their descriptors ({@code Install.testedVersion}). */
    private static final Map<String, String> VERSIONS = collect(ProviderCatalog.load());

    private static Map<String, String> collect(ProviderCatalog catalog) {
        Map<String, String> m = new LinkedHashMap<>();
        for (ProviderFacts f : catalog.all()) {
            if (f.installable()) {
                m.put(f.id(), f.descriptor().install().testedVersion());
            }
        }
        return Collections.unmodifiableMap(m);
    }

    private TestedVersions() {
    }

    /** The tested version of the provider's CLI, empty for a provider that is not installed from npm (cursor). */
    public static Optional<String> of(String provider) {
        return Optional.ofNullable(VERSIONS.get(provider));
    }

    /** Every provider id with its tested version. */
    public static Map<String, String> all() {
        return VERSIONS;
    }
}
