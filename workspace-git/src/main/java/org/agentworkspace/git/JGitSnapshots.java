package org.agentworkspace.git;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.FileErrorCodes;
import org.agentworkspace.api.vcs.RestoreResult;
import org.agentworkspace.api.vcs.Snapshot;
import org.agentworkspace.api.vcs.TreeChange;
import org.agentworkspace.api.vcs.TreeChanges;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsErrorCodes;
import org.agentworkspace.api.vcs.WorkingTreeState;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.dircache.DirCacheIterator;
import org.eclipse.jgit.lib.ObjectChecker;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.CanonicalTreeParser;
import org.eclipse.jgit.treewalk.EmptyTreeIterator;
import org.eclipse.jgit.treewalk.FileTreeIterator;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.WorkingTreeIterator;

/**
 * Snapshots of a working tree on private refs (see {@link Vcs#snapshot}). The working tree is read the way
 * {@code git add -A} would see it (tracked files, untracked files that are not ignored; the index's ids are reused
 * for files whose stat data says they are unchanged) into an in-memory index, never the repository's own, so the
 * index, HEAD and the files stay as they are. Restoring writes each differing file through a temporary file and a
 * rename, and never leaves the working tree: a path with a {@code ..} or {@code .git} segment, or whose parent
 * resolves outside the working tree, is refused.
 *
 * <p>An untracked file larger than {@value #MAX_UNTRACKED_BYTES} bytes (a dataset, a build output nobody ignored) is
 * left out: recording it would copy it into the repository's objects at every snapshot of a changed version. Left
 * out of the snapshot and out of the working tree a restore compares against, such a file is neither recorded nor
 * deleted or overwritten by a restore; it stays as it is.
 */
final class JGitSnapshots {
    /** Untracked files above this size are not recorded (and so never touched by a restore). */
    static final long MAX_UNTRACKED_BYTES = 16L << 20;

    private static final PersonIdent IDENT_TEMPLATE = new PersonIdent("Agent Workspace", "agent-workspace@localhost");

    private final Repository repo;
    private final Path root;

    JGitSnapshots(Repository repo) throws IOException {
        this.repo = repo;
        this.root = repo.getWorkTree().toPath().toRealPath();
    }

    Snapshot snapshot(String ref, String message) throws IOException {
        checkRef(ref);
        if (repo.exactRef(ref) != null) {
            throw new WorkspaceException.Conflict(FileErrorCodes.FILE_EXISTS, "the snapshot ref exists already");
        }
        try (ObjectInserter ins = repo.newObjectInserter(); ObjectReader reader = repo.newObjectReader()) {
            ObjectId tree = writeWorkingTree(ins, reader, null);
            CommitBuilder c = new CommitBuilder();
            c.setTreeId(tree);
            ObjectId head = repo.resolve(Constants.HEAD + "^{commit}");
            if (head != null) {
                c.setParentId(head);
            }
            PersonIdent who = new PersonIdent(IDENT_TEMPLATE, Instant.now());
            c.setAuthor(who);
            c.setCommitter(who);
            c.setMessage(message.endsWith("\n") ? message : message + "\n");
            ObjectId commit = ins.insert(c);
            ins.flush();
            RefUpdate u = repo.updateRef(ref);
            u.setNewObjectId(commit);
            u.setExpectedOldObjectId(ObjectId.zeroId());
            u.setRefLogMessage("agent-workspace snapshot", false);
            RefUpdate.Result r = u.update();
            if (r != RefUpdate.Result.NEW) {
                throw new WorkspaceException.Conflict(FileErrorCodes.FILE_EXISTS,
                        "the snapshot ref could not be created (" + r.name().toLowerCase(Locale.ROOT) + ")");
            }
        }
        return findSnapshot(ref).orElseThrow();
    }

    List<Snapshot> snapshots(String prefix) throws IOException {
        if (!prefix.startsWith(Vcs.SNAPSHOT_REFS)) {
            throw invalidRef();
        }
        List<Snapshot> out = new ArrayList<>();
        try (RevWalk walk = new RevWalk(repo)) {
            for (Ref r : repo.getRefDatabase().getRefsByPrefix(prefix)) {
                if (r.getObjectId() == null) {
                    continue;
                }
                try {
                    out.add(toSnapshot(r.getName(), walk.parseCommit(r.getObjectId())));
                } catch (org.eclipse.jgit.errors.IncorrectObjectTypeException e) {
                    // a ref under our prefix that is not a commit is not one of ours: left out
                }
            }
        }
        out.sort(Comparator.comparing(Snapshot::createdAt).reversed().thenComparing(Snapshot::ref));
        return out;
    }

