package org.agentworkspace.providers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.LaunchPlan;
import org.agentworkspace.api.provider.PermissionMode;
import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.api.provider.ProviderId;
import org.agentworkspace.api.provider.RunSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The child's environment: its own key and endpoint only, nothing else of the server's, telemetry switched off. */
class EnvTest {

    /** The server's environment: a few allow-listed variables and many secrets that must never reach a child. */
    static final Map<String, String> SERVER_ENV = new HashMap<>();

    static {
        SERVER_ENV.put("PATH", "/usr/local/bin:/usr/bin:/bin");
        SERVER_ENV.put("HOME", "/home/aw");
        SERVER_ENV.put("LANG", "C.UTF-8");
        SERVER_ENV.put("TERM", "xterm-256color");
        for (String k : List.of("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY",
                "OPENAI_BASE_URL", "CODEX_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL",
                "QWEN_API_KEY", "CURSOR_API_KEY", "GROK_API_KEY", "GROK_BASE_URL", "XAI_API_KEY",
                "OPENROUTER_API_KEY", "AW_OPENCODE_API_KEY", "OPENCODE_CONFIG_CONTENT", "AWS_SECRET_ACCESS_KEY",
                "DATABASE_URL", "AW_JWT_SECRET", "GITHUB_TOKEN", "NODE_OPTIONS", "LD_PRELOAD", "IS_SANDBOX")) {
            SERVER_ENV.put(k, "server-secret-" + k);
        }
    }

    /** Variables each adapter may set beyond the inherited and common ones (all of them, with key and URL). */
    static final Map<String, Set<String>> OWN = Map.of(
            "claude", Set.of("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
                    "DISABLE_TELEMETRY", "DISABLE_ERROR_REPORTING", "DISABLE_AUTOUPDATER", "DISABLE_BUG_COMMAND",
                    "CLAUDE_CODE_ENABLE_TELEMETRY", "CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL", "IS_SANDBOX"),
            "codex", Set.of("OPENAI_API_KEY"),
            "gemini", Set.of("GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL", "AW_GEMINI_AUTH_TYPE", "GEMINI_CLI_HOME",
                    "GEMINI_TELEMETRY_ENABLED", "GEMINI_CLI_TRUST_WORKSPACE", "GEMINI_CLI_NO_RELAUNCH"),
            "qwen", Set.of("OPENAI_API_KEY", "OPENAI_BASE_URL", "QWEN_CODE_SYSTEM_SETTINGS_PATH",
                    "QWEN_USAGE_STATISTICS_ENABLED", "QWEN_TELEMETRY_ENABLED", "QWEN_CODE_DISABLE_PRECONNECT",
                    "QWEN_CODE_NO_RELAUNCH", "QWEN_DISABLE_AUTO_TITLE", "QWEN_CODE_SUPPRESS_YOLO_WARNING"),
            "opencode", Set.of("AW_OPENCODE_API_KEY", "OPENCODE_CONFIG_CONTENT", "OPENCODE_DISABLE_AUTOUPDATE",
                    "OPENCODE_DISABLE_SHARE", "OPENCODE_DISABLE_LSP_DOWNLOAD", "OPENCODE_DISABLE_MODELS_FETCH"),
            "cursor", Set.of("CURSOR_API_KEY"),
            "grok", Set.of("GROK_API_KEY", "GROK_BASE_URL"));

    /** The variable that carries each provider's key. */
    static final Map<String, String> KEY_VARIABLE = Map.of("claude", "ANTHROPIC_API_KEY", "codex", "OPENAI_API_KEY",
            "gemini", "GEMINI_API_KEY", "qwen", "OPENAI_API_KEY", "opencode", "AW_OPENCODE_API_KEY", "cursor",
            "CURSOR_API_KEY", "grok", "GROK_API_KEY");

    static final Set<String> COMMON = Set.of("TERM", "NO_COLOR", "DO_NOT_TRACK", "NO_UPDATE_NOTIFIER");

