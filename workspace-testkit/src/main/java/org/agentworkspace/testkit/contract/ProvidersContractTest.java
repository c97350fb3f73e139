package org.agentworkspace.testkit.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.agentworkspace.testkit.contract.ContractClient.Session;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Provider management: status, the credential inventory (never a secret), storing a key and removing it again,
 * model catalogs and their cache, config files and their validation, install errors, OAuth paste.
 *
 * <p>Safe against a real deployment: it never starts an install (only requests that are refused); it stores a
 * credential only for a provider that has none and removes it at the end; config writes it makes are refused
 * by validation, except one round trip on an instruction file that it restores to its previous content.
 */
@Tag("contract")
@ExtendWith(ContractExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProvidersContractTest {
    static final List<String> PROVIDERS = List.of("claude", "cursor", "codex", "gemini", "qwen", "opencode", "grok");
    private static final String KEYS = "/api/settings/api-keys";

    private Session session;
    private String readKey;
    private long readKeyId;
    private final List<String> storedFor = new ArrayList<>();

    @BeforeAll
    void signIn(ContractClient client) {
        session = client.login();
        ContractResponse probe = client.get("/api/providers/credentials").as(session).sendUnchecked();
        Assumptions.assumeFalse(probe.status() == 404 && "ROUTE_NOT_FOUND".equals(probe.errorCode()),
                "the target does not serve the provider management family");
        JsonNode key = client.post(KEYS).as(session).json(ContractClient.body("name", Names.unique("providers"),
                "scopes", List.of("providers:read"))).send().expectStatus(201).json();
        readKey = key.path("api_key").asText();
        readKeyId = key.path("id").asLong();
    }

    @AfterAll
    void cleanUp(ContractClient client) {
        for (String p : storedFor) {
            client.delete("/api/providers/" + p + "/auth/api-key").as(session).send().expectStatus(200);
        }
        client.delete(KEYS + "/" + readKeyId).as(session).send().expectStatus(200, 404);
    }

    @Test
    void everyProviderHasAStatus(ContractClient client) {
        for (String p : PROVIDERS) {
            JsonNode s = client.get("/api/providers/" + p + "/auth/status").as(session).send().expectStatus(200)
                    .json();
            assertEquals(p, s.path("id").asText());
            if (s.path("installed").asBoolean()) {
                assertTrue(s.path("binaryPath").isTextual(), "an installed provider names its binary: " + s);
            }
            if (s.path("version").isTextual()) {
                assertTrue(s.path("version").asText().matches("\\d+\\.\\d+\\.\\d+.*"), s.toString());
            }
        }
        client.get("/api/providers/no-such-cli/auth/status").as(session).send().expectError(404, "PROVIDER_NOT_FOUND");
        client.get("/api/providers/claude/auth/status").as(Credential.apiKeyHeader(readKey)).send().expectStatus(200);
    }

    @Test
    void theInventoryListsEveryProviderMasked(ContractClient client) {
        JsonNode inv = client.get("/api/providers/credentials").as(Credential.apiKeyHeader(readKey)).send()
                .expectStatus(200).json();
        for (String p : PROVIDERS) {
            JsonNode e = inv.path(p);
            assertTrue(e.path("hasCredential").isBoolean(), p + ": " + inv);
            if (e.path("masked").isTextual()) {
                assertTrue(e.path("masked").asText().matches("….{0,4}"), "only a masked tail: " + e);
            }
        }
    }

    /** A provider without a stored credential, to store one for the test only. */
    private Optional<String> freeProvider(ContractClient client) {
        JsonNode inv = client.get("/api/providers/credentials").as(session).send().expectStatus(200).json();
        for (String p : List.of("grok", "qwen", "codex", "gemini", "opencode", "claude")) {
            if (!inv.path(p).path("hasCredential").asBoolean(true)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    @Test
    void aStoredKeyIsNeverReturnedAndCanBeRemoved(ContractClient client) {
        Optional<String> free = freeProvider(client);
        Assumptions.assumeTrue(free.isPresent(), "every provider already has a credential: not touching them");
        String p = free.get();
        String canary = "sk-contract-CANARY-" + Names.hex(12);
        client.post("/api/providers/" + p + "/auth/api-key").as(session)
                .json(ContractClient.body("apiKey", canary, "baseUrl", "ftp://not-http.example")).send()
                .expectError(400, "VALIDATION_FAILED");
        assertFalse(client.get("/api/providers/credentials").as(session).send().json().path(p)
                .path("hasCredential").asBoolean(), "a refused key is not stored");

        storedFor.add(p);
        JsonNode saved = client.post("/api/providers/" + p + "/auth/api-key").as(session)
                .json(ContractClient.body("apiKey", canary)).send().expectStatus(200).json();
        assertEquals("…" + canary.substring(canary.length() - 4), saved.path("masked").asText());
        List<String> bodies = new ArrayList<>();
        bodies.add(saved.toString());
        bodies.add(client.get("/api/providers/credentials").as(session).send().expectStatus(200).body());
        JsonNode status = client.get("/api/providers/" + p + "/auth/status").as(session).send().expectStatus(200)
                .json();
        assertTrue(status.path("authenticated").asBoolean(), status.toString());
        bodies.add(status.toString());
        bodies.add(client.get("/api/providers/" + p + "/config-files").as(session).send().expectStatus(200).body());
        for (String b : bodies) {
            assertFalse(b.contains(canary), "the key appears in an answer: " + ContractClient.redactBody(b));
        }
        // the models route with a key that the vendor does not accept still answers (the built-in catalog)
        client.get("/api/providers/" + p + "/models").as(session).send().expectStatus(200);

        client.delete("/api/providers/" + p + "/auth/api-key").as(session).send().expectStatus(200);
        storedFor.remove(p);
        assertFalse(client.get("/api/providers/credentials").as(session).send().json().path(p)
                .path("hasCredential").asBoolean());
        client.post("/api/providers/" + p + "/auth/api-key").as(Credential.apiKeyHeader(readKey))
                .json(ContractClient.body("apiKey", canary)).send().expectError(403, "SESSION_REQUIRED");
    }

    @Test
    void modelCatalogsAndTheirCache(ContractClient client) {
        for (String p : PROVIDERS) {
            JsonNode models = client.get("/api/providers/" + p + "/models").as(Credential.apiKeyHeader(readKey))
                    .send().expectStatus(200).json();
            assertTrue(models.isArray() && !models.isEmpty(), p + ": " + models);
            for (JsonNode m : models) {
                assertTrue(m.path("id").asText().startsWith(p + "/"), m.toString());
            }
        }
        client.delete("/api/providers/claude/models/cache").as(session).send().expectStatus(200);
        client.get("/api/providers/claude/models").as(session).send().expectStatus(200);
        client.delete("/api/providers/claude/models/cache").as(Credential.apiKeyHeader(readKey)).send()
                .expectError(403, "SESSION_REQUIRED");
    }

    @Test
    void installIsRefusedWhereItCannotRun(ContractClient client) {
        JsonNode e = client.post("/api/providers/cursor/install").as(session).send()
                .expectError(400, "UNSUPPORTED_CAPABILITY").json();
        assertTrue(e.path("error").path("message").asText().toLowerCase().contains("install"), e.toString());
        client.get("/api/providers/claude/install/" + Names.unique("job") + "/stream").as(session).send()
                .expectError(404, "INSTALL_JOB_NOT_FOUND");
        client.delete("/api/providers/claude/install/" + Names.unique("job")).as(session).send()
                .expectError(404, "INSTALL_JOB_NOT_FOUND");
        client.post("/api/providers/claude/install").as(Credential.apiKeyHeader(readKey)).send()
                .expectError(403, "SESSION_REQUIRED");
        client.post("/api/providers/nope/install").as(session).send().expectError(404, "PROVIDER_NOT_FOUND");
    }

    @Test
    void configFilesAreACatalogAndWritesAreValidated(ContractClient client) {
        for (String p : PROVIDERS) {
            JsonNode files = client.get("/api/providers/" + p + "/config-files").as(Credential.apiKeyHeader(readKey))
                    .send().expectStatus(200).json();
            assertTrue(files.isArray() && !files.isEmpty(), p);
            for (JsonNode f : files) {
                assertFalse(f.path("fileId").asText().contains("/"), "ids are opaque, not paths: " + f);
            }
        }
        client.get("/api/providers/claude/config-files/" + Names.unique("file")).as(session).send()
                .expectError(404, "CONFIG_FILE_NOT_FOUND");
        client.get("/api/providers/claude/config-files/settings").as(Credential.apiKeyHeader(readKey)).send()
                .expectError(403, "SESSION_REQUIRED");

        String before = client.get("/api/providers/claude/config-files/settings").as(session).send()
                .expectStatus(200).json().path("content").asText();
        client.put("/api/providers/claude/config-files/settings").as(session)
                .json(ContractClient.body("content", "{\"contract\": ")).send()
                .expectError(400, "CONFIG_VALIDATION_FAILED");
        client.put("/api/providers/codex/config-files/config").as(session)
                .json(ContractClient.body("content", "[unclosed\n")).send()
                .expectError(400, "CONFIG_VALIDATION_FAILED");
        assertEquals(before, client.get("/api/providers/claude/config-files/settings").as(session).send()
                .expectStatus(200).json().path("content").asText(), "a refused write changes nothing");
        client.put("/api/providers/qwen/config-files/system-settings").as(session)
                .json(ContractClient.body("content", "{}")).send().expectError(403, "CONFIG_FILE_READ_ONLY");
    }

    @Test
    void aWriteRoundTripOnAnInstructionFileIsRestored(ContractClient client) {
        JsonNode original = client.get("/api/providers/gemini/config-files/instructions").as(session).send()
                .expectStatus(200).json();
        String before = original.path("content").asText();
        String marker = "<!-- " + Names.unique("marker") + " -->\n";
        try {
            JsonNode written = client.put("/api/providers/gemini/config-files/instructions").as(session)
                    .json(ContractClient.body("content", before + marker)).send().expectStatus(200).json();
            assertEquals("instructions", written.path("fileId").asText());
            JsonNode read = client.get("/api/providers/gemini/config-files/instructions").as(session).send()
                    .expectStatus(200).json();
            assertEquals(before + marker, read.path("content").asText());
            assertTrue(read.path("exists").asBoolean());
        } finally {
            client.put("/api/providers/gemini/config-files/instructions").as(session)
                    .json(ContractClient.body("content", before)).send().expectStatus(200);
        }
        assertEquals(before, client.get("/api/providers/gemini/config-files/instructions").as(session).send()
                .json().path("content").asText());
    }

    @Test
    void anOAuthPasteWithoutATokenIsRefused(ContractClient client) {
        client.post("/api/providers/codex/oauth-paste").as(session)
                .json(ContractClient.body("url", "http://localhost:1/auth/callback?state=" + Names.hex(4))).send()
                .expectError(400, "INVALID_OAUTH_CALLBACK");
        JsonNode refused = client.post("/api/providers/codex/oauth-paste").as(session)
                .json(ContractClient.body("url", "http://localhost:1/cb?error=access_denied")).send()
                .expectError(400, "INVALID_OAUTH_CALLBACK").json();
        assertNotNull(refused.path("error").path("message").asText(null));
    }
}
