package org.agentworkspace.core.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The driver's native library is copied once into a private directory and checked before every use: a truncated or
 * foreign file is replaced, never handed to the driver; copies of other driver builds go; unknown platforms are
 * left to the driver.
 */
class SqliteNativeTest {
    @TempDir
    Path tmp;

    private static final Map<String, String> LINUX = Map.of("os.name", "Linux", "os.arch", "amd64",
            "java.runtime.name", "OpenJDK Runtime Environment");

    @Test
    void copiesTheLibraryOnceAndReusesTheVerifiedCopy() throws Exception {
        SqliteNative.Platform platform = thisPlatform();
        Path lib = SqliteNative.extract(tmp.resolve("native"), platform).orElseThrow();
        assertArrayEquals(resource(platform), Files.readAllBytes(lib));
        assertTrue(lib.getParent().getFileName().toString().startsWith("sqlite-jdbc-"), lib.toString());
        assertEquals(PosixFilePermissions.fromString("rwx------"), Files.getPosixFilePermissions(lib.getParent()));
        assertEquals(PosixFilePermissions.fromString("r-x------"), Files.getPosixFilePermissions(lib));

        FileTime written = FileTime.fromMillis(1_000_000L);
        Files.setLastModifiedTime(lib, written);
        assertEquals(lib, SqliteNative.extract(tmp.resolve("native"), platform).orElseThrow());
        assertEquals(written, Files.getLastModifiedTime(lib), "a verified copy is not written again");
        try (var files = Files.list(lib.getParent())) {
            assertEquals(1, files.count(), "no temporary file left behind");
        }
    }

    @Test
    void aTruncatedOrForeignCopyIsReplaced() throws Exception {
        SqliteNative.Platform platform = thisPlatform();
        byte[] real = resource(platform);
        Path lib = SqliteNative.extract(tmp, platform).orElseThrow();

        Files.setPosixFilePermissions(lib, PosixFilePermissions.fromString("rw-------"));
        Files.write(lib, java.util.Arrays.copyOf(real, real.length / 2));
        assertEquals(lib, SqliteNative.extract(tmp, platform).orElseThrow());
        assertArrayEquals(real, Files.readAllBytes(lib), "truncated copy replaced");

        byte[] foreign = real.clone();
        foreign[foreign.length / 3] ^= 0x5a;
        Files.setPosixFilePermissions(lib, PosixFilePermissions.fromString("rw-------"));
        Files.write(lib, foreign);
        assertEquals(lib, SqliteNative.extract(tmp, platform).orElseThrow());
        assertArrayEquals(real, Files.readAllBytes(lib), "same-size foreign copy replaced");
    }

    @Test
    void copiesOfOtherDriverBuildsAreRemoved() throws Exception {
        Path old = Files.createDirectories(tmp.resolve("sqlite-jdbc-3.0.0.0-Linux-x86_64-00000000"));
        Files.writeString(old.resolve("libsqlitejdbc.so"), "old");
        Path unrelated = Files.createDirectories(tmp.resolve("something-else"));
        Path lib = SqliteNative.extract(tmp, thisPlatform()).orElseThrow();
        assertTrue(Files.exists(lib));
        assertFalse(Files.exists(old), "the old build's copy is gone");
        assertTrue(Files.exists(unrelated), "other folders are left alone");
    }

    @Test
    void aPlatformWithoutALibraryInTheJarIsLeftToTheDriver() throws Exception {
        assertEquals(Optional.empty(), SqliteNative.extract(tmp,
                new SqliteNative.Platform("Plan9", "x86_64", "libsqlitejdbc.so")));
    }

    @Test
    void recognisesOnlyPlatformsItIsSureOf() throws Exception {
        Path glibc = Files.writeString(tmp.resolve("maps-glibc"),
                "7f00-7f01 r-xp 00000000 08:01 1 /usr/lib/x86_64-linux-gnu/libc.so.6\n");
        Path musl = Files.writeString(tmp.resolve("maps-musl"), "7f00-7f01 r-xp 00000000 08:01 1 /lib/ld-musl-x86_64.so.1\n");
        assertEquals(Optional.of(new SqliteNative.Platform("Linux", "x86_64", "libsqlitejdbc.so")),
                SqliteNative.platform(LINUX, Map.of(), glibc));
        assertEquals(Optional.of(new SqliteNative.Platform("Linux-Musl", "x86_64", "libsqlitejdbc.so")),
                SqliteNative.platform(LINUX, Map.of(), musl));
        assertEquals(Optional.of(new SqliteNative.Platform("Linux", "aarch64", "libsqlitejdbc.so")),
                SqliteNative.platform(Map.of("os.name", "Linux", "os.arch", "aarch64"), Map.of(), glibc));
        assertEquals(Optional.of(new SqliteNative.Platform("Mac", "aarch64", "libsqlitejdbc.dylib")),
                SqliteNative.platform(Map.of("os.name", "Mac OS X", "os.arch", "aarch64"), Map.of(), glibc));
        assertEquals(Optional.of(new SqliteNative.Platform("Windows", "x86_64", "sqlitejdbc.dll")),
                SqliteNative.platform(Map.of("os.name", "Windows 11", "os.arch", "amd64"), Map.of(), glibc));

        assertEquals(Optional.empty(), SqliteNative.platform(Map.of("os.name", "Linux", "os.arch", "arm"), Map.of(),
                glibc), "32-bit ARM has several variants: the driver tells them apart");
        assertEquals(Optional.empty(), SqliteNative.platform(Map.of("os.name", "FreeBSD", "os.arch", "amd64"),
                Map.of(), glibc));
        assertEquals(Optional.empty(), SqliteNative.platform(Map.of("os.name", "Linux", "os.arch", "aarch64",
                "java.runtime.name", "Android Runtime"), Map.of(), glibc));
        assertEquals(Optional.empty(), SqliteNative.platform(LINUX, Map.of("PREFIX", "/data/data/com.termux/files/usr"),
                glibc), "Termux");
        assertEquals(Optional.empty(), SqliteNative.platform(LINUX, Map.of(), tmp.resolve("no-maps")),
                "no memory map: cannot tell glibc from musl");
    }

    /** This machine's platform (the tests run where the driver has a library). */
    private SqliteNative.Platform thisPlatform() {
        return SqliteNative.platform(Map.of("os.name", System.getProperty("os.name"), "os.arch",
                System.getProperty("os.arch"), "java.runtime.name", System.getProperty("java.runtime.name")),
                System.getenv(), Path.of("/proc/self/maps")).orElseThrow();
    }

    private static byte[] resource(SqliteNative.Platform platform) throws Exception {
        try (InputStream in = org.sqlite.SQLiteJDBCLoader.class.getResourceAsStream(platform.resource())) {
            return in.readAllBytes();
        }
    }
}
