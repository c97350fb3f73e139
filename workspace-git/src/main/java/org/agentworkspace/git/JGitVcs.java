package org.agentworkspace.git;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.FileErrorCodes;
import org.agentworkspace.api.files.RelativePath;
import org.agentworkspace.api.vcs.Branches;
import org.agentworkspace.api.vcs.CheckoutResult;
import org.agentworkspace.api.vcs.CommitIdentity;
import org.agentworkspace.api.vcs.CommitLog;
import org.agentworkspace.api.vcs.CommitRequest;
import org.agentworkspace.api.vcs.CommitResult;
import org.agentworkspace.api.vcs.DiffRequest;
import org.agentworkspace.api.vcs.DiffResult;
import org.agentworkspace.api.vcs.GitCredentials;
import org.agentworkspace.api.vcs.PullResult;
import org.agentworkspace.api.vcs.PushRequest;
import org.agentworkspace.api.vcs.PushResult;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsErrorCodes;
import org.agentworkspace.api.vcs.VcsOptions;
import org.agentworkspace.api.vcs.VcsStatus;
import org.eclipse.jgit.api.AddCommand;
import org.eclipse.jgit.api.CommitCommand;
import org.eclipse.jgit.api.CreateBranchCommand;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.MergeResult;
import org.eclipse.jgit.api.PullCommand;
import org.eclipse.jgit.api.PushCommand;
import org.eclipse.jgit.api.RebaseResult;
import org.eclipse.jgit.api.Status;
import org.eclipse.jgit.api.errors.CheckoutConflictException;
import org.eclipse.jgit.api.errors.EmptyCommitException;
import org.eclipse.jgit.api.errors.InvalidRefNameException;
import org.eclipse.jgit.api.errors.InvalidRemoteException;
import org.eclipse.jgit.api.errors.RefAlreadyExistsException;
import org.eclipse.jgit.api.errors.RefNotAdvertisedException;
import org.eclipse.jgit.api.errors.RefNotFoundException;
import org.eclipse.jgit.api.errors.UnmergedPathsException;
import org.eclipse.jgit.api.errors.WrongRepositoryStateException;
import org.eclipse.jgit.diff.DiffEntry;
import org.eclipse.jgit.diff.DiffFormatter;
import org.eclipse.jgit.diff.RawTextComparator;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuildIterator;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.dircache.DirCacheIterator;
import org.eclipse.jgit.errors.NoRemoteRepositoryException;
import org.eclipse.jgit.internal.JGitText;
import org.eclipse.jgit.lib.BranchConfig;
import org.eclipse.jgit.lib.BranchTrackingStatus;
import org.eclipse.jgit.lib.CommitConfig;
import org.eclipse.jgit.lib.ConfigConstants;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.RepositoryState;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.lib.SubmoduleConfig;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.transport.HttpConfig;
import org.eclipse.jgit.transport.RefLeaseSpec;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.RemoteConfig;
import org.eclipse.jgit.transport.RemoteRefUpdate;
import org.eclipse.jgit.transport.Transport;
import org.eclipse.jgit.transport.URIish;
import org.eclipse.jgit.treewalk.AbstractTreeIterator;
import org.eclipse.jgit.treewalk.CanonicalTreeParser;
import org.eclipse.jgit.treewalk.EmptyTreeIterator;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.AndTreeFilter;
import org.eclipse.jgit.treewalk.filter.PathFilter;
import org.eclipse.jgit.treewalk.filter.PathFilterGroup;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/** {@link Vcs} on one JGit repository. See {@link JGitVcsFactory} for how it is opened. */
final class JGitVcs implements Vcs {
    private static final System.Logger LOG = System.getLogger(JGitVcs.class.getName());
    private static final String DETACHED = "HEAD";
    private static final java.util.regex.Pattern TRANSPORT_HELPER =
            java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9+.-]*::.*", java.util.regex.Pattern.DOTALL);
    private static final Set<String> NETWORK_SCHEMES = Set.of("http", "https", "ssh", "git", "file", "ssh+git",
            "git+ssh");

    private final Repository repo;
    private final Git git;
    private final VcsOptions options;

    JGitVcs(Repository repo, VcsOptions options) {
        this.repo = repo;
        this.git = Git.wrap(repo);
        this.options = options;
    }

    @FunctionalInterface
    private interface GitCall<T> {
        T run() throws Exception;
    }

    // ---------------------------------------------------------------- status

    @Override
    public VcsStatus status() {
        return call("status", null, () -> {
            String branch = currentBranch();
            int ahead = 0;
            int behind = 0;
            if (!branch.equals(DETACHED)) {
                BranchTrackingStatus tracking = BranchTrackingStatus.of(repo, branch);
                if (tracking != null) {
                    ahead = tracking.getAheadCount();
                    behind = tracking.getBehindCount();
                }
            }
            Status s = git.status().call();
            Set<String> modified = new TreeSet<>();
            Set<String> added = new TreeSet<>();
            Set<String> deleted = new TreeSet<>();
            Set<String> seen = new HashSet<>();
            Set<String> conflicting = s.getConflicting();
            Set<String> all = new TreeSet<>();
            all.addAll(s.getAdded());
            all.addAll(s.getChanged());
            all.addAll(s.getRemoved());
            all.addAll(s.getMissing());
            all.addAll(s.getModified());
            all.addAll(conflicting);
            for (String path : all) {
                if (!seen.add(path)) {
                    continue;
                }
                if (conflicting.contains(path)) {
                    modified.add(path);
                } else if (s.getRemoved().contains(path) || s.getMissing().contains(path)) {
                    deleted.add(path);
                } else if (s.getAdded().contains(path)) {
                    added.add(path);
                } else {
                    modified.add(path);
                }
            }
            Set<String> staged = new TreeSet<>();
            staged.addAll(s.getAdded());
            staged.addAll(s.getChanged());
            staged.addAll(s.getRemoved());
            staged.removeAll(conflicting);
            return new VcsStatus(branch, ahead, behind, List.copyOf(modified), List.copyOf(added),
                    List.copyOf(deleted), List.copyOf(new TreeSet<>(s.getUntracked())), List.copyOf(staged));
        });
    }

    // ---------------------------------------------------------------- diff

    /** The settings every diff of this class uses: `git diff --no-renames --no-ext-diff --abbrev=7`'s output. */
    private void configure(DiffFormatter formatter) {
        formatter.setRepository(repo);
        formatter.setDetectRenames(false);
        formatter.setOldPrefix("a/");
        formatter.setNewPrefix("b/");
        formatter.setAbbreviationLength(7);
        formatter.setContext(3);
        formatter.setDiffComparator(RawTextComparator.DEFAULT);
    }

    @Override
    public DiffResult diff(DiffRequest request) {
        RelativePath file = requireGitPath(request.file(), true);
        return call("diff", null, () -> {
            try {
                return diffOnce(request, file);
            } catch (EOFException | FileNotFoundException | NoSuchFileException e) {
                // A file got shorter (or went) between the scan, whose folder listing gave its length, and its
                // reading: the working tree changed during the call (an agent writing). Once more, freshly listed.
                LOG.log(System.Logger.Level.DEBUG, "the working tree changed during a diff; diffing again");
                return diffOnce(request, file);
            }
        });
    }

    private DiffResult diffOnce(DiffRequest request, RelativePath file) throws IOException {
        BoundedBuffer out = new BoundedBuffer(options.maxDiffBytes());
        DirCache index = repo.readDirCache();
        try (ObjectReader reader = repo.newObjectReader(); DiffFormatter formatter = new GitDiffFormatter(out)) {
            configure(formatter);
            if (!file.isRoot()) {
                formatter.setPathFilter(PathFilter.create(file.value()));
            }
            AbstractTreeIterator oldTree;
            AbstractTreeIterator newTree;
            if (request.staged()) {
                oldTree = headTree(reader);
                newTree = new DirCacheIterator(index);
            } else {
                oldTree = new DirCacheIterator(index);
                newTree = ListOnceFS.workingTree(repo);
            }
            List<DiffEntry> entries = formatter.scan(oldTree, newTree);
            if (!request.staged()) {
                // Working tree against index: a path missing from the index is untracked, which git diff skips.
                entries = entries.stream().filter(e -> e.getChangeType() != DiffEntry.ChangeType.ADD).toList();
            }
            try {
                formatter.format(entries);
                formatter.flush();
            } catch (BoundedBuffer.LimitReached e) {
                LOG.log(System.Logger.Level.DEBUG, "diff cut at {0} bytes", options.maxDiffBytes());
            }
        }
        return new DiffResult(out.text(), out.truncated());
    }

    private AbstractTreeIterator headTree(ObjectReader reader) throws IOException {
        ObjectId tree = repo.resolve(Constants.HEAD + "^{tree}");
        if (tree == null) {
            return new EmptyTreeIterator();
        }
        return new CanonicalTreeParser(null, reader, tree);
    }

    // ---------------------------------------------------------------- branches

    @Override
    public Branches branches() {
        return call("branches", null, () -> new Branches(currentBranch(), shortNames(Constants.R_HEADS),
                shortNames(Constants.R_REMOTES)));
    }

    // ---------------------------------------------------------------- log

    @Override
    public CommitLog log(String cursor, int limit) {
        if (limit < 1 || limit > CommitLog.MAX_LIMIT) {
            throw WorkspaceException.Validation.of("limit must be 1-" + CommitLog.MAX_LIMIT);
        }
        return call("log", null, () -> {
            ObjectId start;
            int skip;
            if (cursor == null) {
                start = repo.resolve(Constants.HEAD);
                skip = 0;
                if (start == null) {
                    return new CommitLog(List.of(), null);
                }
            } else {
                int dot = cursor.indexOf('.');
                try {
                    if (dot != Constants.OBJECT_ID_STRING_LENGTH) {
                        throw new IllegalArgumentException();
                    }
                    start = ObjectId.fromString(cursor.substring(0, dot));
                    skip = Integer.parseInt(cursor.substring(dot + 1));
                    if (skip < 1 || !repo.getObjectDatabase().has(start)) {
                        throw new IllegalArgumentException();
                    }
                } catch (IllegalArgumentException e) {
                    throw badLogCursor();
                }
            }
            List<CommitLog.Entry> out = new ArrayList<>();
            try (RevWalk walk = new RevWalk(repo); ObjectReader reader = repo.newObjectReader()) {
                try {
                    walk.markStart(walk.parseCommit(start));
                } catch (org.eclipse.jgit.errors.IncorrectObjectTypeException e) {
                    throw badLogCursor();
                }
                int seen = 0;
                for (RevCommit c : walk) {
                    if (seen++ < skip) {
                        continue;
                    }
                    if (out.size() == limit) {
                        return new CommitLog(out, start.name() + "." + (skip + limit));
                    }
                    PersonIdent author = c.getAuthorIdent();
                    out.add(new CommitLog.Entry(c.name(), reader.abbreviate(c, 7).name(), c.getShortMessage(),
                            author.getName(), author.getEmailAddress(), author.getWhenAsInstant()));
                }
            }
            return new CommitLog(out, null);
        });
    }

    private static WorkspaceException badLogCursor() {
        return WorkspaceException.Validation.of("cursor is not a cursor of this log; start without one");
    }

    private List<String> shortNames(String prefix) throws IOException {
        TreeSet<String> names = new TreeSet<>();
        for (Ref ref : repo.getRefDatabase().getRefsByPrefix(prefix)) {
            if (!ref.isSymbolic()) {
                names.add(ref.getName().substring(prefix.length()));
            }
        }
        return List.copyOf(names);
    }

    // ---------------------------------------------------------------- commit

    @Override
    public CommitResult commit(CommitRequest request) {
        String message = request.message();
        if (message.isBlank()) {
            throw WorkspaceException.Validation.of("a commit message is required");
        }
        if (message.length() > CommitRequest.MAX_MESSAGE_LENGTH) {
            throw WorkspaceException.Validation.of("the commit message is longer than "
                    + CommitRequest.MAX_MESSAGE_LENGTH + " characters");
        }
        List<RelativePath> files = new ArrayList<>();
        for (RelativePath path : request.files()) {
            files.add(requireGitPath(path, false));
        }
        CommitIdentity author = request.author();
        return call("commit", null, () -> {
            DirCache index = repo.readDirCache();
            ObjectId head = repo.resolve(Constants.HEAD);
            if (files.isEmpty()) {
                Status st = git.status().call();
                boolean staged = !(st.getAdded().isEmpty() && st.getChanged().isEmpty() && st.getRemoved().isEmpty());
                if (!staged && st.getConflicting().isEmpty()) {
                    int changed = st.getModified().size() + st.getMissing().size() + st.getUntracked().size();
                    if (changed > 0) {
                        throw new WorkspaceException.Conflict(VcsErrorCodes.NOTHING_STAGED, "nothing is staged, and "
                                + changed + (changed == 1 ? " path has" : " paths have") + " changes in the working "
                                + "tree: stage them first, or name them in files");
                    }
                    throw nothingToCommit();
                }
            } else {
                stageNamedPaths(files, index);
                if (!stagedChangesWithin(files)) {
                    throw nothingToCommit();
                }
            }
            PersonIdent ident = new PersonIdent(author.name(), author.email());
            CommitCommand command = git.commit().setMessage(message).setAuthor(ident).setCommitter(ident)
                    .setAllowEmpty(false).setNoVerify(true).setSign(Boolean.FALSE)
                    .setCleanupMode(CommitConfig.CleanupMode.WHITESPACE);
            for (RelativePath path : files) {
                command.setOnly(path.value());
            }
            RevCommit commit = command.call();
            return new CommitResult(commit.name(), currentBranch());
        });
    }

    // ---------------------------------------------------------------- stage and unstage

    @Override
    public VcsStatus stage(List<RelativePath> paths) {
        List<RelativePath> files = new ArrayList<>();
        for (RelativePath path : paths) {
            files.add(requireGitPath(path, false));
        }
        call("stage", null, () -> {
            if (files.isEmpty()) {
                git.add().addFilepattern(".").call();
                git.add().setUpdate(true).addFilepattern(".").call();
            } else {
                stageNamedPaths(files, repo.readDirCache());
            }
            return null;
        });
        return status();
    }

    @Override
    public VcsStatus unstage(List<RelativePath> paths) {
        List<RelativePath> files = new ArrayList<>();
        for (RelativePath path : paths) {
            files.add(requireGitPath(path, false));
        }
        call("unstage", null, () -> {
            ObjectId headTree = repo.resolve(Constants.HEAD + "^{tree}");
            DirCache index = repo.lockDirCache();
            try {
                DirCacheBuilder builder = index.builder();
                try (ObjectReader reader = repo.newObjectReader(); TreeWalk walk = new TreeWalk(repo, reader)) {
                    // index entries of the paths are replaced by HEAD's (none where HEAD has none); others are kept
                    int headIdx = walk.addTree(headTree == null ? new EmptyTreeIterator()
                            : new CanonicalTreeParser(null, reader, headTree));
                    int indexIdx = walk.addTree(new DirCacheBuildIterator(builder));
                    walk.setRecursive(true);
                    List<String> values = files.stream().map(RelativePath::value).toList();
                    for (String v : values) {
                        boolean known = index.findEntry(v) >= 0 || hasIndexEntryBelow(index, v);
                        if (!known && headTree != null) {
                            try (TreeWalk w = TreeWalk.forPath(repo, v, headTree)) {
                                known = w != null;
                            }
                        }
                        if (!known) {
                            throw new WorkspaceException.NotFound(FileErrorCodes.FILE_NOT_FOUND,
                                    "'" + v + "' is not in the index or HEAD");
                        }
                    }
                    if (!values.isEmpty()) {
                        walk.setFilter(PathFilterGroup.createFromStrings(values));
                    }
                    String last = null;
                    while (walk.next()) {
                        if (walk.getPathString().equals(last)) {
                            continue; // the other stages of an unmerged path: one entry, HEAD's
                        }
                        last = walk.getPathString();
                        CanonicalTreeParser fromHead = walk.getTree(headIdx, CanonicalTreeParser.class);
                        DirCacheIterator inIndex = walk.getTree(indexIdx, DirCacheIterator.class);
                        if (fromHead == null) {
                            continue; // staged as new: dropped from the index, the file stays
                        }
                        DirCacheEntry entry = new DirCacheEntry(walk.getRawPath());
                        entry.setFileMode(fromHead.getEntryFileMode());
                        entry.setObjectId(fromHead.getEntryObjectId());
                        if (inIndex != null && inIndex.getDirCacheEntry() != null
                                && inIndex.getDirCacheEntry().getStage() == DirCacheEntry.STAGE_0
                                && inIndex.getDirCacheEntry().getObjectId().equals(fromHead.getEntryObjectId())
                                && inIndex.getDirCacheEntry().getFileMode().equals(fromHead.getEntryFileMode())) {
                            entry = inIndex.getDirCacheEntry(); // unchanged: keep its cached stat data
                        }
                        builder.add(entry);
                    }
                }
                builder.commit();
            } finally {
                index.unlock();
            }
            return null;
        });
        return status();
    }

    /** {@code git add -A -- <paths>}, after checking each path is known somewhere. */
    private void stageNamedPaths(List<RelativePath> files, DirCache index) throws Exception {
        ObjectId headTree = repo.resolve(Constants.HEAD + "^{tree}");
        Path workTree = repo.getWorkTree().toPath();
        for (RelativePath path : files) {
            Path parent = workTree;
            for (String segment : path.parent().segments()) {
                parent = parent.resolve(segment);
                if (Files.isSymbolicLink(parent)) {
                    throw new WorkspaceException.Validation(FileErrorCodes.INVALID_PATH,
                            "'" + path.value() + "' is beyond a symbolic link");
                }
            }
            boolean inWorkTree = Files.exists(workTree.resolve(path.value()), LinkOption.NOFOLLOW_LINKS);
            boolean inIndex = index.findEntry(path.value()) >= 0 || hasIndexEntryBelow(index, path.value());
            boolean inHead = false;
            if (!inWorkTree && !inIndex && headTree != null) {
                try (TreeWalk walk = TreeWalk.forPath(repo, path.value(), headTree)) {
                    inHead = walk != null;
                }
            }
            if (!inWorkTree && !inIndex && !inHead) {
                throw new WorkspaceException.NotFound(FileErrorCodes.FILE_NOT_FOUND,
                        "'" + path.value() + "' is not in the working tree, the index or HEAD");
            }
        }
        AddCommand add = git.add();
        AddCommand update = git.add().setUpdate(true);
        for (RelativePath path : files) {
            add.addFilepattern(path.value());
            update.addFilepattern(path.value());
        }
        add.call();
        update.call();
        DirCache after = repo.readDirCache();
        for (RelativePath path : files) {
            boolean inIndex = after.findEntry(path.value()) >= 0 || hasIndexEntryBelow(after, path.value());
            boolean inHead = false;
            if (!inIndex && headTree != null) {
                try (TreeWalk walk = TreeWalk.forPath(repo, path.value(), headTree)) {
                    inHead = walk != null;
                }
            }
            if (!inIndex && !inHead) {
                // Present in the working tree only, and not added: an ignored file or an empty directory.
                throw new WorkspaceException.Validation(FileErrorCodes.INVALID_PATH,
                        "'" + path.value() + "' has nothing git can commit (ignored, or an empty directory)");
            }
        }
    }

    /** {@code true} when the index differs from HEAD at or below one of the paths. */
    private boolean stagedChangesWithin(List<RelativePath> files) throws IOException {
        List<String> values = files.stream().map(RelativePath::value).toList();
        try (ObjectReader reader = repo.newObjectReader(); TreeWalk walk = new TreeWalk(repo, reader)) {
            walk.addTree(headTree(reader));
            walk.addTree(new DirCacheIterator(repo.readDirCache()));
            walk.setRecursive(true);
            walk.setFilter(AndTreeFilter.create(PathFilterGroup.createFromStrings(values), TreeFilter.ANY_DIFF));
            return walk.next();
        }
    }

    private static boolean hasIndexEntryBelow(DirCache index, String path) {
        return index.getEntriesWithin(path).length > 0;
    }

    // ---------------------------------------------------------------- push

    @Override
    public PushResult push(PushRequest request, GitCredentials credentials) {
        String remote = RefNames.requireRemoteName(request.remote());
        String branch = request.findBranch().map(RefNames::requireBranch).orElse(null);
        ScopedCredentials provider = new ScopedCredentials(credentials, options);
        return call("push", provider, () -> {
            RemoteConfig remoteConfig = configuredRemote(remote);
            String name = branch != null ? branch : currentBranchOrFail();
            String localRef = Constants.R_HEADS + name;
            if (repo.exactRef(localRef) == null) {
                throw new WorkspaceException.NotFound(VcsErrorCodes.BRANCH_NOT_FOUND, "no local branch '" + name + "'");
            }
            List<URIish> uris = remoteConfig.getPushURIs().isEmpty() ? remoteConfig.getURIs()
                    : remoteConfig.getPushURIs();
            checkRemoteUris(uris, credentials);
            PushCommand push = git.push().setRemote(remote)
                    .setRefSpecs(new RefSpec(localRef + ":" + localRef))
                    .setCredentialsProvider(provider).setTransportConfigCallback(this::harden)
                    .setTimeout(timeoutSeconds()).setAtomic(false);
            if (request.force()) {
                String expected = ObjectId.zeroId().name();
                String tracking = trackingRefFor(remoteConfig, localRef);
                if (tracking != null) {
                    Ref trackingRef = repo.exactRef(tracking);
                    if (trackingRef != null && trackingRef.getObjectId() != null) {
                        expected = trackingRef.getObjectId().name();
                    }
                }
                push.setForce(true).setRefLeaseSpecs(new RefLeaseSpec(localRef, expected));
            }
            boolean upToDate = true;
            for (org.eclipse.jgit.transport.PushResult result : push.call()) {
                RemoteRefUpdate update = result.getRemoteUpdate(localRef);
                if (update == null) {
                    throw new WorkspaceException.Conflict(VcsErrorCodes.GIT_PUSH_REJECTED, "the remote did not report "
                            + "the branch update");
                }
                switch (update.getStatus()) {
                    case OK -> upToDate = false;
                    case UP_TO_DATE -> {
                    }
                    case REJECTED_NONFASTFORWARD -> throw rejected("the remote branch has commits that are not "
                            + "in the local branch (not a fast-forward); pull first");
                    case REJECTED_REMOTE_CHANGED -> throw rejected("the remote branch moved since the last fetch; "
                            + "the force push was not done");
                    case REJECTED_NODELETE, REJECTED_OTHER_REASON, NON_EXISTING, NOT_ATTEMPTED, AWAITING_REPORT ->
                            throw rejected("the remote refused the update (" + update.getStatus().name()
                                    .toLowerCase(Locale.ROOT) + ")");
                }
            }
            setUpstreamIfMissing(name, remote, localRef);
            return new PushResult(remote, name, upToDate);
        });
    }

    private static WorkspaceException rejected(String message) {
        return new WorkspaceException.Conflict(VcsErrorCodes.GIT_PUSH_REJECTED, message);
    }

    /** Like {@code push.autoSetupRemote}: a branch pushed without an upstream gets this one. */
    private void setUpstreamIfMissing(String branch, String remote, String mergeRef) throws IOException {
        StoredConfig config = repo.getConfig();
        BranchConfig branchConfig = new BranchConfig(config, branch);
        if (branchConfig.getRemote() == null && branchConfig.getMerge() == null) {
            config.setString(ConfigConstants.CONFIG_BRANCH_SECTION, branch, ConfigConstants.CONFIG_KEY_REMOTE,
                    remote);
            config.setString(ConfigConstants.CONFIG_BRANCH_SECTION, branch, ConfigConstants.CONFIG_KEY_MERGE,
                    mergeRef);
            config.save();
        }
    }

    private static String trackingRefFor(RemoteConfig remote, String localRef) {
        for (RefSpec spec : remote.getFetchRefSpecs()) {
            if (!spec.isWildcard() && spec.getSource() != null && spec.getSource().equals(localRef)) {
                return spec.getDestination();
            }
            if (spec.isWildcard() && spec.matchSource(localRef)) {
                return spec.expandFromSource(localRef).getDestination();
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- pull

    @Override
    public PullResult pull(GitCredentials credentials) {
        ScopedCredentials provider = new ScopedCredentials(credentials, options);
        return call("pull", provider, () -> {
            String branch = currentBranch();
            if (branch.equals(DETACHED)) {
                throw new WorkspaceException.Conflict(VcsErrorCodes.NO_UPSTREAM, "HEAD is detached; check out a "
                        + "branch with an upstream first");
            }
            if (repo.getRepositoryState() != RepositoryState.SAFE) {
                throw invalidState();
            }
            BranchConfig branchConfig = new BranchConfig(repo.getConfig(), branch);
            String remote = branchConfig.getRemote();
            String merge = branchConfig.getMerge();
            if (remote == null || merge == null || remote.equals(".")) {
                throw new WorkspaceException.Conflict(VcsErrorCodes.NO_UPSTREAM, "branch '" + branch
                        + "' has no upstream on a remote");
            }
            RefNames.requireRemoteName(remote);
            RemoteConfig remoteConfig = configuredRemote(remote);
            if (!Repository.isValidRefName(merge) || !merge.startsWith(Constants.R_REFS)) {
                throw new WorkspaceException.Conflict(VcsErrorCodes.NO_UPSTREAM, "branch '" + branch
                        + "' has an invalid upstream");
            }
            checkRemoteUris(remoteConfig.getURIs(), credentials);
            PullCommand pull = git.pull().setRemote(remote).setRemoteBranchName(merge)
                    .setCredentialsProvider(provider).setTransportConfigCallback(this::harden)
                    .setTimeout(timeoutSeconds())
                    .setRecurseSubmodules(SubmoduleConfig.FetchRecurseSubmodulesMode.NO);
            org.eclipse.jgit.api.PullResult result = pull.call();
            PullResult.Outcome outcome;
            if (result.getRebaseResult() != null) {
                RebaseResult rebase = result.getRebaseResult();
                outcome = switch (rebase.getStatus()) {
                    case OK -> PullResult.Outcome.REBASED;
                    case FAST_FORWARD -> PullResult.Outcome.FAST_FORWARD;
                    case UP_TO_DATE, NOTHING_TO_COMMIT -> PullResult.Outcome.UP_TO_DATE;
                    case STOPPED, CONFLICTS, UNCOMMITTED_CHANGES, FAILED -> throw conflict("the rebase stopped on "
                            + "conflicts or local changes");
                    default -> throw invalidState();
                };
            } else if (result.getMergeResult() != null) {
                MergeResult merged = result.getMergeResult();
                outcome = switch (merged.getMergeStatus()) {
                    case ALREADY_UP_TO_DATE -> PullResult.Outcome.UP_TO_DATE;
                    case FAST_FORWARD, FAST_FORWARD_SQUASHED -> PullResult.Outcome.FAST_FORWARD;
                    case MERGED, MERGED_SQUASHED, MERGED_NOT_COMMITTED, MERGED_SQUASHED_NOT_COMMITTED ->
                            PullResult.Outcome.MERGED;
                    case CONFLICTING -> throw conflict("the merge stopped with conflicts in "
                            + sizeOf(merged.getConflicts()) + " file(s); resolve them and commit");
                    case CHECKOUT_CONFLICT, FAILED -> throw conflict("local changes would be overwritten by the "
                            + "merge; commit or discard them first");
                    default -> throw invalidState();
                };
            } else {
                outcome = PullResult.Outcome.UP_TO_DATE;
            }
            ObjectId headId = repo.resolve(Constants.HEAD);
            return new PullResult(outcome, headId == null ? ObjectId.zeroId().name() : headId.name());
        });
    }

    private static int sizeOf(java.util.Map<String, int[][]> map) {
        return map == null ? 0 : map.size();
    }

    // ---------------------------------------------------------------- checkout

    @Override
    public CheckoutResult checkout(String branch) {
        String name = RefNames.requireBranch(branch);
        return call("checkout", null, () -> {
            if (!repo.getRepositoryState().canCheckout()) {
                throw invalidState();
            }
            if (repo.exactRef(Constants.R_HEADS + name) != null) {
                checkoutExisting(name);
                return new CheckoutResult(name, false, upstreamOf(name));
            }
            String[] remoteAndBranch = splitRemoteTrackingName(name);
            if (remoteAndBranch == null) {
                List<String> candidates = new ArrayList<>();
                for (String remote : repo.getRemoteNames()) {
                    if (repo.exactRef(Constants.R_REMOTES + remote + "/" + name) != null) {
                        candidates.add(remote);
                    }
                }
                if (candidates.size() != 1) {
                    throw new WorkspaceException.NotFound(VcsErrorCodes.BRANCH_NOT_FOUND, candidates.isEmpty()
                            ? "no local or remote-tracking branch '" + name + "'"
                            : "'" + name + "' exists on several remotes; name one as <remote>/" + name);
                }
                remoteAndBranch = new String[] {candidates.getFirst(), name};
            }
            String local = RefNames.requireBranch(remoteAndBranch[1]);
            if (repo.exactRef(Constants.R_HEADS + local) != null) {
                throw new WorkspaceException.Conflict(FileErrorCodes.FILE_EXISTS, "a local branch '" + local
                        + "' already exists; check it out by that name");
            }
            String start = Constants.R_REMOTES + remoteAndBranch[0] + "/" + remoteAndBranch[1];
            try {
                git.checkout().setCreateBranch(true).setName(local).setStartPoint(start)
                        .setUpstreamMode(CreateBranchCommand.SetupUpstreamMode.TRACK).call();
            } catch (CheckoutConflictException e) {
                if (repo.exactRef(Constants.R_HEADS + local) != null && !local.equals(currentBranch())) {
                    git.branchDelete().setBranchNames(Constants.R_HEADS + local).setForce(true).call();
                }
                throw e;
            }
            return new CheckoutResult(local, true, upstreamOf(local));
        });
    }

    private void checkoutExisting(String name) throws Exception {
        git.checkout().setName(name).call();
    }

    /** {@code origin/x} → {"origin", "x"} when {@code refs/remotes/origin/x} exists, choosing the longest remote. */
    private String[] splitRemoteTrackingName(String name) throws IOException {
        if (repo.exactRef(Constants.R_REMOTES + name) == null) {
            return null;
        }
        String best = null;
        for (String remote : repo.getRemoteNames()) {
            if (name.startsWith(remote + "/") && name.length() > remote.length() + 1
                    && (best == null || remote.length() > best.length())) {
                best = remote;
            }
        }
        return best == null ? null : new String[] {best, name.substring(best.length() + 1)};
    }

    private String upstreamOf(String branch) {
        String tracking = new BranchConfig(repo.getConfig(), branch).getTrackingBranch();
        return tracking == null ? null : Repository.shortenRefName(tracking);
    }

    // ---------------------------------------------------------------- shared

    // ---------------------------------------------------------------- snapshots

    private JGitSnapshots snapshots() throws IOException {
        return new JGitSnapshots(repo);
    }

    @Override
    public org.agentworkspace.api.vcs.Snapshot snapshot(String ref, String message) {
        return call("snapshot", null, () -> snapshots().snapshot(ref, message));
    }

    @Override
    public List<org.agentworkspace.api.vcs.Snapshot> snapshots(String prefix) {
        return call("snapshots", null, () -> snapshots().snapshots(prefix));
    }

    @Override
    public java.util.Optional<org.agentworkspace.api.vcs.Snapshot> findSnapshot(String ref) {
        return call("snapshot", null, () -> snapshots().findSnapshot(ref));
    }

    @Override
    public boolean deleteSnapshot(String ref) {
        return call("snapshot delete", null, () -> snapshots().deleteSnapshot(ref));
    }

    @Override
    public org.agentworkspace.api.vcs.WorkingTreeState workingTree() {
        return call("working tree", null, () -> snapshots().workingTree());
    }

    @Override
    public org.agentworkspace.api.vcs.RestoreResult restoreSnapshot(String ref) {
        return call("restore", null, () -> snapshots().restore(ref));
    }

    @Override
    public org.agentworkspace.api.vcs.TreeChanges changes(String from, String to, int limit) {
        return call("changes", null, () -> snapshots().changes(from, to, limit));
    }

    @Override
    public DiffResult diff(String from, String to) {
        return call("diff", null, () -> {
            BoundedBuffer out = new BoundedBuffer(options.maxDiffBytes());
            try (DiffFormatter formatter = new GitDiffFormatter(out)) {
                configure(formatter);
                try {
                    formatter.format(snapshots().treeId(from), snapshots().treeId(to));
                    formatter.flush();
                } catch (BoundedBuffer.LimitReached e) {
                    LOG.log(System.Logger.Level.DEBUG, "diff cut at {0} bytes", options.maxDiffBytes());
                }
            }
            return new DiffResult(out.text(), out.truncated());
        });
    }

    @Override
    public void close() {
        git.close();
        repo.close();
    }

    private String currentBranch() throws IOException {
        String full = repo.getFullBranch();
        if (full == null || !full.startsWith(Constants.R_HEADS)) {
            return DETACHED;
        }
        return full.substring(Constants.R_HEADS.length());
    }

    private String currentBranchOrFail() throws IOException {
        String branch = currentBranch();
        if (branch.equals(DETACHED)) {
            throw new WorkspaceException.NotFound(VcsErrorCodes.BRANCH_NOT_FOUND, "HEAD is detached; name a branch");
        }
        return branch;
    }

    private RemoteConfig configuredRemote(String remote) throws Exception {
        if (!repo.getRemoteNames().contains(remote)) {
            throw new WorkspaceException.NotFound(VcsErrorCodes.REMOTE_NOT_FOUND, "no remote named '" + remote
                    + "' is configured");
        }
        RemoteConfig config = new RemoteConfig(repo.getConfig(), remote);
        if (config.getURIs().isEmpty() && config.getPushURIs().isEmpty()) {
            throw new WorkspaceException.NotFound(VcsErrorCodes.REMOTE_NOT_FOUND, "remote '" + remote
                    + "' has no URL");
        }
        return config;
    }

    /**
     * Refuses remotes whose protocol is not a plain git transport, and http(s) settings that would write or read a
     * cookie file or send credentials without TLS verification.
     */
    private void checkRemoteUris(List<URIish> uris, GitCredentials credentials) {
        if (uris.isEmpty()) {
            throw new WorkspaceException.NotFound(VcsErrorCodes.REMOTE_NOT_FOUND, "the remote has no URL");
        }
        for (URIish uri : uris) {
            if (TRANSPORT_HELPER.matcher(uri.toString()).matches()) {
                // git's <transport>::<address> form (ext::, fd::, …) runs a helper program
                throw unsafe("the remote names a git transport helper; the service does not run those");
            }
            String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
            if (scheme != null && !NETWORK_SCHEMES.contains(scheme)) {
                throw unsafe("the remote uses a protocol the service does not use (" + scheme + ")");
            }
            if ("http".equals(scheme) || "https".equals(scheme)) {
                HttpConfig http = new HttpConfig(repo.getConfig(), uri);
                if (http.getSaveCookies() || (http.getCookieFile() != null && !http.getCookieFile().isEmpty())) {
                    throw unsafe("the repository configures an http cookie file; the service does not use one");
                }
                if (credentials != null && "https".equals(scheme) && !http.isSslVerify()) {
                    throw unsafe("the repository turns off TLS verification; credentials are not sent that way");
                }
            }
        }
    }

    /** Applied to every transport: never a configured upload-pack or receive-pack program, and a timeout. */
    private void harden(Transport transport) {
        transport.setOptionUploadPack(RemoteConfig.DEFAULT_UPLOAD_PACK);
        transport.setOptionReceivePack(RemoteConfig.DEFAULT_RECEIVE_PACK);
        transport.setTimeout(timeoutSeconds());
    }

    private int timeoutSeconds() {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, options.networkTimeout().toSeconds()));
    }

    /** Paths named to git: the lexical rules of {@link RelativePath}, and nothing inside a {@code .git} folder. */
    private static RelativePath requireGitPath(RelativePath path, boolean rootAllowed) {
        if (path.isRoot() && !rootAllowed) {
            throw new WorkspaceException.Validation(FileErrorCodes.INVALID_PATH, "name a file, not the project root");
        }
        for (String segment : path.segments()) {
            if (segment.equalsIgnoreCase(Constants.DOT_GIT)) {
                throw new WorkspaceException.Validation(FileErrorCodes.INVALID_PATH,
                        "paths inside .git are not accepted");
            }
        }
        return path;
    }

    private static WorkspaceException nothingToCommit() {
        return new WorkspaceException.Conflict(VcsErrorCodes.NOTHING_TO_COMMIT, "nothing to commit");
    }

    private static WorkspaceException conflict(String message) {
        return new WorkspaceException.Conflict(VcsErrorCodes.GIT_CONFLICT, message);
    }

    private static WorkspaceException invalidState() {
        return new WorkspaceException.Conflict(VcsErrorCodes.GIT_INVALID_STATE, "the repository is in the middle "
                + "of a merge, rebase or similar operation; finish or abort it first");
    }

    private static WorkspaceException unsafe(String message) {
        return new WorkspaceException.Forbidden(VcsErrorCodes.GIT_UNSAFE_CONFIG, message);
    }

    /** Runs a JGit operation and turns every failure into a {@link WorkspaceException} with a clean message. */
    private <T> T call(String operation, ScopedCredentials credentials, GitCall<T> body) {
        try {
            return body.run();
        } catch (WorkspaceException e) {
            throw e;
        } catch (Exception e) {
            RuntimeException translated = translate(operation, credentials, e);
            LOG.log(System.Logger.Level.DEBUG, "git {0} failed: {1}", operation, e.getClass().getName());
            throw translated;
        }
    }

    private static RuntimeException translate(String operation, ScopedCredentials credentials, Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ExternalProgramRefused) {
                return unsafe("the repository configures an external program (filter driver, hook or custom "
                        + "upload-pack); the service never runs one");
            }
        }
        if (e instanceof EmptyCommitException) {
            return nothingToCommit();
        }
        if (e instanceof UnmergedPathsException) {
            return conflict("unresolved conflicts; resolve them and stage the result first");
        }
        if (e instanceof CheckoutConflictException c) {
            return conflict("local changes to " + (c.getConflictingPaths() == null ? "some"
                    : c.getConflictingPaths().size()) + " file(s) would be overwritten; commit or discard them first");
        }
        if (e instanceof WrongRepositoryStateException) {
            return invalidState();
        }
        if (e instanceof RefAlreadyExistsException) {
            return new WorkspaceException.Conflict(FileErrorCodes.FILE_EXISTS, "the branch already exists");
        }
        if (e instanceof RefNotFoundException) {
            return new WorkspaceException.NotFound(VcsErrorCodes.BRANCH_NOT_FOUND, "branch not found");
        }
        if (e instanceof RefNotAdvertisedException) {
            return new WorkspaceException.NotFound(VcsErrorCodes.BRANCH_NOT_FOUND,
                    "the upstream branch does not exist on the remote");
        }
        if (e instanceof InvalidRefNameException) {
            return new WorkspaceException.Validation(VcsErrorCodes.INVALID_REF_NAME, "not a valid branch name");
        }
        if (e instanceof InvalidRemoteException) {
            return new WorkspaceException.NotFound(VcsErrorCodes.REMOTE_NOT_FOUND, "the remote is not configured");
        }
        boolean transport = false;
        boolean noRepository = false;
        boolean authFailed = false;
        JGitText text = JGitText.get();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof org.eclipse.jgit.errors.TransportException
                    || t instanceof org.eclipse.jgit.api.errors.TransportException) {
                transport = true;
                String message = String.valueOf(t.getMessage());
                if (message.contains(text.notAuthorized) || message.contains(text.noCredentialsProvider)
                        || message.contains(text.authenticationNotSupported)) {
                    authFailed = true;
                }
            }
            if (t instanceof NoRemoteRepositoryException) {
                noRepository = true;
            }
        }
        if (transport) {
            if (credentials != null && credentials.withheld()) {
                return new WorkspaceException.Forbidden(VcsErrorCodes.GIT_AUTH_FAILED, "the remote asked for "
                        + "credentials; they were not sent because its origin is not an allowed credential origin");
            }
            if (authFailed) {
                return new WorkspaceException.Forbidden(VcsErrorCodes.GIT_AUTH_FAILED,
                        "the remote refused the credentials (or needs some)");
            }
            return new WorkspaceException.Unavailable(VcsErrorCodes.GIT_REMOTE_UNAVAILABLE, noRepository
                    ? "the remote repository was not found" : "the remote could not be reached", null);
        }
        return new IllegalStateException("git " + operation + " failed", e);
    }
}
