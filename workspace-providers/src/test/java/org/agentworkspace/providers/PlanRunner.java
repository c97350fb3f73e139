package org.agentworkspace.providers;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.agentworkspace.api.provider.AgentEvent;
import org.agentworkspace.api.provider.LaunchPlan;
import org.agentworkspace.api.provider.StreamParser;

/**
 * Runs a {@link LaunchPlan} the way the engine's launcher is specified to (tests only): files first, then argv with
 * exactly the plan's environment, stdin on /dev/null, stdout parsed line by line.
 */
final class PlanRunner {

    record Run(int exitCode, List<String> stdoutLines, String stderr, List<AgentEvent> events, Duration took) {
        String text() {
            StringBuilder sb = new StringBuilder();
            events.forEach(e -> {
                if (e instanceof AgentEvent.Message m && m.role() == AgentEvent.Role.ASSISTANT) {
                    sb.append(m.text()).append('\n');
                }
            });
            return sb.toString();
        }

        AgentEvent.Completed completed() {
            return (AgentEvent.Completed) events.get(events.size() - 1);
        }

        <T extends AgentEvent> List<T> all(Class<T> type) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }

        String describe() {
            return "exit " + exitCode + "\nstdout:\n" + String.join("\n", stdoutLines) + "\nstderr:\n" + stderr
                    + "\nevents:\n" + EventLines.format(events);
        }
    }

    private PlanRunner() {
    }

    static Run run(LaunchPlan plan, StreamParser parser, Duration timeout) throws IOException, InterruptedException {
        for (Map.Entry<Path, String> f : plan.files().entrySet()) {
            Files.createDirectories(f.getKey().getParent());
            Files.writeString(f.getKey(), f.getValue(), StandardCharsets.UTF_8);
        }
        Path out = Files.createTempFile("aw-plan-out", ".txt");
        Path err = Files.createTempFile("aw-plan-err", ".txt");
        try {
            ProcessBuilder pb = new ProcessBuilder(plan.argv()).directory(plan.workingDir().toFile());
            pb.environment().clear();
            pb.environment().putAll(plan.env());
            if (plan.stdinNull()) {
                pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            }
            pb.redirectOutput(out.toFile()).redirectError(err.toFile());
            long t0 = System.nanoTime();
            Process p = pb.start();
            boolean done = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!done) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            int exit = done ? p.exitValue() : -1;
            List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
            List<AgentEvent> events = parser.parseAll(lines, exit);
            return new Run(exit, lines, Files.readString(err, StandardCharsets.UTF_8) + (done ? "" : "\n[killed]"),
                    events, took);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
