package org.agentworkspace.api.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.agentworkspace.api.provider.ProviderDescriptor.ConfigFile;
import org.agentworkspace.api.provider.ProviderDescriptor.Credentials;
import org.agentworkspace.api.provider.ProviderDescriptor.FileFormat;
import org.agentworkspace.api.provider.ProviderDescriptor.HistoryFormat;
import org.agentworkspace.api.provider.ProviderDescriptor.Install;
import org.agentworkspace.api.provider.ProviderDescriptor.Location;
import org.agentworkspace.api.provider.ProviderDescriptor.LoginCheck;
import org.agentworkspace.api.provider.ProviderDescriptor.Mcp;
import org.agentworkspace.api.provider.ProviderDescriptor.McpShape;
import org.agentworkspace.api.provider.ProviderDescriptor.Model;
import org.agentworkspace.api.provider.ProviderDescriptor.ModelApi;
import org.agentworkspace.api.provider.ProviderDescriptor.Models;
import org.junit.jupiter.api.Test;

/** A descriptor without one of its parts, or with a part that cannot be served, is refused when it is built. */
class ProviderDescriptorTest {

    private static final Object[] COMPLETE = {"acme", "Acme", Install.npm("acme", "acme-agent", "1.0.0"),
        new Credentials("ACME_API_KEY", true),
        List.of(ConfigFile.of("settings", "Settings", Location.home(".acme/settings.json"), FileFormat.JSON)),
        Mcp.of(McpShape.PLAIN, Location.home(".acme/mcp.json"), Location.project(".acme/mcp.json"), "mcpServers",
                FileFormat.JSON),
        Models.of(ModelApi.OPENAI, "https://api.acme.example/v1", new Model("a1", "A1", null)),
        HistoryFormat.NONE, List.of(LoginCheck.jsonText(Location.home(".acme/auth.json"), "token"))};

    @SuppressWarnings("unchecked")
    private static ProviderDescriptor build(Object[] parts) {
        return new ProviderDescriptor((String) parts[0], (String) parts[1], (Install) parts[2],
                (Credentials) parts[3], (List<ConfigFile>) parts[4], (Mcp) parts[5], (Models) parts[6],
                (HistoryFormat) parts[7], (List<LoginCheck>) parts[8]);
    }

    @Test
    void everyPartIsRequired() {
        assertEquals("acme", build(COMPLETE).id());
        List<Integer> refused = new ArrayList<>();
        for (int i = 0; i < COMPLETE.length; i++) {
            Object[] parts = COMPLETE.clone();
            parts[i] = null;
            try {
                build(parts);
            } catch (NullPointerException e) {
                refused.add(i);
            }
        }
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8), refused, "each missing part is refused");
    }

    @Test
    void partsThatCannotBeServedAreRefused() {
        assertThrows(NullPointerException.class, () -> Install.npm("acme", "acme-agent", null),
                "an npm package without its tested version");
        assertThrows(NullPointerException.class, () -> Install.manual("acme", null), "no npm and no hint");
        assertThrows(IllegalArgumentException.class, () -> Location.home("../.ssh/id_rsa"));
        assertThrows(IllegalArgumentException.class, () -> Location.home("/etc/passwd"));
        assertThrows(IllegalArgumentException.class, () -> ConfigFile.of("x", "X", Location.project("a.json"),
                FileFormat.JSON), "a config file inside a project");
        assertThrows(IllegalArgumentException.class, () -> Models.of(ModelApi.OPENAI, "https://x.example"),
                "an empty built-in catalog");
        assertThrows(NullPointerException.class, () -> Mcp.none(null), "MCP absent without a reason");
        assertThrows(IllegalArgumentException.class, () -> new Credentials("acme key", false));
        Object[] twice = COMPLETE.clone();
        twice[4] = List.of(ConfigFile.of("s", "S", Location.home("a"), FileFormat.JSON),
                ConfigFile.of("s", "S2", Location.home("b"), FileFormat.JSON));
        assertThrows(IllegalArgumentException.class, () -> build(twice), "two config files with one id");
    }

    @Test
    void theRegistryRefusesAProviderWhoseDescriptorIsNotItsOwn() {
        ProviderDescriptor acme = build(COMPLETE);
        assertEquals(List.of("acme"), AgentProviders.of(List.of(provider("acme", acme, List.of("acme")))).ids());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> AgentProviders.of(List.of(provider("other", acme, List.of("acme")))));
        assertTrue(e.getMessage().contains("descriptor"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> AgentProviders.of(List.of(provider("acme", acme,
                List.of("acme-cli")))), "the installed binary is not one the adapter looks for");
        assertThrows(IllegalStateException.class, () -> AgentProviders.of(List.of(provider("acme", null,
                List.of("acme")))), "no descriptor");
    }

    private static AgentProvider provider(String id, ProviderDescriptor d, List<String> binaries) {
        return new AgentProvider() {
            @Override
            public String id() {
                return id;
            }

            @Override
            public String displayName() {
                return "Acme";
            }

            @Override
            public List<String> binaryNames() {
                return binaries;
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
                return d;
            }
        };
    }
}