    private static LaunchPlan planWithOwnKey(ProviderId id, PermissionMode mode, boolean root) {
        AgentProvider p = Plans.provider(id.wireId());
        String baseUrl = id == ProviderId.CURSOR ? null : "http://127.0.0.1:9/" + id.wireId();
        RunSpec spec = RunSpec.builder("hi", Plans.PROJECT)
                .model(id == ProviderId.OPENCODE ? "mock-model" : "some-model").permissionMode(mode)
                .credentials(new ProviderCredentials("key-for-" + id.wireId(), baseUrl)).build();
        LaunchContext ctx = new LaunchContext(Plans.DATA, SERVER_ENV, root);
        return p.plan(spec, Plans.BIN_DIR.resolve(p.binaryNames().get(0)), ctx);
    }

    private static String everything(LaunchPlan plan) {
        return plan.argv() + "\n" + plan.env() + "\n" + plan.files();
    }

    @ParameterizedTest
    @EnumSource(ProviderId.class)
    void nothingOfTheServersEnvironmentBeyondTheAllowList(ProviderId id) {
        for (PermissionMode mode : PermissionMode.values()) {
            LaunchPlan plan = planWithOwnKey(id, mode, true);
            assertFalse(everything(plan).contains("server-secret"), () -> id + " leaks: " + plan);
            Set<String> allowed = new TreeSet<>(LaunchContext.INHERITED_VARIABLES);
            allowed.addAll(COMMON);
            allowed.addAll(OWN.get(id.wireId()));
            Set<String> extra = new TreeSet<>(plan.env().keySet());
            extra.removeAll(allowed);
            assertEquals(Set.of(), extra, () -> id + " sets undeclared variables");
            assertEquals("dumb", plan.env().get("TERM"), "the server's TERM is not inherited");
            assertEquals("/home/aw", plan.env().get("HOME"));
            assertTrue(plan.env().get("PATH").startsWith(Plans.BIN_DIR + ":"), plan.env().get("PATH"));
        }
    }

    @ParameterizedTest
    @EnumSource(ProviderId.class)
    void ownKeyOnlyInItsVariableAndMarkedSecret(ProviderId id) {
        LaunchPlan plan = planWithOwnKey(id, PermissionMode.BYPASS, false);
        String var = KEY_VARIABLE.get(id.wireId());
        assertEquals("key-for-" + id.wireId(), plan.env().get(var));
        assertEquals(Set.of(var), plan.secretEnv());
        assertFalse(plan.argv().toString().contains("key-for-"), "never in argv (visible in ps)");
        assertFalse(plan.files().toString().contains("key-for-"), "never in a file");
        assertFalse(plan.toString().contains("key-for-"), "never in the plan's toString");
        for (ProviderId other : ProviderId.values()) {
            if (other != id) {
                assertFalse(everything(plan).contains("key-for-" + other.wireId()));
            }
        }
    }

    @Test
    void withoutCredentialsNoKeyVariableAtAll() {
        for (ProviderId id : ProviderId.values()) {
            RunSpec spec = RunSpec.builder("hi", Plans.PROJECT).build();
            AgentProvider p = Plans.provider(id.wireId());
            LaunchPlan plan = p.plan(spec, Plans.BIN_DIR.resolve(p.binaryNames().get(0)),
                    new LaunchContext(Plans.DATA, SERVER_ENV, false));
            assertTrue(plan.secretEnv().isEmpty(), id::toString);
            assertFalse(plan.env().containsKey(KEY_VARIABLE.get(id.wireId())), id::toString);
        }
    }

