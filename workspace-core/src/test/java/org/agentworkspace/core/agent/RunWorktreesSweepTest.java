package org.agentworkspace.core.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.WorkspaceEngine;
import org.agentworkspace.testkit.git.GitCli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worktree store and sweep of {@link RunWorktrees} against a real store and real git repositories. */
class RunWorktreesSweepTest {
    @TempDir
    Path tmp;

    @Test
    void prepareRecordsAWorktreeOutsideTheProjectAndTheSweepRemovesOrphansButNeverADirtyFolder() throws Exception {
        GitCli.assumeAvailable();
        GitCli git = new GitCli(tmp.resolve("git-home"));
        Path repo = git.repo(tmp.resolve("repo"), "a.txt", "a\n");
        try (WorkspaceEngine engine = WorkspaceEngine.open(EngineConfig.create(tmp.resolve("data")))) {
            RunWorktrees w = engine.agentRuns().worktrees().orElseThrow();
            RunWorktrees.Worktree t = w.prepare(repo, "p", null, false);
            assertEquals("ready", t.state());
            assertTrue(Files.isRegularFile(Path.of(t.path()).resolve("a.txt")));
            assertFalse(Path.of(t.path()).startsWith(repo));
            assertEquals("", git.out(repo, "status", "--porcelain"));

            Path plain = Files.createDirectories(tmp.resolve("plain"));
            WorkspaceException.Validation e = org.junit.jupiter.api.Assertions.assertThrows(
                    WorkspaceException.Validation.class, () -> w.prepare(plain, null, null, false));
            assertEquals(RunWorktrees.WORKTREE_NEEDS_GIT_REPOSITORY, e.code());

            Path clean = w.root().resolve("wt_orphanclean");
            Path dirty = w.root().resolve("wt_orphandirty");
            git.out(repo, "worktree", "add", "-q", "--detach", clean.toString());
            git.out(repo, "worktree", "add", "-q", "--detach", dirty.toString());
            Files.writeString(dirty.resolve("work-in-progress.txt"), "not committed\n");

            w.sweep(Duration.ofMillis(-1));
            assertFalse(Files.exists(clean), "a clean folder no row names is removed");
            assertTrue(Files.isRegularFile(dirty.resolve("work-in-progress.txt")), "a dirty one never");
            // a worktree whose run never came is finished: nothing to keep
            assertEquals("discarded", w.find(t.id()).orElseThrow().state());
            assertFalse(Files.exists(Path.of(t.path())));
        }
    }
}
