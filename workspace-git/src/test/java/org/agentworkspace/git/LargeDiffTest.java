package org.agentworkspace.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.agentworkspace.api.vcs.DiffRequest;
import org.agentworkspace.api.vcs.DiffResult;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web UI benchmark's change set (docs/benchmarks.md "The workspace panels"): 2,000 changed files in 20 folders
 * and one unchanged 1 MB file. The diff must be git's, byte for byte; the time of each call is printed (an
 * in-process measurement, not a budget: the machine's load decides it).
 */
class LargeDiffTest {
    @TempDir
    Path tmp;

    @Test
    void twoThousandChangedFilesDiffLikeGit() {
        Fixture fx = new Fixture(tmp);
        List<String> files = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            files.add("pkg" + (i / 100) + "/file" + i + ".txt");
            files.add("line one of " + i + "\nline two\nline three\n");
        }
        StringBuilder big = new StringBuilder();
        for (int i = 0; big.length() < 1_000_000; i++) {
            big.append("export function f").append(i).append("(a, b) { return a + b * ").append(i).append("; }\n");
        }
        files.add("big.js");
        files.add(big.toString());
        Path repo = fx.repo("bench", files.toArray(String[]::new));
        for (int i = 0; i < 2000; i++) {
            Fixture.write(repo, "pkg" + (i / 100) + "/file" + i + ".txt",
                    "line one of " + i + "\nline 2 changed\nline three\nadded " + i + "\n");
        }
        String expected = fx.git.out(repo, "diff", "--no-renames", "--no-color", "--no-ext-diff", "--abbrev=7");
        try (Vcs vcs = fx.open(repo, VcsOptions.defaults())) {
            for (int round = 0; round < 1; round++) {
                long t0 = System.nanoTime();
                DiffResult d = vcs.diff(DiffRequest.wholeTree(false));
                long ms = (System.nanoTime() - t0) / 1_000_000;
                System.out.printf("LargeDiffTest: 2,000 changed files, %d bytes, round %d: %d ms%n",
                        d.diff().length(), round, ms);
                assertFalse(d.truncated());
                assertEquals(expected, d.diff());
            }
        }
    }
}
