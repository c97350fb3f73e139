package org.agentworkspace.api.provider;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where to look for a provider's binary, in this order:
 * <ol>
 * <li>our own install directory {@code <cliBinDir>/node_modules/.bin/<name>}, then {@code <cliBinDir>/bin/<name>}
 *     (npm installs with {@code --prefix <cliBinDir>} land in the first);</li>
 * <li>each absolute directory of PATH (relative entries such as {@code .} are ignored);</li>
 * <li>the configured path: the binary itself, or a directory holding it.</li>
 * </ol>
 * A candidate counts only if it is a regular file (after following links) and executable.
 *
 * @param cliBinDir our install directory (usually {@code <dataDir>/cli-bin}), or {@code null}
 * @param pathDirs the PATH directories to search
 * @param configuredPath an operator-configured binary or directory, or {@code null}
 */
public record BinaryLocator(Path cliBinDir, List<Path> pathDirs, Path configuredPath) {

    public BinaryLocator {
        pathDirs = pathDirs == null ? List.of() : pathDirs.stream().filter(Objects::nonNull)
                .filter(Path::isAbsolute).toList();
    }

    /** The usual locator: {@code <dataDir>/cli-bin}, the given PATH value, and an optional configured path. */
    public static BinaryLocator create(Path dataDir, String pathVariable, Path configuredPath) {
        List<Path> dirs = new ArrayList<>();
        if (pathVariable != null) {
            for (String entry : pathVariable.split(File.pathSeparator)) {
                if (!entry.isEmpty()) {
                    Path p = Path.of(entry);
                    if (p.isAbsolute()) {
                        dirs.add(p);
                    }
                }
            }
        }
        return new BinaryLocator(dataDir.resolve("cli-bin"), dirs, configuredPath);
    }

    /** Every path that would be tried for these binary names, in order. */
    public List<Path> candidates(List<String> names) {
        List<Path> out = new ArrayList<>();
        if (cliBinDir != null) {
            for (String n : names) {
                out.add(cliBinDir.resolve("node_modules").resolve(".bin").resolve(n));
                out.add(cliBinDir.resolve("bin").resolve(n));
            }
        }
        for (Path dir : pathDirs) {
            for (String n : names) {
                out.add(dir.resolve(n));
            }
        }
        if (configuredPath != null) {
            if (Files.isDirectory(configuredPath)) {
                for (String n : names) {
                    out.add(configuredPath.resolve(n));
                }
            } else {
                out.add(configuredPath);
            }
        }
        return out;
    }

    /** The first executable candidate for these names. */
    public Optional<Path> find(List<String> names) {
        for (String n : names) {
            if (n.isEmpty() || n.contains("/") || n.contains(File.separator)) {
                throw new IllegalArgumentException("binary names are plain file names");
            }
        }
        return candidates(names).stream()
                .filter(p -> Files.isRegularFile(p) && Files.isExecutable(p))
                .map(Path::toAbsolutePath)
                .findFirst();
    }
}
