package org.agentworkspace.core.projects;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.FileErrorCodes;

/**
 * Which folders may become a project or a run's working directory (docs/auth.md "Project roots"). A folder is
 * allowed when its real path is a root or lies below one ({@code --project-roots}; by default the service's home
 * folder) and none of these hold:
 * <ul>
 *   <li>it is the filesystem root, or a system folder ({@code /proc}, {@code /sys}, {@code /dev}, {@code /etc},
 *       {@code /boot}, {@code /usr}, {@code /bin}, {@code /sbin}, {@code /lib*}, {@code /run}) or inside one;</li>
 *   <li>it is the home folder or a folder above it (that would expose {@code ~/.ssh} and the other hidden folders
 *       through the file API);</li>
 *   <li>a folder between the root and it is hidden (its name starts with {@code .}: {@code ~/.ssh}, {@code ~/.config},
 *       {@code ~/.local}, {@code ~/.npm-global} …);</li>
 *   <li>it is inside the data directory or holds it;</li>
 *   <li>it is, or holds, a folder the service takes CLI binaries from (the folders of {@code PATH}, the
 *       configured {@code --cli-path} folders, the npm prefix of the install jobs) or the folder a CLI's link there
 *       leads to: the file API of such a project could overwrite an executable a later run starts.</li>
 * </ul>
 * Checks compare real paths (links resolved), so a link cannot lead a project out of its root.
 */
public final class ProjectRoots {
    private static final List<Path> SYSTEM = List.of("/proc", "/sys", "/dev", "/etc", "/boot", "/usr", "/bin",
            "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/run").stream().map(Path::of).toList();

    private final List<Path> roots;
    private final Path home;
    private final Path dataDir;
    private final List<Path> cliFolders;

    private ProjectRoots(List<Path> roots, Path home, Path dataDir, List<Path> cliFolders) {
        this.roots = roots;
        this.home = home;
        this.dataDir = dataDir;
        this.cliFolders = cliFolders;
    }

    /**
     * @param roots      the allowed roots (absolute); resolved to their real paths when they exist
     * @param home       the service's home folder
     * @param dataDir    the data directory
     * @param cliFolders folders the service takes CLI binaries from (missing ones are kept as given)
     */
    public static ProjectRoots create(List<Path> roots, Path home, Path dataDir, List<Path> cliFolders) {
        Objects.requireNonNull(roots, "roots");
        if (roots.isEmpty()) {
            throw new IllegalArgumentException("at least one project root is needed");
        }
        List<Path> r = new ArrayList<>();
        for (Path p : roots) {
            if (!p.isAbsolute()) {
                throw new IllegalArgumentException("project roots must be absolute folders: " + p);
            }
            r.add(real(p));
        }
        List<Path> cli = new ArrayList<>();
        for (Path p : cliFolders) {
            if (p != null && p.isAbsolute()) {
                cli.add(real(p));
            }
        }
        return new ProjectRoots(List.copyOf(r), real(home), real(dataDir), List.copyOf(cli));
    }

    /** Only the filesystem root and the data directory (with its surroundings) refused: for embedders and tests. */
    public static ProjectRoots unrestricted(Path dataDir) {
        return new ProjectRoots(List.of(Path.of("/")), null, real(dataDir), List.of());
    }

    /** The allowed roots (real paths). */
    public List<Path> roots() {
        return roots;
    }

    /** The folders holding CLI binaries that no project may be in or hold. */
    public List<Path> cliFolders() {
        return cliFolders;
    }

    /** The same policy with more CLI folders (the configured binaries the server knows of). */
    public ProjectRoots withCliFolders(List<Path> more) {
        List<Path> cli = new ArrayList<>(cliFolders);
        for (Path p : more) {
            if (p != null && p.isAbsolute()) {
                cli.add(real(p));
            }
        }
        return new ProjectRoots(roots, home, dataDir, List.copyOf(cli));
    }

    private static Path real(Path p) {
        Path n = p.toAbsolutePath().normalize();
        try {
            return n.toRealPath();
        } catch (IOException e) {
            return n;
        }
    }

    /**
     * Refuses a folder (given by its real path) that may not be a project or a working directory.
     *
     * @throws WorkspaceException.Forbidden {@code PATH_NOT_ALLOWED}, naming the rule
     */
    public void check(Path real) {
        if (real.getParent() == null) {
            throw notAllowed("the filesystem root cannot be a project");
        }
        if (real.startsWith(dataDir) || dataDir.startsWith(real)) {
            throw notAllowed("the service's data directory, and folders inside or around it, cannot be projects");
        }
        for (Path sys : SYSTEM) {
            if (real.startsWith(sys)) {
                throw notAllowed(sys + " and the folders inside it cannot be projects");
            }
        }
        if (home != null && home.startsWith(real)) {
            throw notAllowed("the home folder, and the folders that hold it, cannot be projects (they would expose "
                    + "~/.ssh and the other hidden folders)");
        }
        for (Path cli : cliFolders) {
            if (cli.startsWith(real)) {
                throw notAllowed("a folder the service runs CLI programs from (" + cli
                        + "), and the folders that hold it, cannot be projects");
            }
        }
        Path root = null;
        for (Path r : roots) {
            if (real.startsWith(r) && (root == null || r.getNameCount() > root.getNameCount())) {
                root = r;
            }
        }
        if (root == null) {
            throw notAllowed("the folder is outside the project roots (" + String.join(", ",
                    roots.stream().map(Path::toString).toList()) + "); an administrator can add roots with "
                    + "--project-roots");
        }
        Path below = root.relativize(real);
        for (Path name : below) {
            if (name.toString().startsWith(".")) {
                throw notAllowed("hidden folders (" + name + ") cannot be projects or lie above one");
            }
        }
    }

    private static WorkspaceException notAllowed(String message) {
        return new WorkspaceException.Forbidden(FileErrorCodes.PATH_NOT_ALLOWED, message);
    }
}
