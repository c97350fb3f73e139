package org.agentworkspace.core.auth;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The one-time setup token of a fresh installation: while no account exists, registering the first (administrator)
 * account from anywhere but this machine needs it, so a service that is reachable over the network (a LAN bind, a
 * tunnel, a reverse proxy) cannot be claimed by whoever finds it first.
 *
 * <p>The token (32 random bytes, base64url) is written to {@code <dataDir>/setup-token}, readable by the owner only,
 * and is never logged: whoever can read the data directory is the owner. It is deleted once the first account
 * exists. A new one is made at every start while setup is still open.
 */
public final class SetupToken {
    /** File name of the token inside the data directory. */
    public static final String FILE_NAME = "setup-token";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path file;
    private volatile byte[] value;

    private SetupToken(Path file, byte[] value) {
        this.file = file;
        this.value = value;
    }

    /** A token that accepts nothing (setup is already complete). */
    public static SetupToken none(Path dataDir) {
        return new SetupToken(dataDir.resolve(FILE_NAME), null);
    }

    /**
     * Makes a new token and writes it to {@code <dataDir>/setup-token} (owner read/write only, written to a temporary
     * file first and renamed, replacing an older one).
     */
    public static SetupToken issue(Path dataDir) {
        byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        String text = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        Path file = dataDir.resolve(FILE_NAME);
        try {
            Path tmp = Files.createTempFile(dataDir, ".setup-token", ".tmp",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try {
                Files.writeString(tmp, text + "\n", StandardCharsets.US_ASCII);
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the setup token to " + file, e);
        }
        return new SetupToken(file, text.getBytes(StandardCharsets.US_ASCII));
    }

    /** Where the token is kept (whether or not one is outstanding). */
    public Path file() {
        return file;
    }

    /** Whether a token is outstanding. */
    public boolean outstanding() {
        return value != null;
    }

    /** Whether {@code candidate} is the outstanding token (constant-time comparison; false when none is). */
    public boolean accepts(String candidate) {
        byte[] v = value;
        if (v == null || candidate == null) {
            return false;
        }
        return MessageDigest.isEqual(v, candidate.strip().getBytes(StandardCharsets.US_ASCII));
    }

    /** Retires the token: it accepts nothing afterwards and its file is deleted. */
    public void spend() {
        value = null;
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            System.getLogger(SetupToken.class.getName()).log(System.Logger.Level.WARNING,
                    "could not delete " + file + ": " + e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "SetupToken[" + (outstanding() ? "outstanding" : "none") + ", file=" + file + "]";
    }

}
