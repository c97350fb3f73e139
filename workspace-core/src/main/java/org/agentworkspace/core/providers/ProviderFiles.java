package org.agentworkspace.core.providers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.files.FileErrorCodes;
import org.agentworkspace.core.store.SecureFiles;

/**
 * Reading and writing the CLIs' own files: never through a symbolic link (a catalog file that is a link is refused
 * with 409 {@code CONFLICT}: writing through it could change any file the link points at), at most
 * {@link #MAX_BYTES}, and atomically (a temporary file in the same folder, then a rename), keeping the file's mode
 * (0600 for a new file). Edits of one file are serialised within this process.
 */
final class ProviderFiles {
    /** Largest config file read or written. */
    static final int MAX_BYTES = 1 << 20;
    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rw-------");

    private final ProviderPaths paths;
    private final Map<Path, ReentrantLock> locks = new ConcurrentHashMap<>();

    ProviderFiles(ProviderPaths paths) {
        this.paths = paths;
    }

    /** Runs {@code work} holding the file's lock. */
    <T> T locked(Path file, java.util.function.Supplier<T> work) {
        ReentrantLock lock = locks.computeIfAbsent(file.toAbsolutePath().normalize(), p -> new ReentrantLock());
        lock.lock();
        try {
            return work.get();
        } finally {
            lock.unlock();
        }
    }

    /** The file's text, or empty when it does not exist. */
    Optional<String> read(Path file) {
        try {
            if (Files.isSymbolicLink(file)) {
                throw link(file);
            }
            if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                return Optional.empty();
            }
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                throw new WorkspaceException.Conflict(ErrorCodes.CONFLICT, paths.display(file)
                        + " is not a regular file");
            }
            if (Files.size(file) > MAX_BYTES) {
                throw new WorkspaceException.PayloadTooLarge(FileErrorCodes.FILE_TOO_LARGE, paths.display(file)
                        + " is larger than " + MAX_BYTES + " bytes");
            }
            return Optional.of(Files.readString(file, StandardCharsets.UTF_8));
        } catch (java.nio.charset.MalformedInputException e) {
            throw new WorkspaceException.Conflict(ErrorCodes.CONFLICT, paths.display(file) + " is not UTF-8 text");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + paths.display(file), e);
        }
    }

    /**
     * Replaces the file's content atomically, creating missing parent folders (0700).
     *
     * @param backup where to keep the previous content (0600), or {@code null}
     */
    void write(Path file, String content, Path backup) {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_BYTES) {
            throw new WorkspaceException.PayloadTooLarge(FileErrorCodes.FILE_TOO_LARGE, "the content is larger than "
                    + MAX_BYTES + " bytes");
        }
        try {
            if (Files.isSymbolicLink(file)) {
                throw link(file);
            }
            boolean exists = Files.exists(file, LinkOption.NOFOLLOW_LINKS);
            if (exists && !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                throw new WorkspaceException.Conflict(ErrorCodes.CONFLICT, paths.display(file)
                        + " is not a regular file");
            }
            Path dir = file.getParent();
            if (!Files.isDirectory(dir)) {
                SecureFiles.ensurePrivateDirectory(dir);
            }
            Set<PosixFilePermission> mode = exists ? Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS)
                    : PRIVATE;
            if (exists && backup != null) {
                SecureFiles.ensurePrivateDirectory(backup.getParent());
                Path tmpBackup = backup.resolveSibling(backup.getFileName() + ".tmp-" + UUID.randomUUID());
                Files.copy(file, tmpBackup, LinkOption.NOFOLLOW_LINKS);
                Files.setPosixFilePermissions(tmpBackup, PRIVATE);
                move(tmpBackup, backup);
            }
            Path tmp = dir.resolve("." + file.getFileName() + ".aw-" + UUID.randomUUID() + ".tmp");
            try {
                Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PRIVATE));
                try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
                    ch.write(java.nio.ByteBuffer.wrap(bytes));
                    ch.force(true);
                }
                Files.setPosixFilePermissions(tmp, mode);
                move(tmp, file);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + paths.display(file), e);
        }
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private WorkspaceException link(Path file) {
        return new WorkspaceException.Conflict(ErrorCodes.CONFLICT, paths.display(file)
                + " is a symbolic link; edit the file it points to directly");
    }
}
