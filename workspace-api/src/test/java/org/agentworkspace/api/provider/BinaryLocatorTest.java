package org.agentworkspace.api.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BinaryLocatorTest {

    @TempDir
    Path tmp;

    private Path exe(Path p) throws IOException {
        Files.createDirectories(p.getParent());
        Files.writeString(p, "#!/bin/sh\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    @Test
    void ourInstallDirectoryComesFirstThenPathThenTheConfiguredPath() throws IOException {
        Path data = tmp.resolve("data");
        Path onPath = exe(tmp.resolve("usr/bin/claude"));
        Path configured = exe(tmp.resolve("opt/claude/claude"));
        BinaryLocator locator = BinaryLocator.create(data, tmp.resolve("usr/bin") + ":" + tmp.resolve("empty"),
                configured);
        assertEquals(Optional.of(onPath), locator.find(List.of("claude")), "PATH before the configured path");

        Path ours = exe(data.resolve("cli-bin/node_modules/.bin/claude"));
        assertEquals(Optional.of(ours), locator.find(List.of("claude")), "cli-bin before PATH");

        BinaryLocator onlyConfigured = BinaryLocator.create(tmp.resolve("nodata"), "", configured);
        assertEquals(Optional.of(configured), onlyConfigured.find(List.of("claude")));
        BinaryLocator configuredDir = BinaryLocator.create(tmp.resolve("nodata"), "", configured.getParent());
        assertEquals(Optional.of(configured), configuredDir.find(List.of("claude")));
    }

    @Test
    void skipsWhatIsNotAnExecutableFileAndRelativePathEntries() throws IOException {
        Path notExec = tmp.resolve("a/codex");
        Files.createDirectories(notExec.getParent());
        Files.writeString(notExec, "x");
        Files.createDirectories(tmp.resolve("b/codex"));
        Path good = exe(tmp.resolve("c/codex"));
        BinaryLocator locator = BinaryLocator.create(tmp.resolve("data"), "relative/dir:" + tmp.resolve("a") + ":"
                + tmp.resolve("b") + ":" + tmp.resolve("c"), null);
        assertEquals(Optional.of(good), locator.find(List.of("codex")));
        assertTrue(locator.candidates(List.of("codex")).stream().allMatch(Path::isAbsolute));
        assertTrue(BinaryLocator.create(tmp.resolve("data"), null, null).find(List.of("codex")).isEmpty());
        assertThrows(IllegalArgumentException.class, () -> locator.find(List.of("../codex")));
    }

    @Test
    void triesTheBinaryNamesInOrder() throws IOException {
        Path second = exe(tmp.resolve("bin/agent-b"));
        BinaryLocator locator = BinaryLocator.create(tmp.resolve("data"), tmp.resolve("bin").toString(), null);
        assertEquals(Optional.of(second), locator.find(List.of("agent-a", "agent-b")));
    }
}
