package org.agentworkspace.git;

import java.io.File;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.treewalk.FileTreeIterator;
import org.eclipse.jgit.treewalk.FileTreeIterator.FileModeStrategy;
import org.eclipse.jgit.treewalk.WorkingTreeIterator;
import org.eclipse.jgit.treewalk.WorkingTreeOptions;
import org.eclipse.jgit.util.FS;

/**
 * The file system of one working-tree diff: {@link NoExecFS} that lists each folder once and then answers from
 * that listing. JGit's {@code DiffFormatter} scans the working tree in one pass, but then reads each changed file
 * through {@code ContentSource.WorkingTreeSource}, which walks from the root to that one file with a fresh
 * {@code TreeWalk} over the same {@link FileTreeIterator}: every folder on the way is listed, and every entry of it
 * {@code lstat}-ed, again for every changed file — for 2,000 changed files in folders of 100 that was 200,000
 * {@code lstat} calls and most of a 4–13 s diff. The listing is JGit's own ({@link FS#list}), made once per folder
 * by the {@code FS} the repository was opened with; only its reuse is added. Each caller gets a copy of the array
 * because {@code WorkingTreeIterator} compacts and sorts it in place. What is left per changed file is in memory:
 * the walk from the root down to it over the folders' listings.
 *
 * <p>An instance belongs to one diff call and one thread: the listing is the working tree as the scan saw it (file
 * contents are still read when the diff is written), which is what the diff is about.
 */
final class ListOnceFS extends NoExecFS {
    private final FS lister;
    private final Map<File, WorkingTreeIterator.Entry[]> listings = new HashMap<>();
    private FileModeStrategy strategy;

    private ListOnceFS(FS lister) {
        super(lister);
        this.lister = lister;
    }

    /** A working-tree iterator of {@code repo} (as {@code new FileTreeIterator(repo)} makes) that lists each folder once. */
    static FileTreeIterator workingTree(Repository repo) {
        WorkingTreeOptions options = repo.getConfig().get(WorkingTreeOptions.KEY);
        FileModeStrategy strategy = options.isDirNoGitLinks() ? FileTreeIterator.NoGitlinksStrategy.INSTANCE
                : FileTreeIterator.DefaultFileModeStrategy.INSTANCE;
        return new Root(repo, new ListOnceFS(repo.getFS()), options, strategy);
    }

    @Override
    public WorkingTreeIterator.Entry[] list(File directory, FileModeStrategy fileModeStrategy) {
        if (strategy == null) {
            strategy = fileModeStrategy;
        } else if (strategy != fileModeStrategy) {
            return lister.list(directory, fileModeStrategy); // not this class's use; never cached
        }
        return listings.computeIfAbsent(directory, d -> sorted(lister.list(d, fileModeStrategy))).clone();
    }

    /**
     * The listing in (about) the order {@code WorkingTreeIterator} sorts it into: by name, a folder as if its name
     * ended in {@code /}. The iterator still sorts every copy itself; given this order its sort is one linear pass
     * instead of a full sort per changed file.
     */
    private static WorkingTreeIterator.Entry[] sorted(WorkingTreeIterator.Entry[] entries) {
        Arrays.sort(entries, Comparator.comparing(ListOnceFS::sortName));
        return entries;
    }

    private static String sortName(WorkingTreeIterator.Entry entry) {
        return entry.getMode() == FileMode.TREE ? entry.getName() + "/" : entry.getName();
    }

    @Override
    public FS newInstance() {
        return new ListOnceFS(lister);
    }

    /** The root iterator: the public constructor with our file system, then the repository as JGit's own sets it. */
    private static final class Root extends FileTreeIterator {
        Root(Repository repo, FS fs, WorkingTreeOptions options, FileModeStrategy strategy) {
            super(repo.getWorkTree(), fs, options, strategy);
            initRootIterator(repo);
        }
    }
}