    Optional<Snapshot> findSnapshot(String ref) throws IOException {
        checkRef(ref);
        Ref r = repo.exactRef(ref);
        if (r == null || r.getObjectId() == null) {
            return Optional.empty();
        }
        try (RevWalk walk = new RevWalk(repo)) {
            return Optional.of(toSnapshot(ref, walk.parseCommit(r.getObjectId())));
        } catch (org.eclipse.jgit.errors.IncorrectObjectTypeException e) {
            return Optional.empty();
        }
    }

    boolean deleteSnapshot(String ref) throws IOException {
        checkRef(ref);
        if (repo.exactRef(ref) == null) {
            return false;
        }
        RefUpdate u = repo.updateRef(ref);
        u.setForceUpdate(true);
        RefUpdate.Result r = u.delete();
        return r == RefUpdate.Result.FORCED || r == RefUpdate.Result.FAST_FORWARD || r == RefUpdate.Result.NO_CHANGE;
    }

    WorkingTreeState workingTree() throws IOException {
        try (ObjectInserter ins = repo.newObjectInserter(); ObjectReader reader = repo.newObjectReader()) {
            ObjectId tree = writeWorkingTree(ins, reader, null);
            ins.flush();
            ObjectId head = repo.resolve(Constants.HEAD + "^{tree}");
            return new WorkingTreeState(tree.name(), head == null ? null : head.name());
        }
    }

