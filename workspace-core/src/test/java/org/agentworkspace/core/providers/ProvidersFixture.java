package org.agentworkspace.core.providers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.WorkspaceEngine;
import org.agentworkspace.testkit.fakecli.FakeNpm;

/**
 * An engine on a temporary data directory whose provider management sees a temporary HOME (never the real one) and
 * a PATH of our choosing.
 */
final class ProvidersFixture implements AutoCloseable {
    final Path root;
    final Path home;
    final Path dataDir;
    final Path bin;
    final MutableClock clock = new MutableClock(Instant.parse("2026-11-01T10:00:00Z"));
    final Map<String, String> env = new LinkedHashMap<>();
    private WorkspaceEngine engine;

    ProvidersFixture() {
        try {
            root = Files.createTempDirectory("aw-providers-");
            home = Files.createDirectories(root.resolve("home"));
            dataDir = root.resolve("data");
            bin = Files.createDirectories(root.resolve("bin"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        env.put("HOME", home.toString());
        env.put("PATH", bin + ":/usr/bin:/bin");
        env.put("LANG", "C.UTF-8");
    }

    WorkspaceEngine engine() {
        if (engine == null) {
            // the projects the tests register lie in the temporary folder, outside the home (the default root)
            engine = WorkspaceEngine.open(EngineConfig.create(dataDir).withClock(clock).withAccess(
                    EngineConfig.Access.defaults().withProjectRoots(java.util.List.of(root))), env);
        }
        return engine;
    }

    ProviderManagement pm() {
        return engine().providers();
    }

    /** Installs the testkit's fake npm (and node) into {@link #bin}. */
    void installFakeNpm(boolean withNode) {
        FakeNpm.install(bin, withNode);
    }

    static void write(Path file, String content) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, content, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        if (engine != null) {
            engine.close();
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort
        }
    }

    /** A clock tests can move forward. */
    static final class MutableClock extends Clock {
        private volatile Instant now;

        MutableClock(Instant start) {
            this.now = start;
        }

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public ZoneId getZone() {
            return ZoneId.of("UTC");
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
