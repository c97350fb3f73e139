package org.agentworkspace.core.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Optional;

import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Installed, version, binary and authenticated, with the fake CLIs as real processes. */
class StatusTest {
    private final ProvidersFixture f = new ProvidersFixture();

    @AfterEach
    void close() {
        f.close();
    }

    private static void script(Path file, String body) throws Exception {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void nothingInstalled() {
        for (ProviderFacts p : ProviderCatalog.load().all()) {
            ProviderStatus s = f.pm().status(p.id());
            assertFalse(s.installed(), p.id());
            assertNull(s.binaryPath());
            assertNull(s.version());
            assertFalse(s.authenticated(), p.id());
        }
    }

    @Test
    void fakesOnPathReportTheVersionTheyPrint() throws Exception {
        FakeClis.install(f.bin);
        ProviderStatus claude = f.pm().status("claude");
        assertTrue(claude.installed());
        assertEquals("2.1.330", claude.version());
        assertEquals(f.bin.resolve("claude").toString(), claude.binaryPath());
        assertEquals("0.169.0", f.pm().status("codex").version());
        assertEquals("0.61.0", f.pm().status("gemini").version());
        assertEquals("0.24.4", f.pm().status("qwen").version());
        assertEquals("1.18.33", f.pm().status("opencode").version());
        // cursor's fake says "Logged in as …" to `cursor-agent status`
        ProviderStatus cursor = f.pm().status("cursor");
        assertTrue(cursor.installed());
        assertTrue(cursor.authenticated());
        assertEquals("cli-login", cursor.authMethod());
        assertEquals("cursor-agent status", cursor.authSource());
    }

    @Test
    void cliBinComesBeforePathAndTheConfiguredPathComesLast() throws Exception {
        FakeClis.install(f.bin);
        Path own = f.dataDir.resolve("cli-bin/node_modules/.bin/claude");
        script(own, "echo '9.9.9 (Claude Code)'");
        ProviderStatus s = f.pm().status("claude");
        assertEquals(own.toString(), s.binaryPath());
        assertEquals("9.9.9", s.version());
        assertEquals(Optional.of(own), f.pm().resolveBinary("claude"), "the runs resolve the same binary");

        // the version is probed again when the binary changes
        script(own, "echo '9.9.10 (Claude Code)'");
        Files.setLastModifiedTime(own, FileTime.from(Instant.now().plusSeconds(5)));
        assertEquals("9.9.10", f.pm().status("claude").version());

        try (ProvidersFixture g = new ProvidersFixture()) {
            Path configured = g.root.resolve("opt/grok");
            script(configured, "echo 1.0.1");
            g.env.put("AW_GROK_PATH", configured.toString());
            ProviderStatus grok = g.pm().status("grok");
            assertEquals(configured.toString(), grok.binaryPath());
            assertEquals("1.0.1", grok.version());
        }
    }

    @Test
    void aBinaryThatDoesNotRunIsNotInstalled() throws Exception {
        script(f.bin.resolve("codex"), "echo broken >&2; exit 3");
        ProviderStatus s = f.pm().status("codex");
        assertFalse(s.installed());
        assertEquals(f.bin.resolve("codex").toString(), s.binaryPath());
        assertNull(s.version());
    }

    @Test
    void theCliOwnLoginFilesCount() throws Exception {
        Path creds = f.home.resolve(".claude/.credentials.json");
        ProvidersFixture.write(creds, "{\"claudeAiOauth\": {\"accessToken\": \"a\", \"expiresAt\": 1}}");
        assertFalse(f.pm().status("claude").authenticated(), "an expired access token without refresh token");
        ProvidersFixture.write(creds, "{\"claudeAiOauth\": {\"accessToken\": \"a\", \"refreshToken\": \"r\", "
                + "\"expiresAt\": 1}}");
        ProviderStatus claude = f.pm().status("claude");
        assertTrue(claude.authenticated());
        assertEquals("cli-login", claude.authMethod());
        assertEquals("~/.claude/.credentials.json", claude.authSource());

        ProvidersFixture.write(f.home.resolve(".codex/auth.json"), "{\"OPENAI_API_KEY\": null, \"tokens\": "
                + "{\"access_token\": \"x\"}}");
        assertEquals("~/.codex/auth.json (tokens.access_token)", f.pm().status("codex").authSource());
        ProvidersFixture.write(f.dataDir.resolve("providers/gemini/.gemini/oauth_creds.json"),
                "{\"refresh_token\": \"r\"}");
        assertTrue(f.pm().status("gemini").authenticated());
        ProvidersFixture.write(f.home.resolve(".gemini/oauth_creds.json"), "{\"refresh_token\": \"r\"}");
        ProvidersFixture.write(f.home.resolve(".qwen/settings.json"),
                "{\"security\": {\"auth\": {\"selectedType\": \"openai\", \"apiKey\": \"k\"}}}");
        assertTrue(f.pm().status("qwen").authenticated());
        ProvidersFixture.write(f.home.resolve(".local/share/opencode/auth.json"), "{}");
        assertFalse(f.pm().status("opencode").authenticated());
        ProvidersFixture.write(f.home.resolve(".local/share/opencode/auth.json"),
                "{\"anthropic\": {\"type\": \"api\", \"key\": \"k\"}}");
        assertTrue(f.pm().status("opencode").authenticated());
        ProvidersFixture.write(f.home.resolve(".grok/user-settings.json"), "{\"apiKey\": \"\"}");
        assertFalse(f.pm().status("grok").authenticated());

        f.pm().credentials().save("grok", "xai-0123456789abcdef", null, null);
        ProviderStatus grok = f.pm().status("grok");
        assertTrue(grok.authenticated());
        assertEquals("stored-key", grok.authMethod());
    }

    @Test
    void theServersOwnKeyVariablesDoNotCount() {
        // they never reach a child (LaunchContext drops them), so they do not make a provider authenticated
        f.env.put("ANTHROPIC_API_KEY", "sk-ant-from-the-server-env");
        f.env.put("OPENAI_API_KEY", "sk-from-the-server-env");
        assertFalse(f.pm().status("claude").authenticated());
        assertFalse(f.pm().status("codex").authenticated());
        assertFalse(f.pm().launchContext().baseEnv().containsKey("ANTHROPIC_API_KEY"));
    }
}
