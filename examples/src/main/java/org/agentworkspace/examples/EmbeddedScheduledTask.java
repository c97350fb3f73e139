package org.agentworkspace.examples;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.agentworkspace.api.User;
import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.core.EngineConfig;
import org.agentworkspace.core.WorkspaceEngine;
import org.agentworkspace.core.agent.AgentRunService;
import org.agentworkspace.core.agent.AgentSettings;
import org.agentworkspace.core.agent.RunSummary;
import org.agentworkspace.core.runs.RunPage;
import org.agentworkspace.core.runs.RunRecord;
import org.agentworkspace.core.tasks.AutomationTask;
import org.agentworkspace.core.tasks.Schedule;
import org.agentworkspace.core.tasks.Tasks;

/**
 * A scheduled task run by an embedded engine, without the HTTP server: the engine's {@link AgentRunService} owns the
 * scheduler and its launcher, so a plain JVM program registers a project, creates a task for an account, starts the
 * scheduler and finds the task's run among that account's runs (a query on the run's typed owner and task columns).
 *
 * <p>The provider CLI is found in {@code cliFolder} (any folder holding a {@code claude} executable); its credential is
 * given in code here, where a service would take the stored one.
 */
public final class EmbeddedScheduledTask {
    private EmbeddedScheduledTask() {
    }

    /** The task, its run as its owner lists it, and the run's summary (stored outcome and the end of its log). */
    public record Result(AutomationTask task, RunRecord run, RunSummary summary) {
    }

    public static Result run(Path dataDir, Path projectDir, Path cliFolder, Duration wait) throws InterruptedException {
        EngineConfig config = EngineConfig.create(dataDir)
                .withAccess(EngineConfig.Access.defaults().withProjectRoots(List.of(projectDir.getParent())));
        try (WorkspaceEngine engine = WorkspaceEngine.open(config)) {
            User owner = engine.auth().accounts().needsSetup()
                    ? engine.auth().accounts().registerFirstUser("owner", "change-me-please")
                    : engine.auth().accounts().list().getFirst();
            String project = engine.projects().quickStart(projectDir.toString()).name();
            AgentRunService runs = engine.agentRuns(AgentSettings.defaults()
                    .withBinaries(Map.of("*", cliFolder))
                    .withCredentials(provider -> new ProviderCredentials("sk-example-key", null)));
            Tasks tasks = engine.tasks();
            AutomationTask task = tasks.create(owner.id(), new Tasks.NewTask("nightly summary",
                    "Summarise what changed", AgentRunService.DEFAULT_PROVIDER, null, project,
                    new Schedule.Once(Instant.now()), null));
            runs.startScheduler();

            long deadline = System.nanoTime() + wait.toNanos();
            while (System.nanoTime() < deadline) {
                // the owner's runs of this task, newest first: SQL on the typed columns, no log is read
                List<RunRecord> page = runs.page(owner, RunPage.Query.newest(10).withTask(task.id())).runs();
                if (!page.isEmpty() && page.getFirst().info().status().terminal()) {
                    RunRecord run = page.getFirst();
                    return new Result(tasks.find(task.id()).orElseThrow(), run, runs.summary(run));
                }
                Thread.sleep(50);
            }
            throw new IllegalStateException("the task's run did not end within " + wait);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Result r = run(Path.of(args[0]), Path.of(args[1]), Path.of(args[2]), Duration.ofMinutes(5));
        System.out.println("task " + r.task().id() + " ran " + r.run().info().id() + ": "
                + r.run().info().status().wireName() + ", " + r.summary().text());
    }
}