    @Test
    void telemetryAndAutoUpdateAreOff() {
        Map<String, LaunchPlan> plans = new HashMap<>();
        for (ProviderId id : ProviderId.values()) {
            LaunchPlan plan = planWithOwnKey(id, PermissionMode.DEFAULT, false);
            plans.put(id.wireId(), plan);
            assertEquals("1", plan.env().get("DO_NOT_TRACK"));
            assertEquals("1", plan.env().get("NO_UPDATE_NOTIFIER"));
        }
        Map<String, String> claude = plans.get("claude").env();
        assertEquals("1", claude.get("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"));
        assertEquals("1", claude.get("DISABLE_TELEMETRY"));
        assertEquals("1", claude.get("DISABLE_AUTOUPDATER"));
        assertEquals("1", claude.get("DISABLE_ERROR_REPORTING"));

        List<String> codex = plans.get("codex").argv();
        for (String off : List.of("analytics.enabled=false", "feedback.enabled=false", "features.plugins=false",
                "otel.exporter=\"none\"", "check_for_update_on_startup=false")) {
            assertEquals("-c", codex.get(codex.indexOf(off) - 1), off);
        }

        LaunchPlan gemini = plans.get("gemini");
        assertEquals("false", gemini.env().get("GEMINI_TELEMETRY_ENABLED"));
        Path geminiHome = Plans.DATA.resolve("providers/gemini");
        assertEquals(geminiHome.toString(), gemini.env().get("GEMINI_CLI_HOME"));
        String settings = gemini.files().get(geminiHome.resolve(".gemini/settings.json"));
        assertTrue(settings.contains("\"usageStatisticsEnabled\": false"), settings);
        assertTrue(settings.contains("\"enableAutoUpdate\": false"), settings);
        assertTrue(settings.contains("\"telemetry\": {\"enabled\": false}"), settings);
        assertEquals("gemini-api-key", gemini.env().get("AW_GEMINI_AUTH_TYPE"));

        LaunchPlan qwen = plans.get("qwen");
        assertEquals("false", qwen.env().get("QWEN_USAGE_STATISTICS_ENABLED"));
        assertEquals("false", qwen.env().get("QWEN_TELEMETRY_ENABLED"));
        String qwenSettings = qwen.files().get(Path.of(qwen.env().get("QWEN_CODE_SYSTEM_SETTINGS_PATH")));
        assertTrue(qwenSettings.contains("\"enableAutoUpdate\": false"), qwenSettings);
        assertTrue(qwenSettings.contains("\"enableManagedAutoMemory\": false"), qwenSettings);

        Map<String, String> opencode = plans.get("opencode").env();
        assertEquals("1", opencode.get("OPENCODE_DISABLE_AUTOUPDATE"));
        assertEquals("1", opencode.get("OPENCODE_DISABLE_SHARE"));
        assertTrue(opencode.get("OPENCODE_CONFIG_CONTENT").contains("\"autoupdate\":false"));
        assertTrue(opencode.get("OPENCODE_CONFIG_CONTENT").contains("\"share\":\"disabled\""));
    }

    @Test
    void opencodeGetsItsKeyThroughAnEnvReferenceNotInTheConfig() {
        LaunchPlan plan = planWithOwnKey(ProviderId.OPENCODE, PermissionMode.ACCEPT_EDITS, false);
        String cfg = plan.env().get("OPENCODE_CONFIG_CONTENT");
        assertEquals("{\"autoupdate\":false,\"share\":\"disabled\",\"provider\":{\"aw\":{\"npm\":"
                + "\"@ai-sdk/openai-compatible\",\"name\":\"aw\",\"models\":{\"mock-model\":{}},\"options\":{\"baseURL\":"
                + "\"http://127.0.0.1:9/opencode\",\"apiKey\":\"{env:AW_OPENCODE_API_KEY}\"}}},\"model\":"
                + "\"aw/mock-model\",\"small_model\":\"aw/mock-model\",\"permission\":{\"edit\":\"allow\"}}", cfg);
    }

    @Test
    void extraEnvironmentWinsAndIsTheCallersChoice() {
        AgentProvider p = Plans.provider("claude");
        RunSpec spec = RunSpec.builder("hi", Plans.PROJECT).extraEnv("CLAUDE_CODE_MAX_RETRIES", "1")
                .extraEnv("HOME", "/isolated/home").build();
        LaunchPlan plan = p.plan(spec, Plans.BIN_DIR.resolve("claude"), Plans.CTX);
        assertEquals("1", plan.env().get("CLAUDE_CODE_MAX_RETRIES"));
        assertEquals("/isolated/home", plan.env().get("HOME"));
    }
}
