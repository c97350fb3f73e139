package org.agentworkspace.core.providers;

import java.util.Objects;

import org.agentworkspace.api.provider.ProviderDescriptor;

/**
 * What provider management knows about one loaded provider, independent of this machine: its
 * {@link ProviderDescriptor}, with the shorthands the management code uses. Built only by {@link ProviderCatalog}.
 *
 * @param descriptor the provider's descriptor (from its adapter, through the SPI)
 */
public record ProviderFacts(ProviderDescriptor descriptor) {

    public ProviderFacts {
        Objects.requireNonNull(descriptor, "descriptor");
    }

    /** The wire id. */
    public String id() {
        return descriptor.id();
    }

    /** A human-readable name. */
    public String displayName() {
        return descriptor.displayName();
    }

    /** The file name of the CLI's binary an install puts into {@code node_modules/.bin}. */
    public String binary() {
        return descriptor.install().binary();
    }

    /** The npm package that installs it, or {@code null} when it is not on npm. */
    public String npmPackage() {
        return descriptor.install().npmPackage();
    }

    /** How to install it by hand when {@link #npmPackage()} is null. */
    public String installHint() {
        return descriptor.install().manualHint();
    }

    /** Whether the adapter accepts an endpoint override. */
    public boolean baseUrlAllowed() {
        return descriptor.credentials().baseUrlAllowed();
    }

    /** Whether the CLI reads MCP server entries this service writes (user and local scope). */
    public boolean mcp() {
        return descriptor.mcp().supported();
    }

    /** Whether an npm install job can install it. */
    public boolean installable() {
        return descriptor.install().installable();
    }

    static String printable(String s) {
        if (s == null) {
            return "";
        }
        String cut = s.length() > 64 ? s.substring(0, 64) + "…" : s;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }
}
