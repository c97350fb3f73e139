package org.agentworkspace.core.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import org.agentworkspace.testkit.mockllm.MockLlmServer;
import org.agentworkspace.testkit.mockllm.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Model catalogs: built-in without a key, fetched through the stored base URL with one, cached as documented. */
class ModelCatalogTest {
    private final ProvidersFixture f = new ProvidersFixture();
    private MockLlmServer mock;

    @BeforeEach
    void start() {
        mock = MockLlmServer.builder().models(List.of("mock-model-a", "mock-model-b")).build().start();
        // the mock model endpoint is on loopback: allowed as an administrator would (--outbound-allow)
        f.pm().credentials().useOutboundPolicy(org.agentworkspace.core.network.OutboundPolicy.create(
                java.util.Set.of("127.0.0.1:" + mock.port()), org.agentworkspace.core.network.OutboundPolicy.SYSTEM));
    }

    @AfterEach
    void close() {
        mock.close();
        f.close();
    }

    private List<String> ids(ModelCatalog.Result r) {
        return r.models().stream().map(ModelEntry::id).toList();
    }

    @Test
    void withoutAKeyTheBuiltInCatalogIsServedAndNothingIsAsked() {
        for (ProviderFacts p : ProviderCatalog.load().all()) {
            ModelCatalog.Result r = f.pm().models().list(p.id());
            assertFalse(r.models().isEmpty(), p.id());
            assertTrue(r.models().stream().allMatch(m -> m.id().startsWith(p.id() + "/") && m.source().equals("builtin")),
                    r.toString());
        }
        assertEquals(List.of(), mock.requests());
        assertTrue(ids(f.pm().models().list("claude")).contains("claude/sonnet"));
        assertTrue(ids(f.pm().models().list("opencode")).contains("opencode/anthropic/claude-sonnet-4-5"));
        assertEquals("anthropic/claude-sonnet-4-5", f.pm().models().list("opencode").models().get(1).model());
    }

    @Test
    void aStoredBaseUrlIsAskedWithTheStoredKeyPerFamily() {
        f.pm().credentials().save("claude", "sk-ant-claude-key-000000001", mock.baseUrl(), null);
        f.pm().credentials().save("codex", "sk-codex-key-00000000000002", mock.baseUrl() + "/v1", null);
        f.pm().credentials().save("gemini", "gemini-key-0000000000000003", mock.baseUrl(), null);
        f.pm().credentials().save("qwen", "sk-qwen-key-000000000000004", mock.baseUrl() + "/v1", null);
        f.pm().credentials().save("opencode", "sk-oc-key-00000000000000005", mock.baseUrl() + "/v1", null);
        f.pm().credentials().save("grok", "xai-grok-key-00000000000006", mock.baseUrl() + "/v1", null);

        assertEquals(List.of("claude/mock-model-a", "claude/mock-model-b"), ids(f.pm().models().list("claude")));
        RecordedRequest claude = mock.requests().getLast();
        assertEquals("/v1/models", claude.path());
        assertEquals("sk-ant-claude-key-000000001", claude.apiKey().orElseThrow());
        assertTrue(claude.header("anthropic-version").isPresent());

        for (String p : List.of("codex", "qwen", "opencode", "grok")) {
            ModelCatalog.Result r = f.pm().models().list(p);
            assertEquals(List.of(p + "/mock-model-a", p + "/mock-model-b"), ids(r), p);
            assertTrue(r.models().stream().allMatch(m -> m.source().equals("endpoint")));
            assertNull(r.error());
            RecordedRequest req = mock.requests().getLast();
            assertEquals("/v1/models", req.path(), p);
            assertTrue(req.header("authorization").orElseThrow().startsWith("Bearer "), p);
        }
        assertEquals("sk-oc-key-00000000000000005", mock.requests().get(3).apiKey().orElseThrow());

        ModelCatalog.Result gemini = f.pm().models().list("gemini");
        assertEquals(List.of("gemini/mock-model-a", "gemini/mock-model-b"), ids(gemini));
        assertEquals(1_048_576, gemini.models().getFirst().contextWindow());
        assertEquals("/v1beta/models", mock.requests().getLast().path());
        assertEquals("gemini-key-0000000000000003", mock.requests().getLast().apiKey().orElseThrow());
        // every request carried the key of the provider it was made for, never another one
        assertEquals(6, mock.requests().size());
        // cursor has no model endpoint: built-in only, even with a key
        f.pm().credentials().save("cursor", "cursor-key-00000000000000007", null, null);
        assertTrue(f.pm().models().list("cursor").models().stream().allMatch(m -> m.source().equals("builtin")));
        assertEquals(6, mock.requests().size());
    }

    @Test
    void theCacheLivesSixHoursAndIsDroppedByClearAndByANewCredential() {
        f.pm().credentials().save("codex", "sk-codex-key-00000000000002", mock.baseUrl() + "/v1", null);
        ModelCatalog.Result first = f.pm().models().list("codex");
        assertFalse(first.fromCache());
        assertNotNull(first.fetchedAt());
        assertEquals(1, mock.requests().size());

        ModelCatalog.Result second = f.pm().models().list("codex");
        assertTrue(second.fromCache());
        assertEquals(first.models(), second.models());
        assertEquals(1, mock.requests().size(), "served from the cache");

        f.clock.advance(Duration.ofHours(5).plusMinutes(59));
        f.pm().models().list("codex");
        assertEquals(1, mock.requests().size(), "still fresh before six hours");
        f.clock.advance(Duration.ofMinutes(2));
        assertFalse(f.pm().models().list("codex").fromCache());
        assertEquals(2, mock.requests().size(), "refetched after six hours");

        f.pm().models().clear("codex");
        f.pm().models().list("codex");
        assertEquals(3, mock.requests().size(), "refetched after clear");

        f.pm().credentials().save("codex", "sk-codex-key-other-0000000009", mock.baseUrl() + "/v1", null);
        f.pm().models().list("codex");
        assertEquals(4, mock.requests().size(), "refetched after the credential changed");
        assertEquals("sk-codex-key-other-0000000009", mock.requests().getLast().apiKey().orElseThrow());

        f.pm().credentials().delete("codex");
        assertTrue(f.pm().models().list("codex").models().stream().allMatch(m -> m.source().equals("builtin")));
        assertEquals(4, mock.requests().size());
    }

    @Test
    void aFailingEndpointGivesTheBuiltInListAndIsRetriedAfterFiveMinutes() {
        int deadPort = mock.port();
        mock.close();
        f.pm().credentials().save("claude", "sk-ant-claude-key-000000001", "http://127.0.0.1:" + deadPort, null);
        ModelCatalog.Result r = f.pm().models().list("claude");
        assertNotNull(r.error());
        assertTrue(r.models().stream().allMatch(m -> m.source().equals("builtin")));
        assertTrue(f.pm().models().list("claude").fromCache(), "the failure is remembered");

        mock = MockLlmServer.builder().port(deadPort).models(List.of("back")).build().start();
        f.clock.advance(Duration.ofMinutes(4));
        assertTrue(f.pm().models().list("claude").fromCache());
        assertEquals(0, mock.requests().size());
        f.clock.advance(Duration.ofMinutes(2));
        assertEquals(List.of("claude/back"), ids(f.pm().models().list("claude")));
    }
}
