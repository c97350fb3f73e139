package org.agentworkspace.core.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.agentworkspace.api.User;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.WorkspaceEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The task scheduler is supervised (issue 18, point 2): an error that escapes its loop (here a launcher that throws
 * {@link StackOverflowError}) no longer ends the thread silently. It is restarted, counted and its cause kept for
 * {@code GET /api/automation/status}; when it keeps failing it gives up and says so ({@code schedulerHealthy} false,
 * which the server's watchdog turns into an exit for the launcher to restart the process). Real engine on SQLite.
 */
class SchedulerSupervisionTest {
    @TempDir
    Path tmp;

    private static void await(BooleanSupplier condition, Duration within, String what) throws InterruptedException {
        long until = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("not within " + within + ": " + what);
            }
            Thread.sleep(50);
        }
    }

    private static Tasks.NewTask dueNow(String name) {
        return new Tasks.NewTask(name, "do it", "claude", null, "proj", new Schedule.Once(Instant.now()), null);
    }

    @Test
    void anErrorInTheSchedulerRestartsItAndIsReported() throws Exception {
        try (WorkspaceEngine engine = WorkspaceEngine.open(EngineConfig.create(tmp.resolve("data")))) {
            User u = engine.auth().accounts().registerFirstUser("admin", "a long password");
            AtomicInteger calls = new AtomicInteger();
            Tasks tasks = engine.tasks();
            tasks.start(engine.runs(), t -> {
                if (calls.incrementAndGet() <= 2) {
                    throw new StackOverflowError("deep");
                }
                throw WorkspaceException.Validation.of("no run in this test");
            });
            AutomationTask t = tasks.create(u.id(), dueNow("boom"));
            await(() -> tasks.find(t.id()).orElseThrow().status() == TaskStatus.FAILED, Duration.ofSeconds(20),
                    "the task fired a third time after two scheduler restarts");
            assertEquals(2, tasks.schedulerRestarts());
            assertTrue(tasks.schedulerRunning(), "the scheduler runs again");
            assertTrue(tasks.schedulerHealthy());
            assertTrue(tasks.schedulerLastError().orElse("").contains("StackOverflowError"),
                    tasks.schedulerLastError().toString());
        }
    }

    @Test
    void aSchedulerThatKeepsFailingGivesUpAndSaysSo() throws Exception {
        try (WorkspaceEngine engine = WorkspaceEngine.open(EngineConfig.create(tmp.resolve("data")))) {
            User u = engine.auth().accounts().registerFirstUser("admin", "a long password");
            Tasks tasks = engine.tasks();
            tasks.start(engine.runs(), t -> {
                throw new StackOverflowError("always");
            });
            tasks.create(u.id(), dueNow("always"));
            await(() -> !tasks.schedulerHealthy(), Duration.ofSeconds(30), "the scheduler gave up");
            assertFalse(tasks.schedulerRunning());
            assertEquals(Tasks.MAX_RESTARTS, tasks.schedulerRestarts());
        }
    }
}
