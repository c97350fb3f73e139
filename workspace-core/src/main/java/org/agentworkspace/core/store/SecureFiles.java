package org.agentworkspace.core.store;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Set;

/** Files only the service user may read: the data directory (0700), secrets and the database (0600). */
public final class SecureFiles {
    private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> DIR = PosixFilePermissions.fromString("rwx------");

    private SecureFiles() {
    }

    /** Creates the directory (and parents) if missing; a directory this call creates gets mode 0700. */
    public static void ensurePrivateDirectory(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            return;
        }
        Files.createDirectories(dir);
        setIfPosix(dir, DIR);
    }

    /** Creates an empty file with mode 0600 from the start (no window in which it is readable by others). */
    public static void createPrivateFile(Path file) throws IOException {
        ensurePrivateDirectory(file.getParent());
        try {
            if (posix(file.getParent())) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(FILE));
            } else {
                Files.createFile(file);
            }
        } catch (FileAlreadyExistsException e) {
            // someone else created it first: fine, modes are checked by the reader
        }
    }

    /**
     * Reads a random secret of {@code length} bytes from {@code file}, creating it (mode 0600, written to a temporary
     * file and renamed into place) when missing. A file of the wrong length is an error, never silently replaced.
     */
    public static byte[] loadOrCreateSecret(Path file, int length) throws IOException {
        if (Files.exists(file)) {
            byte[] bytes = Files.readAllBytes(file);
            if (bytes.length != length) {
                throw new IOException("secret file " + file.getFileName() + " has the wrong length");
            }
            setIfPosix(file, FILE);
            return bytes;
        }
        byte[] secret = new byte[length];
        new SecureRandom().nextBytes(secret);
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp-" + ProcessHandle.current().pid());
        Files.deleteIfExists(tmp);
        createPrivateFile(tmp);
        Files.write(tmp, secret);
        try {
            // a hard link never replaces an existing file: if another process won the race, use its secret
            Files.createLink(file, tmp);
        } catch (FileAlreadyExistsException e) {
            return loadOrCreateSecret(file, length);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return secret;
    }

    private static boolean posix(Path p) {
        return Files.getFileAttributeView(p, java.nio.file.attribute.PosixFileAttributeView.class) != null;
    }

    private static void setIfPosix(Path p, Set<PosixFilePermission> perms) throws IOException {
        if (posix(p)) {
            Files.setPosixFilePermissions(p, perms);
        }
    }
}
