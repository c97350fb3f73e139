package org.agentworkspace.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.AgentProviderFactory;
import org.agentworkspace.api.provider.AgentProviders;
import org.agentworkspace.api.provider.ProviderId;
import org.agentworkspace.providers.claude.ClaudeProvider;
import org.junit.jupiter.api.Test;

/** The seven adapters are found through the SPI, once each. */
class RegistryTest {

    @Test
    void serviceLoaderFindsEveryBuiltInProviderOnce() {
        AgentProviders providers = AgentProviders.load();
        assertEquals(Arrays.stream(ProviderId.values()).map(ProviderId::wireId).toList(), providers.ids());
        for (AgentProvider p : providers.all()) {
            assertTrue(ProviderId.find(p.id()).isPresent(), p.id());
            assertTrue(!p.binaryNames().isEmpty() && !p.displayName().isBlank(), p.id());
            assertEquals(!p.id().equals("grok"), p.supportsResume(), p.id());
        }
    }

    @Test
    void loadingTheSameFactoriesTwiceFailsFast() {
        List<AgentProviderFactory> twice = List.of(new org.agentworkspace.providers.codex.CodexProviderFactory(),
                new org.agentworkspace.providers.claude.ClaudeProviderFactory(), ClaudeProvider::new);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> AgentProviders.load(twice));
        assertTrue(e.getMessage().contains("'claude'"), e.getMessage());
    }

    @Test
    void moduleDescriptorAndServiceFileDeclareTheSameFactories() throws IOException {
        Module module = ClaudeProvider.class.getModule();
        List<String> services;
        try (InputStream in = ClaudeProvider.class.getClassLoader().getResourceAsStream(
                "META-INF/services/" + AgentProviderFactory.class.getName())) {
            services = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
                    .filter(l -> !l.isEmpty()).toList();
        }
        assertEquals(7, services.size());
        if (module.isNamed()) {
            ModuleDescriptor.Provides provides = module.getDescriptor().provides().stream()
                    .filter(p -> p.service().equals(AgentProviderFactory.class.getName())).findFirst().orElseThrow();
            assertEquals(services, provides.providers());
            assertTrue(module.getDescriptor().exports().isEmpty(), "the adapters export nothing");
        }
    }
}
