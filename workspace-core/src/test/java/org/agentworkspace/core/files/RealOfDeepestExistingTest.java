package org.agentworkspace.core.files;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one copy of the confinement helper the project registry and the folder browser share. */
class RealOfDeepestExistingTest {
    @TempDir
    Path tmp;

    @Test
    void anExistingPathIsItsRealPath() throws IOException {
        Path real = Files.createDirectories(tmp.resolve("real/inner"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), tmp.resolve("real"));
        assertEquals(real.toRealPath(), PathGuard.realOfDeepestExisting(link.resolve("inner")));
    }

    @Test
    void missingNamesAreAppendedToTheRealPathOfTheDeepestExistingAncestor() throws IOException {
        Files.createDirectories(tmp.resolve("real"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), tmp.resolve("real"));
        assertEquals(tmp.toRealPath().resolve("real/not/yet"),
                PathGuard.realOfDeepestExisting(link.resolve("not/yet")));
    }

    @Test
    void aRelativePathOfMissingNamesComesBackUnchanged() {
        // no ancestor resolves: the walk runs out of names (the branch without a file name stops it, too)
        Path p = Path.of("no-such-dir-" + System.nanoTime(), "child");
        assertEquals(p, PathGuard.realOfDeepestExisting(p));
    }
}
