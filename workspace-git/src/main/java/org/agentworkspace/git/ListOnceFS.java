package org.agentworkspace.git;

import java.io.File;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;

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
    /**
     * At most this many entries are kept (about 20 MB): a huge tree's listings are not all held at once. The least
     * recently used folders go first; the file reads come in the scan's order, folder by folder, so a folder let go
     * is listed once more, not once per file (unless one folder alone holds more entries than this: then its files
     * are read as JGit does, listing it for each).
     */
    static final int MAX_KEPT_ENTRIES = 100_000;

    private final FS lister;
    private final int maxKept;
    private final LinkedHashMap<File, WorkingTreeIterator.Entry[]> listings = new LinkedHashMap<>(64, 0.75f, true);
    private int kept;
    private FileModeStrategy strategy;

    private ListOnceFS(FS lister, int maxKept) {
        super(lister);
        this.lister = lister;
        this.maxKept = maxKept;
    }

    /** A working-tree iterator of {@code repo} (as {@code new FileTreeIterator(repo)} makes) that lists each folder once. */
    static FileTreeIterator workingTree(Repository repo) {
        return workingTree(repo, MAX_KEPT_ENTRIES);
    }

    static FileTreeIterator workingTree(Repository repo, int maxKept) {
        WorkingTreeOptions options = repo.getConfig().get(WorkingTreeOptions.KEY);
        FileModeStrategy strategy = options.isDirNoGitLinks() ? FileTreeIterator.NoGitlinksStrategy.INSTANCE
                : FileTreeIterator.DefaultFileModeStrategy.INSTANCE;
        return new Root(repo, new ListOnceFS(repo.getFS(), maxKept), options, strategy);
    }

    @Override
    public WorkingTreeIterator.Entry[] list(File directory, FileModeStrategy fileModeStrategy) {
        if (strategy == null) {
            strategy = fileModeStrategy;
        } else if (strategy != fileModeStrategy) {
            return lister.list(directory, fileModeStrategy); // not this class's use; never cached
        }
        WorkingTreeIterator.Entry[] entries = listings.get(directory);
        if (entries == null) {
            entries = sorted(lister.list(directory, fileModeStrategy));
            listings.put(directory, entries);
            kept += entries.length;
            Iterator<WorkingTreeIterator.Entry[]> oldest = listings.values().iterator();
            while (kept > maxKept && listings.size() > 1) {
                kept -= oldest.next().length;
                oldest.remove();
            }
        }
        return entries.clone();
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
        return new ListOnceFS(lister, maxKept);
    }

    /** The root iterator: the public constructor with our file system, then the repository as JGit's own sets it. */
    private static final class Root extends FileTreeIterator {
        Root(Repository repo, FS fs, WorkingTreeOptions options, FileModeStrategy strategy) {
            super(repo.getWorkTree(), fs, options, strategy);
            initRootIterator(repo);
        }
    }
}