    RestoreResult restore(String ref) throws IOException {
        Snapshot s = findSnapshot(ref).orElseThrow(() -> new WorkspaceException.NotFound(ErrorCodes.NOT_FOUND,
                "no such snapshot"));
        Map<String, Entry> current = new LinkedHashMap<>();
        try (ObjectInserter ins = repo.newObjectInserter(); ObjectReader reader = repo.newObjectReader()) {
            writeWorkingTree(ins, reader, current);
            Map<String, Entry> target = readTree(reader, ObjectId.fromString(s.tree()));
            // every path of the snapshot is checked before anything is touched: a refused restore changes nothing
            for (String path : target.keySet()) {
                checkSegments(path);
                confined(path);
            }
            int deleted = 0;
            // deletions first: a file may stand where the snapshot has a folder
            Set<String> dirsToPrune = new TreeSet<>(Comparator.reverseOrder());
            for (Map.Entry<String, Entry> e : current.entrySet()) {
                if (!target.containsKey(e.getKey()) && e.getValue().mode() != FileMode.GITLINK) {
                    Path p = confined(e.getKey());
                    if (Files.deleteIfExists(p)) {
                        deleted++;
                    }
                    for (String d = parentOf(e.getKey()); d != null; d = parentOf(d)) {
                        dirsToPrune.add(d);
                    }
                }
            }
            for (String d : dirsToPrune) {
                Path p = confined(d);
                try {
                    if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                        Files.delete(p);
                    }
                } catch (DirectoryNotEmptyException keep) {
                    // still holds other (possibly ignored) files
                }
            }
            int written = 0;
            for (Map.Entry<String, Entry> e : target.entrySet()) {
                Entry want = e.getValue();
                if (want.mode() == FileMode.GITLINK || want.equals(current.get(e.getKey()))) {
                    continue;
                }
                write(reader, e.getKey(), want);
                written++;
            }
            return new RestoreResult(written, deleted);
        }
    }

    TreeChanges changes(String from, String to, int limit) throws IOException {
        try (ObjectReader reader = repo.newObjectReader();
             org.eclipse.jgit.diff.DiffFormatter counter = new org.eclipse.jgit.diff.DiffFormatter(
                     org.eclipse.jgit.util.io.NullOutputStream.INSTANCE)) {
            counter.setRepository(repo);
            counter.setDetectRenames(false);
            counter.setDiffComparator(org.eclipse.jgit.diff.RawTextComparator.DEFAULT);
            List<org.eclipse.jgit.diff.DiffEntry> entries = counter.scan(treeOf(reader, from), treeOf(reader, to));
            List<TreeChange> out = new ArrayList<>();
            for (org.eclipse.jgit.diff.DiffEntry e : entries) {
                if (out.size() >= limit) {
                    break;
                }
                TreeChange.Kind kind = switch (e.getChangeType()) {
                    case ADD -> TreeChange.Kind.ADDED;
                    case DELETE -> TreeChange.Kind.DELETED;
                    default -> TreeChange.Kind.MODIFIED;
                };
                String path = kind == TreeChange.Kind.DELETED ? e.getOldPath() : e.getNewPath();
                Integer ins = null;
                Integer del = null;
                if (e.getOldMode() != FileMode.GITLINK && e.getNewMode() != FileMode.GITLINK) {
                    org.eclipse.jgit.patch.FileHeader h = counter.toFileHeader(e);
                    if (h.getPatchType() == org.eclipse.jgit.patch.FileHeader.PatchType.UNIFIED) {
                        int i = 0;
                        int d = 0;
                        for (org.eclipse.jgit.diff.Edit edit : h.toEditList()) {
                            i += edit.getLengthB();
                            d += edit.getLengthA();
                        }
                        ins = i;
                        del = d;
                    }
                }
                out.add(new TreeChange(path, kind, ins, del));
            }
            return new TreeChanges(out, entries.size());
        }
    }

    /** The tree a tree-ish names (404 when none). */
    ObjectId treeId(String treeish) throws IOException {
        ObjectId id = treeish == null ? null : repo.resolve(treeish + "^{tree}");
        if (id == null) {
            throw new WorkspaceException.NotFound(ErrorCodes.NOT_FOUND, "no such tree");
        }
        return id;
    }

    // ------------------------------------------------------------------ internals

    private record Entry(FileMode mode, ObjectId id) {
    }

    private org.eclipse.jgit.treewalk.AbstractTreeIterator treeOf(ObjectReader reader, String treeish)
            throws IOException {
        ObjectId id = treeish == null ? null : repo.resolve(treeish + "^{tree}");
        if (id == null) {
            if (treeish == null) {
                return new EmptyTreeIterator();
            }
            throw new WorkspaceException.NotFound(ErrorCodes.NOT_FOUND, "no such tree");
        }
        return new CanonicalTreeParser(null, reader, id);
    }

    /**
     * Reads the working tree into an in-memory index and writes its tree (and the blobs the object database lacks).
     * When {@code seen} is given, every recorded path is put there with its mode and id.
     */
    private ObjectId writeWorkingTree(ObjectInserter ins, ObjectReader reader, Map<String, Entry> seen)
            throws IOException {
        DirCache index = repo.readDirCache();
        DirCache out = DirCache.newInCore();
        DirCacheBuilder b = out.builder();
        try (TreeWalk tw = new TreeWalk(repo, reader)) {
            tw.setRecursive(false);
            int dc = tw.addTree(new DirCacheIterator(index));
            FileTreeIterator files = new FileTreeIterator(repo);
            int wt = tw.addTree(files);
            files.setDirCacheIterator(tw, dc);
            while (tw.next()) {
                WorkingTreeIterator w = tw.getTree(wt, WorkingTreeIterator.class);
                DirCacheIterator d = tw.getTree(dc, DirCacheIterator.class);
                if (w == null) {
                    continue; // gone from the working tree
                }
                if (d == null && w.isEntryIgnored()) {
                    continue; // ignored and not tracked, a folder with all it holds
                }
                if (tw.isSubtree()) {
                    tw.enterSubtree();
                    continue;
                }
                FileMode mode = w.getEntryFileMode();
                if (d == null && (mode == FileMode.REGULAR_FILE || mode == FileMode.EXECUTABLE_FILE)
                        && w.getEntryContentLength() > MAX_UNTRACKED_BYTES) {
                    continue; // a large untracked file: left as it is (see the class comment)
                }
                ObjectId id = w.getEntryObjectId();
                if (mode != FileMode.GITLINK && !reader.has(id)) {
                    try (InputStream in = w.openEntryStream()) {
                        id = ins.insert(Constants.OBJ_BLOB, w.getEntryContentLength(), in);
                    }
                }
                DirCacheEntry e = new DirCacheEntry(tw.getPathString());
                e.setFileMode(mode);
                e.setObjectId(id);
                b.add(e);
                if (seen != null) {
                    seen.put(tw.getPathString(), new Entry(mode, id.copy()));
                }
            }
        }
        b.finish();
        return out.writeTree(ins);
    }

    private static Map<String, Entry> readTree(ObjectReader reader, ObjectId tree) throws IOException {
        Map<String, Entry> out = new LinkedHashMap<>();
        try (TreeWalk tw = new TreeWalk(reader)) {
            tw.setRecursive(true);
            tw.addTree(tree);
            while (tw.next()) {
                out.put(tw.getPathString(), new Entry(tw.getFileMode(0), tw.getObjectId(0)));
            }
        }
        return out;
    }

    private void write(ObjectReader reader, String path, Entry want) throws IOException {
        Path target = confined(path);
        Path parent = target.getParent();
        // a file (or link) standing where a folder is needed goes first
        for (Path p = parent; p != null && !p.equals(root); p = p.getParent()) {
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                Files.delete(p);
                break;
            }
        }
        Files.createDirectories(parent);
        confined(path); // the parents now exist: check again where they really lead
        if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
            deleteTree(target);
        }
        ObjectLoader loader = reader.open(want.id(), Constants.OBJ_BLOB);
        if (want.mode() == FileMode.SYMLINK) {
            String dest = new String(loader.getBytes(), java.nio.charset.StandardCharsets.UTF_8);
            Files.deleteIfExists(target);
            Files.createSymbolicLink(target, Path.of(dest));
            return;
        }
        Path tmp = Files.createTempFile(parent, ".aw-restore-", ".tmp");
        try {
            try (var out = Files.newOutputStream(tmp)) {
                loader.copyTo(out);
            }
            setMode(tmp, target, want.mode() == FileMode.EXECUTABLE_FILE);
            try {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * The restored file's mode: the replaced file's when there is one (its executable bits as recorded), else
     * {@code rw-r--r--} or {@code rwxr-xr-x} (a temporary file is created {@code rw-------}, which a rename keeps).
     */
    private static void setMode(Path p, Path replaced, boolean executable) {
        try {
            Set<PosixFilePermission> perms;
            if (Files.isRegularFile(replaced, LinkOption.NOFOLLOW_LINKS)) {
                perms = new HashSet<>(Files.getPosixFilePermissions(replaced, LinkOption.NOFOLLOW_LINKS));
            } else {
                perms = new HashSet<>(java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
            }
            if (executable) {
                // executable for whoever may read it, as git's checkout does under the usual umask
                perms.add(PosixFilePermission.OWNER_EXECUTE);
                if (perms.contains(PosixFilePermission.GROUP_READ)) {
                    perms.add(PosixFilePermission.GROUP_EXECUTE);
                }
                if (perms.contains(PosixFilePermission.OTHERS_READ)) {
                    perms.add(PosixFilePermission.OTHERS_EXECUTE);
                }
            } else {
                perms.remove(PosixFilePermission.OWNER_EXECUTE);
                perms.remove(PosixFilePermission.GROUP_EXECUTE);
                perms.remove(PosixFilePermission.OTHERS_EXECUTE);
            }
            Files.setPosixFilePermissions(p, perms);
        } catch (UnsupportedOperationException | IOException e) {
            // a file system without POSIX modes: the content is what matters
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /**
     * Refuses a path with an empty, {@code .}, {@code ..} or {@code .git} segment, also in the spellings git itself
     * refuses on checkout (NTFS short names, HFS+ ignorable characters: JGit's {@link ObjectChecker}).
     */
    private static void checkSegments(String gitPath) {
        for (String seg : gitPath.split("/", -1)) {
            if (seg.isEmpty() || seg.equals(".") || seg.equals("..") || seg.toLowerCase(Locale.ROOT).equals(".git")) {
                throw unsafePath();
            }
        }
        try {
            new ObjectChecker().setSafeForWindows(true).setSafeForMacOS(true).checkPath(gitPath);
        } catch (org.eclipse.jgit.errors.CorruptObjectException e) {
            throw unsafePath();
        }
    }

    private static WorkspaceException unsafePath() {
        return new WorkspaceException.Forbidden(FileErrorCodes.PATH_OUTSIDE_PROJECT,
                "the snapshot holds a path that cannot be restored safely");
    }

    /** The path in the working tree, refused when a segment is unsafe or its parent leads outside. */
    private Path confined(String gitPath) throws IOException {
        checkSegments(gitPath);
        Path p = root.resolve(gitPath).normalize();
        Path existing = p.getParent();
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        if (!p.startsWith(root) || existing == null || !existing.toRealPath().startsWith(root)) {
            throw new WorkspaceException.Forbidden(FileErrorCodes.PATH_OUTSIDE_PROJECT,
                    "the snapshot holds a path that leads outside the working tree");
        }
        return p;
    }

    private static String parentOf(String path) {
        int i = path.lastIndexOf('/');
        return i < 0 ? null : path.substring(0, i);
    }

    private static Snapshot toSnapshot(String ref, RevCommit c) {
        return new Snapshot(ref, c.name(), c.getTree().name(), c.getFullMessage(),
                Instant.ofEpochSecond(c.getCommitTime()));
    }

    private static void checkRef(String ref) {
        if (ref == null || !ref.startsWith(Vcs.SNAPSHOT_REFS) || !Repository.isValidRefName(ref)) {
            throw invalidRef();
        }
    }

    private static WorkspaceException invalidRef() {
        return new WorkspaceException.Validation(VcsErrorCodes.INVALID_REF_NAME,
                "snapshot refs live under " + Vcs.SNAPSHOT_REFS);
    }
}
