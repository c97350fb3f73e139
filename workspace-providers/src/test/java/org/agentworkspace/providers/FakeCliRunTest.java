package org.agentworkspace.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.agentworkspace.api.provider.AgentEvent;
import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.BinaryLocator;
import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.LaunchPlan;
import org.agentworkspace.api.provider.PermissionMode;
import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.api.provider.ProviderId;
import org.agentworkspace.api.provider.RunSpec;
import org.agentworkspace.providers.common.Json;
import org.agentworkspace.testkit.fakecli.FakeClis;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Our plans run as real processes against the testkit's fake CLIs (POSIX sh scripts replaying the recordings): the
 * binary is found on PATH, the fake receives exactly our argv and environment, and its output parses.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FakeCliRunTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    @TempDir
    static Path tmp;
    private Path fakeBin;

    @BeforeAll
    void installFakes() {
        fakeBin = FakeClis.install(tmp.resolve("fake-bin"));
    }

    private LaunchContext ctx() {
        return new LaunchContext(tmp.resolve("data"), Map.of("PATH", fakeBin + ":/usr/bin:/bin", "HOME",
                tmp.resolve("home").toString(), "OPENAI_API_KEY", "server-secret"), false);
    }

    private PlanRunner.Run run(ProviderId id, RunSpec.Builder spec, String name) throws Exception {
        AgentProvider p = Plans.provider(id.wireId());
        LaunchContext ctx = ctx();
        Path binary = p.resolveBinary(BinaryLocator.create(ctx.dataDir(), ctx.baseEnv().get("PATH"), null))
                .orElseThrow(() -> new AssertionError("fake " + id + " not found on PATH"));
        assertEquals(FakeClis.binary(fakeBin, id.wireId()).toAbsolutePath(), binary);
        Path project = tmp.resolve(id + "-" + name);
        Files.createDirectories(project);
        Path argsFile = tmp.resolve(id + "-" + name + ".args");
        Set<String> probe = new TreeSet<>(EnvTest.KEY_VARIABLE.values());
        probe.add("OPENAI_BASE_URL");
        probe.add("ANTHROPIC_BASE_URL");
        RunSpec built = spec.extraEnv("AW_FAKE_ARGS_FILE", argsFile.toString())
                .extraEnv("AW_FAKE_ECHO_ENV", String.join(",", probe)).build();
        RunSpec inProject = new RunSpec(built.prompt(), project, built.model(), built.permissionMode(),
                built.resumeSessionId(), built.credentials(), built.extraEnv());
        LaunchPlan plan = p.plan(inProject, binary, ctx);
        PlanRunner.Run r = PlanRunner.run(plan, p.newParser(), TIMEOUT);
        assertEquals(plan.argv().subList(1, plan.argv().size()), Files.readAllLines(argsFile),
                "the fake received exactly our argv");
        JsonNode echo = Json.parse(r.stdoutLines().get(0));
        List<String> set = new ArrayList<>();
        echo.path("set").forEach(n -> set.add(n.asText()));
        String ownKey = EnvTest.KEY_VARIABLE.get(id.wireId());
        if (built.credentials().hasApiKey()) {
            assertTrue(set.contains(ownKey), () -> id + " did not get " + ownKey + ": " + echo);
        }
        for (String v : set) {
            assertTrue(plan.env().containsKey(v), v);
            assertFalse(plan.env().get(v).contains("server-secret"), v);
        }
        assertTrue(r.events().get(0) instanceof AgentEvent.Unrecognized, "the fake's env probe line is kept");
        return r;
    }

    private static RunSpec.Builder spec(ProviderId id, String prompt) {
        String url = id == ProviderId.CURSOR ? null : "http://127.0.0.1:9/v1";
        return RunSpec.builder(prompt, Path.of("/unused")).model(id == ProviderId.OPENCODE ? "mock-model" : null)
                .credentials(new ProviderCredentials("key-for-" + id.wireId(), url));
    }

    @ParameterizedTest
    @EnumSource(ProviderId.class)
    void plainRun(ProviderId id) throws Exception {
        PlanRunner.Run r = run(id, spec(id, "--help Say hello"), "plain");
        assertEquals(0, r.exitCode(), r::describe);
        AgentEvent.Completed done = r.completed();
        assertTrue(done.success(), r::describe);
        assertTrue(r.text().contains("MOCK-REPLY: "), r::describe);
        if (id != ProviderId.GROK) {
            assertEquals(1, r.all(AgentEvent.SessionStarted.class).size(), r::describe);
            assertEquals(r.all(AgentEvent.SessionStarted.class).get(0).sessionId(), done.sessionId());
        }
    }

    @ParameterizedTest
    @EnumSource(ProviderId.class)
    void toolRun(ProviderId id) throws Exception {
        PlanRunner.Run r = run(id, spec(id, "Create [[mock:tool:write_file path=hello.txt content=x]]")
                .permissionMode(PermissionMode.BYPASS), "tool");
        assertTrue(r.completed().success(), r::describe);
        assertTrue(r.all(AgentEvent.ToolCall.class).stream()
                .anyMatch(c -> c.name().equals(RecordedStreamsTest.WRITE_TOOL.get(id.wireId()))), r::describe);
    }

    @ParameterizedTest
    @EnumSource(value = ProviderId.class, names = "GROK", mode = EnumSource.Mode.EXCLUDE)
    void resumedRunKeepsTheGivenSession(ProviderId id) throws Exception {
        PlanRunner.Run r = run(id, spec(id, "And now a second turn").resume("given-session-42"), "resume");
        assertTrue(r.completed().success(), r::describe);
        assertEquals("given-session-42", r.completed().sessionId(), r::describe);
    }

    @ParameterizedTest
    @EnumSource(ProviderId.class)
    void aFailingExitIsAFailedCompletion(ProviderId id) throws Exception {
        PlanRunner.Run r = run(id, spec(id, "hi").extraEnv("AW_FAKE_EXIT", "3"), "fail");
        assertEquals(3, r.exitCode());
        assertFalse(r.completed().success(), r::describe);
        assertTrue(r.all(AgentEvent.Error.class).stream().anyMatch(e -> e.code().equals("exit_status")),
                r::describe);
    }

    @ParameterizedTest
    @EnumSource(ProviderId.class)
    void manyEventsStreamThrough(ProviderId id) throws Exception {
        PlanRunner.Run r = run(id, spec(id, "hi").extraEnv("AW_FAKE_EVENTS", "2000"), "many");
        assertTrue(r.completed().success(), r::describe);
        long text = r.events().stream().filter(e -> e instanceof AgentEvent.TextDelta
                || e instanceof AgentEvent.Message m && m.role() == AgentEvent.Role.ASSISTANT).count();
        assertTrue(text >= 2000, () -> id + ": only " + text + " text events");
        assertTrue(r.all(AgentEvent.Unrecognized.class).size() <= 3, () -> id + " left lines unmapped: "
                + r.all(AgentEvent.Unrecognized.class).stream().limit(3).toList());
    }
}
