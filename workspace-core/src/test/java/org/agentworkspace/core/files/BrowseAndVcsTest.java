package org.agentworkspace.core.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.BrowseEntry;
import org.agentworkspace.api.files.BrowseResult;
import org.agentworkspace.api.files.EntryType;
import org.agentworkspace.api.files.FileErrorCodes;
import org.agentworkspace.api.files.RelativePath;
import org.agentworkspace.api.vcs.CommitIdentity;
import org.agentworkspace.api.vcs.CommitRequest;
import org.agentworkspace.api.vcs.DiffRequest;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsFactory;
import org.agentworkspace.api.vcs.VcsOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host folder browser, and git reached through ServiceLoader with the file rules in front of it. */
class BrowseAndVcsTest {
    @TempDir
    Path tmp;

    private static String code(Runnable action) {
        try {
            action.run();
        } catch (WorkspaceException e) {
            return e.code();
        }
        return "OK";
    }

    @Test
    void browseStaysInsideTheAllowedRoots() throws Exception {
        Path home = Files.createDirectories(tmp.resolve("home/user"));
        Files.createDirectories(home.resolve("projects/alpha"));
        Files.createDirectories(home.resolve("projects/beta"));
        Files.createDirectories(home.resolve(".ssh"));
        Files.writeString(home.resolve("notes.txt"), "a file, never listed");
        Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere/secret-dir"));
        Files.createSymbolicLink(home.resolve("out"), elsewhere.getParent());
        Files.createSymbolicLink(home.resolve("alias"), home.resolve("projects"));
        Path sibling = Files.createDirectories(tmp.resolve("home/user-evil"));
        BrowseFilesystem browser = BrowseFilesystem.forHome(home);

        BrowseResult top = browser.browse(null);
        assertEquals(home.toRealPath().toString(), top.path());
        assertNull(top.parent());
        assertEquals(List.of(new BrowseEntry("alias", EntryType.DIRECTORY),
                new BrowseEntry("projects", EntryType.DIRECTORY)), top.entries());
        assertEquals(top, browser.browse("~"));

        BrowseResult projects = browser.browse("~/projects");
        assertEquals(home.toRealPath().toString(), projects.parent());
        assertEquals(List.of("alpha", "beta"), projects.entries().stream().map(BrowseEntry::name).toList());
        assertEquals(projects, browser.browse(home.resolve("projects").toString()));
        assertEquals(projects.path(), browser.browse("~/alias").path());

        for (String refused : List.of("/", "/etc", "/proc/self", "~/out", "~/out/secret-dir", "~/.ssh",
                sibling.toString(), home + "/../user-evil", tmp.toString())) {
            assertEquals(FileErrorCodes.PATH_NOT_ALLOWED, code(() -> browser.browse(refused)), refused);
        }
        assertEquals(FileErrorCodes.FILE_NOT_FOUND, code(() -> browser.browse("~/missing")));
        assertEquals(FileErrorCodes.NOT_A_DIRECTORY, code(() -> browser.browse("~/notes.txt")));
        for (String invalid : List.of("relative/path", "~root", "~/a\0b", "a\nb")) {
            assertEquals(FileErrorCodes.INVALID_PATH, code(() -> browser.browse(invalid)), invalid);
        }
        BrowseFilesystem withHidden = BrowseFilesystem.create(List.of(home), home, 10, true);
        assertEquals("OK", code(() -> withHidden.browse("~/.ssh")));
        assertTrue(withHidden.browse("~").entries().contains(new BrowseEntry(".ssh", EntryType.DIRECTORY)));
        BrowseFilesystem tiny = BrowseFilesystem.create(List.of(home), home, 1, false);
        assertEquals(FileErrorCodes.TOO_MANY_ENTRIES, code(() -> tiny.browse("~/projects")));
    }

    private static void git(Path dir, String... args) throws Exception {
        List<String> argv = new java.util.ArrayList<>(List.of("git", "-c", "core.hooksPath=/dev/null", "-c",
                "core.fsmonitor=false", "-c", "user.name=T", "-c", "user.email=t@example.com", "-C", dir.toString()));
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true);
        pb.environment().put("GIT_CONFIG_NOSYSTEM", "1");
        pb.environment().put("HOME", dir.getParent().toString());
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), new String(out));
    }

    @Test
    void gitIsFoundByServiceLoaderAndGuardedByTheFileRules() throws Exception {
        VcsFactory factory = VcsProviders.load().find("git").orElseThrow();
        Path root = Files.createDirectories(tmp.resolve("proj"));
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("x.txt"), "outside\n");
        git(root, "init", "-q", "-b", "main");
        Files.writeString(root.resolve("a.txt"), "a\n");
        Files.createSymbolicLink(root.resolve("lnk"), outside);
        PathGuard guard = PathGuard.create(root);
        CommitIdentity me = new CommitIdentity("Me", "me@example.com");
        try (Vcs vcs = GuardedVcs.open(factory, guard, VcsOptions.defaults())) {
            assertEquals(List.of("a.txt", "lnk"), vcs.status().untracked());
            assertEquals(FileErrorCodes.PATH_OUTSIDE_PROJECT, code(() -> vcs.commit(CommitRequest.ofFiles("m",
                    List.of(RelativePath.parse("lnk/x.txt")), me))));
            assertEquals(FileErrorCodes.PATH_OUTSIDE_PROJECT, code(() -> vcs.diff(DiffRequest.of(
                    RelativePath.parse("lnk/x.txt"), false))));
            // The link itself is a file to git: committing it records the link, not the outside content.
            vcs.commit(CommitRequest.ofFiles("a and the link", List.of(RelativePath.parse("a.txt"),
                    RelativePath.parse("lnk")), me));
            assertEquals(List.of(), vcs.status().untracked());
        }
        assertThrows(WorkspaceException.Conflict.class, () -> GuardedVcs.open(factory,
                PathGuard.create(outside), VcsOptions.defaults()));
        assertFalse(VcsProviders.load().all().isEmpty());
        assertThrows(IllegalStateException.class, () -> VcsProviders.of(List.of(factory, factory)));
    }
}
