package org.agentworkspace.git;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.agentworkspace.api.vcs.DiffRequest;
import org.agentworkspace.api.vcs.DiffResult;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsOptions;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.FileTreeIterator;
import org.eclipse.jgit.treewalk.WorkingTreeIterator;
import org.eclipse.jgit.util.FS_POSIX;
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
            for (int round = 0; round < 3; round++) {
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

    /**
     * The working-tree diff lists each folder once per call, however many changed files it holds (JGit's own
     * content source walks from the root again for every file: 1 + 30 listings of each folder here).
     */
    @Test
    void aWorkingTreeDiffListsEachFolderOnce() throws Exception {
        Fixture fx = new Fixture(tmp);
        List<String> files = new ArrayList<>();
        for (int i = 0; i < 90; i++) {
            files.add("src/pkg" + (i / 30) + "/file" + i + ".txt");
            files.add("line one of " + i + "\nline two\n");
        }
        Path repo = fx.repo("listed", files.toArray(String[]::new));
        for (int i = 0; i < 90; i++) {
            Fixture.write(repo, "src/pkg" + (i / 30) + "/file" + i + ".txt", "line one of " + i + "\nchanged\n");
        }
        String expected = fx.git.out(repo, "diff", "--no-renames", "--no-color", "--no-ext-diff", "--abbrev=7");
        CountingFS fs = new CountingFS();
        Repository repository = new FileRepositoryBuilder().setFS(fs).setWorkTree(repo.toFile())
                .setGitDir(repo.resolve(".git").toFile()).setMustExist(true).build();
        try (Vcs vcs = new JGitVcs(repository, VcsOptions.defaults())) {
            assertEquals(expected, vcs.diff(DiffRequest.wholeTree(false)).diff());
        }
        assertEquals(5, fs.listings.size(), () -> "folders listed: " + fs.listings);
        fs.listings.forEach((folder, count) -> assertEquals(1, count, () -> "listings of " + folder));
    }

    /**
     * The listings kept are bounded (a huge tree's are not all held): with room for about one folder, a folder let
     * go is listed once more when its files are read, never once per file.
     */
    @Test
    void keptListingsAreBoundedAndAFolderLetGoIsListedOnceMore() throws Exception {
        Fixture fx = new Fixture(tmp);
        List<String> files = new ArrayList<>();
        for (int i = 0; i < 90; i++) {
            files.add("src/pkg" + (i / 30) + "/file" + i + ".txt");
            files.add("line one of " + i + "\n");
        }
        Path repo = fx.repo("bounded", files.toArray(String[]::new));
        for (int i = 0; i < 90; i++) {
            Fixture.write(repo, "src/pkg" + (i / 30) + "/file" + i + ".txt", "changed " + i + "\n");
        }
        String expected = fx.git.out(repo, "diff", "--no-renames", "--no-color", "--no-ext-diff", "--abbrev=7");
        CountingFS fs = new CountingFS();
        Repository repository = new FileRepositoryBuilder().setFS(fs).setWorkTree(repo.toFile())
                .setGitDir(repo.resolve(".git").toFile()).setMustExist(true).build();
        try (repository; org.eclipse.jgit.diff.DiffFormatter f = new org.eclipse.jgit.diff.DiffFormatter(
                java.io.OutputStream.nullOutputStream())) {
            f.setRepository(repository);
            // src (3 entries) + one package (30) fit in 40; a second package does not
            var entries = f.scan(new org.eclipse.jgit.dircache.DirCacheIterator(repository.readDirCache()),
                    ListOnceFS.workingTree(repository, 40));
            assertEquals(90, entries.size());
            f.format(entries);
        }
        // (the root's listing belongs to the root iterator, which JGit resets rather than lists again)
        assertEquals(2, fs.listings.get(repo.resolve("src").toString()), () -> "src let go and listed again: " + fs.listings);
        fs.listings.forEach((folder, count) -> assertTrue(count <= 2, () -> folder + " listed " + count + " times"));
        try (Vcs vcs = fx.open(repo)) {
            assertEquals(expected, vcs.diff(DiffRequest.wholeTree(false)).diff());
        }
    }

    /**
     * A file that gets shorter while the diff runs (after its folder was listed, before it is read: an agent
     * writing) does not fail the call: the diff is made again and shows the file as it is then.
     */
    @Test
    void aFileShortenedDuringTheDiffIsDiffedAgain() throws Exception {
        Fixture fx = new Fixture(tmp);
        Path repo = fx.repo("shrinking", "src/a.txt", "one\ntwo\n", "src/b.txt", "b\n");
        Fixture.write(repo, "src/a.txt", "one\ntwo\nthree, a long line added by the agent\n");
        Fixture.write(repo, "src/b.txt", "b changed\n");
        CountingFS fs = new CountingFS();
        Path src = repo.resolve("src");
        fs.afterFirstListing = folder -> {
            if (folder.equals(src.toFile())) {
                Fixture.write(repo, "src/a.txt", "one\nTWO\n"); // shorter than the listing says
            }
        };
        Repository repository = new FileRepositoryBuilder().setFS(fs).setWorkTree(repo.toFile())
                .setGitDir(repo.resolve(".git").toFile()).setMustExist(true).build();
        try (Vcs vcs = new JGitVcs(repository, VcsOptions.defaults())) {
            String diff = vcs.diff(DiffRequest.wholeTree(false)).diff();
            assertEquals(fx.git.out(repo, "diff", "--no-renames", "--no-color", "--no-ext-diff", "--abbrev=7"), diff);
        }
        assertEquals(2, fs.listings.get(src.toString()), "listed again for the second attempt");
    }

    /** Counts JGit's folder listings (the repository's file system; the diff starts no process). */
    private static final class CountingFS extends FS_POSIX {
        final Map<String, Integer> listings = new TreeMap<>();
        java.util.function.Consumer<File> afterFirstListing = folder -> { };

        @Override
        public WorkingTreeIterator.Entry[] list(File directory, FileTreeIterator.FileModeStrategy strategy) {
            int n = listings.merge(directory.getPath(), 1, Integer::sum);
            WorkingTreeIterator.Entry[] entries = super.list(directory, strategy);
            if (n == 1) {
                afterFirstListing.accept(directory);
            }
            return entries;
        }
    }
}
