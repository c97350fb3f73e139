package org.agentworkspace.core.projects;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.FileErrorCodes;
import org.agentworkspace.api.vcs.Vcs;
import org.agentworkspace.api.vcs.VcsErrorCodes;
import org.agentworkspace.api.vcs.VcsFactory;
import org.agentworkspace.api.vcs.VcsOptions;
import org.agentworkspace.core.files.FileLimits;
import org.agentworkspace.core.files.GuardedVcs;
import org.agentworkspace.core.files.PathGuard;
import org.agentworkspace.core.files.ProjectFiles;
import org.agentworkspace.core.files.VcsProviders;
import org.agentworkspace.core.store.Store;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * Project folders registered with the service (table {@code projects}), and the way in to their files and git.
 *
 * <p><b>Names.</b> A project's {@code name} is derived from its folder's real absolute path: the folder's own name
 * lower-cased with every run of characters other than {@code a-z 0-9} turned into one {@code -} (trimmed, at most
 * 40 characters, {@code project} when nothing is left), then {@code -} and the first 8 hexadecimal digits of the
 * SHA-256 of the real path's UTF-8 bytes: {@code /home/ann/My App} → {@code my-app-1f0c9e2a}. The same folder
 * always gets the same name (across restarts and re-registration); renaming only changes the display name. In the
 * unlikely case that two folders share the 8 digits, the later one gets 16 (then all 64).
 *
 * <p><b>Quick-start</b> ({@link #quickStart}) takes an absolute path, creates the folder (and its parents) when it is
 * missing, resolves symbolic links, and registers the real path (returning the existing project when it is already
 * registered). Refused: a path that is not absolute or holds a control character ({@code INVALID_PATH}); the
 * filesystem root, the service's data directory, anything inside it, and any folder that contains it
 * ({@code PATH_NOT_ALLOWED}: a project there would expose the store and the secret keys through the file API);
 * an existing file ({@code NOT_A_DIRECTORY}).
 *
 * <p><b>Use.</b> {@link #guard} re-resolves the folder at every use: a folder that vanished is
 * {@code DIRECTORY_NOT_FOUND}; a folder whose real location changed since registration (a component replaced by a
 * symbolic link) is {@code PATH_OUTSIDE_PROJECT}. Deregistering never touches the folder.
 */
public final class ProjectRegistry {
    private static final int MAX_PATH = 4096;
    private static final int MAX_DISPLAY_NAME = 200;
    private static final int MAX_SLUG = 40;
    private static final int[] HASH_LENGTHS = {8, 16, 64};

    private final Store store;
    private final Clock clock;
    private final Path dataDir;
    private final VcsProviders vcs;
    private final ProjectRoots roots;
    private final java.util.concurrent.atomic.AtomicLong version = new java.util.concurrent.atomic.AtomicLong();

    private ProjectRegistry(Store store, Clock clock, Path dataDir, VcsProviders vcs, ProjectRoots roots) {
        this.store = store;
        this.clock = clock;
        this.dataDir = dataDir;
        this.vcs = vcs;
        this.roots = roots;
    }

    /**
     * The registry in {@code store}.
     *
     * @param dataDir the service's data directory (never registrable, nor anything inside or above it)
     * @param vcs     the version-control implementations git access is opened with
     */
    public static ProjectRegistry create(Store store, Clock clock, Path dataDir, VcsProviders vcs) {
        return create(store, clock, dataDir, vcs, ProjectRoots.unrestricted(dataDir));
    }

    /**
     * The registry in {@code store}, whose projects must lie where {@code roots} allows (checked at registration and
     * at every use).
     */
    public static ProjectRegistry create(Store store, Clock clock, Path dataDir, VcsProviders vcs,
                                         ProjectRoots roots) {
        Path real;
        try {
            real = dataDir.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("the data directory cannot be resolved", e);
        }
        return new ProjectRegistry(Objects.requireNonNull(store), Objects.requireNonNull(clock), real,
                Objects.requireNonNull(vcs), Objects.requireNonNull(roots));
    }

    /** Where projects and run working directories may be. */
    public ProjectRoots roots() {
        return roots;
    }

    // ------------------------------------------------------------------ names

    /** Moves with every registration, rename and deregistration made through this registry (for caches). */
    public long version() {
        return version.get();
    }

    private int written(int rows) {
        version.incrementAndGet();
        return rows;
    }

    /** The name of the folder at {@code realPath} (with the shortest hash); see the class description. */
    public static String nameFor(Path realPath) {
        return nameFor(realPath, HASH_LENGTHS[0]);
    }

    private static String nameFor(Path realPath, int hashDigits) {
        return slug(realPath) + "-" + sha256(realPath.toString()).substring(0, hashDigits);
    }

    private static String slug(Path realPath) {
        Path file = realPath.getFileName();
        String base = file == null ? "" : file.toString().toLowerCase(Locale.ROOT);
        StringBuilder b = new StringBuilder();
        boolean dash = false;
        for (int i = 0; i < base.length(); i++) {
            char c = base.charAt(i);
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
                b.append(c);
                dash = false;
            } else if (!dash && !b.isEmpty()) {
                b.append('-');
                dash = true;
            }
        }
        String s = b.toString();
        if (s.length() > MAX_SLUG) {
            s = s.substring(0, MAX_SLUG);
        }
        while (s.endsWith("-")) {
            s = s.substring(0, s.length() - 1);
        }
        return s.isEmpty() ? "project" : s;
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String defaultDisplayName(Path realPath) {
        Path file = realPath.getFileName();
        return file == null ? realPath.toString() : file.toString();
    }

    // ------------------------------------------------------------------ registry

    /** Registers the folder at {@code path} (creating it when missing), or returns it when already registered. */
    public RegisteredProject quickStart(String path) {
        return quickStart(path, true).project();
    }

    /** A quick-start's project, and whether its folder was created by it. */
    public record QuickStart(RegisteredProject project, boolean created) {
    }

    /**
     * Registers the folder at {@code path}, or returns it when already registered. A missing folder is created only
     * when {@code create} is set (a mistyped path otherwise gets {@code DIRECTORY_NOT_FOUND}).
     */
    public QuickStart quickStart(String path, boolean create) {
        Path requested = absolute(path);
        checkAllowed(PathGuard.realOfDeepestExisting(requested));
        boolean created = false;
        if (!Files.exists(requested)) {
            if (!create) {
                throw new WorkspaceException.NotFound(ProjectErrorCodes.DIRECTORY_NOT_FOUND, "the folder "
                        + printable(requested.toString()) + " does not exist; send \"create\": true to create it");
            }
            try {
                Files.createDirectories(requested);
                created = true;
            } catch (FileAlreadyExistsException e) {
                throw new WorkspaceException.Validation(FileErrorCodes.NOT_A_DIRECTORY, "the path names a file");
            } catch (IOException e) {
                throw new WorkspaceException.Validation(FileErrorCodes.INVALID_PATH,
                        "the folder does not exist and cannot be created");
            }
        }
        Path real;
        try {
            real = requested.toRealPath();
        } catch (IOException e) {
            throw new WorkspaceException.NotFound(ProjectErrorCodes.DIRECTORY_NOT_FOUND, "the folder cannot be found");
        }
        checkAllowed(real);
        if (!Files.isDirectory(real)) {
            throw new WorkspaceException.Validation(FileErrorCodes.NOT_A_DIRECTORY, "the path names a file");
        }
        return new QuickStart(register(real), created);
    }

    /**
     * Refuses a folder, existing or not yet (a clone target), that may not be a project or a run's working
     * directory: the real path of its deepest existing ancestor, with the missing names appended, is checked.
     */
    public void checkLocation(Path dir) {
        checkAllowed(PathGuard.realOfDeepestExisting(dir.toAbsolutePath().normalize()));
    }

    /**
     * Refuses a folder that may not be a project or a run's working directory (its real path is checked against
     * the roots: {@link ProjectRoots#check}); returns the real path.
     */
    public Path checkWorkingDirectory(Path dir) {
        Path real;
        try {
            real = dir.toRealPath();
        } catch (IOException e) {
            throw new WorkspaceException.NotFound(ProjectErrorCodes.DIRECTORY_NOT_FOUND, "the folder cannot be found");
        }
        checkAllowed(real);
        return real;
    }

    private RegisteredProject register(Path real) {
        String path = real.toString();
        for (int digits : HASH_LENGTHS) {
            String name = nameFor(real, digits);
            Optional<RegisteredProject> existing = find(name);
            if (existing.isPresent()) {
                if (existing.get().path().equals(path)) {
                    return existing.get();
                }
                continue; // another folder has this name: take more digits
            }
            long now = clock.millis();
            try {
                written(store.write(h -> h.createUpdate("INSERT INTO projects (name, display_name, path, created_at) "
                                + "VALUES (:n, :d, :p, :t)")
                        .bind("n", name).bind("d", defaultDisplayName(real)).bind("p", path).bind("t", now)
                        .execute()));
                return new RegisteredProject(name, defaultDisplayName(real), path, Instant.ofEpochMilli(now));
            } catch (JdbiException e) {
                if (Store.isUniqueViolation(e)) {
                    // registered concurrently: look again
                    Optional<RegisteredProject> raced = find(name);
                    if (raced.isPresent() && raced.get().path().equals(path)) {
                        return raced.get();
                    }
                    continue;
                }
                throw Store.unavailable(e);
            }
        }
        throw new IllegalStateException("no free project name for the folder");
    }

    /** The project with this name. */
    public Optional<RegisteredProject> find(String name) {
        if (name == null || name.isEmpty() || name.length() > 200) {
            return Optional.empty();
        }
        try {
            return store.read(h -> h.createQuery("SELECT * FROM projects WHERE name = :n").bind("n", name)
                    .map(ROW).findOne());
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
    }

    /**
     * The project with this name, or the one project a person meant by it ({@link #lookup}: its display name, its
     * folder's path, its name without the hash), or {@code PROJECT_NOT_FOUND} naming the candidates.
     */
    public RegisteredProject get(String name) {
        return lookup(name).orElseThrow(() -> notFound(name, candidates(name)));
    }

    /**
     * What a person typed for a project: its name, else the one registered project whose display name (ignoring
     * case) or folder path is exactly {@code typed}, else the one whose name is {@code typed} plus the hash suffix.
     * Empty when nothing or more than one project matches.
     */
    public Optional<RegisteredProject> lookup(String typed) {
        Optional<RegisteredProject> exact = find(typed);
        if (exact.isPresent() || typed == null || typed.isEmpty() || typed.length() > MAX_PATH) {
            return exact;
        }
        List<RegisteredProject> all = list();
        String path = typed.length() > 1 && typed.endsWith("/") ? typed.substring(0, typed.length() - 1) : typed;
        for (java.util.function.Predicate<RegisteredProject> rule : List.<java.util.function.Predicate<RegisteredProject>>of(
                p -> p.path().equals(path),
                p -> p.displayName().equalsIgnoreCase(typed),
                p -> p.name().startsWith(typed + "-") && p.name().substring(typed.length() + 1).matches("[0-9a-f]{8,64}"))) {
            List<RegisteredProject> hits = all.stream().filter(rule).toList();
            if (hits.size() == 1) {
                return Optional.of(hits.getFirst());
            }
            if (hits.size() > 1) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** The names of the registered projects {@code typed} could mean (display name, path, name without hash). */
    public List<String> candidates(String typed) {
        if (typed == null || typed.isEmpty() || typed.length() > MAX_PATH) {
            return List.of();
        }
        String t = typed.toLowerCase(Locale.ROOT);
        return list().stream().filter(p -> p.displayName().equalsIgnoreCase(typed) || p.path().equals(typed)
                || p.name().startsWith(t + "-")).map(RegisteredProject::name).limit(5).toList();
    }

    /**
     * Every registered project, oldest first. This is the one list of registered projects; the unified project
     * list (with projects found in provider histories) is built on it.
     */
    public List<RegisteredProject> list() {
        try {
            return store.read(h -> h.createQuery("SELECT * FROM projects ORDER BY created_at, id").map(ROW).list());
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
    }

    /** Sets the display name; blank restores the folder's name. The project's {@code name} never changes. */
    public RegisteredProject rename(String name, String displayName) {
        if (displayName == null) {
            throw WorkspaceException.Validation.of("displayName is required");
        }
        String shown = displayName.strip();
        if (shown.length() > MAX_DISPLAY_NAME) {
            throw WorkspaceException.Validation.of("displayName is longer than " + MAX_DISPLAY_NAME + " characters");
        }
        for (int i = 0; i < shown.length(); i++) {
            if (Character.isISOControl(shown.charAt(i))) {
                throw WorkspaceException.Validation.of("displayName contains a control character");
            }
        }
        RegisteredProject p = get(name);
        String value = shown.isEmpty() ? defaultDisplayName(Path.of(p.path())) : shown;
        int n;
        try {
            n = written(store.write(h -> h.createUpdate("UPDATE projects SET display_name = :d WHERE name = :n")
                    .bind("d", value).bind("n", name).execute()));
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        if (n == 0) {
            throw notFound(name);
        }
        return new RegisteredProject(p.name(), value, p.path(), p.createdAt());
    }

    /** Deregisters the project. Its folder and files are left as they are. */
    public void delete(String name) {
        int n;
        try {
            n = written(store.write(h -> h.createUpdate("DELETE FROM projects WHERE name = :n").bind("n", name).execute()));
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        if (n == 0) {
            throw notFound(name);
        }
    }

    // ------------------------------------------------------------------ access

    /** The confinement guard of the project's folder, resolved now; see the class description. */
    public PathGuard guard(String name) {
        RegisteredProject p = get(name);
        Path registered = Path.of(p.path());
        Path real;
        try {
            real = registered.toRealPath();
        } catch (NoSuchFileException e) {
            throw missingFolder();
        } catch (IOException e) {
            throw missingFolder();
        }
        if (!real.equals(registered)) {
            throw new WorkspaceException.Forbidden(FileErrorCodes.PATH_OUTSIDE_PROJECT,
                    "the project folder now leads somewhere else (a part of its path was replaced by a link)");
        }
        if (!Files.isDirectory(real)) {
            throw missingFolder();
        }
        checkAllowed(real);
        try {
            return PathGuard.create(real);
        } catch (IllegalArgumentException e) {
            throw missingFolder();
        }
    }

    /** The project's files under {@code limits}. */
    public ProjectFiles files(String name, FileLimits limits) {
        return ProjectFiles.create(guard(name), limits);
    }

    /**
     * The project's git working tree, with file paths confined like the file API. Close it after use.
     *
     * @throws WorkspaceException.Conflict {@code NOT_A_GIT_REPOSITORY} when the folder is not a working tree's root
     * @throws WorkspaceException.Unavailable {@code GIT_UNAVAILABLE} when no git implementation is installed
     */
    public Vcs git(String name, VcsOptions options) {
        PathGuard guard = guard(name);
        VcsFactory factory = vcs.find("git").orElseThrow(() -> new WorkspaceException.Unavailable(
                VcsErrorCodes.GIT_UNAVAILABLE, "git support is not installed", null));
        return GuardedVcs.open(factory, guard, options);
    }

    // ------------------------------------------------------------------ checks

    private static Path absolute(String raw) {
        if (raw == null || raw.isBlank()) {
            throw WorkspaceException.Validation.of("path is required");
        }
        if (raw.length() > MAX_PATH) {
            throw invalid("the path is longer than " + MAX_PATH + " characters");
        }
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                throw invalid("the path contains a control character");
            }
        }
        Path p;
        try {
            p = Path.of(raw);
        } catch (InvalidPathException e) {
            throw invalid("not a valid path");
        }
        if (!p.isAbsolute()) {
            throw invalid("give an absolute path");
        }
        return p.normalize();
    }

    private void checkAllowed(Path real) {
        if (real.getParent() == null) {
            throw notAllowed("the filesystem root cannot be a project");
        }
        if (real.startsWith(dataDir) || dataDir.startsWith(real)) {
            throw notAllowed("the service's data directory, and folders inside or around it, cannot be projects");
        }
        roots.check(real);
    }

    private static WorkspaceException invalid(String message) {
        return new WorkspaceException.Validation(FileErrorCodes.INVALID_PATH, message);
    }

    private static WorkspaceException notAllowed(String message) {
        return new WorkspaceException.Forbidden(FileErrorCodes.PATH_NOT_ALLOWED, message);
    }

    private static WorkspaceException notFound(String name) {
        return notFound(name, List.of());
    }

    /** {@code PROJECT_NOT_FOUND}, naming the projects {@code name} could mean. */
    public static WorkspaceException notFound(String name, List<String> candidates) {
        return new WorkspaceException.NotFound(ProjectErrorCodes.PROJECT_NOT_FOUND, "no project named '"
                + printable(name) + "'" + (candidates.isEmpty() ? "; GET /api/projects lists the project names"
                : "; did you mean " + String.join(" or ", candidates.stream().map(c -> "'" + c + "'").toList())
                + "?"));
    }

    private static WorkspaceException missingFolder() {
        return new WorkspaceException.NotFound(ProjectErrorCodes.DIRECTORY_NOT_FOUND,
                "the project's folder no longer exists");
    }

    private static String printable(String s) {
        if (s == null) {
            return "";
        }
        String cut = s.length() > 80 ? s.substring(0, 80) + "…" : s;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }

    private static final RowMapper<RegisteredProject> ROW = (rs, ctx) -> new RegisteredProject(rs.getString("name"),
            rs.getString("display_name"), rs.getString("path"), Instant.ofEpochMilli(rs.getLong("created_at")));
}
