package org.agentworkspace.core.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.BrowseEntry;
import org.agentworkspace.api.files.BrowseResult;
import org.agentworkspace.api.files.EntryType;
import org.agentworkspace.api.files.FileErrorCodes;

/**
 * The host folder picker ({@code GET /api/browse-filesystem}): lists the sub-folders of a host folder, but only
 * inside configured browse roots (the user's home by default).
 *
 * <p>Rules: the path defaults to {@code ~}; {@code ~} and {@code ~/...} are expanded to the home folder, anything
 * else must be absolute ({@code ~user} is not supported); NUL and other control characters are refused
 * ({@code INVALID_PATH}). The path's <em>real</em> location (symbolic links resolved) must be an allowed root or
 * lie below one ({@code PATH_NOT_ALLOWED} otherwise, also for a hidden folder such as {@code ~/.ssh} unless
 * hidden folders are enabled). Only folders are listed (never files, sizes or link targets), hidden ones left
 * out unless enabled; a link is listed when its real target is itself browsable. {@code parent} is null when
 * the parent is not browsable. At most {@code maxEntries} folders ({@code TOO_MANY_ENTRIES}). A missing folder is
 * {@code FILE_NOT_FOUND} only inside the roots; outside them it is {@code PATH_NOT_ALLOWED} like any other path, so
 * the picker cannot be used to learn what exists elsewhere on the host.
 */
public final class BrowseFilesystem {
    private final List<Path> roots;
    private final Path home;
    private final int maxEntries;
    private final boolean showHidden;

    private BrowseFilesystem(List<Path> roots, Path home, int maxEntries, boolean showHidden) {
        this.roots = roots;
        this.home = home;
        this.maxEntries = maxEntries;
        this.showHidden = showHidden;
    }

    /**
     * A browser over {@code allowedRoots} (each must exist; stored as real paths).
     *
     * @param home what {@code ~} expands to
     */
    public static BrowseFilesystem create(List<Path> allowedRoots, Path home, int maxEntries, boolean showHidden) {
        Objects.requireNonNull(home, "home");
        if (allowedRoots.isEmpty() || maxEntries < 1) {
            throw new IllegalArgumentException("at least one root and a positive entry limit are needed");
        }
        List<Path> real = new ArrayList<>();
        for (Path root : allowedRoots) {
            try {
                real.add(root.toRealPath());
            } catch (IOException e) {
                throw new IllegalArgumentException("a browse root does not exist", e);
            }
        }
        return new BrowseFilesystem(List.copyOf(real), home.toAbsolutePath().normalize(), maxEntries, showHidden);
    }

    /** {@link #forHome(Path)} of the {@code user.home} of this JVM. */
    public static BrowseFilesystem forUserHome() {
        return forHome(Path.of(System.getProperty("user.home")));
    }

    /** The default: the user's home as the only root, hidden folders not shown, 10,000 entries. */
    public static BrowseFilesystem forHome(Path home) {
        return create(List.of(home), home, FileLimits.DEFAULT_MAX_ENTRIES, false);
    }

    public BrowseResult browse(String requested) {
        String raw = requested == null || requested.isBlank() ? "~" : requested;
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw invalid("the path contains a control character");
            }
        }
        Path path;
        try {
            if (raw.equals("~")) {
                path = home;
            } else if (raw.startsWith("~/")) {
                path = home.resolve(raw.substring(2));
            } else if (raw.startsWith("~")) {
                throw invalid("only ~ and ~/... are expanded");
            } else {
                path = Path.of(raw);
            }
        } catch (InvalidPathException e) {
            throw invalid("not a valid path");
        }
        if (!path.isAbsolute()) {
            throw invalid("give an absolute path or one starting with ~");
        }
        Path real;
        try {
            real = path.toRealPath();
        } catch (NoSuchFileException e) {
            // Only inside the roots may a caller learn that something does not exist.
            if (!browsable(PathGuard.realOfDeepestExisting(path.normalize()))) {
                throw notAllowed();
            }
            throw new WorkspaceException.NotFound(FileErrorCodes.FILE_NOT_FOUND, "the folder does not exist");
        } catch (AccessDeniedException e) {
            throw notAllowed();
        } catch (IOException e) {
            throw invalid("the path cannot be resolved");
        }
        if (!browsable(real)) {
            throw notAllowed();
        }
        if (!Files.isDirectory(real)) {
            throw new WorkspaceException.Validation(FileErrorCodes.NOT_A_DIRECTORY, "not a folder");
        }
        List<BrowseEntry> entries = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(real)) {
            for (Path child : stream) {
                String name = child.getFileName().toString();
                if (!showHidden && name.startsWith(".")) {
                    continue;
                }
                if (!Files.isDirectory(child)) {
                    continue;
                }
                if (Files.isSymbolicLink(child)) {
                    try {
                        if (!browsable(child.toRealPath())) {
                            continue;
                        }
                    } catch (IOException e) {
                        continue;
                    }
                }
                if (entries.size() >= maxEntries) {
                    throw new WorkspaceException.PayloadTooLarge(FileErrorCodes.TOO_MANY_ENTRIES, "the folder holds more "
                            + "than " + maxEntries + " folders");
                }
                entries.add(new BrowseEntry(name, EntryType.DIRECTORY));
            }
        } catch (AccessDeniedException e) {
            throw notAllowed();
        } catch (IOException e) {
            throw new UncheckedIOException("listing failed", e);
        }
        entries.sort(Comparator.comparing(BrowseEntry::name));
        Path parent = real.getParent();
        String parentText = parent != null && browsable(parent) ? parent.toString() : null;
        return new BrowseResult(real.toString(), parentText, entries);
    }

    private boolean browsable(Path real) {
        for (Path root : roots) {
            if (real.startsWith(root)) {
                if (showHidden) {
                    return true;
                }
                boolean hidden = false;
                for (Path part : root.relativize(real)) {
                    if (part.toString().startsWith(".")) {
                        hidden = true;
                        break;
                    }
                }
                if (!hidden) {
                    return true;
                }
            }
        }
        return false;
    }

    private static WorkspaceException invalid(String message) {
        return new WorkspaceException.Validation(FileErrorCodes.INVALID_PATH, message);
    }

    private static WorkspaceException notAllowed() {
        return new WorkspaceException.Forbidden(FileErrorCodes.PATH_NOT_ALLOWED,
                "the folder is outside the allowed browse roots");
    }
}
