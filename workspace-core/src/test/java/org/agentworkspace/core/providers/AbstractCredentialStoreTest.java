package org.agentworkspace.core.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.secrets.SecretBox;
import org.agentworkspace.core.store.Store;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The provider credential store on one database: sealed at rest, one per provider, masked inventory. */
abstract class AbstractCredentialStoreTest {
    protected String url;
    private Store store;
    private ProviderCredentialStore creds;
    private SecretBox box;

    protected abstract String createDatabase() throws Exception;

    protected abstract void dropDatabase();

    @BeforeEach
    void open() throws Exception {
        url = createDatabase();
        store = Store.open(url);
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        box = SecretBox.withKey(key);
        creds = ProviderCredentialStore.create(store, box, Clock.systemUTC());
    }

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
        dropDatabase();
    }

    @Test
    void savedKeysAreSealedAndOnlyTheirOwnProviderGetsThem() {
        creds.save("claude", "sk-ant-api03-claude-secret-AAAA", "https://proxy.example/anthropic", null);
        creds.save("codex", "sk-proj-codex-secret-BBBB", null, null);
        assertEquals(new ProviderCredentials("sk-ant-api03-claude-secret-AAAA", "https://proxy.example/anthropic"),
                creds.credentialsFor("claude"));
        assertEquals(ProviderCredentials.apiKey("sk-proj-codex-secret-BBBB"), creds.credentialsFor("codex"));
        assertEquals(ProviderCredentials.none(), creds.credentialsFor("qwen"));

        List<String> rows = store.read(h -> h.createQuery("SELECT provider || ' ' || ciphertext || ' ' || tail "
                + "FROM provider_credentials").mapTo(String.class).list());
        assertEquals(2, rows.size());
        for (String row : rows) {
            assertFalse(row.contains("secret"), "no key in clear at rest: " + row);
            assertTrue(row.contains(" v1:"), row);
        }

        Map<String, Optional<ProviderCredentialStore.Info>> inv = creds.inventory();
        assertEquals(List.of("claude", "cursor", "codex", "gemini", "qwen", "opencode", "grok"),
                List.copyOf(inv.keySet()));
        assertEquals("…AAAA", inv.get("claude").orElseThrow().masked());
        assertEquals("https://proxy.example/anthropic", inv.get("claude").orElseThrow().baseUrl());
        assertEquals("…BBBB", inv.get("codex").orElseThrow().masked());
        assertTrue(inv.get("gemini").isEmpty());
    }

    @Test
    void aRowCopiedToAnotherProviderDoesNotOpen() {
        creds.save("claude", "sk-ant-api03-claude-secret-AAAA", null, null);
        creds.save("opencode", "sk-opencode-secret-CCCC-000000", null, null);
        store.write(h -> h.createUpdate("UPDATE provider_credentials SET ciphertext = (SELECT ciphertext FROM "
                + "provider_credentials WHERE provider = 'claude') WHERE provider = 'opencode'").execute());
        WorkspaceException e = assertThrows(WorkspaceException.Conflict.class, () -> creds.credentialsFor("opencode"));
        assertFalse(e.getMessage().contains("claude-secret"));
        assertEquals("sk-ant-api03-claude-secret-AAAA", creds.credentialsFor("claude").apiKey());
    }

    @Test
    void replaceAndDelete() {
        creds.save("gemini", "first-key-0000000000000000", null, null);
        ProviderCredentialStore.Info second = creds.save("gemini", "second-key-000000000000ZZZZ", null, null);
        assertEquals("…ZZZZ", second.masked());
        assertEquals("second-key-000000000000ZZZZ", creds.credentialsFor("gemini").apiKey());
        assertNull(creds.find("gemini").orElseThrow().updatedBy());
        assertTrue(creds.delete("gemini"));
        assertFalse(creds.delete("gemini"));
        assertEquals(ProviderCredentials.none(), creds.credentialsFor("gemini"));
    }

    @Test
    void badInputIsRefusedWithoutEchoingTheKey() {
        for (String bad : List.of("", "   ", "has\nnewline-secret", "x".repeat(4097))) {
            WorkspaceException e = assertThrows(WorkspaceException.Validation.class,
                    () -> creds.save("claude", bad, null, null));
            assertFalse(e.getMessage().contains("-secret") || e.getMessage().contains("xxxx"), e.getMessage());
        }
        for (String url : List.of("ftp://x", "not a url", "https://user:pw@host.example", "https://h/x?q=1",
                "javascript:alert(1)", "http://h/`id`")) {
            assertThrows(WorkspaceException.Validation.class, () -> creds.save("claude", "key-0123456789", url, null),
                    url);
        }
        WorkspaceException cursor = assertThrows(WorkspaceException.Validation.class,
                () -> creds.save("cursor", "key-0123456789", "https://x.example", null));
        assertEquals("UNSUPPORTED_CAPABILITY", cursor.code());
        creds.save("cursor", "key-0123456789abcdef", null, null);
        assertEquals("PROVIDER_NOT_FOUND", assertThrows(WorkspaceException.NotFound.class,
                () -> creds.save("nope", "k", null, null)).code());
        assertTrue(creds.find("claude").isEmpty());
    }

    @Test
    void shortKeysShowNoTail() {
        assertEquals("…", creds.save("qwen", "short-key", null, null).masked());
    }

    private long user(String name) {
        return store.write(h -> h.createUpdate("INSERT INTO users (username, username_key, password_hash, is_admin, "
                        + "created_at) VALUES (:n, :n, 'x', false, 0)").bind("n", name)
                .executeAndReturnGeneratedKeys("id").mapTo(Long.class).one());
    }

    @Test
    void theRuleIsTheAccountsOwnKeyThenTheServiceKeyThenNone() {
        long alice = user("alice");
        long bob = user("bob");
        assertEquals(ProviderCredentialStore.Source.NONE, creds.resolve("claude", alice).source());
        assertEquals(ProviderCredentials.none(), creds.resolve("claude", alice).credentials());
        creds.save("claude", "sk-service-key-000000000SVC", "https://gateway.example", null);
        ProviderCredentialStore.Resolved svc = creds.resolve("claude", alice);
        assertEquals(ProviderCredentialStore.Source.SERVICE, svc.source());
        assertEquals(new ProviderCredentials("sk-service-key-000000000SVC", "https://gateway.example"),
                svc.credentials());
        creds.saveOwn(bob, "claude", "sk-bob-own-key-0000000000BOB", "https://bob.example");
        assertEquals(new ProviderCredentialStore.Resolved(new ProviderCredentials("sk-bob-own-key-0000000000BOB",
                "https://bob.example"), ProviderCredentialStore.Source.OWN), creds.resolve("claude", bob));
        assertEquals(svc, creds.resolve("claude", alice), "bob's key is never alice's");
        assertEquals(ProviderCredentialStore.Source.SERVICE, creds.resolve("claude", null).source(),
                "a run of no account gets the service key");
        assertEquals(ProviderCredentialStore.Source.NONE, creds.resolve("codex", bob).source(), "per provider");
        assertEquals("…0BOB", creds.findOwn(bob, "claude").orElseThrow().masked());
        assertTrue(creds.inventoryOwn(alice).get("claude").isEmpty());
        assertEquals(ProviderCredentialStore.Source.OWN, creds.source("claude", bob));

        assertTrue(creds.deleteOwn(bob, "claude"));
        assertFalse(creds.deleteOwn(bob, "claude"));
        assertEquals(svc.credentials(), creds.resolve("claude", bob).credentials(), "back to the service key");
        assertTrue(creds.find("claude").isPresent(), "deleting an own key leaves the service key");
    }

    @Test
    void anOwnRowCopiedToAnotherAccountDoesNotOpenAndGoesWithItsAccount() {
        long alice = user("alice");
        long bob = user("bob");
        creds.saveOwn(alice, "gemini", "sk-alice-secret-000000000ALIC", null);
        creds.saveOwn(bob, "gemini", "sk-bob-secret-0000000000000BOB", null);
        store.write(h -> h.createUpdate("UPDATE account_provider_credentials SET ciphertext = (SELECT ciphertext FROM "
                + "account_provider_credentials WHERE user_id = :a) WHERE user_id = :b").bind("a", alice)
                .bind("b", bob).execute());
        WorkspaceException e = assertThrows(WorkspaceException.Conflict.class, () -> creds.resolve("gemini", bob));
        assertFalse(e.getMessage().contains("alice-secret"));
        assertEquals("sk-alice-secret-000000000ALIC", creds.resolve("gemini", alice).credentials().apiKey());
        store.write(h -> h.createUpdate("DELETE FROM users WHERE id = :a").bind("a", alice).execute());
        assertTrue(creds.findOwn(alice, "gemini").isEmpty(), "an account's keys go with it");
    }
}
