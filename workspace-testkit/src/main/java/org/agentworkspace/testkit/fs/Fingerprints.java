package org.agentworkspace.testkit.fs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Snapshots of a folder tree for attack tests: take one before an attack and compare after it, so a write, delete
 * or link change anywhere outside the attacked project is seen, not just at the canary the test thought of.
 */
public final class Fingerprints {
    private Fingerprints() {
    }

    /**
     * Every file, folder and symbolic link under {@code base} except what lies inside {@code inside} (which itself is
     * included), keyed by path relative to {@code base}: a regular file maps to the SHA-256 of its content, a link to
     * {@code link:<target>} (never followed), anything else to {@code dir}.
     */
    public static Map<String, String> outside(Path base, Path inside) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> all = Files.walk(base)) {
            for (Path p : all.toList()) {
                if (p.startsWith(inside) && !p.equals(inside)) {
                    continue;
                }
                String key = base.relativize(p).toString();
                if (Files.isSymbolicLink(p)) {
                    out.put(key, "link:" + Files.readSymbolicLink(p));
                } else if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    out.put(key, sha256(p));
                } else {
                    out.put(key, "dir");
                }
            }
        }
        return out;
    }

    /** The SHA-256 of the file's content, in lower-case hexadecimal. */
    public static String sha256(Path file) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
