package org.agentworkspace.providers;

import static org.agentworkspace.providers.Plans.plan;
import static org.agentworkspace.providers.Plans.spec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.LaunchPlan;
import org.agentworkspace.api.provider.PermissionMode;
import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.api.provider.ProviderId;
import org.agentworkspace.api.provider.RunSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The headless argv of every provider: new run, resume, model, each permission mode, and the prompt as data. */
class ArgvTest {

    private static final String EVIL = "--help -rf /";

    private static List<String> args(String id, RunSpec spec) {
        List<String> argv = plan(id, spec).argv();
        assertEquals(Plans.BIN_DIR.resolve(Plans.provider(id).binaryNames().get(0)).toString(), argv.get(0));
        return argv.subList(1, argv.size());
    }

    @ParameterizedTest
    @EnumSource(ProviderId.class)
    void thePromptIsAlwaysDataNeverAnOption(ProviderId id) {
        for (PermissionMode mode : PermissionMode.values()) {
            RunSpec.Builder b = spec(EVIL).permissionMode(mode).model(id == ProviderId.OPENCODE ? "a/b" : "m1");
            if (id != ProviderId.GROK) {
                b.resume("s-1");
            }
            List<String> argv = plan(id.wireId(), b.build()).argv();
            int last = argv.size() - 1;
            boolean afterDoubleDash = argv.get(last).equals(EVIL) && argv.get(last - 1).equals("--");
            boolean equalsForm = argv.get(last).equals("--prompt=" + EVIL);
            assertTrue(afterDoubleDash || equalsForm, () -> id + ": " + argv);
            assertEquals(1, argv.stream().filter(a -> a.contains(EVIL)).count(), () -> id + ": " + argv);
            assertEquals(afterDoubleDash ? 1 : 0, argv.stream().filter("--"::equals).count(), "one -- only");
            assertTrue(plan(id.wireId(), b.build()).stdinNull(), "stdin is /dev/null");
            assertEquals(Plans.PROJECT, plan(id.wireId(), b.build()).workingDir());
        }
    }

    @Test
    void claudeInteractiveAsksOverStdioAndTakesTheTurnOnStdin() throws Exception {
        var provider = Plans.provider("claude");
        var launch = provider.planInteractive(spec(EVIL).model("m1").resume("s-1").build(),
                Plans.BIN_DIR.resolve("claude"), Plans.CTX).orElseThrow();
        List<String> argv = launch.plan().argv();
        assertEquals(List.of("-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
                "--permission-prompt-tool", "stdio", "--model=m1", "--resume=s-1"), argv.subList(1, argv.size()));
        assertFalse(launch.plan().stdinNull(), "stdin stays a pipe");
        var turn = new com.fasterxml.jackson.databind.ObjectMapper().readTree(launch.firstInput());
        assertTrue(launch.firstInput().endsWith("\n") && launch.firstInput().indexOf('\n') == launch.firstInput().length() - 1);
        assertEquals("user", turn.path("type").asText());
        assertEquals(EVIL, turn.path("message").path("content").asText(), "the prompt is data on stdin");
        assertEquals(plan("claude", spec(EVIL).build()).env(), launch.plan().env(), "the same environment");
        for (PermissionMode mode : List.of(PermissionMode.ACCEPT_EDITS, PermissionMode.BYPASS)) {
            assertTrue(provider.planInteractive(spec("hi").permissionMode(mode).build(),
                    Plans.BIN_DIR.resolve("claude"), Plans.CTX).isEmpty(), "only default mode asks");
        }
        for (ProviderId other : ProviderId.values()) {
            if (other != ProviderId.CLAUDE) {
                assertTrue(Plans.provider(other.wireId()).planInteractive(spec("hi").build(),
                        Plans.BIN_DIR.resolve("x"), Plans.CTX).isEmpty(), other.wireId());
            }
        }
    }

    @Test
    void claude() {
        assertEquals(List.of("-p", "--output-format", "stream-json", "--verbose", "--", "hi"), args("claude",
                spec("hi").build()));
        assertEquals(List.of("-p", "--output-format", "stream-json", "--verbose", "--model=claude-sonnet-4-5",
                "--resume=f3d74db5-f17d", "--permission-mode=acceptEdits", "--", "hi"), args("claude", spec("hi")
                .model("claude-sonnet-4-5").resume("f3d74db5-f17d").permissionMode(PermissionMode.ACCEPT_EDITS)
                .build()));
        assertTrue(args("claude", spec("hi").permissionMode(PermissionMode.BYPASS).build())
                .contains("--permission-mode=bypassPermissions"));
    }

    @Test
    void claudeBypassAsRootAddsTheSandboxSwitchOnlyThen() {
        RunSpec bypass = spec("hi").permissionMode(PermissionMode.BYPASS).build();
        var claude = Plans.provider("claude");
        var bin = Plans.BIN_DIR.resolve("claude");
        assertEquals("1", claude.plan(bypass, bin, Plans.ROOT_CTX).env().get("IS_SANDBOX"));
        assertFalse(claude.plan(bypass, bin, Plans.CTX).env().containsKey("IS_SANDBOX"), "not needed as non-root");
        assertFalse(claude.plan(spec("hi").permissionMode(PermissionMode.ACCEPT_EDITS).build(), bin, Plans.ROOT_CTX)
                .env().containsKey("IS_SANDBOX"), "only for bypass");
    }

