package org.agentworkspace.core.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.zip.CRC32;

/**
 * The SQLite driver's native library, extracted once into a private directory instead of on every start.
 *
 * <p>Left alone, sqlite-jdbc looks up the platform on each start (on Linux it runs {@code uname -o}, a child
 * process, to rule out Termux), copies its library from the jar into {@code java.io.tmpdir} under a random name,
 * reads both copies back byte by byte to compare them, and loads the copy. {@link #prepare} instead keeps one copy
 * per driver build in {@code DIR/sqlite-jdbc-VERSION-CRC/} (mode 0700, the file 0500), written to a temporary file
 * and renamed into place, and checked against the jar entry's size and CRC-32 before every use, so a truncated or
 * foreign file is replaced rather than loaded. It then points the driver at it through the
 * {@code org.sqlite.lib.path} and {@code org.sqlite.lib.name} system properties, which the driver reads when it
 * first loads.
 *
 * <p>Nothing is changed when the user set either property, when the driver's library was already loaded in this
 * JVM, or when the platform is not one this class recognises with certainty (Linux with glibc or musl, macOS,
 * Windows, on x86-64 or AArch64; not Android): the driver then finds its library its own way. A directory that
 * cannot be written is not an error either: the driver's own extraction still works.
 *
 * <p>Why not the driver's own loading (issue #19; docs/benchmarks.md "Hand-copies kept"): the start-up benchmark
 * ({@code bench/startup}, "What each step gave") measured the driver's per-start extraction at 1,116 ms to
 * {@code /health} (1.74 s CPU) against 1,012 ms (1.69 s) with this class, alternating; the restart's complete project
 * list, whose target is 1 s, took 0.69-1.38 s with it (the history benchmark's runs 12-16, over the target in
 * several), so another ~100 ms would miss it more often. The driver's own loading remains the path whenever this class steps aside (see above).
 */
public final class SqliteNative {
    private static final System.Logger LOG = System.getLogger(SqliteNative.class.getName());
    static final String LIB_PATH = "org.sqlite.lib.path";
    static final String LIB_NAME = "org.sqlite.lib.name";
    private static final Object LOCK = new Object();
    private static boolean prepared;

    private SqliteNative() {
    }

    /** Where the driver's library for this platform lies in its jar, e.g. {@code Linux/x86_64/libsqlitejdbc.so}. */
    record Platform(String folder, String arch, String fileName) {
        String resource() {
            return "/org/sqlite/native/" + folder + "/" + arch + "/" + fileName;
        }
    }

