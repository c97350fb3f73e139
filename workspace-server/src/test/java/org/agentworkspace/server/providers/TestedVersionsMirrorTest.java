package org.agentworkspace.server.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import org.agentworkspace.core.providers.TestedVersions;
import org.agentworkspace.testkit.realcli.RealCli;
import org.junit.jupiter.api.Test;

/**
 * The versions an install through the API gets by default ({@link TestedVersions}, workspace-core) are the versions
 * the real-CLI tests run ({@link RealCli#SPECS}, workspace-testkit, which depends on no project module and so keeps
 * its own copy), and the documentation shows the same table and date.
 */
class TestedVersionsMirrorTest {

    @Test
    void theInstallDefaultsAreTheVersionsTheRealCliTestsRun() {
        Map<String, String> testkit = new TreeMap<>();
        RealCli.SPECS.forEach(s -> testkit.put(s.id(), s.version()));
        assertEquals(testkit, new TreeMap<>(TestedVersions.all()),
                "TestedVersions (install default) and RealCli.SPECS (what the tests run) must name the same versions");
    }

    @Test
    void theDocumentationShowsTheTableAndTheDate() throws Exception {
        Path doc = Path.of(System.getProperty("user.dir")).getParent().resolve("docs/provider-management.md");
        String text = Files.readString(doc);
        TestedVersions.all().forEach((id, v) -> assertTrue(text.contains("| " + id + " | " + v + " |"),
                "docs/provider-management.md §6 lists " + id + " " + v));
        assertTrue(text.contains("Tested on " + TestedVersions.TESTED_ON), "the date tested is written down");
    }
}
