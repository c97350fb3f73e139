package org.agentworkspace.core.files;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Objects;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.FileErrorCodes;
import org.agentworkspace.api.files.RelativePath;

/**
 * The one confinement helper: turns a client's project-relative path into a host path that is inside the
 * project's real root, or refuses it. Every file operation and every path handed to git goes through it.
 *
 * <p>How a path is resolved:
 * <ol>
 *   <li>The string must pass {@link RelativePath#parse} (no absolute paths, {@code ..}, NUL or other control
 *       characters, backslashes; {@code ..%2F} is a literal name, nothing is decoded here).</li>
 *   <li>Starting at the root's real path (symbolic links resolved once, when the guard is created), each segment
 *       is looked at without following links. A segment that is a symbolic link is replaced by its real target,
 *       which must lie inside the root (compared by path components, so {@code /x/proj-evil} is not inside
 *       {@code /x/proj}); otherwise {@code PATH_OUTSIDE_PROJECT}. A broken link or a link loop is
 *       {@code INVALID_PATH}. A regular file in the middle of the path is {@code NOT_A_DIRECTORY}.</li>
 *   <li>The first segment that does not exist ends the walk; it and the rest are appended as plain names.</li>
 * </ol>
 * {@link #resolve} follows a final link (for reading, listing and writing content: the link's target inside the
 * project is what is read or written). {@link #resolveEntry} does not (for delete and rename: the link itself is
 * removed or moved, never its target).
 *
 * <p>Residual risk, documented: Java has no {@code openat}-style path walk, so a directory swapped for a symbolic
 * link <em>between</em> this check and the operation could redirect it. Callers narrow the window: reads open
 * with {@code NOFOLLOW_LINKS}, writes create their temporary file with {@code CREATE_NEW} and
 * {@code NOFOLLOW_LINKS} in the checked directory, recursive deletes walk with a {@code SecureDirectoryStream}
 * that never follows links. A hard link to a file outside the project cannot be told apart from a normal file:
 * it can be read; writes replace the directory entry (temporary file plus rename), so the outside file is never
 * modified.
 */
public final class PathGuard {
    private final Path root;

    private PathGuard(Path root) {
        this.root = root;
    }

    /**
     * A guard for an existing project directory.
     *
     * @throws IllegalArgumentException when {@code projectRoot} is not an existing directory
     */
    public static PathGuard create(Path projectRoot) {
        Objects.requireNonNull(projectRoot, "projectRoot");
        try {
            Path real = projectRoot.toRealPath();
            if (!Files.isDirectory(real)) {
                throw new IllegalArgumentException("the project root is not a directory");
            }
            return new PathGuard(real);
        } catch (IOException e) {
            throw new IllegalArgumentException("the project root does not exist", e);
        }
    }

    /** The project root's real path. */
    public Path root() {
        return root;
    }

    /** {@link #resolve(RelativePath)} of a client string. */
    public Path resolve(String raw) {
        return resolve(RelativePath.parse(raw));
    }

    /**
     * The real location of {@code path}, following links (a final link too). Existing parts are real paths;
     * a missing tail is appended as plain names. The root itself is allowed.
     */
    public Path resolve(RelativePath path) {
        return walk(path.segments());
    }

    /** {@link #resolveEntry(RelativePath)} of a client string. */
    public Path resolveEntry(String raw) {
        return resolveEntry(RelativePath.parse(raw));
    }

    /**
     * The directory entry named by {@code path} itself: its parent resolved like {@link #resolve}, its last name
     * not followed. The entry may be a symbolic link (to anywhere) and need not exist.
     *
     * @throws WorkspaceException.Validation {@code INVALID_PATH} for the project root
     */
    public Path resolveEntry(RelativePath path) {
        if (path.isRoot()) {
            throw new WorkspaceException.Validation(FileErrorCodes.INVALID_PATH,
                    "the project root itself cannot be used here");
        }
        Path parent = walk(path.parent().segments());
        return parent.resolve(path.name());
    }

    /** The project-relative path of a host path inside the root ({@code /}-separated, {@code ""} for the root). */
    public String relativize(Path inside) {
        if (!inside.startsWith(root)) {
            throw new IllegalArgumentException("not inside the project");
        }
        StringBuilder out = new StringBuilder();
        for (Path part : root.relativize(inside)) {
            if (!part.toString().isEmpty()) {
                if (!out.isEmpty()) {
                    out.append('/');
                }
                out.append(part);
            }
        }
        return out.toString();
    }

    /** {@code true} when {@code real} (a real path) is the root or below it. */
    public boolean contains(Path real) {
        return real.startsWith(root);
    }

    private Path walk(List<String> segments) {
        Path current = root;
        for (int i = 0; i < segments.size(); i++) {
            Path next = current.resolve(segments.get(i));
            BasicFileAttributes attributes;
            try {
                attributes = Files.readAttributes(next, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException e) {
                Path rest = next;
                for (int j = i + 1; j < segments.size(); j++) {
                    rest = rest.resolve(segments.get(j));
                }
                return rest;
            } catch (IOException e) {
                throw invalid("the path cannot be examined");
            }
            boolean last = i == segments.size() - 1;
            if (attributes.isSymbolicLink()) {
                Path real;
                try {
                    real = next.toRealPath();
                } catch (NoSuchFileException e) {
                    throw invalid("the path goes through a broken symbolic link");
                } catch (FileSystemException e) {
                    throw invalid("the path goes through a symbolic link that cannot be resolved (a loop?)");
                } catch (IOException e) {
                    throw invalid("the path cannot be resolved");
                }
                if (!real.startsWith(root)) {
                    throw outside();
                }
                if (!last && !Files.isDirectory(real)) {
                    throw notADirectory();
                }
                current = real;
            } else {
                if (!last && !attributes.isDirectory()) {
                    throw notADirectory();
                }
                current = next;
            }
        }
        return current;
    }

    private static WorkspaceException invalid(String message) {
        return new WorkspaceException.Validation(FileErrorCodes.INVALID_PATH, message);
    }

    private static WorkspaceException outside() {
        return new WorkspaceException.Forbidden(FileErrorCodes.PATH_OUTSIDE_PROJECT,
                "the path leads outside the project");
    }

    private static WorkspaceException notADirectory() {
        return new WorkspaceException.Validation(FileErrorCodes.NOT_A_DIRECTORY,
                "a part of the path is a file, not a folder");
    }

    /**
     * The real path of the deepest existing ancestor of {@code p} (absolute), with the missing names appended: what
     * {@code p} will be once created, for confinement checks of paths that do not exist yet. {@code p} itself when
     * not even the root resolves.
     */
    public static Path realOfDeepestExisting(Path p) {
        Path existing = p;
        Path rest = null;
        while (existing != null) {
            try {
                Path real = existing.toRealPath();
                return rest == null ? real : real.resolve(rest);
            } catch (IOException e) {
                Path name = existing.getFileName();
                if (name == null) {
                    return p;
                }
                rest = rest == null ? name : name.resolve(rest);
                existing = existing.getParent();
            }
        }
        return p;
    }
}