    @Test
    void codex() {
        List<String> telemetry = List.of("-c", "analytics.enabled=false", "-c", "feedback.enabled=false", "-c",
                "features.plugins=false", "-c", "otel.exporter=\"none\"", "-c", "check_for_update_on_startup=false");
        List<String> plain = new ArrayList<>(List.of("exec", "--json", "--skip-git-repo-check"));
        plain.addAll(telemetry);
        plain.addAll(List.of("--", "hi"));
        assertEquals(plain, args("codex", spec("hi").build()));

        List<String> resumed = new ArrayList<>(List.of("exec", "resume", "--json", "--skip-git-repo-check"));
        resumed.addAll(telemetry);
        resumed.addAll(List.of("-c", "model_provider=\"aw\"", "-c", "model_providers.aw.name=\"aw\"", "-c",
                "model_providers.aw.base_url=\"http://127.0.0.1:9/v1\"", "-c",
                "model_providers.aw.wire_api=\"responses\"", "-c", "model_providers.aw.env_key=\"OPENAI_API_KEY\"",
                "--model=gpt-5.5", "-c", "sandbox_mode=\"workspace-write\"", "-c", "approval_policy=\"never\"",
                "01a20073-299c", "--", "hi"));
        assertEquals(resumed, args("codex", spec("hi").model("gpt-5.5").resume("01a20073-299c")
                .permissionMode(PermissionMode.ACCEPT_EDITS)
                .credentials(new ProviderCredentials("sk-x", "http://127.0.0.1:9/v1")).build()));

        List<String> bypass = args("codex", spec("hi").permissionMode(PermissionMode.BYPASS)
                .credentials(ProviderCredentials.apiKey("sk-x")).build());
        assertTrue(bypass.contains("--dangerously-bypass-approvals-and-sandbox"), bypass::toString);
        assertTrue(bypass.contains("model_providers.aw.base_url=\"https://api.openai.com/v1\""), bypass::toString);
    }

    @Test
    void gemini() {
        assertEquals(List.of("-o", "stream-json", "--prompt=hi"), args("gemini", spec("hi").build()));
        assertEquals(List.of("-o", "stream-json", "--model=gemini-2.5-flash", "--resume=b091dc1a",
                "--approval-mode=auto_edit", "--prompt=hi"), args("gemini", spec("hi").model("gemini-2.5-flash")
                .resume("b091dc1a").permissionMode(PermissionMode.ACCEPT_EDITS).build()));
        assertTrue(args("gemini", spec("hi").permissionMode(PermissionMode.BYPASS).build())
                .contains("--approval-mode=yolo"));
    }

    @Test
    void qwen() {
        assertEquals(List.of("-o", "stream-json", "--prompt=hi"), args("qwen", spec("hi").build()));
        assertEquals(List.of("-o", "stream-json", "--auth-type=openai", "--model=qwen3-coder-plus", "--resume=a136",
                "--approval-mode=auto-edit", "--prompt=hi"), args("qwen", spec("hi").model("qwen3-coder-plus")
                .resume("a136").permissionMode(PermissionMode.ACCEPT_EDITS)
                .credentials(ProviderCredentials.apiKey("sk-q")).build()));
        assertTrue(args("qwen", spec("hi").permissionMode(PermissionMode.BYPASS).build())
                .contains("--approval-mode=yolo"));
    }

    @Test
    void opencode() {
        assertEquals(List.of("run", "--format", "json", "--", "hi"), args("opencode", spec("hi").build()));
        assertEquals(List.of("run", "--format", "json", "--model=anthropic/claude-sonnet-4-5", "--session=ses_abc",
                "--auto", "--", "hi"), args("opencode", spec("hi").model("anthropic/claude-sonnet-4-5")
                .resume("ses_abc").permissionMode(PermissionMode.BYPASS).build()));
        assertEquals(List.of("run", "--format", "json", "--model=aw/mock-model", "--", "hi"), args("opencode",
                spec("hi").model("mock-model").credentials(new ProviderCredentials("k", "http://127.0.0.1:9/v1"))
                        .build()), "a bare model with a base URL goes to the custom vendor");
        assertThrows(WorkspaceException.Validation.class, () -> plan("opencode", spec("hi").model("gpt-5").build()));
        assertThrows(WorkspaceException.Validation.class, () -> plan("opencode", spec("hi")
                .credentials(new ProviderCredentials("k", "http://127.0.0.1:9/v1")).build()));
    }

    @Test
    void cursor() {
        assertEquals(List.of("-p", "--output-format", "stream-json", "--trust", "--", "hi"), args("cursor",
                spec("hi").build()));
        assertEquals(List.of("-p", "--output-format", "stream-json", "--model=gpt-5", "--resume=4f0c", "--force",
                "--trust", "--", "hi"), args("cursor", spec("hi").model("gpt-5").resume("4f0c")
                .permissionMode(PermissionMode.BYPASS).build()));
        assertThrows(WorkspaceException.Validation.class, () -> plan("cursor", spec("hi")
                .credentials(new ProviderCredentials("k", "https://example.com")).build()),
                "no endpoint override: refused, not ignored");
    }

    @Test
    void grokHasNoSessionsAndNoPermissionSwitch() {
        assertEquals(List.of("--prompt=hi"), args("grok", spec("hi").build()));
        assertEquals(List.of("--model=grok-code-fast-1", "--prompt=hi"), args("grok", spec("hi")
                .model("grok-code-fast-1").permissionMode(PermissionMode.BYPASS).build()));
        WorkspaceException.Validation e = assertThrows(WorkspaceException.Validation.class,
                () -> plan("grok", spec("hi").resume("s-1").build()));
        assertTrue(e.getMessage().contains("no sessions"), e.getMessage());
        assertFalse(Plans.provider("grok").supportsResume());
    }
}
