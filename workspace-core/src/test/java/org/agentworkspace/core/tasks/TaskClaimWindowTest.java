package org.agentworkspace.core.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.agentworkspace.api.User;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.WorkspaceEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The moment between claiming an occurrence and storing its run, as a client reading the task sees it: the task is
 * already {@code running} (the claim is what makes one node fire it) and its {@code activeRunId} is still null, as
 * docs/tasks.md and the OpenAPI document say. A client that follows the run waits for the id; reading it as text
 * while it is null gave the string "null" and a 404 (the intermittent TasksRoutesTest failure this test explains).
 */
class TaskClaimWindowTest {
    @TempDir
    Path tmp;

    @Test
    void aClaimedOccurrenceIsRunningWithoutARunUntilItsRunIsStored() throws Exception {
        try (WorkspaceEngine engine = WorkspaceEngine.open(EngineConfig.create(tmp.resolve("data")))) {
            User u = engine.auth().accounts().registerFirstUser("admin", "a long password");
            CountDownLatch inLaunch = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Tasks tasks = engine.tasks();
            tasks.start(engine.runs(), t -> {
                inLaunch.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw WorkspaceException.Validation.of("no run in this test");
            });
            AutomationTask t = tasks.create(u.id(), new Tasks.NewTask("window", "do it", "claude", null, "proj",
                    new Schedule.Once(Instant.now()), null));
            assertTrue(inLaunch.await(20, TimeUnit.SECONDS), "the scheduler fired the task");
            AutomationTask starting = tasks.find(t.id()).orElseThrow();
            assertEquals(TaskStatus.RUNNING, starting.status(), "claimed: running");
            assertNull(starting.activeRunId(), "no run stored yet");
            release.countDown();
            long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (tasks.find(t.id()).orElseThrow().status() == TaskStatus.RUNNING && System.nanoTime() < until) {
                Thread.sleep(20);
            }
            AutomationTask after = tasks.find(t.id()).orElseThrow();
            assertEquals(TaskStatus.FAILED, after.status(), "a run that could not start counts as a failed run");
            assertNull(after.activeRunId());
        }
    }
}