    /**
     * Makes the driver load its library from {@code dir} (see the class comment); at most once per JVM. Call it
     * before the first SQLite connection is opened.
     */
    public static void prepare(Path dir) {
        synchronized (LOCK) {
            if (prepared) {
                return;
            }
            prepared = true;
            if (System.getProperty(LIB_PATH) != null || System.getProperty(LIB_NAME) != null) {
                return;
            }
            Map<String, String> props = new java.util.HashMap<>();
            for (String key : new String[] {"os.name", "os.arch", "java.runtime.name"}) {
                props.put(key, System.getProperty(key, ""));
            }
            Optional<Platform> platform = platform(props, System.getenv(), Path.of("/proc/self/maps"));
            if (platform.isEmpty()) {
                return;
            }
            try {
                Optional<Path> lib = extract(dir, platform.get());
                if (lib.isPresent()) {
                    System.setProperty(LIB_PATH, lib.get().getParent().toString());
                    System.setProperty(LIB_NAME, lib.get().getFileName().toString());
                }
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.INFO, "the SQLite native library is extracted by the driver itself ({0})",
                        String.valueOf(e.getMessage()));
            }
        }
    }

    /**
     * The platform's library in the driver's jar, or empty when not recognised with certainty.
     *
     * @param props system properties ({@code os.name}, {@code os.arch}, {@code java.runtime.name})
     * @param maps  the process's memory map ({@code /proc/self/maps}) on Linux, which names musl's loader when
     *              the C library is musl
     */
    static Optional<Platform> platform(Map<String, String> props, Map<String, String> env, Path maps) {
        String os = props.getOrDefault("os.name", "");
        String runtime = props.getOrDefault("java.runtime.name", "");
        String arch = switch (props.getOrDefault("os.arch", "").toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64", "x86-64", "x64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            default -> null;
        };
        if (arch == null || runtime.contains("Android") || env.getOrDefault("PREFIX", "").contains("com.termux")) {
            return Optional.empty();
        }
        if (os.contains("Windows")) {
            return Optional.of(new Platform("Windows", arch, "sqlitejdbc.dll"));
        }
        if (os.contains("Mac") || os.contains("Darwin")) {
            return Optional.of(new Platform("Mac", arch, "libsqlitejdbc.dylib"));
        }
        if (os.equals("Linux")) {
            try {
                String mapped = Files.readString(maps);
                return Optional.of(new Platform(mapped.contains("musl") ? "Linux-Musl" : "Linux", arch,
                        "libsqlitejdbc.so"));
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /**
     * Ensures {@code dir/sqlite-jdbc-VERSION-CRC/NAME} holds exactly the jar's library for {@code platform} and
     * returns it; empty when the driver's jar has no library for it. Copies of other driver builds in {@code dir}
     * are removed when a new one is written.
     */
    static Optional<Path> extract(Path dir, Platform platform) throws IOException {
        URL url = org.sqlite.SQLiteJDBCLoader.class.getResource(platform.resource());
        if (url == null) {
            return Optional.empty();
        }
        Expected expected = expected(url);
        String version = org.sqlite.SQLiteJDBCLoader.getVersion().replaceAll("[^0-9A-Za-z.]", "_");
        Path home = dir.resolve("sqlite-jdbc-" + version + "-" + platform.folder() + "-" + platform.arch() + "-"
                + HexFormat.of().toHexDigits((int) expected.crc()));
        Path lib = home.resolve(platform.fileName());
        if (Files.isRegularFile(lib) && matches(lib, expected)) {
            return Optional.of(lib);
        }
        SecureFiles.ensurePrivateDirectory(dir);
        SecureFiles.ensurePrivateDirectory(home);
        Path tmp = Files.createTempFile(home, platform.fileName(), ".part");
        try {
            Expected written;
            try (InputStream in = open(url); OutputStream out = Files.newOutputStream(tmp)) {
                written = copy(in, out);
            }
            if (!written.equals(expected)) {
                throw new IOException("the copy of " + platform.resource() + " does not match the jar entry");
            }
            if (Files.getFileAttributeView(tmp, PosixFileAttributeView.class) != null) {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("r-x------"));
            }
            try {
                Files.move(tmp, lib, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, lib, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
        removeOthers(dir, home);
        LOG.log(System.Logger.Level.DEBUG, "extracted the SQLite native library to {0}", lib);
        return Optional.of(lib);
    }

    /** The size and CRC-32 the library must have. */
    record Expected(long size, long crc) {
    }

    /** From the jar's directory when the library lies in a jar (no inflating), otherwise by reading it once. */
    private static Expected expected(URL url) throws IOException {
        URLConnection c = url.openConnection();
        if (c instanceof JarURLConnection jar) {
            jar.setUseCaches(false);
            try (var file = jar.getJarFile()) {
                JarEntry entry = file.getJarEntry(jar.getEntryName());
                if (entry != null && entry.getSize() >= 0 && entry.getCrc() >= 0) {
                    return new Expected(entry.getSize(), entry.getCrc());
                }
            }
        }
        try (InputStream in = open(url)) {
            return copy(in, OutputStream.nullOutputStream());
        }
    }

    /** Copies {@code in} to {@code out}; the size and CRC-32 of what went through. */
    private static Expected copy(InputStream in, OutputStream out) throws IOException {
        CRC32 crc = new CRC32();
        long size = 0;
        byte[] buf = new byte[64 * 1024];
        for (int n; (n = in.read(buf)) > 0; ) {
            crc.update(buf, 0, n);
            out.write(buf, 0, n);
            size += n;
        }
        return new Expected(size, crc.getValue());
    }

    private static InputStream open(URL url) throws IOException {
        URLConnection c = url.openConnection();
        c.setUseCaches(false);
        return c.getInputStream();
    }

    private static boolean matches(Path file, Expected expected) throws IOException {
        if (Files.size(file) != expected.size()) {
            return false;
        }
        try (InputStream in = Files.newInputStream(file)) {
            return copy(in, OutputStream.nullOutputStream()).equals(expected);
        }
    }

    /** Removes the copies of other driver builds (left by an upgrade); a copy in use elsewhere stays mapped. */
    private static void removeOthers(Path dir, Path keep) {
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "sqlite-jdbc-*")) {
            for (Path other : s) {
                if (other.equals(keep) || !Files.isDirectory(other, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                try (DirectoryStream<Path> files = Files.newDirectoryStream(other)) {
                    for (Path f : files) {
                        Files.deleteIfExists(f);
                    }
                }
                Files.deleteIfExists(other);
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "cannot remove old SQLite native libraries: {0}", e.getMessage());
        }
    }
}
