package org.agentworkspace.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.agentworkspace.core.runs.RunStatus;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedScheduledTaskTest {
    @TempDir
    Path tmp;

    @Test
    void anEmbeddedEngineRunsAScheduledTaskAsItsOwner() throws Exception {
        Path bin = FakeClis.install(tmp.resolve("bin"), List.of("claude"));
        Path project = Files.createDirectories(tmp.resolve("projects").resolve("site"));
        EmbeddedScheduledTask.Result r = EmbeddedScheduledTask.run(tmp.resolve("data"), project, bin,
                Duration.ofMinutes(2));
        assertEquals(RunStatus.SUCCEEDED, r.run().info().status(), r.run().toString());
        assertEquals(r.task().id(), r.run().owner().taskId());
        assertEquals("task", r.run().owner().origin());
        assertEquals(r.task().userId(), r.run().owner().accountId());
        assertNotNull(r.summary().sessionId(), "the fake claude reports its session");
        assertFalse(r.summary().text() == null || r.summary().text().isBlank(), r.summary().toString());
        assertEquals("completed", r.task().status().wireName(), "a one-time task is completed by its run");
    }
}
