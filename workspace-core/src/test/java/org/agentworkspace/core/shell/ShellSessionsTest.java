package org.agentworkspace.core.shell;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.AgentProviders;
import org.agentworkspace.api.provider.BinaryLocator;
import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.WorkspaceEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Real terminals running real bash: output, kill of the whole tree, caps, reaping, environment. */
class ShellSessionsTest {
    WorkspaceEngine engine;
    ShellSessions shells;
    String project;

    @BeforeEach
    void setUp() throws Exception {
        Path dir = Files.createTempDirectory("aw-shell-");
        // the project lies in the temporary folder, outside the home (the default root)
        engine = WorkspaceEngine.open(EngineConfig.create(dir.resolve("data")).withAccess(
                EngineConfig.Access.defaults().withProjectRoots(List.of(dir))));
        Files.createDirectories(dir.resolve("proj"));
        project = engine.projects().quickStart(dir.resolve("proj").toString()).name();
        shells = ShellSessions.create(ShellSettings.defaults().withMaxPerUser(2).withTimeouts(Duration.ofMillis(300),
                        Duration.ofMinutes(5), Duration.ofHours(1)), engine.projects(), AgentProviders.of(List.of()),
                BinaryLocator.create(dir.resolve("data"), null, null),
                Map.of("PATH", System.getenv("PATH"), "HOME", dir.toString(), "AW_SECRET", "do-not-leak"));
    }

    @AfterEach
    void tearDown() {
        shells.close();
        engine.close();
    }

    /** Collects output until it contains {@code marker}. */
    static final class Collector implements ShellListener {
        final StringBuilder out = new StringBuilder();
        final CompletableFuture<Integer> exit = new CompletableFuture<>();
        long offset;

        @Override
        public synchronized void onOutput(String data, long offset) {
            out.append(data);
            this.offset = offset;
            notifyAll();
        }

        @Override
        public void onExit(int exitCode) {
            exit.complete(exitCode);
        }

        synchronized String await(String marker) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (!out.toString().contains(marker)) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    throw new AssertionError("no " + marker + " in: " + out);
                }
                wait(left);
            }
            return out.toString();
        }
    }

    @Test
    void runsInTheProjectWithAMinimalEnvironmentAndKillsTheWholeTree() throws Exception {
        ShellSession s = shells.open("u1", project, 80, 24, null);
        Collector c = new Collector();
        s.attach(0, c);
        s.write("sleep 300 & echo \"pwd=$(pwd) term=$TERM secret=[${AW_SECRET}]\"; echo MARK$((40+2))\n");
        String out = c.await("MARK42");
        assertTrue(out.contains("pwd=" + s.cwd() + " term=xterm-256color secret=[]"), out);
        List<ProcessHandle> tree = ProcessHandle.of(s.pid()).orElseThrow().descendants().toList();
        assertFalse(tree.isEmpty(), "the background sleep is a descendant");
        assertTrue(shells.close(s));
        assertFalse(ProcessHandle.of(s.pid()).map(ProcessHandle::isAlive).orElse(false));
        for (ProcessHandle h : tree) {
            assertFalse(h.isAlive(), "descendant " + h.pid() + " still alive");
        }
        assertTrue(shells.find("u1", s.id()).isEmpty());
    }

    @Test
    void theExitCodeIsReportedAndReattachReplaysWhatWasMissed() throws Exception {
        ShellSession s = shells.open("u1", project, 80, 24, null);
        Collector first = new Collector();
        s.attach(0, first);
        s.write("echo ONE$((1))\n");
        first.await("ONE1");
        long seen = first.offset;
        s.detach(first);
        s.write("echo TWO$((2)); exit 3\n");
        assertEquals(3, awaitExit(s));
        Collector second = new Collector();
        ShellSession.Attachment a = s.attach(seen, second);
        assertEquals(seen, a.replayFrom());
        assertFalse(a.truncated());
        assertTrue(a.replay().contains("TWO2") && !a.replay().contains("ONE1"), a.replay());
        assertEquals(3, a.exitCode().orElseThrow());
        assertTrue(shells.find("u2", s.id()).isEmpty(), "another user's terminal is not found");
    }

    @Test
    void capsPerUserAndReapsDetachedTerminals() throws Exception {
        ShellSession a = shells.open("u1", project, 80, 24, null);
        shells.open("u1", project, 80, 24, null);
        assertThrows(WorkspaceException.RateLimited.class, () -> shells.open("u1", project, 80, 24, null));
        ShellSession other = shells.open("u2", project, 80, 24, null);
        other.attach(0, new Collector());
        Thread.sleep(400);
        assertEquals(2, shells.reap(), "the two detached terminals of u1");
        assertFalse(ProcessHandle.of(a.pid()).map(ProcessHandle::isAlive).orElse(false));
        assertTrue(shells.find("u2", other.id()).isPresent(), "an attached one stays");
        assertThrows(WorkspaceException.NotFound.class, () -> shells.open("u1", "no-such-project", 80, 24, null));
        assertThrows(WorkspaceException.Validation.class, () -> shells.open("u1", project, 80, 24, "nope"));
    }

    @Test
    void anIdleTerminalIsReapedEvenWhileAttached() throws Exception {
        try (ShellSessions idle = ShellSessions.create(ShellSettings.defaults().withTimeouts(Duration.ofHours(1),
                        Duration.ofMillis(600), Duration.ofHours(1)), engine.projects(), AgentProviders.of(List.of()),
                BinaryLocator.create(engine.config().dataDir(), null, null), Map.of("PATH", System.getenv("PATH")))) {
            ShellSession s = idle.open("u1", project, 80, 24, null);
            Collector c = new Collector();
            s.attach(0, c);
            s.write("echo READY$((1))\n");
            c.await("READY1");
            assertEquals(0, idle.reap(), "just active");
            Thread.sleep(1000);
            assertEquals(1, idle.reap());
            assertFalse(ProcessHandle.of(s.pid()).map(ProcessHandle::isAlive).orElse(false));
        }
    }

    @Test
    void theRingKeepsTheTailAndChunksEndOnCharacters() {
        OutputRing r = new OutputRing(8);
        r.append("abcdef".getBytes(StandardCharsets.UTF_8), 0, 6);
        r.append("ghij".getBytes(StandardCharsets.UTF_8), 0, 4);
        assertEquals(10, r.end());
        assertEquals(2, r.start());
        assertArrayEquals("cdefghij".getBytes(StandardCharsets.UTF_8), r.since(0));
        assertArrayEquals("ij".getBytes(StandardCharsets.UTF_8), r.since(8));
        assertEquals(0, r.since(10).length);
        r.append("0123456789AB".getBytes(StandardCharsets.UTF_8), 0, 12);
        assertArrayEquals("456789AB".getBytes(StandardCharsets.UTF_8), r.since(0));
        byte[] euro = "a€".getBytes(StandardCharsets.UTF_8);
        assertEquals(1, OutputRing.completeUtf8(euro, 3));
        assertEquals(4, OutputRing.completeUtf8(euro, 4));
        assertEquals(2, OutputRing.continuationPrefix(new byte[] {(byte) 0x82, (byte) 0xAC, 'x'}));
    }

    static int awaitExit(ShellSession s) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (s.exitCode().isEmpty()) {
            assertTrue(System.nanoTime() < deadline, "no exit");
            Thread.sleep(20);
        }
        return s.exitCode().get();
    }
}
