package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.agentworkspace.testkit.contract.ContractClient.Session;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * MCP server entries: add, list (environment masked), remove, the global add, validation, session only.
 *
 * <p>Safe against a real deployment: every entry has a unique {@code contract-…} name and is removed after each
 * test (also when it fails); the rest of the CLIs' files is preserved by the service.
 */
@Tag("contract")
@ExtendWith(ContractExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class McpContractTest {
    static final List<String> MCP_PROVIDERS = List.of("claude", "cursor", "codex", "gemini", "qwen", "opencode");

    private Session session;
    /** provider → names this class added. */
    private final List<String[]> added = new ArrayList<>();

    @BeforeAll
    void signIn(ContractClient client) {
        session = client.login();
        ContractResponse probe = client.get("/api/providers/claude/mcp/servers").as(session).sendUnchecked();
        Assumptions.assumeFalse(probe.status() == 404 && "ROUTE_NOT_FOUND".equals(probe.errorCode()),
                "the target does not serve the provider management family");
    }

    @AfterEach
    void removeWhatWasAdded(ContractClient client) {
        for (String[] a : added) {
            client.delete("/api/providers/" + a[0] + "/mcp/servers/" + a[1]).as(session).send()
                    .expectStatus(200, 404);
        }
        added.clear();
    }

    private List<String> names(ContractClient client, String provider) {
        JsonNode list = client.get("/api/providers/" + provider + "/mcp/servers").as(session).send()
                .expectStatus(200).json();
        List<String> out = new ArrayList<>();
        list.forEach(e -> out.add(e.path("name").asText()));
        return out;
    }

    @Test
    void addListAndRemoveForEveryProvider(ContractClient client) {
        String canary = "contract-CANARY-" + Names.hex(12);
        for (String p : MCP_PROVIDERS) {
            String name = Names.unique("mcp");
            added.add(new String[] {p, name});
            JsonNode saved = client.post("/api/providers/" + p + "/mcp/servers").as(session)
                    .json(ContractClient.body("name", name, "command", "/bin/true", "args", List.of("--contract"),
                            "env", Map.of("CONTRACT_TOKEN", canary)))
                    .send().expectStatus(200).json();
            assertEquals(name, saved.path("name").asText());
            assertEquals("user", saved.path("scope").asText());

            ContractResponse list = client.get("/api/providers/" + p + "/mcp/servers").as(session).send()
                    .expectStatus(200);
            assertFalse(list.body().contains(canary), p + ": environment values are masked");
            JsonNode entry = null;
            for (JsonNode e : list.json()) {
                if (e.path("name").asText().equals(name)) {
                    entry = e;
                }
            }
            assertTrue(entry != null, p + " lists the new entry");
            assertEquals("/bin/true", entry.path("command").asText());
            assertEquals(List.of("--contract"), List.of(entry.path("args").get(0).asText()));
            assertEquals("…" + canary.substring(canary.length() - 4), entry.path("env").path("CONTRACT_TOKEN").asText());

            client.delete("/api/providers/" + p + "/mcp/servers/" + name).as(session).send().expectStatus(200);
            assertFalse(names(client, p).contains(name), p + " no longer lists it");
            client.delete("/api/providers/" + p + "/mcp/servers/" + name).as(session).send()
                    .expectError(404, "MCP_SERVER_NOT_FOUND");
        }
    }

    @Test
    void theGlobalAddReachesEveryMcpProvider(ContractClient client) {
        String name = Names.unique("global");
        MCP_PROVIDERS.forEach(p -> added.add(new String[] {p, name}));
        JsonNode result = client.post("/api/providers/mcp/servers/global").as(session)
                .json(ContractClient.body("name", name, "command", "/bin/true")).send().expectStatus(200).json();
        List<String> providers = new ArrayList<>();
        for (JsonNode r : result.path("results")) {
            String p = r.path("provider").asText();
            providers.add(p);
            if (r.path("success").asBoolean()) {
                assertTrue(names(client, p).contains(name), p);
            }
        }
        assertEquals(MCP_PROVIDERS, providers);
    }

    @Test
    void refusedEntriesAreNotWritten(ContractClient client) {
        String name = Names.unique("refused");
        added.add(new String[] {"claude", name});
        for (Map<String, Object> body : List.of(
                ContractClient.body("name", name, "command", "/bin/true", "env", Map.of("LD_PRELOAD", "/tmp/x.so")),
                ContractClient.body("name", name, "command", "/bin/true", "env",
                        Map.of("NODE_OPTIONS", "--require /tmp/x.js")),
                ContractClient.body("name", name, "command", "./relative"),
                ContractClient.body("name", name, "command", "/bin/true", "scope", "project"),
                ContractClient.body("name", name, "command", "/bin/true", "scope", "local"),
                ContractClient.body("name", "contract/../x", "command", "/bin/true"),
                ContractClient.body("name", name))) {
            client.post("/api/providers/claude/mcp/servers").as(session).json(body).send()
                    .expectError(400, "VALIDATION_FAILED");
        }
        assertFalse(names(client, "claude").contains(name));
        client.post("/api/providers/grok/mcp/servers").as(session)
                .json(ContractClient.body("name", name, "command", "/bin/true")).send()
                .expectError(400, "UNSUPPORTED_CAPABILITY");
        client.get("/api/providers/no-such-cli/mcp/servers").as(session).send().expectError(404, "PROVIDER_NOT_FOUND");
    }

    @Test
    void apiKeysCannotTouchMcpEntries(ContractClient client) {
        JsonNode key = client.post("/api/settings/api-keys").as(session).json(ContractClient.body("name",
                Names.unique("mcp"), "scopes", List.of("providers:read", "projects:write"))).send().expectStatus(201)
                .json();
        try {
            Credential k = Credential.apiKeyHeader(key.path("api_key").asText());
            client.get("/api/providers/claude/mcp/servers").as(k).send().expectError(403, "SESSION_REQUIRED");
            client.post("/api/providers/claude/mcp/servers").as(k)
                    .json(ContractClient.body("name", Names.unique("k"), "command", "/bin/true")).send()
                    .expectError(403, "SESSION_REQUIRED");
            client.post("/api/providers/mcp/servers/global").as(k)
                    .json(ContractClient.body("name", Names.unique("k"), "command", "/bin/true")).send()
                    .expectError(403, "SESSION_REQUIRED");
        } finally {
            client.delete("/api/settings/api-keys/" + key.path("id").asLong()).as(session).send().expectStatus(200);
        }
    }
}
