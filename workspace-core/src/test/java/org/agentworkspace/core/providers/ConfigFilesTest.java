package org.agentworkspace.core.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;

import org.agentworkspace.api.WorkspaceException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConfigFilesTest {
    private final ProvidersFixture f = new ProvidersFixture();

    @AfterEach
    void close() {
        f.close();
    }

    @Test
    void everyProviderHasACatalogOfTheFilesItReads() {
        assertEquals(List.of("settings", "instructions"), ids("claude"));
        assertEquals(List.of("config", "instructions"), ids("codex"));
        assertEquals(List.of("settings", "instructions", "env"), ids("gemini"));
        assertEquals(List.of("settings", "instructions", "env", "system-settings"), ids("qwen"));
        assertEquals(List.of("config", "instructions"), ids("opencode"));
        assertEquals(List.of("cli-config"), ids("cursor"));
        assertEquals(List.of("user-settings"), ids("grok"));
        ConfigFileEntry claude = f.pm().configFiles().list("claude").getFirst();
        assertEquals("~/.claude/settings.json", claude.path());
        assertEquals("json", claude.format());
        assertFalse(claude.exists());
        assertNull(claude.size());
        assertEquals("~/.codex/config.toml", f.pm().configFiles().list("codex").getFirst().path());
        assertEquals("toml", f.pm().configFiles().list("codex").getFirst().format());
        assertTrue(f.pm().configFiles().list("gemini").getFirst().path()
                .endsWith("/providers/gemini/.gemini/settings.json"));
        assertEquals("~/.config/opencode/opencode.json", f.pm().configFiles().list("opencode").getFirst().path());
    }

    private List<String> ids(String provider) {
        return f.pm().configFiles().list(provider).stream().map(ConfigFileEntry::fileId).toList();
    }

    @Test
    void writeReadBackupAndMode() throws Exception {
        ConfigFiles c = f.pm().configFiles();
        ConfigFileContent missing = c.read("claude", "settings");
        assertFalse(missing.exists());
        assertEquals("", missing.content());

        ConfigFileEntry written = c.write("claude", "settings", "{\"model\": \"opus\"}\n");
        assertTrue(written.exists());
        assertEquals(18L, written.size());
        Path file = f.home.resolve(".claude/settings.json");
        assertEquals(Set.of(java.nio.file.attribute.PosixFilePermission.OWNER_READ,
                java.nio.file.attribute.PosixFilePermission.OWNER_WRITE), Files.getPosixFilePermissions(file));
        assertEquals("{\"model\": \"opus\"}\n", c.read("claude", "settings").content());

        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        c.write("claude", "settings", "{\"model\": \"sonnet\"}\n");
        assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)),
                "an existing file keeps its mode");
        Path backup = f.dataDir.resolve("providers/backups/claude/settings.prev");
        assertEquals("{\"model\": \"opus\"}\n", Files.readString(backup), "the previous version is kept");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(backup)));
        try (var s = Files.list(file.getParent())) {
            assertEquals(List.of("settings.json"), s.map(p -> p.getFileName().toString()).toList(),
                    "no temporary file is left");
        }
    }

    @Test
    void invalidContentIsRefusedWithTheParsersMessageAndTheFileIsUnchanged() throws Exception {
        ConfigFiles c = f.pm().configFiles();
        c.write("claude", "settings", "{}");
        WorkspaceException json = assertThrows(WorkspaceException.Validation.class,
                () -> c.write("claude", "settings", "{\"a\": 1,\n \"b\": }"));
        assertEquals("CONFIG_VALIDATION_FAILED", json.code());
        assertTrue(json.getMessage().contains("line 2"), json.getMessage());
        assertEquals("{}", c.read("claude", "settings").content());
        assertThrows(WorkspaceException.Validation.class, () -> c.write("claude", "settings", "[1, 2]"));
        assertThrows(WorkspaceException.Validation.class, () -> c.write("claude", "settings", "{} // comment"));
        // gemini, qwen and opencode read JSON with comments
        c.write("qwen", "settings", "{\n  // a comment\n  \"a\": 1,\n}\n");

        WorkspaceException toml = assertThrows(WorkspaceException.Validation.class,
                () -> c.write("codex", "config", "model = \"gpt\"\n[broken\n"));
        assertEquals("CONFIG_VALIDATION_FAILED", toml.code());
        assertTrue(toml.getMessage().startsWith("invalid TOML"), toml.getMessage());
        c.write("codex", "config", "model = \"gpt-5.4\"\n[profiles.x]\nmodel = \"o3\"\n");

        WorkspaceException env = assertThrows(WorkspaceException.Validation.class,
                () -> c.write("gemini", "env", "GEMINI_API_KEY=x\nthis is not a variable\n"));
        assertTrue(env.getMessage().contains("line 2"), env.getMessage());
        c.write("gemini", "env", "# comment\nexport A=1\nB = two\n\n");

        c.write("claude", "instructions", "# Anything goes in markdown {[\n");
        assertThrows(WorkspaceException.Validation.class, () -> c.write("claude", "instructions", "a\u0000b"));
    }

    @Test
    void onlyCatalogIdsAreReachable() {
        ConfigFiles c = f.pm().configFiles();
        for (String id : List.of("../.bashrc", "%2e%2e%2f.ssh", "/etc/passwd", "settings.json", ".claude/settings.json",
                "SETTINGS")) {
            WorkspaceException e = assertThrows(WorkspaceException.NotFound.class, () -> c.read("claude", id));
            assertEquals("CONFIG_FILE_NOT_FOUND", e.code());
            assertThrows(WorkspaceException.NotFound.class, () -> c.write("claude", id, "{}"));
        }
        assertEquals("PROVIDER_NOT_FOUND", assertThrows(WorkspaceException.NotFound.class,
                () -> c.list("..")).code());
    }

    @Test
    void readOnlyEntriesAndLinksAndSizes() throws Exception {
        ConfigFiles c = f.pm().configFiles();
        assertEquals("CONFIG_FILE_READ_ONLY", assertThrows(WorkspaceException.Forbidden.class,
                () -> c.write("qwen", "system-settings", "{}")).code());

        Path secret = f.root.resolve("id_ed25519");
        Files.writeString(secret, "PRIVATE KEY");
        Files.createDirectories(f.home.resolve(".claude"));
        Files.createSymbolicLink(f.home.resolve(".claude/CLAUDE.md"), secret);
        assertThrows(WorkspaceException.Conflict.class, () -> c.read("claude", "instructions"));
        assertThrows(WorkspaceException.Conflict.class, () -> c.write("claude", "instructions", "pwned"));
        assertEquals("PRIVATE KEY", Files.readString(secret));

        String big = "x".repeat(ProviderFiles.MAX_BYTES + 1);
        assertEquals("FILE_TOO_LARGE", assertThrows(WorkspaceException.PayloadTooLarge.class,
                () -> c.write("codex", "instructions", big)).code());
        Files.createDirectories(f.home.resolve(".codex"));
        Files.writeString(f.home.resolve(".codex/AGENTS.md"), big);
        assertThrows(WorkspaceException.PayloadTooLarge.class, () -> c.read("codex", "instructions"));
    }
}
