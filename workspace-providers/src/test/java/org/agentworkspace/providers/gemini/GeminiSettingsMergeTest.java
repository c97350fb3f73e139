package org.agentworkspace.providers.gemini;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.LaunchPlan;
import org.agentworkspace.api.provider.RunSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * gemini's settings file is also its user settings (MCP servers, the user's choices): the plan keeps what is there
 * and sets only the keys the adapter owns.
 */
class GeminiSettingsMergeTest {
    @TempDir
    Path dir;

    private String planned(Path data) {
        LaunchContext ctx = new LaunchContext(data, Map.of("PATH", "/usr/bin", "HOME", dir.toString()), false);
        LaunchPlan plan = new GeminiProvider().plan(RunSpec.builder("hi", dir).build(), Path.of("/usr/bin/gemini"),
                ctx);
        return plan.files().get(data.resolve("providers/gemini/.gemini/settings.json"));
    }

    @Test
    void withoutAFileTheOwnedSettingsAreWritten() {
        assertEquals(GeminiProvider.SETTINGS, planned(dir.resolve("data")));
    }

    @Test
    void anExistingFileKeepsItsContentAndGetsTheOwnedKeys() throws Exception {
        Path data = dir.resolve("data");
        Path file = data.resolve("providers/gemini/.gemini/settings.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, """
                {
                  // written by the MCP editor and the user
                  "mcpServers": {"tools": {"command": "/usr/bin/env", "args": ["x"]}},
                  "ui": {"theme": "GitHub"},
                  "privacy": {"usageStatisticsEnabled": true},
                  "general": {"vimMode": true},
                }
                """);
        JsonNode n = new ObjectMapper().readTree(planned(data));
        assertEquals("/usr/bin/env", n.path("mcpServers").path("tools").path("command").asText());
        assertEquals("GitHub", n.path("ui").path("theme").asText());
        assertTrue(n.path("general").path("vimMode").asBoolean());
        assertEquals(false, n.path("privacy").path("usageStatisticsEnabled").asBoolean(true));
        assertEquals(false, n.path("general").path("enableAutoUpdate").asBoolean(true));
        assertEquals(false, n.path("telemetry").path("enabled").asBoolean(true));
        assertEquals("${AW_GEMINI_AUTH_TYPE:-oauth-personal}",
                n.path("security").path("auth").path("selectedType").asText());
    }

    @Test
    void anUnreadableFileIsReplacedByTheOwnedSettings() throws Exception {
        Path data = dir.resolve("data");
        Path file = data.resolve("providers/gemini/.gemini/settings.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "{ broken");
        assertEquals(GeminiProvider.SETTINGS, planned(data));
    }
}
