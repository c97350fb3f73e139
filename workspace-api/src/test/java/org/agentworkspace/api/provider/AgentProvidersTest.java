package org.agentworkspace.api.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentProvidersTest {

    record Dummy(String id) implements AgentProvider {
        @Override
        public String displayName() {
            return id;
        }

        @Override
        public List<String> binaryNames() {
            return List.of(id);
        }

        @Override
        public boolean supportsResume() {
            return false;
        }

        @Override
        public LaunchPlan plan(RunSpec spec, Path binary, LaunchContext ctx) {
            throw new UnsupportedOperationException();
        }

        @Override
        public StreamParser newParser() {
            throw new UnsupportedOperationException();
        }

        @Override
        public ProviderDescriptor descriptor() {
            return new ProviderDescriptor(id, id, ProviderDescriptor.Install.manual(id, "by hand"),
                    new ProviderDescriptor.Credentials("DUMMY_API_KEY", false), List.of(),
                    ProviderDescriptor.Mcp.none("none"),
                    ProviderDescriptor.Models.builtinOnly(new ProviderDescriptor.Model("m", "M", null)),
                    ProviderDescriptor.HistoryFormat.NONE, List.of());
        }
    }

    @Test
    void findsByIdInRegistrationOrder() {
        AgentProviders providers = AgentProviders.of(List.of(new Dummy("b"), new Dummy("a")));
        assertEquals(List.of("b", "a"), providers.ids());
        assertEquals("a", providers.find("a").orElseThrow().id());
        assertTrue(providers.find("c").isEmpty());
        assertTrue(providers.find(null).isEmpty());
    }

    @Test
    void aDuplicateIdFailsFast() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> AgentProviders.of(List.of(new Dummy("claude"), new Dummy("claude"))));
        assertTrue(e.getMessage().contains("claude"), e.getMessage());
    }

    @Test
    void aMalformedIdFailsFast() {
        assertThrows(IllegalStateException.class, () -> AgentProviders.of(List.of(new Dummy("Claude Code"))));
    }

    @Test
    void theApiModuleAloneHasNoProviders() {
        assertEquals(List.of(), AgentProviders.load().ids());
    }
}
