package org.agentworkspace.core.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.ProviderDescriptor;
import org.agentworkspace.core.history.HistoryReaders;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine serves every part of every loaded provider's descriptor: each provider has a status, a model catalog, a
 * config-file list and (when it says so) MCP files, an install answer, and a history reader for the format it names.
 * Runs over whatever the SPI loads, so a provider the engine cannot serve fails here, not on a route.
 */
class DescriptorCoverageTest {
    private final ProvidersFixture f = new ProvidersFixture();

    @AfterEach
    void close() {
        f.close();
    }

    @Test
    void everyLoadedProviderIsServedByEveryPartOfProviderManagement() {
        ProviderCatalog catalog = f.pm().catalog();
        assertEquals(f.pm().adapters().ids(), catalog.ids(), "the catalog is the engine's adapters");
        HistoryReaders readers = HistoryReaders.create();
        for (ProviderFacts p : catalog.all()) {
            ProviderDescriptor d = p.descriptor();
            assertEquals(p.id(), f.pm().status(p.id()).id());
            assertFalse(f.pm().models().list(p.id()).models().isEmpty(), p.id());
            assertEquals(d.configFiles().size(), f.pm().configFiles().list(p.id()).size(), p.id());
            for (ProviderDescriptor.ConfigFile file : d.configFiles()) {
                assertTrue(f.pm().configFiles().path(p.id(), file.id()).startsWith(f.root), p.id() + "/" + file.id());
            }
            assertEquals(d.mcp().supported(), f.pm().mcp().capableProviders().contains(p.id()), p.id());
            if (d.mcp().supported()) {
                assertTrue(f.pm().mcp().list(p.id(), McpScope.USER, null).isEmpty(), p.id());
            }
            if (!d.install().installable()) {
                WorkspaceException e = org.junit.jupiter.api.Assertions.assertThrows(WorkspaceException.class,
                        () -> f.pm().installs().start(p.id(), null));
                assertEquals(ProviderErrorCodes.UNSUPPORTED_CAPABILITY, e.code());
            }
            if (d.history() != ProviderDescriptor.HistoryFormat.NONE) {
                assertTrue(readers.find(d.history().name().toLowerCase(Locale.ROOT)).isPresent(),
                        p.id() + " writes " + d.history() + " history, which the index reads");
            }
        }
    }

    @Test
    void anUnknownProviderIsNotFoundEverywhere() {
        for (Runnable r : new Runnable[] {() -> f.pm().status("acme"), () -> f.pm().models().list("acme"),
                () -> f.pm().configFiles().list("acme"), () -> f.pm().installs().start("acme", null),
                () -> f.pm().mcp().list("acme", null, null), () -> f.pm().credentials().findOwn(1, "acme")}) {
            WorkspaceException e = org.junit.jupiter.api.Assertions.assertThrows(WorkspaceException.class, r::run);
            assertEquals(ProviderErrorCodes.PROVIDER_NOT_FOUND, e.code());
        }
    }
}
